/**
 * The parameters and bodies of the calls in a browser's first download (posts, pages, comments.get, list and
 * insert, blog and user reads) as zod schemas built from src/schema/checks.ts, and the pieces the other calls'
 * schemas share with them; those of the calls loaded on first use are in a file per domain (blog-admin.ts,
 * members.ts, comment-moderation.ts, …), so they travel in that domain's chunk. The public parameter types are the
 * plain interfaces of src/schema/params.ts; test/types/ proves each is identical to its schema's input type.
 * `blogcore/schema` exports all of them (src/schema/index.ts).
 */
import type { output } from 'zod/mini';
import {
  array,
  bool,
  describe,
  fail,
  integer,
  list,
  map,
  number,
  object,
  optional,
  optionalEach,
  refine,
  string,
  unknown,
  upperEnum,
} from './checks.js';
import { LIMITS, PAGE_STATUSES, POST_STATUSES, COMMENT_STATUSES, READER_COMMENTS, ROLES } from './values.js';

export type { CommentStatus, PageStatus, PostStatus, ReaderComments, Role } from './params.js';
export {
  COMMENT_STATUSES,
  LIMITS,
  PAGE_STATUSES,
  PAGE_VIEWS_RANGES,
  POST_STATUSES,
  READER_COMMENTS,
  ROLES,
} from './values.js';

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?([Zz]|[+-](\d{2}):(\d{2}))$/;

/** Whether the text is an RFC 3339 date-time naming a real instant (no February 30th, no hour 25). */
function isRfc3339(s: string): boolean {
  const m = RFC3339.exec(s);
  if (!m) return false;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  const offsetOk = m[9] === undefined || (Number(m[9]) <= 23 && Number(m[10]) <= 59);
  return (
    year >= 1 &&
    month >= 1 &&
    month <= 12 &&
    day >= 1 &&
    day <= daysInMonth &&
    hour <= 23 &&
    minute <= 59 &&
    second <= 59 &&
    offsetOk
  );
}

/**
 * A link that pages render as `href`: an absolute http(s) URL that parses, with no quote, space, angle bracket
 * (such a character could end the attribute it is written into) or control character (a raw NUL or escape
 * would be stored and sent as given). The one rule for every link a client or an imported file gives.
 */
