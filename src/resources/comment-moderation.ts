/**
 * The moderator's comment calls: the blog-wide list (the moderation queue, also what a reader's "recent
 * comments" walks), approve, markAsSpam, removeContent and delete. Loaded on first use with the rest of the
 * back office (back-office.ts); comments.get, list and insert are comments.ts.
 */
import {
  actorUserId,
  COMMENT_VIS,
  commentVisOf,
  hidesComments,
  PUBLIC_COMMENT_STATUSES,
  requireRole,
  requireVisibleComments,
  visibleClasses,
  type Actor,
} from '../rules/access.js';
import { moveComment, movesFrom, type COMMENT_MOVES } from '../rules/states.js';
import { COMMENT_DEFAULTS } from '../rules/comments.js';
import { htmlToText } from '../rules/text.js';
import { normalizeAddress } from '../util/addresses.js';
import { COMMENT_STATUSES, LIMITS, type CommentStatus } from '../schema/schemas.js';
import type { Core } from '../core/core.js';
import type { Output } from '../schema/standard.js';
import { DriverConflict, type Key, type WriteOp } from '../store/driver.js';
import { notFound } from '../util/errors.js';
import { shortHash } from '../util/ids.js';
import { checkPageToken, page, type PageQuery } from '../core/paging.js';
import { del, delNoted, put, whoOf, type CommentRecord } from '../store/records.js';
import { moveCommentsStep } from '../core/comment-visibility.js';
import { commentModerationParams as params } from '../schema/comment-moderation.js';
import type {
  CommentsActionParams,
  CommentsListByBlogParams,
  CommentsModerateParams,
  CommentsModerateResult,
} from '../schema/params.js';
import type { Comment, CommentList } from '../schema/resources.js';
import { loadVisible, recount, recountAll } from './content.js';
import { commentListPage, commentOut, emptyCommentList } from './views.js';

type ModerateAction = CommentsModerateParams['action'];

/** The event each moderation move emits (the moves themselves: src/rules/states.ts `COMMENT_MOVES`). */
const MOVED = {
  approve: 'comment.approved',
  markAsSpam: 'comment.spam',
  removeContent: 'comment.contentRemoved',
} as const satisfies Record<keyof typeof COMMENT_MOVES, string>;

export function commentModerationApi(core: Core, actor: Actor) {
  const actorId = actorUserId(actor);
  const moderate = (input: CommentsActionParams, action: keyof typeof COMMENT_MOVES) =>
    moveOne(core, actor, input, action);

  return {
    async moderate(input: CommentsModerateParams): Promise<CommentsModerateResult> {
      const p = core.parse(params.commentsModerate, input);
      const s = await core.writer(actor, p.blogId);
      requireRole(s, 'ADMIN', 'moderate comments');
      const q = moderationQuery(p.blogId, p.filter, p.action);
      const pg = await page(core.driver, q, LIMITS.moderateBatch, p.pageToken);
      const byPost = new Map<string, string[]>();
      for (const h of pg.items) byPost.set(h.doc.postId, [...(byPost.get(h.doc.postId) ?? []), h.id]);
      let handled = 0;
      for (const [postId, ids] of byPost) handled += await actOnPost(core, actorId, p.blogId, postId, ids, p.action);
      return { handled, ...(pg.nextPageToken ? { nextPageToken: pg.nextPageToken } : {}) };
    },

    async listByBlog(input: CommentsListByBlogParams): Promise<CommentList> {
      const p = core.parse(params.commentsListByBlog, input);
      const s = await core.reader(actor, p.blogId, p.view);
      const statuses = p.status ?? [...PUBLIC_COMMENT_STATUSES];
      requireVisibleComments(statuses, s.view);
      let prefixes: Key[];
      if (p.post) {
        const post = await loadVisible(core, 'post', p.blogId, p.post, s);
        if (hidesComments(post.doc.readerComments, s.view)) return emptyCommentList();
        prefixes = statuses.map((st) => [p.blogId, p.post!, st]);
      } else {
        prefixes = visibleClasses(s.view).flatMap((vis) => statuses.map((st) => [p.blogId, vis, st]));
      }
      const q: PageQuery<'comments'> = {
        collection: 'comments',
        index: p.post ? 'post' : 'blog',
        prefixes,
        direction: 'desc',
        start: p.startDate,
        end: p.endDate,
        fingerprint: shortHash(
          JSON.stringify(['blogComments', p.blogId, p.post, [...statuses].sort(), p.startDate, p.endDate]),
        ),
      };
      if (!p.post) {
        // A refused request writes nothing: the page token is checked before the refiling step.
        if (p.pageToken !== undefined) checkPageToken(p.pageToken, q.fingerprint);
        // One bounded step of refiling the comments of a post whose visibility changed (comment-visibility.ts).
        await moveCommentsStep(core);
      }
      const classes = visibleClasses(s.view);
      if (!p.post && classes.length < COMMENT_VIS.length) {
        // The index keeps hidden comments out of the walk; this drops only those of a post whose class changed
        // and whose comments are not yet refiled.
        q.filter = async (hits) => {
          const posts = await core.driver.getMany('posts', [...new Set(hits.map((h) => h.doc.postId))]);
          const ok = new Set(posts.flatMap((x) => (x && classes.includes(commentVisOf(x.doc)) ? [x.id] : [])));
          return hits.filter((h) => ok.has(h.doc.postId));
        };
      }
      return commentListPage(core, q, p, s.view);
    },

    approve: async (input: CommentsActionParams) => moderate(input, 'approve'),
    markAsSpam: async (input: CommentsActionParams) => moderate(input, 'markAsSpam'),
    removeContent: async (input: CommentsActionParams) => moderate(input, 'removeContent'),

    async delete(input: CommentsActionParams): Promise<void> {
      const p = core.parse(params.commentsAction, input);
      const s = await core.writer(actor, p.blogId);
      requireRole(s, 'ADMIN', 'delete comments');
      await core.transact(
        async () => {
          const { post, comment } = await loadPair(core, p.blogId, p.postId, p.commentId);
          // Replies keep their inReplyTo: the thread shows the gap rather than losing the replies.
          return {
            ops: [...delNoted('comments', comment), ...recount(post, comment.doc.status, undefined)],
            result: undefined,
          };
        },
        () => core.event('comment.deleted', { blogId: p.blogId, id: p.commentId, actorId }),
      );
    },
  };
}

