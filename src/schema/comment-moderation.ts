/**
 * The parameters of comment moderation (src/resources/comment-moderation.ts: comments.listByBlog, approve,
 * markAsSpam, removeContent, delete) as zod schemas.
 */
import { bool, object, optional } from './checks.js';
import { enumList, id, listing } from './schemas.js';
import { COMMENT_STATUSES } from './values.js';

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
};
