/**
 * The replica's pull (docs/design.md §16): every page of `GET …/changes` is applied to the local store in one commit
 * with the replica's state (where the pull stands), so a reload mid-pull continues from the next page. Items
 * are stored as the server sent them; a record with local edits not yet sent is left alone (its push meets
 * the server's copy and becomes a conflict). A 410 pulls afresh; once a fresh pull is complete, records it did
 * not bring (and that wait for nothing) are dropped, since their tombstones are gone from the server's log.
 */
import {
  addTo,
  type ChangeItem,
  type ChangeList,
  DriverConflict,
  type Collection,
  type CommentRecord,
  type PageRecord,
  type PostRecord,
  type ReplicaNote,
  type UserRecord,
  laterTermsId,
  revisionsOf,
} from '../service/store.js';
import type { Comment, Page, Post } from '../schema/resources.js';
import { collectionOf, commentRecord, fingerprint, pageRecord, postRecord } from './records.js';
import { RemoteError, type Remote } from './remote.js';
import {
  Batch,
  baseId,
  baseIn,
  eachRecord,
  firstPull,
  isDirty,
  pulledCommits,
  saveState,
  synced,
  walk,
  type Ctx,
  type Known,
} from './state.js';
import type { Base, Synced } from './model.js';
import { picturesId, type Pictures } from './wanted.js';

/**
 * Writes a server resource as the local record with its base as the record's note (a `settings` one goes);
 * answers false when local edits keep it (unless `force`: the push writes the server's answer over what it sent).
 */
export async function store(
  ctx: Ctx,
  batch: Batch,
  collection: Synced,
  resource: Post | Page | Comment,
  force = false,
): Promise<boolean> {
  const bId = baseId(ctx.blogId, collection, resource.id);
  const base = await baseIn(batch, ctx.blogId, collection, resource.id);
  const local = await batch.get<PostRecord & PageRecord & CommentRecord>(collection, resource.id);
  if (!force && local && isDirty(local.stored, base)) return false;
  // Authors become local users (the local service shows their names).
  const { id, displayName, url } = resource.author;
  if (id && !(await batch.get('users', id)))
    await batch.put('users', { id, displayName, url: url || undefined, created: '' } satisfies UserRecord);
  const blog = await ctx.core.blog(ctx.blogId);
  let record: PostRecord | PageRecord | CommentRecord;
  if (collection === 'posts') record = postRecord(resource as Post, blog, local?.doc);
  else if (collection === 'pages') record = pageRecord(resource as Page, blog, local?.doc);
  else
    record = commentRecord(
      resource as Comment,
      (await batch.get<PostRecord>('posts', (resource as Comment).post.id))?.doc,
    );
  record.replica = {
    id: bId,
    // The version this put gives it.
    version: (local?.stored ?? 0) + 1,
    etag: (resource as { etag?: string }).etag,
    status: record.status,
    fingerprint: fingerprint(collection, record),
    gen: ctx.state.gen,
    postId: (record as CommentRecord).postId,
  } satisfies Base as ReplicaNote;
  await batch.put(collection, record);
  await batch.delete('settings', bId);
  return true;
}

/**
 * Removes a local record the server no longer shows; answers false when local edits keep it (unless `force`).
 * A post's comments go by their own tombstones (the server logs them), so comments written here and not yet
 * sent stay, to meet the server as conflicts rather than vanish.
 */
export async function remove(ctx: Ctx, batch: Batch, collection: Synced, id: string, force = false): Promise<boolean> {
  const base = await baseIn(batch, ctx.blogId, collection, id);
  const local = await batch.get<PostRecord & CommentRecord>(collection, id);
  if (!force && local && isDirty(local.stored, base)) return false;
  // (Its note goes with it: the batch writes its `settings` record.)
  await batch.delete('settings', baseId(ctx.blogId, collection, id));
  if (!local) return true;
  await batch.delete(collection, id);
  // Its local revisions go with it, as they do in the core's own delete.
  if (collection !== 'comments') for (const r of await revisionsOf(ctx.core, id)) await batch.delete('revisions', r.id);
  return true;
}

/** Every local comment of a post. */
export async function commentsOf(ctx: Ctx, postId: string): Promise<CommentRecord[]> {
  const out: CommentRecord[] = [];
  for await (const page of walk(ctx, 'comments', 'post', [ctx.blogId, postId])) out.push(...page.map((d) => d.doc));
  return out;
}

