/**
 * The parameters of comment moderation (src/resources/comment-moderation.ts: comments.listByBlog, approve,
 * markAsSpam, removeContent, delete) as zod schemas.
 */
import { bool, object, optional, string, upperEnum } from './checks.js';
import { enumList, id, listing, text } from './schemas.js';
import { COMMENT_STATUSES, LIMITS } from './values.js';

/** The parameter schema of each moderation call, by operation (`commentsAction` for approve, markAsSpam, …). */
export const commentModerationParams = {
  commentsListByBlog: object({
    blogId: id,
    post: optional(id),
    ...listing,
    status: optional(enumList(COMMENT_STATUSES)),
    fetchBodies: optional(bool),
  }),
  commentsAction: object({ blogId: id, postId: id, commentId: id }),
  commentsModerate: object({
    blogId: id,
    filter: object({
      status: optional(enumList(COMMENT_STATUSES)),
      authorId: optional(id),
      clientAddress: optional(text(LIMITS.clientHeader)),
      contains: optional(string(1, LIMITS.commentContent)),
    }),
    action: upperEnum(['approve', 'spam', 'delete'] as const),
    pageToken: optional(text(LIMITS.url)),
  }),
};
