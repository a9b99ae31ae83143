/**
 * The parameter objects of every service method, as plain types: literal unions for enums, read-only arrays
 * accepted wherever a list is. At run time src/schema/schemas.ts checks the same shapes (and also takes enum values
 * in any case and comma-joined lists, as the HTTP wire sends them); test/types/ proves the two agree.
 */
export type PostStatus = 'LIVE' | 'DRAFT' | 'SCHEDULED' | 'SOFT_TRASHED';
export type PageStatus = 'LIVE' | 'DRAFT' | 'SOFT_TRASHED';
export type CommentStatus = 'LIVE' | 'EMPTIED' | 'PENDING' | 'SPAM';
export type BlogStatus = 'LIVE' | 'DELETED';
/** A user's role in a blog, and the view a read asks for. */
export type Role = 'READER' | 'AUTHOR' | 'ADMIN';
export type View = Role;
export type ReaderComments = 'ALLOW' | 'DONT_ALLOW_SHOW_EXISTING' | 'DONT_ALLOW_HIDE_EXISTING';
export type OrderBy = 'PUBLISHED' | 'UPDATED';
export type SortOption = 'DESCENDING' | 'ASCENDING';

/** One value or several (a list matches any of them). */
export type OneOrMore<T> = T | readonly T[];

/** An RFC 3339 timestamp, e.g. `2026-11-22T10:00:00Z`. */
export type Timestamp = string;

export interface IfMatch {
  /** The etag the change was based on: the write fails with 412 if the resource moved since. */
  ifMatch?: string;
}

/** Paging and the view of every list. */
export interface Listing {
  /** 1 to 500; default 10. */
  maxResults?: number;
  pageToken?: string;
  view?: View;
  /** Inclusive, on the `orderBy` field. */
  startDate?: Timestamp;
  /** Exclusive, on the `orderBy` field. */
  endDate?: Timestamp;
}

export interface BlogsGetParams {
  blogId: string;
  view?: View;
  maxPosts?: number;
}
export interface BlogsGetByUrlParams {
  url: string;
  view?: View;
  maxPosts?: number;
}
export interface BlogsListByUserParams {
  /** A user id, or `self` for the scoped actor. */
  userId: string;
  view?: View;
  maxPosts?: number;
  role?: OneOrMore<Role>;
  status?: OneOrMore<BlogStatus>;
  /** Also answer `blogUserInfos`: the user's standing in each blog listed. */
  fetchUserInfo?: boolean;
}
export interface BlogsInsertParams {
  body: BlogBody;
  /** Who becomes the blog's ADMIN when the unscoped service creates it. */
  ownerId?: string;
}

export interface UsersGetParams {
  userId: string;
}
export interface UsersInsertParams {
  body: UserBody;
}

export interface MembersSetParams {
  blogId: string;
  userId: string;
  role: Role;
}
export interface MembersRemoveParams {
  blogId: string;
  userId: string;
}
export interface MembersListParams {
  blogId: string;
}

export interface PostsGetParams {
  blogId: string;
  postId: string;
  view?: View;
  fetchBody?: boolean;
  fetchImages?: boolean;
  maxComments?: number;
}
export interface PostsListParams extends Listing {
  blogId: string;
  /** Default LIVE. */
  status?: OneOrMore<PostStatus>;
  /** Posts with any of these labels (at most 20); a string may join several with commas. */
  labels?: string | readonly string[];
  orderBy?: OrderBy;
  sortOption?: SortOption;
  fetchBodies?: boolean;
  fetchImages?: boolean;
  maxComments?: number;
}
export interface PostsSearchParams extends PostsListParams {
  /** Words a post must all hold; `"quoted phrases"` match adjacent words. */
  q: string;
}
export interface PostsGetByPathParams {
  blogId: string;
  path: string;
  date?: Timestamp;
  view?: View;
  maxComments?: number;
}
export interface PostsInsertParams {
  blogId: string;
  body: PostBody;
  isDraft?: boolean;
  fetchBody?: boolean;
  fetchImages?: boolean;
}
export interface PostsUpdateParams extends IfMatch {
  blogId: string;
  postId: string;
  body: PostPatchBody;
  publish?: boolean;
  revert?: boolean;
  fetchBody?: boolean;
  fetchImages?: boolean;
  maxComments?: number;
}
export interface PostsDeleteParams extends IfMatch {
  blogId: string;
  postId: string;
  useTrash?: boolean;
}
export interface PostsPublishParams extends IfMatch {
  blogId: string;
  postId: string;
  publishDate?: Timestamp;
}
export interface PostsRevertParams extends IfMatch {
  blogId: string;
  postId: string;
}