/** Loads a comment of a post for moderation, with the post it belongs to. */
async function loadPair(core: Core, blogId: string, postId: string, commentId: string) {
  const [post, comment] = await Promise.all([core.get('posts', postId), core.get('comments', commentId)]);
  if (!post || post.doc.blogId !== blogId) throw notFound('Post');
  if (!comment || comment.doc.postId !== postId || comment.doc.blogId !== blogId) throw notFound('Comment');
  return { post, comment };
}

/** approve, markAsSpam, removeContent: one comment moved by an ADMIN, the post's counters with it. */
async function moveOne(
  core: Core,
  actor: Actor,
  input: CommentsActionParams,
  action: keyof typeof COMMENT_MOVES,
): Promise<Comment> {
  const actorId = actorUserId(actor);
  const p = core.parse(params.commentsAction, input);
  const s = await core.writer(actor, p.blogId);
  requireRole(s, 'ADMIN', 'moderate comments');
  const { after } = await core.transact(
    async () => {
      const { post, comment } = await loadPair(core, p.blogId, p.postId, p.commentId);
      const c = comment.doc;
      const to = moveComment(action, c.status);
      if (to === c.status) return { ops: [], result: { before: c, after: c } };
      const next: CommentRecord = {
        ...c,
        status: to,
        updated: core.nowIso(),
        ...(to === 'EMPTIED' ? { content: '' } : {}),
      };
      return {
        ops: [put('comments', next, comment), ...recount(post, c.status, next.status)],
        result: { before: c, after: next },
      };
    },
    (r) =>
      core.event(MOVED[action], { blogId: p.blogId, id: r.after.id, actorId }, () =>
        commentOut(core, r.after, 'ADMIN', true),
      ),
  );
  return commentOut(core, after, s.view, true);
}

/** The comments `moderate` walks: the author or address index when one is named, else the blog's, filtered. */
function moderationQuery(
  blogId: string,
  f: Output<typeof params.commentsModerate>['filter'],
  action: ModerateAction,
): PageQuery<'comments'> {
  const statuses = f.status ?? [...COMMENT_STATUSES];
  const address = f.clientAddress === undefined ? undefined : normalizeAddress(f.clientAddress);
  const who = whoOf({ authorId: f.authorId, clientAddress: address });
  // The author or address index when one is named (an author's and an address's never meet: whoOf).
  const prefixes: Key[] = who
    ? statuses.map((st) => [blogId, who, st])
    : COMMENT_VIS.flatMap((vis) => statuses.map((st) => [blogId, vis, st]));
  const contains = f.contains?.toLowerCase();
  return {
    collection: 'comments',
    index: who ? 'who' : 'blog',
    prefixes,
    direction: 'asc',
    fingerprint: shortHash(JSON.stringify(['moderate', blogId, [...statuses].sort(), f, action])),
    ...(contains !== undefined || (who && f.authorId !== undefined && address !== undefined)
      ? {
          filter: (hits) =>
            hits.filter(
              (h) =>
                (contains === undefined || htmlToText(h.doc.content).toLowerCase().includes(contains)) &&
                (address === undefined || h.doc.clientAddress === address),
            ),
        }
      : {}),
  };
}

