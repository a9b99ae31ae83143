/**
 * The public surface of a service, written out: what `createBlogService` answers, one interface per namespace,
 * one line of documentation per method (docs/api.md has the full story). src/service/create.ts builds the
 * object and checks at compile time that it has exactly these namespaces and methods.
 *
 * Every method takes one object (the Blogger v3 parameters by name, plus `body` for a write) and resolves to the
 * wire resource, or rejects with a `BlogError` and changes nothing.
 */
import type { BlobStore, StorageDriver } from '../store/driver.js';
import type { CommentOptions } from '../rules/comment-options.js';
import type { EventType, Listener } from '../core/events.js';
import type { SchedulerOptions } from '../core/scheduler.js';
import type { ChangeList } from '../resources/changes.js';
import type {
  Media,
  MediaDeleteParams,
  MediaGetParams,
  MediaList,
  MediaListParams,
  MediaPatchParams,
  MediaRead,
  MediaReadParams,
  MediaUploadParams,
} from '../schema/media.js';
import type {
  CollabOpenParams,
  CollabPullParams,
  CollabPushParams,
  CollabPushResult,
  CollabState,
} from '../schema/collab.js';
import type {
  BlogsDeleteParams,
  BlogsGetByUrlParams,
  BlogsGetParams,
  BlogsInsertParams,
  BlogsListByUserParams,
  BlogsPatchParams,
  BlogsUpdateParams,
  BlogUserInfosGetParams,
  ChangesListParams,
  CommentsActionParams,
  CommentsGetParams,
  CommentsInsertParams,
  CommentsListByBlogParams,
  CommentsListParams,
  CommentsModerateParams,
  CommentsModerateResult,
  LabelsListParams,
  MembersListParams,
  MembersRemoveParams,
  MembersSetParams,
  PagesActionParams,
  PagesDeleteParams,
  PagesGetParams,
  PagesInsertParams,
  PagesListParams,
  PagesRevisionsGetParams,
  PagesRevisionsListParams,
  PagesRevisionsRestoreParams,
  PagesUpdateParams,
  PageViewsGetParams,
  PageViewsRecordParams,
  PostsDeleteParams,
  PostsGetByPathParams,
  PostsGetParams,
  PostsInsertParams,
  PostsListParams,
  PostsPublishParams,
  PostsRevertParams,
  PostsRevisionsGetParams,
  PostsRevisionsListParams,
  PostsRevisionsRestoreParams,
  PostsSearchParams,
  PostsUpdateParams,
  PostUserInfosGetParams,
  PostUserInfosListParams,
  RedirectsDeleteParams,
  RedirectsInsertParams,
  RedirectsListParams,
  UsersGetParams,
  UsersInsertParams,
  UsersUpdateParams,
} from '../schema/params.js';
import type {
  Blog,
  BlogList,
  BlogUserInfo,
  Comment,
  CommentList,
  LabelList,
  Member,
  MemberList,
  Page,
  PageList,
  PageViews,
  Post,
  PostList,
  PostUserInfo,
  PostUserInfosList,
  Redirect,
  RedirectList,
  Revision,
  RevisionList,
  User,
} from '../schema/resources.js';

/** The options of `createBlogService`; those of comments from the public are `CommentOptions`'s (docs/comments.md). */
export interface BlogServiceOptions extends CommentOptions {
  /** Where the data lives: `memoryDriver()`, `sqliteDriver({ filename })`, `idbDriver()`, `postgresDriver({ … })`. */
  driver: StorageDriver;
  /** Earlier versions kept per post or page (default 50; 0 keeps none). */
  revisionsKept?: number;
  /** The public origin of the API, the prefix of every `selfLink` (default: none, links start at `/v3/…`). */
  apiBaseUrl?: string;
  /** The clock: every timestamp, schedule and page view uses it (tests pass a controllable one). */
  now?: () => Date;
  /**
   * How long the change log keeps changes (a pull's `since` older than that answers 410 resyncRequired):
   * entries older than `days` go, and, with `commits`, any beyond the newest that many commits.
   * Default `{ days: 30 }`. Pruning runs after writes, a bounded batch at a time.
   */
  changeRetention?: { days?: number; commits?: number };
  /** Where media bytes live (`fsBlobs`, `s3Blobs` from blogcore/blobs). Default: the driver's own store, beside the records. */
  blobs?: BlobStore;
  /** Larger pictures are refused with 413, read no further. Default 20 MiB. */
  maxMediaBytes?: number;
  /**
   * Keep pictures as uploaded, metadata and all (photography blogs). Default false: an upload loses its EXIF
   * (GPS position, serials, owner names), XMP, IPTC and comments by a lossless rewrite; pixels, orientation and
   * colour profile stay.
   */
  keepImageMetadata?: boolean;
  /** The widths (pixels) of the variants of pictures readers get. Default `[320, 640, 960, 1280, 1920]`. */
  imageWidths?: readonly number[];
}

