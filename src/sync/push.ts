/**
 * The replica's push (docs/design.md §16): each record that waits (scan.ts) is brought to the server with ordinary
 * `/v3` calls: a create (its request and Idempotency-Key stored before it is sent), a patch of the edited
 * fields and the status moves, or a delete, each with `If-Match` of the base etag. A refusal (412, 404, or a
 * 4xx the server gives for the write) becomes a conflict (conflicts.ts).
 */
import {
  DriverConflict,
  type JsonObject,
  type CommentRecord,
  type PageRecord,
  type PostRecord,
  revisionsOf,
} from '../service/store.js';
import type { Comment, Page, Post } from '../schema/resources.js';
import { conflict, pathOf } from './conflicts.js';
import { commentsOf, store } from './pull.js';
import { editable, fingerprint } from './records.js';
import { RemoteError, type Remote } from './remote.js';
import {
  Batch,
  baseId,
  baseIn,
  baseOf,
  basesOf,
  keyOf,
  preload,
  read,
  saveState,
  settled,
  splitKey,
  stateId,
  synced,
  type CreateInFlight,
  type Ctx,
  type Known,
} from './state.js';
import type { Synced } from './model.js';

type AnyRecord = PostRecord & PageRecord & CommentRecord;
type Resource = Post | Page | Comment;

/** Updates of posts and pages already on the server sent at once (each still settles in its own commit). */
const IN_FLIGHT = 4;

/**
 * Sends every record that waits, as the caller's look found them (`scan`: `state.dirty`), posts and pages first,
 * so comments on new posts know their post's id.
 */
