import {
  actorUserId,
  commentVisOf,
  hidesComments,
  mayComment,
  newCommentStatus,
  PUBLIC_COMMENT_STATUSES,
  requireVisibleComments,
  seesComment,
  type Actor,
} from '../rules/access.js';
import { acceptsComments } from '../rules/states.js';
import type { Core } from '../core/core.js';
import { conflict, forbidden, invalid, notFound } from '../util/errors.js';
import { shortHash } from '../util/ids.js';
import { put, type CommentRecord } from '../store/records.js';
import { params } from '../schema/schemas.js';
import type { CommentsGetParams, CommentsInsertParams, CommentsListParams } from '../schema/params.js';
import type { Comment, CommentList } from '../schema/resources.js';
import { loadVisible, recount } from './content.js';
import { commentListPage, commentOut, emptyCommentList } from './views.js';

/**
 * comments.get, list and insert. The moderator's calls (the blog-wide list, approve, markAsSpam, removeContent,
 * delete) are rarely made in a browser: they load on first use (comment-moderation.ts, in back-office.ts).
 */

export function commentsApi(core: Core, actor: Actor) {
  const actorId = actorUserId(actor);

  return {
    async get(input: CommentsGetParams): Promise<Comment> {
      const p = core.parse(params.commentsGet, input);
      const s = await core.reader(actor, p.blogId, p.view);
      const post = await loadVisible(core, 'post', p.blogId, p.postId, s);
      const c = (await core.get('comments', p.commentId))?.doc;
      if (!c || c.postId !== p.postId || c.blogId !== p.blogId || !seesComment(c, post.doc, s.view))
        throw notFound('Comment');
      return commentOut(core, c, s.view, true);
    },

    async list(input: CommentsListParams): Promise<CommentList> {
      const p = core.parse(params.commentsList, input);
      const s = await core.reader(actor, p.blogId, p.view);
      const statuses = p.status ?? [...PUBLIC_COMMENT_STATUSES];
      requireVisibleComments(statuses, s.view);
      const post = await loadVisible(core, 'post', p.blogId, p.postId, s);
      if (hidesComments(post.doc.readerComments, s.view)) return emptyCommentList();
      return commentListPage(
        core,
        {
          collection: 'comments',
          index: 'post',
          prefixes: statuses.map((st) => [p.blogId, p.postId, st]),
          direction: 'asc',
          start: p.startDate,
          end: p.endDate,
          fingerprint: shortHash(
            JSON.stringify(['comments', p.blogId, p.postId, [...statuses].sort(), p.startDate, p.endDate]),
          ),
        },
        p,
        s.view,
      );
    },

    async insert(input: CommentsInsertParams): Promise<Comment> {
      const p = core.parse(params.commentsInsert, input);
      const s = await core.writer(actor, p.blogId);
      const b = p.body;
      const authorUrl = b.author?.url;
      // The sanitizer (and js-xss in it) loads on the first comment written: browsers rarely need it.
      const content = (await import('../rules/sanitize.js')).sanitizeCommentHtml(b.content);
      const c = await core.transact(
        async () => {
          const post = await loadVisible(core, 'post', p.blogId, p.postId, s);
          if (!acceptsComments(post.doc.status))
            throw conflict(`Comments are accepted only on LIVE posts; this post is ${post.doc.status}`);
          if (!mayComment(post.doc.readerComments, s.role)) throw forbidden('This post does not accept new comments');
          if (b.inReplyTo) {
            const parent = (await core.get('comments', b.inReplyTo.id))?.doc;
            if (!parent || parent.postId !== p.postId || !seesComment(parent, post.doc, s.view)) {
              throw invalid('body.inReplyTo.id', 'inReplyTo must name a comment of the same post');
            }
          }
          const now = core.nowIso();
          const record: CommentRecord = {
            id: core.newId(),
            blogId: p.blogId,
            postId: p.postId,
            status: newCommentStatus(s.role),
            content,
            published: now,
            updated: now,
            vis: commentVisOf(post.doc),
            ...(b.inReplyTo ? { inReplyTo: b.inReplyTo.id } : {}),
            ...(actorId
              ? { authorId: actorId }
              : { authorName: b.author?.displayName?.trim() || 'Anonymous', ...(authorUrl ? { authorUrl } : {}) }),
          };
          return { ops: [put('comments', record, 0), ...recount(post, undefined, record.status)], result: record };
        },
        (record) =>
          core.event('comment.inserted', { blogId: p.blogId, id: record.id, actorId }, () =>
            commentOut(core, record, 'ADMIN', true),
          ),
      );
      return commentOut(core, c, s.view, true);
    },
  };
}