export interface PagesGetParams {
  blogId: string;
  pageId: string;
  view?: View;
}
export interface PagesListParams {
  blogId: string;
  maxResults?: number;
  pageToken?: string;
  view?: View;
  /** Default LIVE. */
  status?: OneOrMore<PageStatus>;
  fetchBodies?: boolean;
}
export interface PagesInsertParams {
  blogId: string;
  body: PageBody;
  isDraft?: boolean;
}
export interface PagesUpdateParams extends IfMatch {
  blogId: string;
  pageId: string;
  body: PagePatchBody;
  publish?: boolean;
  revert?: boolean;
}
export interface PagesDeleteParams extends IfMatch {
  blogId: string;
  pageId: string;
  useTrash?: boolean;
}
export interface PagesActionParams extends IfMatch {
  blogId: string;
  pageId: string;
}

export interface CommentsGetParams {
  blogId: string;
  postId: string;
  commentId: string;
  view?: View;
}
export interface CommentsListParams extends Listing {
  blogId: string;
  postId: string;
  /** Default LIVE and EMPTIED. */
  status?: OneOrMore<CommentStatus>;
  fetchBodies?: boolean;
}
export interface CommentsListByBlogParams extends Listing {
  blogId: string;
  /** Only the comments of this post. */
  post?: string;
  status?: OneOrMore<CommentStatus>;
  fetchBodies?: boolean;
}
export interface CommentsActionParams {
  blogId: string;
  postId: string;
  commentId: string;
}
/** `comments.moderate` (docs/design.md §25): one action on every comment of a blog that matches a filter, 500 a call. */
export interface CommentsModerateParams {
  blogId: string;
  /** Which comments: all of the given statuses (default every status) that match every other field given. */
  filter: {
    status?: OneOrMore<CommentStatus>;
    /** Comments of this signed-in author. */
    authorId?: string;
    /** Anonymous comments sent from this address. */
    clientAddress?: string;
    /** Comments whose text contains this (case aside). */
    contains?: string;
  };
  /** approve (to LIVE), spam (to SPAM), or delete. Comments the action does not apply to are left as they are. */
  action: 'approve' | 'spam' | 'delete';
  /** The `nextPageToken` of the previous call with the same filter and action. */
  pageToken?: string;
}

/** What `comments.moderate` did: how many comments it changed, and where to go on when there may be more. */
export interface CommentsModerateResult {
  handled: number;
  nextPageToken?: string;
}

export interface CommentsInsertParams {
  blogId: string;
  postId: string;
  body: CommentBody;
  /**
   * The address of the client that sent the comment (an extension, docs/design.md §25): anonymous comments are limited
   * per address, and the blog's ADMINs see it for 30 days. The HTTP helper and the site set it from the request;
   * a host calling in process for its own form passes it (absent: only the per-user limits apply).
   */
  clientAddress?: string;
  /** The client's `User-Agent`, for `checkComment` (never stored). */
  userAgent?: string;
  /** The page the comment was sent from (`Referer`), for `checkComment` (never stored). */
  referrer?: string;
}