/** A pulled item a replica keeps: a post, page or comment. */
type Kept = ChangeItem & {
  kind: 'blogger#post' | 'blogger#page' | 'blogger#comment';
  resource?: Post | Page | Comment;
};

async function applyItem(ctx: Ctx, batch: Batch, item: Kept): Promise<boolean> {
  const collection = collectionOf(item.kind);
  if (item.deleted || !item.resource) return remove(ctx, batch, collection, item.id);
  return store(ctx, batch, collection, item.resource);
}

/** Where a pull stands: the next page's `since` and token. */
type At = NonNullable<Ctx['state']['pull']>;

/**
 * Applies a page to a batch (careful: reading what its items replace) and prepares its commit, with the
 * state moved past the page; answers how many items it stores and what sends the commit.
 */
async function applyPage(ctx: Ctx, page: ChangeList, at: At, careful: boolean, known?: Known) {
  const st = ctx.state;
  const batch = new Batch(ctx.core, known);
  // Media records (pictures) go to their own module, loaded when a pull first meets one (media.ts).
  const items = page.items.filter((i): i is Kept => i.kind !== 'blogcore#media');
  const media = page.items.length > items.length ? page.items.filter((i) => i.kind === 'blogcore#media') : [];
  // What the page's items will read, in a few driver calls rather than one per item.
  const ids = items.map((i) => [collectionOf(i.kind), i.id] as const);
  const take = (c: Collection, wanted: string[]) => (careful ? batch.load(c, wanted) : batch.absent(c, wanted));
  await Promise.all([
    ...synced.map((c) =>
      take(
        c,
        ids.filter((x) => x[0] === c).map((x) => x[1]),
      ),
    ),
    take(
      'settings',
      ids.map(([c, id]) => baseId(ctx.blogId, c, id)),
    ),
    batch.load(
      'users',
      items.map((i) => i.resource?.author.id ?? ''),
    ),
  ]);
  let stored = 0;
  for (const item of items) if (await applyItem(ctx, batch, item)) stored++;
  if (media.length) stored += await (await import('./media.js')).applyMedia(ctx, batch, media);
  if (page.nextPageToken) st.pull = { ...at, pageToken: page.nextPageToken };
  else {
    delete st.pull;
    st.checkpoint = page.checkpoint;
    if (at.fresh && st.gen > 0) st.sweep = st.gen;
  }
  return { stored, send: await batch.prepare(ctx, !!known) };
}

