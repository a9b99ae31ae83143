/**
 * The parameters and bodies of the calls loaded on first use (src/resources/rarely-used.ts: blog, user and member
 * management, comment moderation, user infos, page views, labels.list, changes.list, revisions), as zod schemas
 * built from the same pieces as src/schema/schemas.ts. Only those calls import this file, so their schemas travel in their chunk and
 * a browser's first download never carries them (docs/design.md §13).
 */
import type { output } from 'zod/mini';
import { bool, integer, list, object, optional, refine, string, unknown, upperEnum } from './checks.js';
import {
  blogRead,
  count,
  enumList,
  httpUrl,
  id,
  listing,
  nonEmpty,
  postListing,
  readOnly,
  text,
  view,
  withIfMatch,
} from './schemas.js';
import { COMMENT_STATUSES, LIMITS, PAGE_VIEWS_RANGES, ROLES } from './values.js';

/** What a blog body carries beside its name and url (blogs.insert/update and, all optional, blogs.patch). */
const blogFields = {
  description: optional(text(LIMITS.description)),
  customMetaData: optional(text(LIMITS.text)),
  published: optional(unknown),
  posts: optional(unknown),
  pages: optional(unknown),
  locale: optional(object({ language: optional(text(50)), country: optional(text(50)), variant: optional(text(50)) })),
};
/** The body of blogs.insert and update (`BlogBody`). */
export const blogBody = object({ ...readOnly, name: nonEmpty(LIMITS.blogName), url: httpUrl, ...blogFields });

/** The body of blogs.patch: the fields of a blog body, all optional (`BlogPatchBody`). */
export const blogPatchBody = object({
  ...readOnly,
  name: optional(nonEmpty(LIMITS.blogName)),
  url: optional(httpUrl),
  ...blogFields,
});

/** The body of users.update: what a user may change; the id is the user's for good (`UserPatchBody`). */
export const userPatchBody = object({
  kind: optional(unknown),
  selfLink: optional(unknown),
  created: optional(unknown),
  blogs: optional(unknown),
  id: optional(unknown),
  displayName: optional(nonEmpty(LIMITS.displayName)),
  url: optional(httpUrl),
  about: optional(text(LIMITS.text)),
});

/** The body of users.insert (`UserBody`). */
export const userBody = object({
  kind: optional(unknown),
  selfLink: optional(unknown),
  created: optional(unknown),
  blogs: optional(unknown),
  id: optional(refine(id, (s) => /^[\w.@:-]+$/.test(s), 'may hold letters, digits and . _ @ : - only')),
  displayName: nonEmpty(LIMITS.displayName),
  url: optional(httpUrl),
  about: optional(text(LIMITS.text)),
});

const pageViewsRange = upperEnum(PAGE_VIEWS_RANGES);

/** The parameter schema of each rarely used call, by operation (`membersSet` for members.set). */
export const rarelyUsedParams = {
  blogsInsert: object({ body: blogBody, ownerId: optional(id) }),
  blogsUpdate: object({ blogId: id, body: blogBody }),
  blogsPatch: object({ blogId: id, body: blogPatchBody }),
  blogsDelete: object({ blogId: id }),
  usersInsert: object({ body: userBody }),
  usersUpdate: object({ userId: id, body: userPatchBody }),

  membersSet: object({ blogId: id, userId: id, role: upperEnum(ROLES) }),
  membersRemove: object({ blogId: id, userId: id }),
  membersList: object({ blogId: id }),

  blogUserInfosGet: object({ userId: id, blogId: id, maxPosts: blogRead.maxPosts }),
  postUserInfosGet: object({ userId: id, blogId: id, postId: id, maxComments: optional(count(LIMITS.maxInline)) }),
  postUserInfosList: object({
    userId: id,
    blogId: id,
    ...listing,
    status: postListing.status,
    labels: postListing.labels,
    orderBy: postListing.orderBy,
    fetchBodies: optional(bool),
  }),

  pageViewsGet: object({
    blogId: id,
    range: optional(list(pageViewsRange, 'must name at least one value', Infinity, '')),
  }),
  pageViewsRecord: object({ blogId: id, postId: optional(id), count: optional(integer(1, 1_000_000)) }),
  labelsList: object({ blogId: id, maxResults: listing.maxResults, pageToken: listing.pageToken, view: listing.view }),
  changesList: object({
    blogId: id,
    since: optional(string(1, 200)),
    pageToken: optional(string(1, 2_000)),
    maxResults: optional(integer(1, LIMITS.maxResults)),
    wait: optional(integer(0, 60)),
    view: optional(view),
  }),

  commentsListByBlog: object({
    blogId: id,
    post: optional(id),
    ...listing,
    status: optional(enumList(COMMENT_STATUSES)),
    fetchBodies: optional(bool),
  }),
  commentsAction: object({ blogId: id, postId: id, commentId: id }),

  postsRevisionsList: object({ blogId: id, postId: id, maxResults: listing.maxResults, pageToken: listing.pageToken }),
  postsRevisionsGet: object({ blogId: id, postId: id, revisionId: id }),
  postsRevisionsRestore: object({ blogId: id, postId: id, revisionId: id, ...withIfMatch }),
  pagesRevisionsList: object({ blogId: id, pageId: id, maxResults: listing.maxResults, pageToken: listing.pageToken }),
  pagesRevisionsGet: object({ blogId: id, pageId: id, revisionId: id }),
  pagesRevisionsRestore: object({ blogId: id, pageId: id, revisionId: id, ...withIfMatch }),
};

/** What a rarely used call works with after a check: `RarelyUsedParsed<'blogsPatch'>`. */
export type RarelyUsedParsed<K extends keyof typeof rarelyUsedParams> = output<(typeof rarelyUsedParams)[K]>;
