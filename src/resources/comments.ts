import {
  hidesComments,
  PUBLIC_COMMENT_STATUSES,
  requireVisibleComments,
  seesComment,
  type Actor,
} from '../rules/access.js';
import type { Core } from '../core/core.js';
import { notFound } from '../util/errors.js';
import { shortHash } from '../util/ids.js';
import { params } from '../schema/schemas.js';
import type { CommentsGetParams, CommentsInsertParams, CommentsListParams } from '../schema/params.js';
import type { Comment, CommentList } from '../schema/resources.js';
import { loadVisible } from './content.js';
import { commentListPage, commentOut, emptyCommentList } from './views.js';

/**
 * comments.get, list and insert (whose code, comment-insert.ts, loads with the first comment written). The
 * moderator's calls (the blog-wide list, approve, markAsSpam, removeContent, delete) are rarely made in a
 * browser: they load on first use (comment-moderation.ts, in back-office.ts).
 */

export function commentsApi(core: Core, actor: Actor) {
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

    // Writing a comment (its limits, rules and sanitizer) loads with the first one (comment-insert.ts).
    insert: async (input: CommentsInsertParams): Promise<Comment> =>
      (await import('./comment-insert.js')).insertCommentCall(core, actor, input),
  };
}