/** Pulls until the server has nothing newer; answers how many items were applied. */
export async function pull(ctx: Ctx, remote: Remote, maxResults: number): Promise<number> {
  // One piece on purpose: the page fetched ahead, the page sent ahead (`behind`) and its retry are one
  // pipeline over shared locals (next, behind, known, applied); it is also in the first download, where every
  // helper costs bytes.
  let applied = 0;
  const st = ctx.state;
  // The next page is asked for as soon as its token is known, so the server and the wire work while this page
  // is applied (a page from a token is the same whenever it is fetched).
  let next: { since: string | undefined; pageToken: string; page: Promise<ChangeList> } | undefined;
  const fetchPage = (since: string | undefined, pageToken: string) =>
    remote.pull(ctx.blogId, { since, pageToken: pageToken || undefined, maxResults });
  // A first pull sends each page's commit while the one before is still being written (Batch.prepare's `ahead`):
  // `behind` is that one, with the state from before it, to go back to should it fail.
  const known: Known = new Map();
  let sent = false;
  let behind:
    | { page: ChangeList; at: At; before: string; stored: number; done: Promise<number | undefined> }
    | undefined;
  /** A page written: its local commit noted (pulledCommits: the look at what waits skips it), its items counted. */
  const count = (seq: number | undefined, stored: number) => {
    if (seq !== undefined) pulledCommits(ctx.core).add(seq);
    applied += stored;
  };
  /** A page applied reading what it finds here, and written. */
  const applyReading = async (page: ChangeList, at: At) => {
    const { stored, send } = await applyPage(ctx, page, at, true);
    count(await send(), stored);
  };
  /**
   * Waits for the page sent ahead; false when it failed on a conflict: then it and the page sent behind it
   * (`after`, which fails on the state's version) wrote nothing, and once `after` is over too (each takes back
   * what it counted), the failed page is applied again, reading.
   */
  const settle = async (after?: Promise<unknown>): Promise<boolean> => {
    const b = behind;
    behind = undefined;
    if (!b) return true;
    try {
      count(await b.done, b.stored);
      return true;
    } catch (error) {
      if (!DriverConflict.is(error)) throw error;
    }
    await after?.catch(() => {});
    // Back to the state before it, and that page again, reading what it finds.
    for (const k of Object.keys(st)) delete (st as unknown as Record<string, unknown>)[k];
    Object.assign(st, JSON.parse(b.before));
    known.clear();
    await applyReading(b.page, b.at);
    return false;
  };
  for (;;) {
    const at = st.pull ?? { since: st.checkpoint, pageToken: '', fresh: !st.checkpoint };
    let page: ChangeList;
    try {
      const asked =
        next && next.since === at.since && next.pageToken === at.pageToken
          ? next.page
          : fetchPage(at.since, at.pageToken);
      next = undefined;
      page = await asked;
      if (page.nextPageToken) {
        next = { since: at.since, pageToken: page.nextPageToken, page: fetchPage(at.since, page.nextPageToken) };
        // (Awaited when its turn comes; a pull that stops first leaves its failure unheard.)
        next.page.catch(() => {});
      }
    } catch (error) {
      // The log no longer reaches back to our checkpoint: pull afresh.
      if (error instanceof RemoteError && error.status === 410) {
        if (!(await settle())) continue;
        st.pull = { pageToken: '', fresh: true };
        st.gen++;
        continue;
      }
      throw error;
    }
    // A first pull (nothing pulled here before) finds none of its items here, so it reads none; should one be
    // here after all (an item the server listed twice), the commit fails whole and the page is applied again,
    // reading them.
    /** This page once more, from the page in hand (the state went back to before the page sent ahead). */
    const again = () => {
      next = { since: at.since, pageToken: at.pageToken, page: Promise.resolve(page) };
    };
    if (firstPull(st)) {
      // Its posts' search terms are left for after it, the blog marked so (core/later-terms.ts): marked at its
      // start, so a reload part way leaves the mark, and at its end, should a search meanwhile have spent it.
      if (!sent) await markTerms(ctx);
      const before = JSON.stringify(st);
      const { stored, send } = await applyPage(ctx, page, at, false, known);
      const done = send();
      done.catch(() => {});
      if (!(await settle(done))) {
        // The page sent ahead failed, so this one did (on the state's version): send it again.
        again();
        continue;
      }
      behind = { page, at, before, stored, done };
      // (Should it fail, settle applies it again, reading.) The last page ends the pull; the first is written
      // before the next goes, as it loads the postings code and stores the authors the next page looks up.
      if (!page.nextPageToken || !sent) await settle();
      sent = true;
      if (page.nextPageToken) continue;
      break;
    }
    if (!(await settle())) {
      again();
      continue;
    }
    await applyReading(page, at);
    if (!page.nextPageToken) break;
  }
  if (sent) await markTerms(ctx);
  if (st.sweep !== undefined) await sweep(ctx);
  // Pictures posts stopped using: those nothing here uses any more may go (media.ts).
  if ((await ctx.core.getAs<Pictures>('settings', picturesId(ctx.blogId)))?.doc.left?.length)
    await (await import('./media.js')).releasePictures(ctx);
  return applied;
}

/** Marks the blog's posts as waiting for their search terms, on a driver that adds them later (a commit of its own). */
async function markTerms({ core, blogId }: Ctx): Promise<void> {
  if (core.driver.addTerms) await core.commit([addTo('settings', { id: laterTermsId(blogId) }, {})]);
}

/**
 * After a fresh pull that replaced an older one: local records it did not bring are gone from the server
 * (or from the caller's sight) unless they wait to be sent.
 */
async function sweep(ctx: Ctx): Promise<void> {
  const gen = ctx.state.sweep!;
  await eachRecord(ctx, async (batch, collection, id, version, base) => {
    if (!base || base.version !== version || base.gen >= gen) return;
    if (collection === 'media') await (await import('./media.js')).sweepMedia(ctx, batch, id, base);
    else await remove(ctx, batch, collection, id);
  });
  delete ctx.state.sweep;
  await saveState(ctx);
}
