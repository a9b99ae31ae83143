/**
 * The back office: the calls that run a blog rather than read and write its posts, pages and comments — its
 * settings and users (blog-admin.ts), members, comment moderation with the blog-wide comment list, user infos,
 * page views, redirects, labels, the change feed a replica pulls (changes.ts), revisions and the media library. Each is a
 * file of its own; the service imports them through this one module on the first such call (src/util/lazy.ts),
 * because a bundler gives the start-up code each dynamic `import()` shares a chunk of its own: one import for
 * all of them keeps a browser's first download a few chunks (docs/design.md §13, figures in docs/benchmarks.md).
 */
export { blogAdminApi } from './blog-admin.js';
export { changesApi } from './changes.js';
export { commentModerationApi, sweepComments } from './comment-moderation.js';
export { sweepCollab } from './collab-sweep.js';
export { labelsApi } from './labels.js';
export { mediaApi } from '../media/service.js';
export { membersApi } from './members.js';
export { pageViewsApi } from './pageviews.js';
export { redirectsApi } from './redirects.js';
export { pagesApi } from './pages.js';
export { revisionsApi } from './revisions.js';
export { userInfosApi } from './userinfos.js';
export { postsGet } from './post-now.js';
