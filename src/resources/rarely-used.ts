/**
 * The calls a browser app rarely makes, in one module that the service loads on the first of them
 * (src/util/lazy.ts): blog, user and member management, comment moderation (with the blog-wide comment list),
 * user infos, page views, labels.list, changes.list, the revisions of posts and pages, and media (changes.list
 * answers media items, so it reaches media's code anyway). One module rather than
 * one per namespace: a bundler then gives the code they share with the first download one signature, so that
 * download stays a few larger chunks, which compress better than many small ones (docs/design.md §13: the budget counts each
 * start-up chunk gzipped on its own).
 */
export { blogAdminApi } from './blog-admin.js';
export { changesApi } from './changes.js';
export { commentModerationApi } from './comment-moderation.js';
export { labelsApi } from './labels.js';
export { mediaApi, putPicture } from './media.js';
export { membersApi } from './members.js';
export { pageViewsApi } from './pageviews.js';
export { revisionsApi } from './revisions.js';
export { userInfosApi } from './userinfos.js';
