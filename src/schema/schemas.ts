/**
 * Every parameter and body the service accepts, as runtime checks (src/schema/validate.ts). The public parameter
 * types are the plain interfaces of src/schema/params.ts; test/types/ proves both accept exactly the same shapes.
 */
import type { CommentStatus, PageStatus, PageViewsRange, PostStatus, ReaderComments, Role } from './params.js';
import * as V from './validate.js';
import { fail, type Out } from './validate.js';

export type { CommentStatus, PageStatus, PostStatus, ReaderComments, Role } from './params.js';

export const POST_STATUSES = ['LIVE', 'DRAFT', 'SCHEDULED', 'SOFT_TRASHED'] as const satisfies readonly PostStatus[];
export const PAGE_STATUSES = ['LIVE', 'DRAFT', 'SOFT_TRASHED'] as const satisfies readonly PageStatus[];
export const COMMENT_STATUSES = ['LIVE', 'EMPTIED', 'PENDING', 'SPAM'] as const satisfies readonly CommentStatus[];
export const ROLES = ['READER', 'AUTHOR', 'ADMIN'] as const satisfies readonly Role[];
export const READER_COMMENTS = ['ALLOW', 'DONT_ALLOW_SHOW_EXISTING', 'DONT_ALLOW_HIDE_EXISTING'] as const satisfies readonly ReaderComments[];

export const LIMITS = {
  title: 1_000,
  content: 1_000_000,
  commentContent: 4_096,
  label: 200,
  labels: 100,
  /** Labels one query may name: each is an index walk, so the work of a request stays bounded (DESIGN §2). */
  queryLabels: 20,
  blogName: 200,
  description: 2_000,
  displayName: 200,
  url: 2_000,
  q: 1_000,
  maxResults: 500,
  maxInline: 500,
  id: 200,
  text: 10_000,
} as const;

export const PAGE_VIEWS_RANGES = ['7DAYS', '30DAYS', 'all'] as const satisfies readonly PageViewsRange[];

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?([Zz]|[+-](\d{2}):(\d{2}))$/;

/** Whether the text is an RFC 3339 date-time naming a real instant (no February 30th, no hour 25). */
function isRfc3339(s: string): boolean {
  const m = RFC3339.exec(s);
  if (!m) return false;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  const offsetOk = m[9] === undefined || (Number(m[9]) <= 23 && Number(m[10]) <= 59);
  return year >= 1 && month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth && hour <= 23 && minute <= 59 && second <= 59 && offsetOk;
}

/** The combinators the schemas are written with: src/schema/validate.ts's checks, or (for the OpenAPI document
 * only, in the HTTP entry) src/http/json-schema.ts's JSON Schema builders, so neither repeats a rule. */
export type Kit = Pick<
  typeof V,
  'array' | 'bool' | 'describe' | 'integer' | 'list' | 'map' | 'number' | 'object' | 'optional' | 'refine' | 'string' | 'unknown' | 'upperEnum'
>;

