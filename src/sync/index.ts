/**
 * blogcore/sync (DESIGN §11): a replica keeps one blog of a blogcore server in a local BlogService (usually on
 * IndexedDB) as the signed-in user sees it. The app reads and writes the local service as usual, online or
 * not; `sync()` pulls what changed on the server and pushes what was written here, `live()` keeps doing it
 * while online. A write the server refuses (someone else changed the post first, or deleted it) becomes a
 * conflict that keeps both versions until `resolve` picks one: nothing anyone typed is lost.
 */
import type { Core } from '../core.js';
import type { JsonObject } from '../driver.js';
import { internalsOf } from '../internals.js';
import type { UserRecord } from '../records.js';
import type { BlogService } from '../service.js';
import type { Blog, User } from '../wire.js';
import { commentsOf, pull } from './pull.js';
import { blogRecord, editable, kindOf } from './records.js';
import { push, scan } from './push.js';
import { createRemote, type RemoteError, type RemoteOptions } from './remote.js';
import { Batch, baseId, keyOf, loadState, settled, splitKey, type Base, type Ctx, type StoredConflict } from './state.js';

export { RemoteError, type RemoteOptions } from './remote.js';

export interface ReplicaOptions {
  /** The local service the app reads and writes (any driver; usually `idbDriver`). Use the host service, not one from `as()`. */
  local: BlogService;
  /** The server: its API root (e.g. `https://blog.example/v3`), headers sent with every request (a function is asked each time), and a `fetch`. */
  remote: RemoteOptions;
  blogId: string;
  /** Items per pull page (default 100). */
  maxResults?: number;
  /** Seconds a `live()` pull waits on the server for a change (default 30, at most 60). */
  wait?: number;
  /** Called after every round of `live()` (and every `sync()`) that pulled, pushed or found conflicts. */
  onSync?: (result: SyncResult) => void;
  /** Called when a round of `live()` fails (offline, server down); `live()` tries again with a growing pause. */
  onError?: (error: unknown) => void;
}

export interface SyncResult {
  /** Items of the server applied locally (created, changed or removed). */
  pulled: number;
  /** Local records sent to the server. */
  pushed: number;
  /** Conflicts this round found (see `conflicts()` for all that are open). */
  conflicts: number;
}

export type SyncKind = 'post' | 'page' | 'comment';

/** A local write waiting to be sent. */
export interface PendingChange {
  readonly kind: SyncKind;
  /** The local id (a record made here keeps its local id until its create is answered). */
  readonly id: string;
  readonly action: 'create' | 'update' | 'delete';
  /** The post's or page's title, when it still exists locally. */
  readonly title?: string;
}

/** One side of a conflict. */
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
  /** Settles a conflict locally; a `'mine'` choice is sent by the next sync. */
  resolve(id: string, choice: ConflictChoice): Promise<void>;
  /** Stops `live()` and waits for a running sync; the local service stays open (the app closes it). */
  close(): Promise<void>;
}

const FIELDS: readonly ConflictField[] = ['title', 'content', 'labels', 'status'];

type Fields = { title?: string; content: string; labels?: string[]; status: string; published?: string };

function side(record: JsonObject | null, etag?: string): ConflictVersion | null {
  const r = record as Fields | null;
  return r && { title: r.title ?? '', content: r.content, labels: r.labels ?? [], status: r.status, etag };
}

function publicConflict(c: StoredConflict): Conflict {
  const mine = side(c.mine);
  const theirs = side(c.theirs, c.etag);
  const fields = FIELDS.filter((f) => JSON.stringify(mine?.[f]) !== JSON.stringify(theirs?.[f]));
  return { kind: kindOf(c.collection), id: c.id, reason: c.reason, message: c.message, mine, theirs, fields, detected: c.detected };
}