/**
 * One action on the given comments of one post, in one write: each comment the action applies to moves (or
 * goes), the post's counters follow. Comments gone or moved meanwhile are read again; those it does not apply
 * to stay. Answers the comments changed.
 */
async function actOnPost(
  core: Core,
  actorId: string | undefined,
  blogId: string,
  postId: string,
  ids: string[],
  action: ModerateAction,
): Promise<number> {
  return core
    .transact(
      async () => {
        const [post, ...found] = await Promise.all([
          core.get('posts', postId),
          ...ids.map((id) => core.get('comments', id)),
        ]);
        if (!post || post.doc.blogId !== blogId) return { ops: [], result: [] as CommentRecord[] };
        const ops: WriteOp[] = [];
        const moves: Array<[CommentStatus, CommentStatus | undefined]> = [];
        const changed: CommentRecord[] = [];
        for (const c of found) {
          if (!c || c.doc.postId !== postId) continue;
          if (action === 'delete') {
            ops.push(...delNoted('comments', c));
            moves.push([c.doc.status, undefined]);
          } else {
            const move = action === 'approve' ? 'approve' : 'markAsSpam';
            if (!movesFrom(move, c.doc.status)) continue;
            const next: CommentRecord = { ...c.doc, status: moveComment(move, c.doc.status), updated: core.nowIso() };
            ops.push(put('comments', next, c));
            moves.push([c.doc.status, next.status]);
          }
          changed.push(c.doc);
        }
        if (ops.length === 0) return { ops, result: changed };
        return { ops: [...ops, ...recountAll(post, moves)], result: changed };
      },
      async (changed) =>
        (
          await Promise.all(
            changed.map((c) =>
              action === 'delete'
                ? core.event('comment.deleted', { blogId, id: c.id, actorId })
                : core.event(action === 'approve' ? MOVED.approve : MOVED.markAsSpam, { blogId, id: c.id, actorId }),
            ),
          )
        ).flat(),
    )
    .then((changed) => changed.length);
}

/**
 * The scheduler's housekeeping (docs/design.md §25): spam that has been SPAM for 30 days is deleted (with its
 * post's counters, as `comments.moderate` deletes), and client addresses older than 30 days are removed from
 * their comments; a bounded batch of each (the `comments.sweep` index), oldest first, and the shared comment
 * counters that are full again. Answers whether more is left.
 */
export async function sweepComments(core: Core): Promise<boolean> {
  await core.ready();
  const before = new Date(core.now().getTime() - COMMENT_DEFAULTS.keepDays * 86_400_000).toISOString();
  const batch = LIMITS.moderateBatch;
  const due = (kind: 'spam' | 'address') =>
    core.driver.list({
      collection: 'comments',
      index: 'sweep',
      prefix: [kind],
      upper: { key: [before] },
      direction: 'asc',
      limit: batch,
    });
  const spam = await due('spam');
  const byPost = new Map<string, { blogId: string; ids: string[] }>();
  for (const h of spam) {
    const group = byPost.get(h.doc.postId) ?? { blogId: h.doc.blogId, ids: [] };
    group.ids.push(h.id);
    byPost.set(h.doc.postId, group);
  }
  for (const [postId, { blogId, ids }] of byPost) await actOnPost(core, undefined, blogId, postId, ids, 'delete');
  const addressed = await due('address');
  for (const h of addressed) {
    const { clientAddress: _forgotten, ...kept } = h.doc;
    // Changed meanwhile (moderated, deleted): the next sweep finds it again if it still holds the address.
    await core.commit([put('comments', kept, h)]).catch((e: unknown) => {
      if (!DriverConflict.is(e)) throw e;
    });
  }
  // Shared counters (`commentLimits.shared`) full again are as good as none.
  const spent = await core.driver.list({
    collection: 'limits',
    index: 'expires',
    prefix: [],
    upper: { key: [core.nowIso()] },
    direction: 'asc',
    limit: batch,
  });
  for (const l of spent)
    await core.commit([del('limits', l.id, l.version)]).catch((e: unknown) => {
      if (!DriverConflict.is(e)) throw e;
    });
  return spam.length === batch || addressed.length === batch || spent.length === batch;
}
