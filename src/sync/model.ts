/**
 * The two shapes the replica's modules share: which collections sync, and the server copy a record was based on
 * (what a base decides is in state.ts).
 */
export type Synced = 'posts' | 'pages' | 'comments';
/** What a replica tracks for sending: the synced collections and the blog's pictures (media.ts). */
export type Tracked = Synced | 'media';

/** The server copy a local record was last equal to. */
export interface Base {
  id: string;
  /** The local store's version of the record when it equalled the server's copy (-1: edited since). */
  version: number;
  etag?: string;
  /** The server's status. */
  status: string;
  /** Fingerprint of the server copy's editable fields (records.ts). */
  fingerprint: string;
  /** The generation of full pulls that last saw it (`State.gen`; a resync drops what the new one did not see). */
  gen: number;
  /** A comment's post (its calls name it, even after the local copy is gone). */
  postId?: string;
}