/** Who a scoped service acts for: a user of the host (`{ userId }`), or an anonymous reader (`null`). */
export type ActorInput = { userId: string } | null;

/**
 * The blog service: every Blogger v3 operation as a typed method, over one storage driver.
 *
 * The service `createBlogService` answers is trusted host code (an ADMIN of every blog); `as()` gives one
 * acting for a user or an anonymous reader, with the same methods.
 *
 * @example
 * ```ts
 * const service = createBlogService({ driver: memoryDriver() });
 * await service.users.insert({ body: { id: 'ada', displayName: 'Ada' } });
 * const blog = await service.blogs.insert({ body: { name: 'Notes', url: 'https://notes.example.com/' }, ownerId: 'ada' });
 * const post = await service.as({ userId: 'ada' }).posts.insert({ blogId: blog.id, body: { title: 'Hello' } });
 * ```
 */
export interface BlogService {
  /** Blogs: create, read, change, delete. */
  blogs: BlogsApi;
  /** Users of the host: create, read, change. */
  users: UsersApi;
  /** Who holds which role in a blog. */
  members: MembersApi;
  /** Posts: the states LIVE, DRAFT, SCHEDULED and SOFT_TRASHED, lists, search, revisions. */
  posts: PostsApi;
  /** Pages: LIVE, DRAFT and SOFT_TRASHED, lists, revisions. */
  pages: PagesApi;
  /** Comments and their moderation. */
  comments: CommentsApi;
  /** A blog with a user's standing in it. */
  blogUserInfos: BlogUserInfosApi;
  /** Posts with whether a user may edit them. */
  postUserInfos: PostUserInfosApi;
  /** View counts, recorded by the host. */
  pageViews: PageViewsApi;
  /** A blog's labels with their post counts (an extension). */
  labels: LabelsApi;
  /** A blog's old addresses and where they moved; the reading site answers them with 301 (an extension). */
  redirects: RedirectsApi;
  /** What changed in a blog, for replicas (an extension). */
  changes: ChangesApi;
  /** A blog's pictures: upload, list, describe, delete, read their bytes (an extension, docs/design.md §14). */
  media: MediaApi;
  /** Writing a post or page together: its shared Yjs document (an extension, docs/collab.md). */
  collab: CollabApi;
  /**
   * A service acting for one user (`{ userId }`) or an anonymous reader (`null`). Only host code may choose who
   * to act as: a scoped service's `as` is 403.
   *
   * @example
   * ```ts
   * const ada = service.as({ userId: 'ada' }); // her role in each blog decides what she may do
   * const reader = service.as(null);           // reads LIVE content, comments wait for moderation
   * ```
   */
  as(actor: ActorInput): BlogService;
  /**
   * Listens to events after successful writes (`'*'`: every type); answers the function that stops listening.
   * With a store shared by several app servers (PostgreSQL), the listener hears every write committed after
   * `on()` returned on any of them, once.
   *
   * @example
   * ```ts
   * const stop = service.on('post.published', (event) => console.log('published', event.id));
   * ```
   */
  on(type: EventType | '*', listener: Listener): () => void;
  /** Opens the store (creating or upgrading it). Every call does this itself; await it to fail early. */
  ready(): Promise<void>;
  /**
   * Publishes scheduled posts at their time (a timer set to the next one, re-armed by writes), emitting
   * `post.published` then rather than at the next read; and deletes spam older than 30 days and forgets anonymous
   * comments' client addresses after 30 days (docs/comments.md). Answers the function that stops it. Host only.
   */
  startScheduler(options?: SchedulerOptions): () => void;
  /** Closes the store (and stops the scheduler). */
  close(): Promise<void>;
}