/** `changes.list`: a replica's pull (docs/design.md §15). */
export interface ChangesListParams {
  blogId: string;
  /** The `checkpoint` of an earlier pull: only what changed since. Absent: everything the caller may read. */
  since?: string;
  /** The `nextPageToken` of the previous page of this pull. */
  pageToken?: string;
  /** Items per page, 1 to 500; default 100. */
  maxResults?: number;
  /** Seconds (0 to 60) to hold the answer open until something changes, when nothing has. */
  wait?: number;
  view?: View;
}
export interface BlogUserInfosGetParams {
  /** A user id, or `self` for the scoped actor. Only that user and the blog's ADMINs may ask. */
  userId: string;
  blogId: string;
  maxPosts?: number;
}
export interface PostUserInfosGetParams {
  /** A user id, or `self`. Only that user and the blog's ADMINs may ask. */
  userId: string;
  blogId: string;
  postId: string;
  maxComments?: number;
}
export interface PostUserInfosListParams {
  /** A user id, or `self`. Only that user and the blog's ADMINs may ask. */
  userId: string;
  blogId: string;
  maxResults?: number;
  pageToken?: string;
  view?: View;
  /** Inclusive, on the `orderBy` field. */
  startDate?: Timestamp;
  /** Exclusive, on the `orderBy` field. */
  endDate?: Timestamp;
  /** Default LIVE. */
  status?: OneOrMore<PostStatus>;
  /** Posts with any of these labels (at most 20); a string may join several with commas. */
  labels?: string | readonly string[];
  orderBy?: OrderBy;
  /** Default false (as the discovery document gives it). */
  fetchBodies?: boolean;
}

/** A time range of `pageViews.get`. */
export type PageViewsRange = 'all' | '30DAYS' | '7DAYS';
export interface PageViewsGetParams {
  blogId: string;
  /** One range or several; default all three. */
  range?: OneOrMore<PageViewsRange>;
}
export interface PageViewsRecordParams {
  blogId: string;
  /** The post that was viewed, if the page was a post. */
  postId?: string;
  /** Views to count at once (1 to 1,000,000; default 1), for hosts that gather views before writing them. */
  count?: number;
}

export interface RedirectsListParams {
  blogId: string;
  /** 1 to 500; default 100. */
  maxResults?: number;
  pageToken?: string;
}

export interface RedirectsInsertParams {
  blogId: string;
  /** `from`: the old address (a url or a path, its query kept); `to`: the new one (a url, or a path on the blog's host). */
  body: { from: string; to: string };
}

export interface RedirectsDeleteParams {
  blogId: string;
  /** The old address, as given to `insert` (a url or a path). */
  from: string;
}

export interface LabelsListParams {
  blogId: string;
  /** 1 to 500; default 100. */
  maxResults?: number;
  pageToken?: string;
  view?: View;
}

export interface PostsRevisionsListParams {
  blogId: string;
  postId: string;
  /** 1 to 500; default 10. Newest first. */
  maxResults?: number;
  pageToken?: string;
}
export interface PostsRevisionsGetParams {
  blogId: string;
  postId: string;
  revisionId: string;
}
export interface PostsRevisionsRestoreParams extends IfMatch {
  blogId: string;
  postId: string;
  revisionId: string;
}
export interface PagesRevisionsListParams {
  blogId: string;
  pageId: string;
  /** 1 to 500; default 10. Newest first. */
  maxResults?: number;
  pageToken?: string;
}
export interface PagesRevisionsGetParams {
  blogId: string;
  pageId: string;
  revisionId: string;
}
export interface PagesRevisionsRestoreParams extends IfMatch {
  blogId: string;
  pageId: string;
  revisionId: string;
}