export function createReplica(options: ReplicaOptions): Replica {
  const internals = options?.local ? internalsOf(options.local) : undefined;
  if (internals?.actor.kind !== 'host' || !options.blogId) throw new TypeError('createReplica needs { local: a host BlogService, blogId }');
  const core: Core = internals.core;
  const blogId = options.blogId;
  const remote = createRemote(options.remote);
  const maxResults = options.maxResults ?? 100;
  let ctx: Ctx | undefined;
  let queue: Promise<unknown> = Promise.resolve();
  let stopLive: (() => void) | undefined;
  let closed = false;

  /** One replica operation at a time; each starts from the state as stored (a failed one left nothing half-done). */
  function run<T>(task: (ctx: Ctx) => Promise<T>): Promise<T> {
    const next = queue.then(async () => {
      if (closed) throw new Error('This replica is closed');
      ctx ??= { core, blogId, state: await loadState(core, blogId) };
      try {
        return await task(ctx);
      } catch (error) {
        ctx = undefined;
        throw error;
      }
    });
    queue = next.catch(() => undefined);
    return next;
  }

  /** The blog (and the signed-in user, who writes what the app creates locally), fetched once. */
  async function blog(c: Ctx): Promise<void> {
    if (await core.get('blogs', blogId)) return;
    const b = await remote.call<Blog>('GET', `/blogs/${blogId}`);
    // Signed out (401) there is no self; offline or a server fault fails this sync.
    const self = await remote.call<User>('GET', '/users/self').catch((error: RemoteError) => {
      if (!error.status || error.status >= 500) throw error;
    });
    const batch = new Batch(core);
    if (self) await batch.put('users', { id: self.id, displayName: self.displayName, url: self.url, created: self.created } satisfies UserRecord);
    await batch.put('blogs', blogRecord(b, self?.id ?? ''));
    await batch.commit(c.state);
  }

  const sync = () =>
    run(async (c) => {
      await blog(c);
      const pulled = await pull(c, remote, maxResults);
      const { pushed, conflicts } = await push(c, remote);
      const result = { pulled, pushed, conflicts };
      if (pulled || pushed || conflicts) options.onSync?.(result);
      return result;
    });

  const pending = () =>
    run(async (c) => {
      await scan(c);
      const out: PendingChange[] = [];
      for (const key of c.state.dirty) {
        const { collection, id } = splitKey(key);
        const [rec, base] = await Promise.all([core.get<{ title?: string }>(collection, id), core.get<Base>('settings', baseId(blogId, collection, id))]);
        // Made and dropped here, never sent: nothing waits.
        if (rec || base || c.state.creates[id])
          out.push({ kind: kindOf(collection), id, action: !base ? 'create' : rec ? 'update' : 'delete', title: rec?.doc.title });
      }
      return out;
    });

  const conflicts = () => run(async (c) => c.state.conflicts.map(publicConflict));

  const resolve = (id: string, choice: ConflictChoice) =>
    run(async (c) => {
      const found = c.state.conflicts.find((x) => x.id === id);
      if (!found) throw new Error(`No open conflict on ${id}`);
      if (choice !== 'mine' && choice !== 'theirs') throw new TypeError("resolve takes 'mine' or 'theirs'");
      const { collection, mine } = found;
      const batch = new Batch(core);
      if (choice === 'mine') {
        const current = (await batch.get<Fields>(collection, id))?.doc;
        const bId = baseId(blogId, collection, id);
        const base = (await batch.get<Base>('settings', bId))?.doc;
        if (!mine) {
          // Mine was a delete: the server's copy goes (the base stays, so the delete is sent).
          if (current) await batch.delete(collection, id);
          if (current && collection === 'posts') for (const cm of await commentsOf(c, id)) await batch.delete('comments', cm.id);
        } else if (current) {
          // Mine on top of the server's version: sent as an update against its etag.
          const m = mine as Fields;
          await batch.put(collection, {
            ...current,
            ...editable(collection, mine as never),
            status: m.status,
            published: m.published ?? current.published,
            id,
          });
          if (base) await batch.put('settings', { ...base, v: -1 });
        } else {
          // The server has none: mine comes back as a record made here, created by the next push.
          await batch.put(collection, { ...mine, id, path: undefined, commentsVis: undefined, liveComments: 0, allComments: 0 });
          await batch.delete('settings', bId);
        }
        settled(c.state, collection, id);
        c.state.dirty.push(keyOf(collection, id));
      }
      c.state.conflicts = c.state.conflicts.filter((x) => x !== found);
      await batch.commit(c.state);
    });

  function live(): () => void {
    if (stopLive) return stopLive;
    let stopped = false;
    let wake: (() => void) | undefined;
    let abort: AbortController | undefined;
    const kick = () => {
      abort?.abort();
      wake?.();
    };
    // Local writes (the app's, through the local service) are sent soon; the replica's own writes emit nothing.
    const off = options.local.on('*', (event) => {
      if (event.blogId === blogId) kick();
    });
    const waitSeconds = Math.min(60, options.wait ?? 30);
    void (async () => {
      let pause = 1_000;
      while (!stopped) {
        try {
          await sync();
          pause = 1_000;
          abort = new AbortController();
          const since = ctx?.state.checkpoint;
          const woken = new Promise<void>((r) => (wake = r));
          await Promise.race([remote.pull(blogId, { since, maxResults: 1, wait: waitSeconds, signal: abort.signal }).catch(() => undefined), woken]);
        } catch (error) {
          if (stopped) break;
          options.onError?.(error);
          await new Promise<void>((r) => {
            wake = r;
            setTimeout(r, pause);
          });
          pause = Math.min(pause * 2, 30_000);
        }
      }
    })();
    stopLive = () => {
      stopped = true;
      off();
      kick();
      stopLive = undefined;
    };
    return stopLive;
  }

  return {
    sync,
    live,
    pending,
    conflicts,
    resolve,
    async close() {
      stopLive?.();
      await queue;
      closed = true;
    },
  };
}
