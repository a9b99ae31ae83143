/**
 * Every parameter and body the service accepts, as zod schemas. The exported parameter types are
 * inferred from these, so the types users see and the checks the service runs cannot drift apart.
 */
// The namespace import lets bundlers drop the parts of zod (its locales above all) that are never used.
import * as z from 'zod';

export const POST_STATUSES = ['LIVE', 'DRAFT', 'SCHEDULED', 'SOFT_TRASHED'] as const;
export const PAGE_STATUSES = ['LIVE', 'DRAFT', 'SOFT_TRASHED'] as const;
export const COMMENT_STATUSES = ['LIVE', 'EMPTIED', 'PENDING', 'SPAM'] as const;
export const ROLES = ['READER', 'AUTHOR', 'ADMIN'] as const;
export const READER_COMMENTS = ['ALLOW', 'DONT_ALLOW_SHOW_EXISTING', 'DONT_ALLOW_HIDE_EXISTING'] as const;

export type PostStatus = (typeof POST_STATUSES)[number];
export type PageStatus = (typeof PAGE_STATUSES)[number];
export type CommentStatus = (typeof COMMENT_STATUSES)[number];
export type Role = (typeof ROLES)[number];
export type ReaderComments = (typeof READER_COMMENTS)[number];

export const LIMITS = {
  title: 1_000,
  content: 1_000_000,
  commentContent: 4_096,
  label: 200,
  labels: 100,
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

/** An enum matched case-insensitively, always returned upper-case. */
const upperEnum = <T extends readonly [string, ...string[]]>(values: T) =>
  z
    .string()
    .transform((s) => s.toUpperCase())
    .pipe(z.enum(values, { error: () => `must be one of ${values.join(', ')}` }));

/** One value, a comma-joined list or an array of them: one or more enum values, deduplicated. */
const enumList = <T extends readonly [string, ...string[]]>(values: T) =>
  z
    .union([z.string(), z.array(z.string())])
    .transform((v) => (Array.isArray(v) ? v : [v]).flatMap((s) => s.split(',')).map((s) => s.trim()).filter(Boolean))
    .pipe(z.array(upperEnum(values)).min(1, 'must name at least one value'))
    .transform((list) => [...new Set(list)]);

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

/** An RFC 3339 timestamp, normalised to UTC with milliseconds (the form every key and response uses). */
export const timestamp = z.string().transform((s, ctx) => {
  const d = new Date(s);
  if (!isRfc3339(s) || Number.isNaN(d.getTime()) || d.getUTCFullYear() > 9999) {
    ctx.addIssue({ code: 'custom', message: 'must be an RFC 3339 timestamp, e.g. 2026-11-22T10:00:00Z' });
    return z.NEVER;
  }
  return d.toISOString();
});

const id = z.string().min(1).max(LIMITS.id);
const bool = z.boolean();
const count = (max: number) => z.number().int().min(0).max(max);
const text = (max: number) => z.string().max(max, `must be at most ${max} characters`);
const view = upperEnum(ROLES);

// ---------------------------------------------------------------- bodies

/** Fields of a Blogger resource the server owns: accepted in a body (clients echo them back) and ignored. */
const readOnly = {
  id: z.unknown().optional(),
  kind: z.unknown().optional(),
  blog: z.unknown().optional(),
  post: z.unknown().optional(),
  status: z.unknown().optional(),
  url: z.unknown().optional(),
  selfLink: z.unknown().optional(),
  updated: z.unknown().optional(),
  replies: z.unknown().optional(),
  author: z.unknown().optional(),
  etag: z.unknown().optional(),
  trashed: z.unknown().optional(),
  images: z.unknown().optional(),
};

const labels = z
  .array(text(LIMITS.label))
  .max(LIMITS.labels, `at most ${LIMITS.labels} labels`)
  .transform((ls) => [...new Set(ls.map((l) => l.trim()).filter(Boolean))]);

export const postBody = z
  .object({
    ...readOnly,
    title: text(LIMITS.title).optional(),
    content: text(LIMITS.content).optional(),
    labels: labels.optional(),
    published: timestamp.optional(),
    titleLink: text(LIMITS.url).optional(),
    customMetaData: text(LIMITS.text).optional(),
    readerComments: upperEnum(READER_COMMENTS).optional(),
    location: z
      .object({ name: text(LIMITS.text).optional(), lat: z.number().optional(), lng: z.number().optional(), span: text(200).optional() })
      .strict()
      .optional(),
  })
  .strict();

export const pageBody = z
  .object({
    ...readOnly,
    title: text(LIMITS.title).optional(),
    content: text(LIMITS.content).optional(),
    published: timestamp.optional(),
  })
  .strict();

export const commentBody = z
  .object({
    ...readOnly,
    published: z.unknown().optional(),
    content: text(LIMITS.commentContent).refine((s) => s.trim().length > 0, 'must not be empty'),
    inReplyTo: z.object({ id }).optional(),
    author: z
      .object({ displayName: text(LIMITS.displayName).optional(), url: text(LIMITS.url).optional(), id: z.unknown().optional(), image: z.unknown().optional() })
      .optional(),
  })
  .strict();

const httpUrl = text(LIMITS.url).refine((s) => {
  try {
    const u = new URL(s);
    return u.protocol === 'http:' || u.protocol === 'https:';
  } catch {
    return false;
  }
}, 'must be an absolute http(s) URL');

export const blogBody = z
  .object({
    ...readOnly,
    name: text(LIMITS.blogName).refine((s) => s.trim().length > 0, 'must not be empty'),
    url: httpUrl,
    description: text(LIMITS.description).optional(),
    customMetaData: text(LIMITS.text).optional(),
    published: z.unknown().optional(),
    posts: z.unknown().optional(),
    pages: z.unknown().optional(),
    locale: z
      .object({ language: text(50).optional(), country: text(50).optional(), variant: text(50).optional() })
      .strict()
      .optional(),
  })
  .strict();

export const userBody = z
  .object({
    kind: z.unknown().optional(),
    selfLink: z.unknown().optional(),
    created: z.unknown().optional(),
    blogs: z.unknown().optional(),
    id: id.regex(/^[\w.@:-]+$/, 'may hold letters, digits and . _ @ : - only').optional(),
    displayName: text(LIMITS.displayName).refine((s) => s.trim().length > 0, 'must not be empty'),
    url: text(LIMITS.url).optional(),
    about: text(LIMITS.text).optional(),
  })
  .strict();

// ---------------------------------------------------------------- params

const withIfMatch = { ifMatch: z.string().min(1).max(200).optional() };

const listing = {
  maxResults: z.number().int().min(1).max(LIMITS.maxResults).optional(),
  pageToken: z.string().max(2_000).optional(),
  view: view.optional(),
  startDate: timestamp.optional(),
  endDate: timestamp.optional(),
};

const postFetch = { fetchBody: bool.optional(), fetchImages: bool.optional(), maxComments: count(LIMITS.maxInline).optional() };

const postListing = {
  blogId: id,
  ...listing,
  status: enumList(POST_STATUSES).optional(),
  labels: z
    .union([z.string(), z.array(z.string())])
    .transform((v) => [...new Set((Array.isArray(v) ? v : [v]).flatMap((s) => s.split(',')).map((s) => s.trim()).filter(Boolean))])
    .pipe(z.array(text(LIMITS.label)).max(LIMITS.labels))
    .optional(),
  orderBy: upperEnum(['PUBLISHED', 'UPDATED'] as const).optional(),
  sortOption: upperEnum(['DESCENDING', 'ASCENDING'] as const).optional(),
  fetchBodies: bool.optional(),
  fetchImages: bool.optional(),
  maxComments: count(LIMITS.maxInline).optional(),
};

const blogRead = { view: view.optional(), maxPosts: count(LIMITS.maxInline).optional() };

export const params = {
  blogsGet: z.object({ blogId: id, ...blogRead }).strict(),
  blogsGetByUrl: z.object({ url: text(LIMITS.url), ...blogRead }).strict(),
  blogsListByUser: z
    .object({
      userId: id,
      ...blogRead,
      role: enumList(ROLES).optional(),
      status: enumList(['LIVE', 'DELETED'] as const).optional(),
    })
    .strict(),
  blogsInsert: z.object({ body: blogBody, ownerId: id.optional() }).strict(),

  usersGet: z.object({ userId: id }).strict(),
  usersInsert: z.object({ body: userBody }).strict(),

  membersSet: z.object({ blogId: id, userId: id, role: upperEnum(ROLES) }).strict(),
  membersRemove: z.object({ blogId: id, userId: id }).strict(),
  membersList: z.object({ blogId: id }).strict(),

  postsGet: z.object({ blogId: id, postId: id, view: view.optional(), ...postFetch }).strict(),
  postsList: z.object(postListing).strict(),
  postsSearch: z.object({ ...postListing, q: text(LIMITS.q) }).strict(),
  postsGetByPath: z
    .object({ blogId: id, path: text(LIMITS.url), date: timestamp.optional(), view: view.optional(), maxComments: count(LIMITS.maxInline).optional() })
    .strict(),
  postsInsert: z.object({ blogId: id, body: postBody, isDraft: bool.optional(), fetchBody: bool.optional(), fetchImages: bool.optional() }).strict(),
  postsUpdate: z
    .object({ blogId: id, postId: id, body: postBody, publish: bool.optional(), revert: bool.optional(), ...withIfMatch, ...postFetch })
    .strict(),
  postsDelete: z.object({ blogId: id, postId: id, useTrash: bool.optional(), ...withIfMatch }).strict(),
  postsPublish: z.object({ blogId: id, postId: id, publishDate: timestamp.optional(), ...withIfMatch }).strict(),
  postsRevert: z.object({ blogId: id, postId: id, ...withIfMatch }).strict(),

  pagesGet: z.object({ blogId: id, pageId: id, view: view.optional() }).strict(),
  pagesList: z
    .object({
      blogId: id,
      maxResults: listing.maxResults,
      pageToken: listing.pageToken,
      view: listing.view,
      status: enumList(PAGE_STATUSES).optional(),
      fetchBodies: bool.optional(),
    })
    .strict(),
  pagesInsert: z.object({ blogId: id, body: pageBody, isDraft: bool.optional() }).strict(),
  pagesUpdate: z.object({ blogId: id, pageId: id, body: pageBody, publish: bool.optional(), revert: bool.optional(), ...withIfMatch }).strict(),
  pagesDelete: z.object({ blogId: id, pageId: id, useTrash: bool.optional(), ...withIfMatch }).strict(),
  pagesAction: z.object({ blogId: id, pageId: id, ...withIfMatch }).strict(),

  commentsGet: z.object({ blogId: id, postId: id, commentId: id, view: view.optional() }).strict(),
  commentsList: z
    .object({ blogId: id, postId: id, ...listing, status: enumList(COMMENT_STATUSES).optional(), fetchBodies: bool.optional() })
    .strict(),
  commentsListByBlog: z
    .object({ blogId: id, post: id.optional(), ...listing, status: enumList(COMMENT_STATUSES).optional(), fetchBodies: bool.optional() })
    .strict(),
  commentsAction: z.object({ blogId: id, postId: id, commentId: id }).strict(),
  commentsInsert: z.object({ blogId: id, postId: id, body: commentBody }).strict(),
};

type In<K extends keyof typeof params> = z.input<(typeof params)[K]>;

export type BlogsGetParams = In<'blogsGet'>;
export type BlogsGetByUrlParams = In<'blogsGetByUrl'>;
export type BlogsListByUserParams = In<'blogsListByUser'>;
export type BlogsInsertParams = In<'blogsInsert'>;
export type UsersGetParams = In<'usersGet'>;
export type UsersInsertParams = In<'usersInsert'>;
export type MembersSetParams = In<'membersSet'>;
export type MembersRemoveParams = In<'membersRemove'>;
export type MembersListParams = In<'membersList'>;
export type PostsGetParams = In<'postsGet'>;
export type PostsListParams = In<'postsList'>;
export type PostsSearchParams = In<'postsSearch'>;
export type PostsGetByPathParams = In<'postsGetByPath'>;
export type PostsInsertParams = In<'postsInsert'>;
export type PostsUpdateParams = In<'postsUpdate'>;
export type PostsDeleteParams = In<'postsDelete'>;
export type PostsPublishParams = In<'postsPublish'>;
export type PostsRevertParams = In<'postsRevert'>;
export type PagesGetParams = In<'pagesGet'>;
export type PagesListParams = In<'pagesList'>;
export type PagesInsertParams = In<'pagesInsert'>;
export type PagesUpdateParams = In<'pagesUpdate'>;
export type PagesDeleteParams = In<'pagesDelete'>;
export type PagesActionParams = In<'pagesAction'>;
export type CommentsGetParams = In<'commentsGet'>;
export type CommentsListParams = In<'commentsList'>;
export type CommentsListByBlogParams = In<'commentsListByBlog'>;
export type CommentsActionParams = In<'commentsAction'>;
export type CommentsInsertParams = In<'commentsInsert'>;
export type PostBody = z.input<typeof postBody>;
export type PageBody = z.input<typeof pageBody>;
export type CommentBody = z.input<typeof commentBody>;
export type BlogBody = z.input<typeof blogBody>;
export type UserBody = z.input<typeof userBody>;
