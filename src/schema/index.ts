/**
 * `blogcore/schema`: the zod schemas the service checks every parameter object and body with, so a host checks a
 * form or a request by the same rules before it calls the service (or sends the request). zod 4 implements
 * Standard Schema: any validator that takes one takes these. Each schema's input type is the plain interface
 * `blogcore` exports (`params.postsInsert` takes a `PostsInsertParams`, `postBody` a `PostBody`), and `parse`
 * refuses a value with the very BlogError the service would give.
 */
import { params as firstDownload } from './schemas.js';
import { blogAdminParams } from './blog-admin.js';
import { changesParams } from './changes.js';
import { commentModerationParams } from './comment-moderation.js';
import { labelsParams } from './labels.js';
import { membersParams } from './members.js';
import { pageViewsParams } from './pageviews.js';
import { revisionsParams } from './revisions.js';
import { userInfosParams } from './userinfos.js';

export { commentBody, pageBody, pagePatchBody, postBody, postPatchBody } from './schemas.js';
export { blogBody, blogPatchBody, userBody, userPatchBody } from './blog-admin.js';
/** Every operation's parameter schema, by operation (`postsList` for posts.list). */
export const params = {
  ...firstDownload,
  ...blogAdminParams,
  ...membersParams,
  ...commentModerationParams,
  ...userInfosParams,
  ...pageViewsParams,
  ...labelsParams,
  ...changesParams,
  ...revisionsParams,
};
export { parse } from './parse.js';