export interface BlogsApi {
  /**
   * Creates a blog; its owner (`ownerId` for host code, else the caller) becomes its ADMIN. 409 when the url is taken.
   *
   * @example
   * ```ts
   * const blog = await service.blogs.insert({ body: { name: 'Notes', url: 'https://notes.example.com/' }, ownerId: 'ada' });
   * ```
   */
  insert(input: BlogsInsertParams): Promise<Blog>;
  /** Replaces a blog's settings (absent `description`, `locale`, `customMetaData` are reset). ADMIN. */
  update(input: BlogsUpdateParams): Promise<Blog>;
  /** Changes only the settings given. ADMIN. */
  patch(input: BlogsPatchParams): Promise<Blog>;
  /** Deletes a blog with everything in it, in bounded batches (it reads as gone from the first). ADMIN. */
  delete(input: BlogsDeleteParams): Promise<void>;
  /** A blog by id; `maxPosts` fills `posts.items` with its newest LIVE posts. */
  get(input: BlogsGetParams): Promise<Blog>;
  /** A blog by its url (or one of its last 20 old urls). */
  getByUrl(input: BlogsGetByUrlParams): Promise<Blog>;
  /** The blogs where a user (`'self'`: the caller) is AUTHOR or ADMIN. */
  listByUser(input: BlogsListByUserParams): Promise<BlogList>;
}

export interface UsersApi {
  /** Creates a user (the id may be your app's own user id). Host only. */
  insert(input: UsersInsertParams): Promise<User>;
  /** Changes a user's profile (absent fields stay). The user themself, or the host. */
  update(input: UsersUpdateParams): Promise<User>;
  /** A user by id; `'self'` is the scoped user. */
  get(input: UsersGetParams): Promise<User>;
}

export interface MembersApi {
  /**
   * Gives a user a role in a blog (READER, AUTHOR or ADMIN). ADMIN.
   *
   * @example
   * ```ts
   * await ada.members.set({ blogId: blog.id, userId: 'bo', role: 'AUTHOR' });
   * ```
   */
  set(input: MembersSetParams): Promise<Member>;
  /** Takes a user's role in a blog away; the last ADMIN cannot go (409). ADMIN. */
  remove(input: MembersRemoveParams): Promise<void>;
  /** The members of a blog with their roles. ADMIN. */
  list(input: MembersListParams): Promise<MemberList>;
}

/** A post's earlier versions (an extension): read at AUTHOR view, restored under the editor rules. */
export interface PostRevisionsApi {
  /** A post's earlier versions, newest first, one page. */
  list(input: PostsRevisionsListParams): Promise<RevisionList>;
  /** One earlier version. */
  get(input: PostsRevisionsGetParams): Promise<Revision>;
  /** Puts a version's title, content and labels back (an ordinary change: ifMatch, events, a new revision). */
  restore(input: PostsRevisionsRestoreParams): Promise<Post>;
}

export interface PostsApi {
  /** Earlier versions of a post (an extension). */
  revisions: PostRevisionsApi;
  /** A post; not LIVE, it reads as 404 below AUTHOR view. */
  get(input: PostsGetParams): Promise<Post>;
  /**
   * One page of a blog's posts, by keyset: pass `nextPageToken` back as `pageToken` for the next.
   *
   * @example
   * ```ts
   * const page = await service.posts.list({ blogId, labels: ['news'], maxResults: 20 });
   * const next = page.nextPageToken && (await service.posts.list({ blogId, labels: ['news'], pageToken: page.nextPageToken }));
   * ```
   */
  list(input: PostsListParams): Promise<PostList>;
  /** Posts holding every word of `q` (and its `"quoted phrases"`), paged like `list`. */
  search(input: PostsSearchParams): Promise<PostList>;
  /** The LIVE post at a path (`/2026/11/hello.html`). */
  getByPath(input: PostsGetByPathParams): Promise<Post>;
  /**
   * Writes a post: LIVE, DRAFT with `isDraft`, SCHEDULED with a future `body.published`. AUTHOR.
   *
   * @example
   * ```ts
   * const draft = await ada.posts.insert({ blogId, body: { title: 'Hello', content: '<p>Hi</p>' }, isDraft: true });
   * ```
   */
  insert(input: PostsInsertParams): Promise<Post>;
  /** Replaces a post (fields left out are cleared); `ifMatch` refuses a stale write with 412. */
  update(input: PostsUpdateParams): Promise<Post>;
  /**
   * Changes only the fields given; `ifMatch` refuses a stale write with 412.
   *
   * @example
   * ```ts
   * const edited = await ada.posts.patch({ blogId, postId: draft.id, body: { content: '<p>Hi there</p>' }, ifMatch: draft.etag });
   * ```
   */
  patch(input: PostsUpdateParams): Promise<Post>;
  /** Deletes a post with its comments for good, or moves it to the trash with `useTrash`. */
  delete(input: PostsDeleteParams): Promise<void>;
  /** DRAFT or SCHEDULED → LIVE now, or SCHEDULED with a future `publishDate`. */
  publish(input: PostsPublishParams): Promise<Post>;
  /** LIVE, SCHEDULED or SOFT_TRASHED → DRAFT (its url is kept for when it is published again). */
  revert(input: PostsRevertParams): Promise<Post>;
}

