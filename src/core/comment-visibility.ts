/**
 * Comments by visibility: a reader's walk of a blog's comments never visits comments it may not see.
 *
 * Why this shape. Hidden comments (of posts that are not LIVE, or that hide theirs with
 * DONT_ALLOW_HIDE_EXISTING) are interleaved in time with visible ones, so a walk over one time-ordered
 * index can skip them only if their keys say so: `comments.blog` is [blogId, vis, status, published, id],
 * where `vis` is the post's visibility class (rules/access.ts `commentVisOf`: open / draft / hidden). A reader
 * walks the 'open' prefixes, an AUTHOR 'open' and 'draft', an ADMIN all three (`visibleClasses`; merged by `keys`).
 *
 * The class is the post's, so a post that changes class (reverted to draft, comments hidden) must refile
 * its comments — 60k of them for a busy post, which no single request may do. So the post's own write
 * changes only the post; the post then holds a `posts.moving` entry (its `commentsVis` differs from its
 * class) and each blog-wide comment list request refiles at most MOVE_BATCH of its comments, found through
 * `comments.move` [postId, vis, id], until none is left under another class and the post is marked done
 * in the same commit. Until then:
 * - a post that became hidden still has comments under 'open': the list's filter checks each hit's post
 *   and drops them, bounded by FILTER_ROUNDS (paging.ts); such a page may be short, with a token to go on;
 * - a post that became visible shows its old comments in blog-wide lists as they are refiled (at once in
 *   the post's own list, which checks the post itself);
 * - `comments.list` of one post and `replies.totalItems` read the post's current state, never the index.
 */
import type { Core } from './core.js';
import { DriverConflict, type WriteOp } from '../store/driver.js';
import { put } from '../store/records.js';
import { COMMENT_VIS, commentVisOf } from '../rules/access.js';

/** Comments refiled per step (one step per blog-wide list request). */
export const MOVE_BATCH = 200;

/** Refiles up to MOVE_BATCH comments of one post whose class changed; marks the post done with the last batch. */
export async function moveCommentsStep(core: Core): Promise<void> {
  const [hit] = await core.driver.list({
    collection: 'posts',
    index: 'moving',
    prefix: [],
    direction: 'asc',
    limit: 1,
  });
  if (!hit) return;
  const post = hit.doc;
  const target = commentVisOf(post);
  const entries = await core.driver.keys({
    collection: 'comments',
    index: 'move',
    prefixes: COMMENT_VIS.filter((v) => v !== target).map((v) => [post.id, v]),
    direction: 'asc',
    limit: MOVE_BATCH,
  });
  const docs = entries.length
    ? await core.driver.getMany(
        'comments',
        entries.map((e) => e.id),
      )
    : [];
  const ops: WriteOp[] = [];
  for (const d of docs) if (d) ops.push(put('comments', { ...d.doc, vis: target }, d));
  // The post's version is part of the last batch: if it changed class meanwhile, nothing is marked done.
  if (entries.length < MOVE_BATCH) ops.push(put('posts', { ...post, commentsVis: target }, hit));
  try {
    await core.commit(ops);
  } catch (error) {
    if (!DriverConflict.is(error)) throw error; // a concurrent write: the next step picks it up
  }
}