export async function push(ctx: Ctx, remote: Remote): Promise<{ pushed: number; conflicts: number }> {
  const { core, blogId, state: st } = ctx;
  let pushed = 0;
  let conflicts = 0;
  const waiting = st.dirty.map(splitKey);
  // Pictures first: the writes that use them name their urls (media.ts, loaded when one waits).
  const pictures = waiting.filter((q) => q.collection === 'media');
  if (pictures.length) {
    const media = await import('./media.js');
    for (const { id } of pictures) {
      if (st.conflicts.some((c) => c.id === id)) continue;
      try {
        if (await media.pushMedia(ctx, remote, id)) pushed++;
      } catch (error) {
        if (!refusal(error)) throw error;
        await media.mediaConflict(ctx, remote, id, error);
        conflicts++;
      }
    }
  }
  const order = (c: Synced) => synced.indexOf(c);
  // Posts and pages first; within a collection by id (local ids are ULIDs: a comment's parent comes first).
  // What a push itself leaves waiting (an edit made while its create was on the way) goes in the next round.
  const queue = waiting
    .filter((q): q is { collection: Synced; id: string } => q.collection !== 'media')
    .sort((a, b) => order(a.collection) - order(b.collection) || (a.id < b.id ? -1 : 1));
  // Every record and base of the round in one read each per collection.
  const known = await preload(core, [
    ...synced.map((c) => [c, queue.filter((q) => q.collection === c).map((q) => q.id)] as const),
    ['settings', [stateId(blogId), ...queue.map((q) => baseId(blogId, q.collection, q.id))]],
  ]);
  // Their authors, which each settle looks up (mostly one).
  const authors = new Set<string>();
  for (const d of known.values())
    if (d && 'authorId' in d.doc && typeof d.doc.authorId === 'string') authors.add(d.doc.authorId);
  for (const [k, d] of await preload(core, [['users', [...authors]]])) known.set(k, d);
  const settle = settler(ctx, known);
  // Answers the refusal that makes a conflict of the record.
  const one = async ({ collection, id }: { collection: Synced; id: string }): Promise<RemoteError | undefined> => {
    if (st.conflicts.some((c) => c.id === id)) return;
    try {
      if (await pushOne(ctx, remote, collection, id, known, settle)) pushed++;
    } catch (error) {
      if (!refusal(error)) throw error;
      return error;
    }
  };
  const refused = async (q: { collection: Synced; id: string }, error: RemoteError | undefined) => {
    if (!error) return;
    await conflict(ctx, remote, q.collection, q.id, error);
    conflicts++;
  };
  // Updates of posts and pages the server has (a base, a local record) go a few at a time; creates, deletes
  // and comments (which may wait on a create's id) go after, in order. Conflicts are stored in queue order.
  const update = (q: { collection: Synced; id: string }) => {
    const rec = known.get(`${q.collection}/${q.id}`);
    return (
      q.collection !== 'comments' && !!rec && !!baseOf(known.get(`settings/${baseId(blogId, q.collection, q.id)}`), rec)
    );
  };
  const updates = queue.filter(update);
  const rest = queue.filter((q) => !update(q));
  const refusals: Array<RemoteError | undefined> = [];
  let next = 0;
  let failed: { error: unknown } | undefined;
  const worker = async () => {
    for (let i = next++; !failed && i < updates.length; i = next++) {
      refusals[i] = await one(updates[i]!).catch((error: unknown) => void (failed ??= { error }));
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
  for (let i = 0; i < updates.length; i++) await refused(updates[i]!, refusals[i]);
  if (failed) throw failed.error;
  for (const q of rest) await refused(q, await one(q));
  return { pushed, conflicts };
}

/** A refusal of the write itself (a conflict); offline, 401 and server faults fail the sync instead. */
const refusal = (error: unknown): error is RemoteError =>
  error instanceof RemoteError && !!error.status && error.status < 500 && error.status !== 401;

/** Brings one record to the server; answers false when it must wait (a comment whose post is not there yet). */
async function pushOne(
  ctx: Ctx,
  remote: Remote,
  collection: Synced,
  id: string,
  known: Known,
  settle: (answer: Answer) => Promise<void>,
): Promise<boolean> {
  const { core, blogId, state: st } = ctx;
  const rec = await read(core, known, collection, id);
  const doc = rec?.doc as AnyRecord | undefined;
  const base = baseOf(await read(core, known, 'settings', baseId(blogId, collection, id)), rec);
  if (!base) {
    let req = st.creates[id];
    if (!req) {
      // Made and dropped here before it was ever sent: nothing to do.
      if (!doc) {
        settled(st, collection, id);
        await saveState(ctx);
        return false;
      }
      const made = await createRequest(ctx, collection, doc);
      if (!made) return false;
      req = st.creates[id] = made;
      await saveState(ctx);
    }
    let created = await remote.call<Resource>('POST', req.path, {
      body: req.body,
      query: req.query,
      idempotencyKey: req.key,
    });
    // Below ADMIN view a comment comes without its status: one the writer cannot read back waits for moderation.
    if (collection === 'comments' && !(created as Comment).status) {
      created = await remote.call<Resource>('GET', `${req.path}/${created.id}`).catch((error: unknown) => {
        if (error instanceof RemoteError && error.status === 404)
          return { ...(created as Comment), status: 'PENDING' as const };
        throw error;
      });
    }
    await adopt(ctx, collection, id, created, rec?.version);
    return true;
  }
  const path = pathOf(blogId, collection, id, base.postId);
  if (!doc) {
    // A comment whose post went too: the post's delete takes it on the server.
    const postGone = collection === 'comments' && !(await core.driver.get('posts', base.postId!));
    if (!postGone) {
      await remote.call('DELETE', path, { ifMatch: base.etag }).catch((error: unknown) => {
        if (!(error instanceof RemoteError && error.status === 404)) throw error;
      });
    }
    const batch = new Batch(core);
    await batch.delete('settings', baseId(blogId, collection, id));
    settled(st, collection, id);
    await batch.commit(ctx);
    return !postGone;
  }
  let server: Resource | undefined;
  let etag = base.etag;
  if (collection !== 'comments' && fingerprint(collection, doc) !== base.fingerprint) {
    server = await remote.call<Resource>('PATCH', path, { body: editable(collection, doc), ifMatch: etag });
    etag = (server as Post).etag;
  }
  let status = (server as Post | undefined)?.status ?? base.status;
  for (const step of moves(collection, status, doc)) {
    const answer = await remote.call<Resource | undefined>(step.method, path + step.suffix, {
      query: step.query,
      ifMatch: etag,
    });
    server = answer ?? (await remote.call<Resource>('GET', path));
    etag = (server as Post).etag;
    status = (server as Post).status ?? status;
  }
  await settle({ collection, id, server, version: rec!.version });
  return !!server;
}

interface Move {
  method: 'POST' | 'DELETE';
  suffix: string;
  query?: Record<string, string | boolean>;
}

/** The calls that take the server's status to the local one (docs/design.md §6). */
function moves(collection: Synced, from: string, doc: AnyRecord): Move[] {
  const to: string = doc.status;
  // A scheduled post that went LIVE here went LIVE on the server too, when its time came.
  if (from === to || (from === 'SCHEDULED' && to === 'LIVE')) return [];
  if (collection === 'comments') {
    const call = { LIVE: '/approve', SPAM: '/spam', EMPTIED: '/removecontent' }[to as 'LIVE'];
    return call ? [{ method: 'POST', suffix: call }] : [];
  }
  const out: Move[] = [];
  let at: string = from;
  const revert = () => {
    out.push({ method: 'POST', suffix: '/revert' });
    at = 'DRAFT';
  };
  if (at === 'SOFT_TRASHED') revert();
  if (to === 'SOFT_TRASHED') return [...out, { method: 'DELETE', suffix: '', query: { useTrash: true } }];
  if (to === 'DRAFT' && at !== 'DRAFT') revert();
  if (to === 'SCHEDULED' && at === 'LIVE') revert();
  if ((to === 'LIVE' || to === 'SCHEDULED') && at !== to) {
    out.push({
      method: 'POST',
      suffix: '/publish',
      query: collection === 'posts' ? { publishDate: doc.published } : undefined,
    });
  }
  return out;
}

/** The create request of a record made here (a comment waits until its post and parent have server ids). */
async function createRequest(ctx: Ctx, collection: Synced, doc: AnyRecord): Promise<CreateInFlight | undefined> {
  const { blogId, state: st } = ctx;
  const key = `replica-${doc.id}-${ctx.core.newId()}`;
  if (collection === 'comments') {
    const postId = st.ids[doc.postId] ?? doc.postId;
    const parent = doc.inReplyTo ? (st.ids[doc.inReplyTo] ?? doc.inReplyTo) : undefined;
    const known = await basesOf(ctx.core, blogId, [
      { collection: 'posts', id: postId },
      ...(parent ? [{ collection: 'comments' as const, id: parent }] : []),
    ]);
    if (known.some((k) => !k)) return undefined;
    return {
      key,
      path: `/blogs/${blogId}/posts/${postId}/comments`,
      body: { content: doc.content, inReplyTo: parent && { id: parent } } as JsonObject,
      query: {},
    };
  }
  const body = editable(collection, doc);
  const status: string = doc.status;
  const scheduled = status === 'SCHEDULED' && doc.published !== undefined;
  if (scheduled) body.published = doc.published!;
  return { key, path: `/blogs/${blogId}/${collection}`, body, query: { isDraft: status !== 'LIVE' && !scheduled } };
}

/** A write the server answered (`server`: its copy; none when nothing was sent), for the local `version` it sent. */
interface Answer {
  collection: Synced;
  id: string;
  server: Resource | undefined;
  version: number;
}

/**
 * Settles answered writes in as few commits as they come (a group commit): the answers that arrive while one
 * commit runs go together in the next, so a hundred updates take a handful of local commits, not a hundred.
 * A record written meanwhile fails its group's commit; the group is then settled one answer at a time, each
 * on a fresh read.
 */
function settler(ctx: Ctx, known: Known): (answer: Answer) => Promise<void> {
  let waiting: Array<{ answer: Answer; done: (error?: unknown) => void }> = [];
  let running = false;
  const commit = async (answers: Answer[]) => {
    const batch = new Batch(ctx.core, known);
    for (const a of answers) await settleInto(ctx, batch, a);
    await batch.commit(ctx);
  };
  const flush = async () => {
    running = true;
    while (waiting.length) {
      const group = waiting;
      waiting = [];
      // (A failed commit drops what it read from `known`: a retry reads afresh.)
      const error = await commit(group.map((g) => g.answer)).catch((e: unknown) => e ?? new Error('settle failed'));
      if (!error) for (const g of group) g.done();
      else if (!DriverConflict.is(error)) for (const g of group) g.done(error);
      else
        for (const g of group) g.done(await commit([g.answer]).catch((e: unknown) => e ?? new Error('settle failed')));
    }
    running = false;
  };
  return (answer) =>
    new Promise<void>((resolve, reject) => {
      waiting.push({ answer, done: (error) => (error ? reject(error) : resolve()) });
      if (!running) void flush();
    });
}

/**
 * The server answered a write: its copy becomes the local record and base, unless the record was written
 * again meanwhile (then the local edit stays, to be sent against the new base).
 */
async function settleInto(ctx: Ctx, batch: Batch, { collection, id, server, version }: Answer): Promise<void> {
  const { blogId, state: st } = ctx;
  const same = (await batch.get<AnyRecord>(collection, id))?.stored === version;
  // A confirmation writes the base to `settings` (a small record) rather than the whole record with its note.
  const base = (await baseIn(batch, blogId, collection, id))!;
  if (same) {
    settled(st, collection, id);
    // With nothing sent (a local write that changed no field the server keeps), the record is as its base.
    if (server) await store(ctx, batch, collection, server, true);
    else await batch.put('settings', { ...base, version });
  } else if (server)
    await batch.put('settings', {
      ...base,
      version: -1,
      etag: (server as Post).etag,
      status: (server as Post).status ?? base.status,
    });
}

/**
 * A record made here got its server id: the local record moves to it (a post's comments follow), the id map
 * keeps the old one for writes still naming it, and edits made while the create was on its way stay.
 */
async function adopt(
  ctx: Ctx,
  collection: Synced,
  localId: string,
  server: Resource,
  version: number | undefined,
): Promise<void> {
  const { core, state: st } = ctx;
  const batch = new Batch(core);
  const local = await batch.get<AnyRecord>(collection, localId);
  if (local) await batch.delete(collection, localId);
  await store(ctx, batch, collection, server);
  const serverId = server.id;
  let after = (await batch.get<AnyRecord>(collection, serverId))!;
  if (local && collection === 'posts') {
    // The post's comments move with it: its comment bookkeeping is the local record's.
    after = { ...after, doc: { ...after.doc, allComments: local.doc.allComments, commentsVis: local.doc.commentsVis } };
    await batch.put(collection, after.doc);
  }
  if (!local) {
    // Dropped here while the create was on its way: the server's copy is to be deleted next.
    await batch.delete(collection, serverId);
    st.dirty.push(keyOf(collection, serverId));
  } else if (
    // Comments are not edited after their create. A post or page edited (or moved) meanwhile keeps the local
    // fields and status on the server's record, to be sent as an update.
    collection !== 'comments' &&
    (local.stored !== version ||
      fingerprint(collection, local.doc) !== fingerprint(collection, after.doc) ||
      local.doc.status !== after.doc.status)
  ) {
    await batch.put(collection, {
      ...after.doc,
      ...editable(collection, local.doc),
      status: local.doc.status,
      published: local.doc.published ?? after.doc.published,
      replica: { ...after.doc.replica!, version: -1 },
    });
    st.dirty.push(keyOf(collection, serverId));
  }
  // A post's comments move with it. (A reply keeps naming its parent's local id until it is sent itself:
  // its create maps the id through `ids`.)
  if (collection === 'posts')
    for (const c of await commentsOf(ctx, localId)) await batch.put('comments', { ...c, postId: serverId });
  // So do the revisions its local edits kept; a count of revisions the record here has goes (the next change counts).
  if (local && collection !== 'comments') {
    for (const r of await revisionsOf(core, localId))
      await batch.put('revisions', { ...r.doc, id: r.id, itemId: serverId });
    await batch.put(collection, { ...(await batch.get<AnyRecord>(collection, serverId))!.doc, revisions: undefined });
  }
  st.ids[localId] = serverId;
  delete st.creates[localId];
  settled(st, collection, localId);
  await batch.commit(ctx);
}
