/**
 * Conflicts (docs/design.md §16): a write the server refuses stores the server's version locally and keeps the local
 * one beside it, whole, in the replica's state, until `resolve` picks one. Nothing is sent from here: a
 * `'mine'` choice makes the local record wait to be sent again, on top of the server's version.
 */
import { type JsonObject, asJson } from '../service/store.js';
import type { Comment, Page, Post } from '../schema/resources.js';
import { remove, store } from './pull.js';
import { RemoteError, type Remote } from './remote.js';
import { Batch, baseId, baseOf, settled, type Ctx, type StoredConflict } from './state.js';
import type { Synced } from './model.js';

type Resource = Post | Page | Comment;

export const pathOf = (blogId: string, collection: Synced, id: string, postId?: string) =>
  collection === 'comments'
    ? `/blogs/${blogId}/posts/${postId}/comments/${id}`
    : `/blogs/${blogId}/${collection}/${id}`;

/**
 * The server refused a write: its copy (or its absence) is stored locally and the local version is kept
 * beside it in a conflict, until `resolve` picks one. A write that was a create has no server copy.
 */
export async function conflict(
  ctx: Ctx,
  remote: Remote,
  collection: Synced,
  id: string,
  error: RemoteError,
): Promise<void> {
  const { core, blogId, state: st } = ctx;
  const found = await core.driver.get(collection, id);
  const base = baseOf(await core.driver.get('settings', baseId(blogId, collection, id)), found);
  const local = found?.doc;
  let server: Resource | undefined;
  if (base) {
    const postId = base.postId;
    server = await remote.call<Resource>('GET', pathOf(blogId, collection, id, postId)).catch((e: unknown) => {
      if (e instanceof RemoteError && (e.status === 404 || e.status === 403)) return undefined;
      throw e;
    });
  }
  const batch = new Batch(core);
  if (server) await store(ctx, batch, collection, server, true);
  else await remove(ctx, batch, collection, id, true);
  const { status, message } = error;
  const record: StoredConflict = {
    id,
    collection,
    reason: status === 412 ? 'changed' : status === 404 ? 'deleted' : 'rejected',
    message: status === 412 || status === 404 ? undefined : message,
    mine: local ? asJson(local) : null,
    theirs: server ? (await batch.get<JsonObject>(collection, id))!.doc : null,
    etag: (server as Post | undefined)?.etag,
    detected: core.nowIso(),
  };
  st.conflicts = [...st.conflicts.filter((c) => c.id !== id), record];
  settled(st, collection, id);
  delete st.creates[id];
  await batch.commit(ctx);
}
