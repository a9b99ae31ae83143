/** The public types of blogcore/sync. */
import type { BlogService } from '../service/types.js';
import type { RemoteOptions } from './remote.js';

/**
 * The options of `createReplica`: which local service holds the copy, which server and blog it copies. (Not to be
 * confused with `blogcore/postgres`'s `ReadReplicaOptions`, where a driver's reads go.)
 */
export interface ReplicaOptions {
  /** The local service the app reads and writes (any driver; usually `idbDriver`). Use the host service, not one from `as()`. */
  local: BlogService;
  /** The server: its API root (e.g. `https://blog.example/v3`), headers sent with every request (a function is asked each time), and a `fetch`. */
  remote: RemoteOptions;
  /** The blog to keep a copy of: its id on the server (the local copy keeps the same id). */
  blogId: string;
  /** Items per pull page (default 500, the most the server gives). */
  maxResults?: number;
  /** Seconds a `live()` pull waits on the server for a change (default 30, at most 60). */
  wait?: number;
  /** Called after every round of `live()` (and every `sync()`) that pulled, pushed or found conflicts. */
  onSync?: (result: SyncResult) => void;
  /** Called when a round of `live()` fails (offline, server down); `live()` tries again with a growing pause. */
  onError?: (error: unknown) => void;
  /** Pictures downloaded at once in the background (default 4). */
  downloads?: number;
}

/** Where the background download of pictures stands (`replica.downloads()`). */
export interface Downloads {
  /** Pictures whose bytes this pass stored here. */
  readonly fetched: number;
  /** Pictures the local posts and pages use whose bytes are not here yet (the next sync tries again). */
  readonly waiting: number;
}

export interface SyncResult {
  /** Items of the server applied locally (created, changed or removed). */
  pulled: number;
  /** Local records sent to the server. */
  pushed: number;
  /** Conflicts this round found (see `conflicts()` for all that are open). */
  conflicts: number;
}

/** What a replica sends: posts, pages, comments, and pictures (`media`: a `service.media` upload, patch or delete). */
export type SyncKind = 'post' | 'page' | 'comment' | 'media';

/** A local write waiting to be sent. */
export interface PendingChange {
  readonly kind: SyncKind;
  /**
   * The local id (a record made here keeps its local id until its create is answered). A picture's is its
   * media id, the SHA-256 of its bytes, here and on the server alike.
   */
  readonly id: string;
  readonly action: 'create' | 'update' | 'delete';
  /** The post's or page's title, or the picture's file name, when it still exists locally. */
  readonly title?: string;
}

/** One side of a conflict. For a picture (`kind: 'media'`), `title` is its file name, `content` its alt text. */
export interface ConflictVersion {
  readonly title: string;
  readonly content: string;
  readonly labels: readonly string[];
  readonly status: string;
  /** The server's etag (for the server's side). */
  readonly etag?: string;
}

export type ConflictField = 'title' | 'content' | 'labels' | 'status';

/**
 * A write the server refused, with both versions. `changed`: the server's copy moved since this one was
 * based on it (412). `deleted`: it is gone from the server, or from the user's sight (404). `rejected`: the
 * server refused the write itself (`message` says why, e.g. 403 for a role that may not make it).
 * `mine` is null when the local write was a delete; `theirs` is null when the server has no copy.
 */
export interface Conflict {
  readonly kind: SyncKind;
  readonly id: string;
  readonly reason: 'changed' | 'deleted' | 'rejected';
  readonly message?: string;
  readonly mine: ConflictVersion | null;
  readonly theirs: ConflictVersion | null;
  /** The fields in which the two versions differ. */
  readonly fields: readonly ConflictField[];
  /** When the replica met it (the local clock, RFC 3339). */
  readonly detected: string;
}

/** `'mine'`: the local version is applied on top of the server's (re-created if the server has none) and sent; `'theirs'`: the server's stays. */
export type ConflictChoice = 'mine' | 'theirs';

export interface Replica {
  /** Pulls what changed on the server, then pushes what waits here. Rejects when the server cannot be reached (status 0). */
  sync(): Promise<SyncResult>;
  /** Syncs now, then again whenever the server has a change (long poll) or the local service is written; returns the stop function. */
  live(): () => void;
  /** What waits to be sent. */
  pending(): Promise<readonly PendingChange[]>;
  /** The open conflicts, oldest first. */
  conflicts(): Promise<readonly Conflict[]>;
  /**
   * The id a record goes by now. A post, page or comment made here has a local id until the server answers its
   * create; then the local record moves to the server's id, and this answers that id for the local one (an
   * address, a link or a form that still names the local id finds the record again). Any other id is answered
   * as it is. It reads the replica's stored state and waits for no sync.
   */
  idOf(id: string): Promise<string>;
  /** Settles a conflict locally; a `'mine'` choice is sent by the next sync. */
  resolve(id: string, choice: ConflictChoice): Promise<void>;
  /**
   * Waits for the background download of pictures that `sync()` (or `live()`) started, and answers where it
   * stands; with none running, starts one (it needs the network).
   */
  downloads(): Promise<Downloads>;
  /** Stops `live()` and the picture downloads, and waits for a running sync; the local service stays open (the app closes it). */
  close(): Promise<void>;
}