/** Every operation's parameter schema, built with `kit`. */
export function defineParams(kit: Kit) {
  const { array, bool, describe, integer, list, map, number, object, optional, refine, string, unknown, upperEnum } = kit;
  /** One or more enum values: one value, a comma-joined list or an array of them, deduplicated. */
  const enumList = <T extends string>(values: readonly T[]) => list(upperEnum(values), 'must name at least one value', Infinity, '');

  /** An RFC 3339 timestamp, normalised to UTC with milliseconds (the form every key and response uses). */
  const timestamp = describe(
    map(string(0, Infinity), (s, path) => {
      const d = new Date(s);
      if (!isRfc3339(s) || Number.isNaN(d.getTime()) || d.getUTCFullYear() > 9999) {
        return fail(path, 'must be an RFC 3339 timestamp, e.g. 2026-11-22T10:00:00Z');
      }
      return d.toISOString();
    }),
    { format: 'date-time' },
  );

  const id = string(1, LIMITS.id);
  const count = (max: number) => integer(0, max);
  const text = (max: number) => string(0, max, `must be at most ${max} characters`);
  const view = upperEnum(ROLES);
  const nonEmpty = (max: number) => refine(text(max), (s) => s.trim().length > 0, 'must not be empty');

  /**
   * A link that pages render as `href`: an absolute http(s) URL that parses, with no quote, space or angle
   * bracket (such a character could end the attribute it is written into).
   */
  const httpUrl = refine(
    text(LIMITS.url),
    (s) => {
      if (/["'`<>\s]/.test(s)) return false;
      try {
        const u = new URL(s);
        return u.protocol === 'http:' || u.protocol === 'https:';
      } catch {
        return false;
      }
    },
    'must be an absolute http(s) URL',
  );

  // ---------------------------------------------------------------- bodies

  /** Fields of a Blogger resource the server owns: accepted in a body (clients echo them back) and ignored. */
  const readOnly = {
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

  const postBody = object({
    ...readOnly,
    title: optional(text(LIMITS.title)),
    content: optional(text(LIMITS.content)),
    labels: optional(labels),
    published: optional(timestamp),
    titleLink: optional(httpUrl),
    customMetaData: optional(text(LIMITS.text)),
    readerComments: optional(upperEnum(READER_COMMENTS)),
    location: optional(object({ name: optional(text(LIMITS.text)), lat: optional(number), lng: optional(number), span: optional(text(200)) })),
  });

  const pageBody = object({
    ...readOnly,
    title: optional(text(LIMITS.title)),
    content: optional(text(LIMITS.content)),
    published: optional(timestamp),
  });

  const commentBody = object({
    ...readOnly,
    published: optional(unknown),
    content: nonEmpty(LIMITS.commentContent),
    inReplyTo: optional(object({ id }, false)),
    author: optional(
      object({ displayName: optional(text(LIMITS.displayName)), url: optional(httpUrl), id: optional(unknown), image: optional(unknown) }, false),
    ),
  });

  /** What a blog body carries beside its name and url (blogs.insert/update and, all optional, blogs.patch). */
  const blogFields = {
    description: optional(text(LIMITS.description)),
    customMetaData: optional(text(LIMITS.text)),
    published: optional(unknown),
    posts: optional(unknown),
    pages: optional(unknown),
    locale: optional(object({ language: optional(text(50)), country: optional(text(50)), variant: optional(text(50)) })),
  };
  const blogBody = object({ ...readOnly, name: nonEmpty(LIMITS.blogName), url: httpUrl, ...blogFields });

  /** blogs.patch: the same fields as a blog body, all optional. */
  const blogPatchBody = object({ ...readOnly, name: optional(nonEmpty(LIMITS.blogName)), url: optional(httpUrl), ...blogFields });

  /** users.update: what a user may change (the id is the user's for good). */
  const userPatchBody = object({
    kind: optional(unknown),
    selfLink: optional(unknown),
    created: optional(unknown),
    blogs: optional(unknown),
    id: optional(unknown),
    displayName: optional(nonEmpty(LIMITS.displayName)),
    url: optional(httpUrl),
    about: optional(text(LIMITS.text)),
  });

  const userBody = object({
    kind: optional(unknown),
    selfLink: optional(unknown),
    created: optional(unknown),
    blogs: optional(unknown),
    id: optional(refine(id, (s) => /^[\w.@:-]+$/.test(s), 'may hold letters, digits and . _ @ : - only')),
    displayName: nonEmpty(LIMITS.displayName),
    url: optional(httpUrl),
    about: optional(text(LIMITS.text)),
  });

  // ---------------------------------------------------------------- params

  const withIfMatch = { ifMatch: optional(string(1, 200)) };

  const listing = {
    maxResults: optional(integer(1, LIMITS.maxResults)),
    pageToken: optional(string(0, 2_000)),
    view: optional(view),
    startDate: optional(timestamp),
    endDate: optional(timestamp),
  };

  const postFetch = { fetchBody: optional(bool), fetchImages: optional(bool), maxComments: optional(count(LIMITS.maxInline)) };

  const postListing = {
    blogId: id,
    ...listing,
    status: optional(enumList(POST_STATUSES)),
    labels: optional(list(text(LIMITS.label), undefined, LIMITS.queryLabels, `at most ${LIMITS.queryLabels} labels per query`)),
    orderBy: optional(upperEnum(['PUBLISHED', 'UPDATED'] as const)),
    sortOption: optional(upperEnum(['DESCENDING', 'ASCENDING'] as const)),
    fetchBodies: optional(bool),
    fetchImages: optional(bool),
    maxComments: optional(count(LIMITS.maxInline)),
  };

  const pageViewsRange = upperEnum(PAGE_VIEWS_RANGES);

  const blogRead = { view: optional(view), maxPosts: optional(count(LIMITS.maxInline)) };

  return {
    blogsGet: object({ blogId: id, ...blogRead }),
    blogsGetByUrl: object({ url: text(LIMITS.url), ...blogRead }),
    blogsListByUser: object({
      userId: id,
      ...blogRead,
      role: optional(enumList(ROLES)),
      status: optional(enumList(['LIVE', 'DELETED'] as const)),
      fetchUserInfo: optional(bool),
    }),
    blogsInsert: object({ body: blogBody, ownerId: optional(id) }),

    usersGet: object({ userId: id }),
    usersUpdate: object({ userId: id, body: userPatchBody }),
    blogsUpdate: object({ blogId: id, body: blogBody }),
    blogsPatch: object({ blogId: id, body: blogPatchBody }),
    blogsDelete: object({ blogId: id }),
    usersInsert: object({ body: userBody }),

    membersSet: object({ blogId: id, userId: id, role: upperEnum(ROLES) }),
    membersRemove: object({ blogId: id, userId: id }),
    membersList: object({ blogId: id }),

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
    postsInsert: object({ blogId: id, body: postBody, isDraft: optional(bool), fetchBody: optional(bool), fetchImages: optional(bool) }),
    postsUpdate: object({ blogId: id, postId: id, body: postBody, publish: optional(bool), revert: optional(bool), ...withIfMatch, ...postFetch }),
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
    pagesUpdate: object({ blogId: id, pageId: id, body: pageBody, publish: optional(bool), revert: optional(bool), ...withIfMatch }),
    pagesDelete: object({ blogId: id, pageId: id, useTrash: optional(bool), ...withIfMatch }),
    pagesAction: object({ blogId: id, pageId: id, ...withIfMatch }),

    commentsGet: object({ blogId: id, postId: id, commentId: id, view: optional(view) }),
    commentsList: object({ blogId: id, postId: id, ...listing, status: optional(enumList(COMMENT_STATUSES)), fetchBodies: optional(bool) }),
    commentsListByBlog: object({ blogId: id, post: optional(id), ...listing, status: optional(enumList(COMMENT_STATUSES)), fetchBodies: optional(bool) }),
    commentsAction: object({ blogId: id, postId: id, commentId: id }),
    commentsInsert: object({ blogId: id, postId: id, body: commentBody }),

    changesList: object({
      blogId: id,
      since: optional(string(1, 200)),
      pageToken: optional(string(1, 2_000)),
      maxResults: optional(integer(1, LIMITS.maxResults)),
      wait: optional(integer(0, 60)),
      view: optional(view),
    }),
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
    pageViewsGet: object({ blogId: id, range: optional(list(pageViewsRange, 'must name at least one value', Infinity, '')) }),
    pageViewsRecord: object({ blogId: id, postId: optional(id) }),
    postsRevisionsList: object({ blogId: id, postId: id, maxResults: listing.maxResults, pageToken: listing.pageToken }),
    postsRevisionsGet: object({ blogId: id, postId: id, revisionId: id }),
    postsRevisionsRestore: object({ blogId: id, postId: id, revisionId: id, ...withIfMatch }),
    pagesRevisionsList: object({ blogId: id, pageId: id, maxResults: listing.maxResults, pageToken: listing.pageToken }),
    pagesRevisionsGet: object({ blogId: id, pageId: id, revisionId: id }),
    pagesRevisionsRestore: object({ blogId: id, pageId: id, revisionId: id, ...withIfMatch }),
    labelsList: object({ blogId: id, maxResults: listing.maxResults, pageToken: listing.pageToken, view: listing.view }),
  };
}

export const params = defineParams(V);

/** What the service works with after a check: `Parsed<'postsList'>`. */
export type Parsed<K extends keyof typeof params> = Out<(typeof params)[K]>;
