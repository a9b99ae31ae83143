/**
 * The replica's part in writing together (docs/collab.md): what was typed into a shared document offline waits in
 * the local store (the local service's `collab`, which on a replica follows the server's document: it never makes
 * one from the local HTML nor renders one into it) and is sent on sync. Per document with local edits since the
 * last sync, the two states are compared by their state vectors and each side is sent what it lacks: text typed
 * on both sides merges, with no conflict record. Loaded only when the local store holds shared documents.
 */
import * as Y from 'yjs';
import type { collabStream, Core } from '../service/store.js';
import type { CollabApi } from '../service/types.js';
import type { CollabTarget } from '../schema/collab.js';
import { CollabRefused, httpChannel, type CollabRemote } from '../collab/channel.js';

const MAX_POS = Number.MAX_SAFE_INTEGER;
const PAGE = 100;
const markerId = (docId: string) => `collabSynced:${docId}`;

function targetOf(blogId: string, docId: string): CollabTarget {
  const [kind, id] = docId.split(':') as ['post' | 'page', string];
  return kind === 'post' ? { blogId, postId: id } : { blogId, pageId: id };
}

/**
 * Sends every shared document's local edits the server lacks, and takes what it lacks here; answers how many went.
 * `streamOf` is the store's `collabStream`, handed over by the caller: a module loaded on first use that imported
 * the store helpers itself would give them a start-up chunk of their own (docs/benchmarks.md, the bundle).
 */
export async function syncCollab(
  core: Core,
  local: CollabApi,
  blogId: string,
  remote: CollabRemote,
  streamOf: typeof collabStream,
): Promise<number> {
  let sent = 0;
  let after: readonly string[] | undefined;
  for (;;) {
    const docs = await core.driver.list({
      collection: 'collabDocs',
      index: 'blog',
      prefix: [blogId],
      ...(after ? { lower: { key: after, open: true } } : {}),
      direction: 'asc',
      limit: PAGE,
    });
    for (const d of docs) if (await syncOne(core, local, blogId, d.id, remote, streamOf)) sent++;
    if (docs.length < PAGE) return sent;
    after = docs[docs.length - 1]!.key.slice(1);
  }
}

async function syncOne(
  core: Core,
  local: CollabApi,
  blogId: string,
  docId: string,
  remote: CollabRemote,
  streamOf: typeof collabStream,
) {
  const marker = await core.getAs<{ position: number }>('settings', markerId(docId));
  const since = marker?.doc.position ?? 0;
  const fresh = await core.driver.streamChanges(streamOf(docId), { seq: since, pos: MAX_POS }, 1);
  if (fresh.length === 0) return false;
  const target = targetOf(blogId, docId);
  // Local edits after this are looked at again next time (sending one twice changes nothing).
  let position = (await core.driver.logBounds()).newest;
  const mine = (await local.open(target)).update;
  const channel = httpChannel(remote, target);
  let theirs: Uint8Array;
  try {
    theirs = (await channel.open()).update;
  } catch (error) {
    // Gone on the server, or no longer theirs to write: nothing to send it to (the post's own sync says why).
    if (error instanceof CollabRefused) return false;
    throw error;
  }
  const missingThere = Y.diffUpdate(mine, Y.encodeStateVectorFromUpdate(theirs));
  const missingHere = Y.diffUpdate(theirs, Y.encodeStateVectorFromUpdate(mine));
  // Yjs's empty update is two zero bytes: anything longer inserts or deletes something.
  const changes = (u: Uint8Array) => u.byteLength > 2;
  if (changes(missingThere)) await channel.push(missingThere);
  if (changes(missingHere)) position = Number((await local.push({ ...target, update: missingHere })).position);
  const doc = { id: markerId(docId), position };
  await core.commit([
    {
      type: 'put',
      collection: 'settings',
      id: doc.id,
      expect: marker?.version ?? 0,
      doc,
      keys: {},
    },
  ]);
  return changes(missingThere);
}