/** blogs.patch: the fields of a blog body, all optional. */
/** The body of blogs.patch: a blog body's fields, all optional; `null` clears description, customMetaData and locale. */
export interface BlogPatchBody extends Omit<Partial<BlogBody>, 'description' | 'customMetaData' | 'locale'> {
  description?: string | null;
  customMetaData?: string | null;
  locale?: { language?: string; country?: string; variant?: string } | null;
}
/** users.update: the fields a user may change; absent ones stay. */
export interface UserPatchBody {
  kind?: unknown;
  selfLink?: unknown;
  created?: unknown;
  blogs?: unknown;
  /** Ignored: a user's id is theirs for good. */
  id?: unknown;
  displayName?: string;
  /** An absolute http(s) URL; `null` clears it. */
  url?: string | null;
  /** `null` clears it. */
  about?: string | null;
}
export interface UsersUpdateParams {
  /** A user id, or `self`. Only that user (and host code) may change it. */
  userId: string;
  body: UserPatchBody;
}
export interface BlogsUpdateParams {
  blogId: string;
  /** Every writable field: absent optional ones are cleared. */
  body: BlogBody;
}
export interface BlogsPatchParams {
  blogId: string;
  body: BlogPatchBody;
}
export interface BlogsDeleteParams {
  blogId: string;
}

// ---- Request bodies ----
/**
 * The request bodies of the service's writes, as plain types (src/schema/schemas.ts checks the same shapes at run
 * time). A resource read from the service may be sent back as a body: the fields the server owns are ignored.
 */

/**
 * Fields of a resource the server owns. A body may carry them (a client may send back what it read); they
 * are ignored.
 */
export interface ServerOwnedFields {
  id?: unknown;
  kind?: unknown;
  blog?: unknown;
  post?: unknown;
  status?: unknown;
  url?: unknown;
  selfLink?: unknown;
  updated?: unknown;
  replies?: unknown;
  author?: unknown;
  etag?: unknown;
  trashed?: unknown;
  images?: unknown;
}

export interface PostBody extends ServerOwnedFields {
  title?: string;
  content?: string;
  /** At most 100 labels of at most 200 characters; trimmed and deduplicated. */
  labels?: readonly string[];
  published?: Timestamp;
  /** An absolute http(s) URL. */
  titleLink?: string;
  customMetaData?: string;
  readerComments?: ReaderComments;
  location?: { name?: string; lat?: number; lng?: number; span?: string };
}

export interface PageBody extends ServerOwnedFields {
  title?: string;
  content?: string;
  published?: Timestamp;
}

/** The body of posts.update and patch: a post body where `null` clears a field (as an update without it would). */
export interface PostPatchBody extends ServerOwnedFields {
  title?: string | null;
  content?: string | null;
  labels?: readonly string[] | null;
  published?: Timestamp | null;
  titleLink?: string | null;
  customMetaData?: string | null;
  readerComments?: ReaderComments | null;
  location?: { name?: string; lat?: number; lng?: number; span?: string } | null;
}

/** The body of pages.update and patch: a page body where `null` clears a field (as an update without it would). */
export interface PagePatchBody extends ServerOwnedFields {
  title?: string | null;
  content?: string | null;
  published?: Timestamp | null;
}

export interface CommentBody extends ServerOwnedFields {
  published?: unknown;
  /** HTML; sanitized to a small set of harmless tags. */
  content: string;
  inReplyTo?: { id: string };
  /** Counts only for anonymous and unscoped callers; a signed-in author is their user. */
  author?: { displayName?: string; url?: string; id?: unknown; image?: unknown };
}

export interface BlogBody extends ServerOwnedFields {
  name: string;
  /** The blog's public address: an absolute http(s) URL, unique. */
  url: string;
  description?: string;
  customMetaData?: string;
  /** Words or phrases that file a comment as SPAM in this blog (an extension, docs/comments.md); ADMIN view only. */
  disallowedCommentWords?: readonly string[];
  published?: unknown;
  posts?: unknown;
  pages?: unknown;
  locale?: { language?: string; country?: string; variant?: string };
}

export interface UserBody {
  kind?: unknown;
  selfLink?: unknown;
  created?: unknown;
  blogs?: unknown;
  /** The host's own id for the user (letters, digits and `. _ @ : -`); generated when left out. */
  id?: string;
  displayName: string;
  /** An absolute http(s) URL. */
  url?: string;
  about?: string;
}
