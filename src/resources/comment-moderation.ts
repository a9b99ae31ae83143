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
import { moveComment, type COMMENT_MOVES } from '../rules/states.js';
import type { Core } from '../core/core.js';
import type { Key } from '../store/driver.js';
import { notFound } from '../util/errors.js';
import { shortHash } from '../util/ids.js';
import { checkPageToken, type PageQuery } from '../core/paging.js';
import { del, put, type CommentRecord } from '../store/records.js';
import { moveCommentsStep } from '../core/comment-visibility.js';
import { commentModerationParams as params } from '../schema/comment-moderation.js';
import type { CommentsActionParams, CommentsListByBlogParams } from '../schema/params.js';
import type { Comment, CommentList } from '../schema/resources.js';
import { loadVisible, recount } from './content.js';
import { commentListPage, commentOut, emptyCommentList } from './views.js';

/** The event each moderation move emits (the moves themselves: src/rules/states.ts `COMMENT_MOVES`). */
const MOVED = {
  approve: 'comment.approved',
  markAsSpam: 'comment.spam',
  removeContent: 'comment.contentRemoved',
} as const satisfies Record<keyof typeof COMMENT_MOVES, string>;

export function commentModerationApi(core: Core, actor: Actor) {
  const actorId = actorUserId(actor);

  /** Loads a comment of a post for moderation, with the post it belongs to. */
  async function loadPair(blogId: string, postId: string, commentId: string) {
    const [post, comment] = await Promise.all([core.get('posts', postId), core.get('comments', commentId)]);
    if (!post || post.doc.blogId !== blogId) throw notFound('Post');
    if (!comment || comment.doc.postId !== postId || comment.doc.blogId !== blogId) throw notFound('Comment');
    return { post, comment };
  }

  async function moderate(input: CommentsActionParams, action: keyof typeof COMMENT_MOVES): Promise<Comment> {
    const p = core.parse(params.commentsAction, input);
    const s = await core.writer(actor, p.blogId);
    requireRole(s, 'ADMIN', 'moderate comments');
    const { after } = await core.transact(
      async () => {
        const { post, comment } = await loadPair(p.blogId, p.postId, p.commentId);
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
          ops: [put('comments', next, comment.version), ...recount(post, c.status, next.status)],
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

  return {
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
          const { post, comment } = await loadPair(p.blogId, p.postId, p.commentId);
          // Replies keep their inReplyTo: the thread shows the gap rather than losing the replies.
          return {
            ops: [
              del('comments', comment.id, comment.version, comment.doc),
              ...recount(post, comment.doc.status, undefined),
            ],
            result: undefined,
          };
        },
        () => core.event('comment.deleted', { blogId: p.blogId, id: p.commentId, actorId }),
      );
    },
  };
}