export function isHttpUrl(s: string): boolean {
  if (s.length > LIMITS.url || /["'`<>\s\u0000-\u001f\u007f]/.test(s)) return false;
  try {
    const u = new URL(s);
    return u.protocol === 'http:' || u.protocol === 'https:';
  } catch {
    return false;
  }
}

/** Blog urls compare without case in scheme and host, with one trailing slash. */
export function normalizeBlogUrl(url: string): string {
  const u = new URL(url);
  const path = u.pathname.endsWith('/') ? u.pathname : `${u.pathname}/`;
  // URL() already lower-cases scheme and host; query and fragment are not part of a blog's address.
  return `${u.protocol}//${u.host}${path}`;
}

/** One or more enum values: one value, a comma-joined list or an array of them, deduplicated. */
export const enumList = <const T extends readonly [string, ...string[]]>(values: T) =>
  list(upperEnum(values), 'must name at least one value', Infinity, '');

/** An RFC 3339 timestamp, normalised to UTC with milliseconds (the form every key and response uses). */
export const timestamp = map(describe(string(0, Infinity), { format: 'date-time' }), (s, ctx) => {
  const d = new Date(s);
  if (!isRfc3339(s) || Number.isNaN(d.getTime()) || d.getUTCFullYear() > 9999) {
    return fail(ctx, s, 'must be an RFC 3339 timestamp, e.g. 2026-11-22T10:00:00Z');
  }
  return d.toISOString();
});

/** An id, and a text of at most `max` characters (shared with media's schemas, src/schema/media.ts). */
export const id = string(1, LIMITS.id);
export const count = (max: number) => integer(0, max);
export const text = (max: number) => string(0, max, `must be at most ${max} characters`);
export const view = upperEnum(ROLES);
export const nonEmpty = (max: number) => refine(text(max), (s) => s.trim().length > 0, 'must not be empty');

/** A link that pages render as `href` (isHttpUrl above). */
export const httpUrl = refine(text(LIMITS.url), isHttpUrl, 'must be an absolute http(s) URL');

// ---------------------------------------------------------------- bodies

/** Fields of a Blogger resource the server owns: accepted in a body (clients echo them back) and ignored. */
export const readOnly = {
  id: optional(unknown),
  kind: optional(unknown),
  blog: optional(unknown),
  post: optional(unknown),
  status: optional(unknown),
  url: optional(unknown),
  selfLink: optional(unknown),
  updated: optional(unknown),
  replies: optional(unknown),
  author: optional(unknown),
  etag: optional(unknown),
  trashed: optional(unknown),
  images: optional(unknown),
};

const labels = map(array(text(LIMITS.label), LIMITS.labels, `at most ${LIMITS.labels} labels`), (ls) => [
  ...new Set(ls.map((l) => l.trim()).filter(Boolean)),
]);

/** The fields of a post body (`PostBody`). */
const postFields = {
  title: text(LIMITS.title),
  content: text(LIMITS.content),
  labels,
  published: timestamp,
  titleLink: httpUrl,
  customMetaData: text(LIMITS.text),
  readerComments: upperEnum(READER_COMMENTS),
  location: object({
    name: optional(text(LIMITS.text)),
    lat: optional(number),
    lng: optional(number),
    span: optional(text(200)),
  }),
};

/** The body of posts.insert (`PostBody`). */
export const postBody = object({ ...readOnly, ...optionalEach(postFields) });
/** The body of posts.update and patch: `null` clears a field (`PostPatchBody`). */
export const postPatchBody = object({ ...readOnly, ...optionalEach(postFields, true) });

/** The fields of a page body (`PageBody`). */
const pageFields = { title: text(LIMITS.title), content: text(LIMITS.content), published: timestamp };

/** The body of pages.insert (`PageBody`). */
export const pageBody = object({ ...readOnly, ...optionalEach(pageFields) });
/** The body of pages.update and patch: `null` clears a field (`PagePatchBody`). */
export const pagePatchBody = object({ ...readOnly, ...optionalEach(pageFields, true) });

/** The body of comments.insert (`CommentBody`). */
export const commentBody = object({
  ...readOnly,
  published: optional(unknown),
  content: nonEmpty(LIMITS.commentContent),
  inReplyTo: optional(object({ id }, false)),
  author: optional(
    object(
      {
        displayName: optional(text(LIMITS.displayName)),
        url: optional(httpUrl),
        id: optional(unknown),
        image: optional(unknown),
      },
      false,
    ),
  ),
});

// ---------------------------------------------------------------- params

export const withIfMatch = { ifMatch: optional(string(1, 200)) };

export const listing = {
  maxResults: optional(integer(1, LIMITS.maxResults)),
  pageToken: optional(string(0, 2_000)),
  view: optional(view),
  startDate: optional(timestamp),
  endDate: optional(timestamp),
};

const postFetch = {
  fetchBody: optional(bool),
  fetchImages: optional(bool),
  maxComments: optional(count(LIMITS.maxInline)),
};

export const postListing = {
  blogId: id,
  ...listing,
  status: optional(enumList(POST_STATUSES)),
  labels: optional(
    list(text(LIMITS.label), undefined, LIMITS.queryLabels, `at most ${LIMITS.queryLabels} labels per query`),
  ),
  orderBy: optional(upperEnum(['PUBLISHED', 'UPDATED'] as const)),
  sortOption: optional(upperEnum(['DESCENDING', 'ASCENDING'] as const)),
  fetchBodies: optional(bool),
  fetchImages: optional(bool),
  maxComments: optional(count(LIMITS.maxInline)),
};

export const blogRead = { view: optional(view), maxPosts: optional(count(LIMITS.maxInline)) };

/**
 * The parameter schema of each call in the first download, by operation (`postsList` for posts.list);
 * `blogcore/schema`'s `params` adds those of the domain files (src/schema/index.ts).
 */
export const params = {
  blogsGet: object({ blogId: id, ...blogRead }),
  blogsGetByUrl: object({ url: text(LIMITS.url), ...blogRead }),
  blogsListByUser: object({
    userId: id,
    ...blogRead,
    role: optional(enumList(ROLES)),
    status: optional(enumList(['LIVE', 'DELETED'] as const)),
    fetchUserInfo: optional(bool),
  }),
  usersGet: object({ userId: id }),

  postsGet: object({ blogId: id, postId: id, view: optional(view), ...postFetch }),
  postsList: object(postListing),
  postsSearch: object({ ...postListing, q: text(LIMITS.q) }),
  postsGetByPath: object({
    blogId: id,
    path: text(LIMITS.url),
    date: optional(timestamp),
    view: optional(view),
    maxComments: optional(count(LIMITS.maxInline)),
  }),
  postsInsert: object({
    blogId: id,
    body: postBody,
    isDraft: optional(bool),
    fetchBody: optional(bool),
    fetchImages: optional(bool),
  }),
  postsUpdate: object({
    blogId: id,
    postId: id,
    body: postPatchBody,
    publish: optional(bool),
    revert: optional(bool),
    ...withIfMatch,
    ...postFetch,
  }),
  postsDelete: object({ blogId: id, postId: id, useTrash: optional(bool), ...withIfMatch }),
  postsPublish: object({ blogId: id, postId: id, publishDate: optional(timestamp), ...withIfMatch }),
  postsRevert: object({ blogId: id, postId: id, ...withIfMatch }),

  pagesGet: object({ blogId: id, pageId: id, view: optional(view) }),
  pagesList: object({
    blogId: id,
    maxResults: listing.maxResults,
    pageToken: listing.pageToken,
    view: listing.view,
    status: optional(enumList(PAGE_STATUSES)),
    fetchBodies: optional(bool),
  }),
  pagesInsert: object({ blogId: id, body: pageBody, isDraft: optional(bool) }),
  pagesUpdate: object({
    blogId: id,
    pageId: id,
    body: pagePatchBody,
    publish: optional(bool),
    revert: optional(bool),
    ...withIfMatch,
  }),
  pagesDelete: object({ blogId: id, pageId: id, useTrash: optional(bool), ...withIfMatch }),
  pagesAction: object({ blogId: id, pageId: id, ...withIfMatch }),

  commentsGet: object({ blogId: id, postId: id, commentId: id, view: optional(view) }),
  commentsList: object({
    blogId: id,
    postId: id,
    ...listing,
    status: optional(enumList(COMMENT_STATUSES)),
    fetchBodies: optional(bool),
  }),
  commentsInsert: object({
    blogId: id,
    postId: id,
    body: commentBody,
    // Who sent it (docs/design.md §25): set by the HTTP helper and the site, or by a host for its own form.
    clientAddress: optional(text(LIMITS.clientHeader)),
    userAgent: optional(text(LIMITS.clientHeader)),
    referrer: optional(text(LIMITS.clientHeader)),
  }),
};

/** What the service works with after a check: `Parsed<'postsList'>`. */
export type Parsed<K extends keyof typeof params> = output<(typeof params)[K]>;