/** A page's earlier versions (an extension), as for posts. */
export interface PageRevisionsApi {
  /** A page's earlier versions, newest first, one page. */
  list(input: PagesRevisionsListParams): Promise<RevisionList>;
  /** One earlier version. */
  get(input: PagesRevisionsGetParams): Promise<Revision>;
  /** Puts a version's title and content back (an ordinary change). */
  restore(input: PagesRevisionsRestoreParams): Promise<Page>;
}

export interface PagesApi {
  /** Earlier versions of a page (an extension). */
  revisions: PageRevisionsApi;
  /** A page; not LIVE, it reads as 404 below AUTHOR view. */
  get(input: PagesGetParams): Promise<Page>;
  /** One page of a blog's pages, newest first. */
  list(input: PagesListParams): Promise<PageList>;
  /** Writes a page (its url: the blog url + `/p/slug.html`): LIVE, or DRAFT with `isDraft`. ADMIN. */
  insert(input: PagesInsertParams): Promise<Page>;
  /** Replaces a page (fields left out are cleared). */
  update(input: PagesUpdateParams): Promise<Page>;
  /** Changes only the fields given. */
  patch(input: PagesUpdateParams): Promise<Page>;
  /** Deletes a page for good, or moves it to the trash with `useTrash`. */
  delete(input: PagesDeleteParams): Promise<void>;
  /** DRAFT → LIVE. */
  publish(input: PagesActionParams): Promise<Page>;
  /** LIVE or SOFT_TRASHED → DRAFT. */
  revert(input: PagesActionParams): Promise<Page>;
}

export interface CommentsApi {
  /** A comment; PENDING or SPAM, it reads as 404 below ADMIN view. */
  get(input: CommentsGetParams): Promise<Comment>;
  /** One page of a post's comments, oldest first. */
  list(input: CommentsListParams): Promise<CommentList>;
  /** One page of a blog's comments, newest first (the moderation queue with `status: 'PENDING'`). */
  listByBlog(input: CommentsListByBlogParams): Promise<CommentList>;
  /**
   * Comments on a LIVE post (sanitized HTML): PENDING from readers, LIVE from the blog's AUTHORs and ADMINs.
   *
   * @example
   * ```ts
   * const c = await service.as(null).comments.insert({ blogId, postId, body: { content: 'Nice!', author: { displayName: 'Bo' } } });
   * ```
   */
  insert(input: CommentsInsertParams): Promise<Comment>;
  /** PENDING or SPAM → LIVE. ADMIN. */
  approve(input: CommentsActionParams): Promise<Comment>;
  /** LIVE or PENDING → SPAM. ADMIN. */
  markAsSpam(input: CommentsActionParams): Promise<Comment>;
  /** Empties a comment's content, keeping its place in the thread (EMPTIED). ADMIN. */
  removeContent(input: CommentsActionParams): Promise<Comment>;
  /** Deletes a comment for good; replies to it stay. ADMIN. */
  delete(input: CommentsActionParams): Promise<void>;
  /**
   * One action (approve, spam, delete) on the blog's comments that match a filter (status, author, client
   * address, text), at most 500 a call; go on with `nextPageToken` until none is answered. ADMIN.
   *
   * @example
   * ```ts
   * let pageToken: string | undefined;
   * do {
   *   const r = await service.comments.moderate({ blogId, filter: { status: 'PENDING', clientAddress: '203.0.113.9' }, action: 'spam', ...(pageToken ? { pageToken } : {}) });
   *   pageToken = r.nextPageToken;
   * } while (pageToken);
   * ```
   */
  moderate(input: CommentsModerateParams): Promise<CommentsModerateResult>;
}

export interface BlogUserInfosApi {
  /** A blog with a user's standing in it. The user, an ADMIN of the blog, or the host. */
  get(input: BlogUserInfosGetParams): Promise<BlogUserInfo>;
}

