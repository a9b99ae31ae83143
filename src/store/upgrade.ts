/**
 * Brings records written under an older store layout to the current one, once, when a store opens. The
 * driver upgrades its storage for the new StoreSchema (new indexes start empty); the keys are the core's,
 * so the core rewrites the records whose keys changed. Layout 2 (store-schema version 2): comments filed
 * by their post's visibility class (comment-visibility.ts) and posts' search tokens re-given (the SQLite
 * driver rebuilt its token tables). Layout 3: label counters (label-counts.ts) counted from the posts there.
 * Layout 4: posts' search ranks (rankPosts). Layout 5: comments filed by author, held and swept (fileComments).
 * A marker in `settings` records the layout, so this runs once per store (the core reads the marker and loads
 * this module only for a store behind the current layout).
 */
import { DriverConflict, type IndexedDoc, type Key, type StoredDoc, type WriteOp } from './driver.js';
import type { RecordStore } from './record-store.js';
import { labelId, put, type Collection, type LabelRecord, type PostRecord, type Records } from './records.js';
import { commentVisOf } from '../rules/access.js';
import { LAYOUT_MARKER, STORE_LAYOUT, type IndexName } from './schema.js';

const BATCH = 500;

/** Every record of a collection, through an index walked from its start, a batch at a time. */
async function eachBatch<C extends Collection>(
  driver: RecordStore,
  collection: C,
  index: IndexName<C>,
  fn: (docs: Array<IndexedDoc<Records[C]>>) => Promise<void>,
) {
  let after: Key | undefined;
  for (;;) {
    const batch = await driver.list({
      collection,
      index,
      prefix: [],
      ...(after ? { lower: { key: after, open: true } } : {}),
      direction: 'asc',
      limit: BATCH,
    });
    if (batch.length) await fn(batch);
    if (batch.length < BATCH) return;
    after = batch[batch.length - 1]!.key;
  }
}

/** `mark` is the layout marker as stored (none in a new store); `time` the core's clock (ms), logged with the commits this makes. */
export async function upgradeStore(
  driver: RecordStore,
  mark: StoredDoc | undefined,
  time: () => number,
): Promise<void> {
  const layout = mark ? Number(mark.doc.layout) : 0;
  if (layout >= STORE_LAYOUT) return;
  if (layout < 2) await layout2(driver, time);
  else if (layout < 4) await rankPosts(driver, time);
  if (layout < 3) await countLabels(driver, time);
  // (Layout 2 wrote every comment anew, with these entries.)
  if (layout >= 2 && layout < 5) await fileComments(driver, time);
  try {
    const doc = { id: LAYOUT_MARKER, layout: STORE_LAYOUT };
    await driver.commit(
      [{ type: 'put', collection: 'settings', id: LAYOUT_MARKER, expect: mark?.version ?? 0, doc, keys: {} }],
      { time: time() },
    );
  } catch (error) {
    if (!DriverConflict.is(error)) throw error; // another process opening the same store marked it
  }
}

/**
 * Layout 4: every post written again as it is, now with its search rank (records.ts `put`: terms.rank), which
 * a driver may keep its search index in (the SQLite driver rebuilt its full-text index in rank order). A post
 * another process changed meanwhile is read again. (Layout 2 writes posts anew, with their rank.)
 */
async function rankPosts(driver: RecordStore, time: () => number): Promise<void> {
  await eachBatch(driver, 'posts', 'published', async (batch) => {
    let posts: Array<StoredDoc<PostRecord> | undefined> = batch;
    for (;;) {
      const found = posts.filter((p): p is StoredDoc<PostRecord> => p !== undefined);
      try {
        await driver.commit(
          found.map((p) => put('posts', p.doc, p)),
          { time: time() },
        );
        return;
      } catch (error) {
        if (!DriverConflict.is(error)) throw error;
        posts = await driver.getMany(
          'posts',
          found.map((p) => p.id),
        );
      }
    }
  });
}

/**
 * Layout 5: the comments the new indexes hold (by author, anonymous PENDING and SPAM, spam to sweep) written
 * again as they are; a comment another process changed meanwhile was filed by that write.
 */
async function fileComments(driver: RecordStore, time: () => number): Promise<void> {
  await eachBatch(driver, 'comments', 'post', async (batch) => {
    const filed = batch.filter(
      (c) => c.doc.authorId !== undefined || c.doc.status === 'PENDING' || c.doc.status === 'SPAM',
    );
    for (const c of filed) {
      await driver.commit([put('comments', c.doc, c)], { time: time() }).catch((e: unknown) => {
        if (!DriverConflict.is(e)) throw e;
      });
    }
  });
}

/** Layout 3: a counter per blog and label, from every post stored. A counter already there is left alone
 * (another process, upgraded first, has been keeping it). */
async function countLabels(driver: RecordStore, time: () => number): Promise<void> {
  const counts = new Map<string, LabelRecord>();
  await eachBatch(driver, 'posts', 'published', async (posts) => {
    for (const p of posts) {
      const post = p.doc;
      for (const label of post.labels ?? []) {
        const id = labelId(post.blogId, label);
        const c = counts.get(id) ?? { id, blogId: post.blogId, label, live: 0, all: 0 };
        c.all++;
        if (post.status === 'LIVE') c.live++;
        counts.set(id, c);
      }
    }
  });
  // One commit per counter: one another process already keeps (a conflict) is left alone.
  for (const c of counts.values()) {
    await driver.commit([put('labels', c, 0)], { time: time() }).catch((e: unknown) => {
      if (!DriverConflict.is(e)) throw e;
    });
  }
}

async function layout2(driver: RecordStore, time: () => number): Promise<void> {
  await eachBatch(driver, 'posts', 'published', async (posts) => {
    await driver.commit(
      posts.map((p) => put('posts', { ...p.doc, commentsVis: commentVisOf(p.doc) }, p)),
      { time: time() },
    );
  });
  await eachBatch(driver, 'comments', 'post', async (comments) => {
    const postIds = [...new Set(comments.map((c) => c.doc.postId))];
    const posts = new Map((await driver.getMany('posts', postIds)).flatMap((p) => (p ? [[p.id, p.doc] as const] : [])));
    const ops: WriteOp[] = [];
    for (const c of comments) {
      const post = posts.get(c.doc.postId);
      ops.push(put('comments', { ...c.doc, vis: post ? commentVisOf(post) : 'hidden' }, c));
    }
    await driver.commit(ops, { time: time() });
  });
}