export interface PostUserInfosApi {
  /** A post with whether a user may edit it. */
  get(input: PostUserInfosGetParams): Promise<PostUserInfo>;
  /** One page of posts with whether a user may edit each, paged like `posts.list`. */
  list(input: PostUserInfosListParams): Promise<PostUserInfosList>;
}

export interface PageViewsApi {
  /** A blog's view counts over `7DAYS`, `30DAYS` and `all`. ADMIN. */
  get(input: PageViewsGetParams): Promise<PageViews>;
  /** Counts one view today (UTC), of the blog or one of its posts. Host only. */
  record(input: PageViewsRecordParams): Promise<void>;
}

export interface RedirectsApi {
  /** The blog's redirects in `from` order, one page. ADMIN. */
  list(input: RedirectsListParams): Promise<RedirectList>;
  /**
   * Adds a redirect (`from` an old url or path, its query kept; `to` a url or a path on the blog's host), or
   * changes where an old address leads. ADMIN.
   *
   * @example
   * ```ts
   * await service.redirects.insert({ blogId, body: { from: 'https://old.example/?p=12', to: '/2026/11/hello.html' } });
   * ```
   */
  insert(input: RedirectsInsertParams): Promise<Redirect>;
  /** Removes the redirect of an old address (404 when there is none). ADMIN. */
  delete(input: RedirectsDeleteParams): Promise<void>;
}

export interface LabelsApi {
  /** A blog's labels in name order with their post counts (an extension), one page. */
  list(input: LabelsListParams): Promise<LabelList>;
}

export interface ChangesApi {
  /**
   * What changed in a blog that the caller may read (the pull of a replica): without `since` a snapshot, then
   * everything after the `checkpoint` it answers. 410 resyncRequired when the checkpoint is too old.
   *
   * @example
   * ```ts
   * let page = await service.changes.list({ blogId });
   * while (page.nextPageToken) page = await service.changes.list({ blogId, pageToken: page.nextPageToken });
   * const later = await service.changes.list({ blogId, since: page.checkpoint, wait: 30 });
   * ```
   */
  list(input: ChangesListParams): Promise<ChangeList>;
}

export interface MediaApi {
  /**
   * Stores a picture (JPEG, PNG, GIF, WebP or AVIF, its type read from its bytes; 413 past `maxMediaBytes`).
   * Its id is the SHA-256 of the bytes: the same picture again answers the media already there. AUTHOR.
   *
   * @example
   * ```ts
   * const media = await service.media.upload({ blogId, body: bytes, filename: 'cat.png', alt: 'A cat' });
   * await service.posts.insert({ blogId, body: { title: 'Cat', content: `<img src="${media.url}">` } });
   * ```
   */
  upload(input: MediaUploadParams): Promise<Media>;
  /** One picture's record. AUTHOR. */
  get(input: MediaGetParams): Promise<Media>;
  /** A blog's pictures, newest first; with `postId` the ones that post or page uses, in the order it uses them. AUTHOR. */
  list(input: MediaListParams): Promise<MediaList>;
  /** Changes `alt` or `filename` (absent fields stay); `ifMatch` refuses a stale write with 412. AUTHOR. */
  patch(input: MediaPatchParams): Promise<Media>;
  /** Deletes a picture: 409 while a post or page uses it, unless `force`. An AUTHOR deletes only their own. */
  delete(input: MediaDeleteParams): Promise<void>;
  /** The bytes as a stream, all or a `range` (416 past the end). Whoever may read the blog. */
  read(input: MediaReadParams): Promise<MediaRead>;
}

export interface CollabApi {
  /**
   * The post's (`postId`) or page's (`pageId`) shared document as one Yjs update, made from its stored HTML on the
   * first open, and the position to pull from. The post's AUTHOR and the blog's ADMINs (pages: ADMINs) only.
   *
   * @example
   * ```ts
   * const { update, position } = await service.collab.open({ blogId, postId });
   * Y.applyUpdate(doc, update);
   * ```
   */
  open(input: CollabOpenParams): Promise<CollabState>;
  /** Stores one Yjs update (at most 256 KiB: 413 beyond), with the sender's presence if given; answers its position. */
  push(input: CollabPushParams): Promise<CollabPushResult>;
  /** The updates after `since` merged into one (empty when none; waits up to `wait` ms for one), and others' presence. */
  pull(input: CollabPullParams): Promise<CollabState>;
}
