/**
 * The JSON resources of the Blogger v3 wire (docs/design.md §7), as the service answers them: plain types. Times
 * are RFC 3339 in UTC with milliseconds; ids are strings. What a field holds can depend on the view the call
 * answered at (READER, AUTHOR, ADMIN): the fields shown only above READER say so.
 */
import type { CommentStatus, PageStatus, PostStatus, ReaderComments, Role } from './schemas.js';

/** Who wrote a post, page or comment. */
export interface Author {
  /** The writer's user id; absent for an anonymous commenter. */
  id?: string;
  /** The name shown for the writer: the user's, or the name an anonymous commenter gave ("Anonymous" without one). */
  displayName: string;
  /** The writer's profile page, or the link an anonymous commenter gave; empty when there is none. */
  url: string;
  /** The writer's avatar: its `url` is always empty (blogcore keeps no avatars; Blogger's field is kept). */
  image: {
    /** The avatar's address: empty. */
    url: string;
  };
}

/** A post of a blog (`blogger#post`). */
export interface Post {
  /** Always `blogger#post`. */
  kind: 'blogger#post';
  /** The post's id (a ULID), unique in the store. */
  id: string;
  /** The blog that holds the post. */
  blog: {
    /** The blog's id. */
    id: string;
  };
  /**
   * When the post was (or, SCHEDULED, will be) published. A DRAFT has one only when a time was saved for its
   * publishing; a post never published and without one has none.
   */
  published?: string;
  /** When the post last changed (a comment on it does not count). */
  updated: string;
  /**
   * Where readers find it: the blog's url and `/YYYY/MM/slug.html`, given at its first publish or schedule and
   * kept for good (a reverted post still shows it). Absent on a post never published.
   */
  url?: string;
  /** This resource's own address in the API (`{apiBaseUrl}/v3/blogs/{blogId}/posts/{postId}`). */
  selfLink: string;
  /** The title (may be empty). */
  title: string;
  /** A link the title points to instead of the post itself (as Atom's related link). */
  titleLink?: string;
  /** The post's body, in HTML as its author wrote it. Absent when the call asked for no bodies (`fetchBody: false`). */
  content?: string;
  /** With `fetchImages: true`: the pictures of `content` (each `<img src>`), in order. */
  images?: Array<{
    /** A picture's address, as `src` gives it. */
    url: string;
  }>;
  /** Free text the host stores with the post (Blogger: JSON meta-data); blogcore neither reads nor checks it. */
  customMetaData?: string;
  /** Who wrote the post. */
  author: Author;
  /** The post's comments. */
  replies: {
    /** How many LIVE comments the post has, as a decimal string ("0" when the post hides its comments from this view). */
    totalItems: string;
    /** The API address of the post's comments. */
    selfLink: string;
    /** With `maxComments`: the first LIVE comments, oldest first. */
    items?: Comment[];
  };
  /** The labels (tags) of the post, each once; absent when it has none. */
  labels?: string[];
  /** Where the post is about, for geotagged posts. */
  location?: {
    /** The place's name. */
    name?: string;
    /** Its latitude, in degrees. */
    lat?: number;
    /** Its longitude, in degrees. */
    lng?: number;
    /** The area a map of it should show (the viewport span). */
    span?: string;
  };
  /**
   * Whether readers may comment: ALLOW; DONT_ALLOW_SHOW_EXISTING (no new comments from readers, old ones shown);
   * DONT_ALLOW_HIDE_EXISTING (none new, and old ones hidden below the ADMIN view).
   */
  readerComments?: ReaderComments;
  /** LIVE, DRAFT, SCHEDULED or SOFT_TRASHED: at the AUTHOR view and above only. */
  status?: PostStatus;
  /** When the post went to the trash (SOFT_TRASHED only; AUTHOR view and above). */
  trashed?: string;
  /** The stored version's tag: send it back as `ifMatch` (`If-Match`) so a change fails with 412 if it moved. */
  etag: string;
}

/** A page of a blog (`blogger#page`): a standing page such as "About", outside the stream of posts. */
export interface Page {
  /** Always `blogger#page`. */
  kind: 'blogger#page';
  /** The page's id (a ULID). */
  id: string;
  /** The blog that holds the page. */
  blog: {
    /** The blog's id. */
    id: string;
  };
  /** When the page was published (a DRAFT: the saved time, if any). */
  published?: string;
  /** When the page last changed. */
  updated: string;
  /** Where readers find it: the blog's url and `/p/slug.html`, given at its first publish and kept. Absent before. */
  url?: string;
  /** This resource's own address in the API. */
  selfLink: string;
  /** The title (may be empty). */
  title: string;
  /** The page's body, in HTML. Absent when the call asked for no bodies. */
  content?: string;
  /** Who wrote the page. */
  author: Author;
  /** LIVE, DRAFT or SOFT_TRASHED: at the AUTHOR view and above only. */
  status?: PageStatus;
  /** When the page went to the trash (SOFT_TRASHED only; AUTHOR view and above). */
  trashed?: string;
  /** The stored version's tag, for `ifMatch`. */
  etag: string;
}

/** A comment on a post (`blogger#comment`). */
export interface Comment {
  /** Always `blogger#comment`. */
  kind: 'blogger#comment';
  /** The comment's id (a ULID). */
  id: string;
  /** The post the comment is on. */
  post: {
    /** The post's id. */
    id: string;
  };
  /** The blog of that post. */
  blog: {
    /** The blog's id. */
    id: string;
  };
  /** The comment this one answers, in a thread; absent for a comment on the post itself. */
  inReplyTo?: {
    /** The answered comment's id (it may since have been deleted: the reply keeps its place). */
    id: string;
  };
  /** When the comment was written. */
  published: string;
  /** When it last changed (moderation included). */
  updated: string;
  /** This resource's own address in the API. */
  selfLink: string;
  /** The comment's text, as sanitized HTML (empty once EMPTIED). Absent when the call asked for no bodies. */
  content?: string;
  /** Who wrote it: a user, or the name and link an anonymous commenter gave. */
  author: Author;
  /** LIVE, EMPTIED, PENDING or SPAM: at the ADMIN view only. */
  status?: CommentStatus;
  /** Where an anonymous comment came from (an extension): at ADMIN view only. */
  clientAddress?: string;
}

/** A blog (`blogger#blog`). */
export interface Blog {
  /** Always `blogger#blog`. */
  kind: 'blogger#blog';
  /** The blog's id (a ULID). */
  id: string;
  /** The blog's name, shown as its title. */
  name: string;
  /** The blog's description, shown under its title (may be empty). */
  description: string;
  /** When the blog was created. */
  published: string;
  /** When the blog's own settings last changed. */
  updated: string;
  /** The blog's public address: posts' and pages' urls start with it. Unique in the store. */
  url: string;
  /** This resource's own address in the API. */
  selfLink: string;
  /** The blog's posts. */
  posts: {
    /** How many LIVE posts the blog has. */
    totalItems: number;
    /** The API address of the blog's posts. */
    selfLink: string;
    /** With `maxPosts`: the newest LIVE posts. */
    items?: Post[];
  };
  /** The blog's pages. */
  pages: {
    /** How many LIVE pages the blog has. */
    totalItems: number;
    /** The API address of the blog's pages. */
    selfLink: string;
  };
  /** The language the blog is written in. */
  locale: {
    /** A language code, e.g. `en` (may be empty). */
    language: string;
    /** A country code, e.g. `GB` (may be empty). */
    country: string;
    /** A variant of the language (may be empty). */
    variant: string;
  };
  /** Free text the host stores with the blog; blogcore neither reads nor checks it. */
  customMetaData?: string;
  /** Always LIVE: a deleted blog is gone (404), never shown. */
  status: 'LIVE';
  /** Words that send a comment to SPAM (an extension): at ADMIN view only. */
  disallowedCommentWords?: string[];
}

/** A user (`blogger#user`): someone who may hold roles in blogs and write. */
export interface User {
  /** Always `blogger#user`. */
  kind: 'blogger#user';
  /** The user's id: the host's own, or one blogcore made. */
  id: string;
  /** The name shown for the user. */
  displayName: string;
  /** The user's profile page. */
  url?: string;
  /** What the user says of themself. */
  about?: string;
  /** When the user was added (an RFC 3339 time; Blogger's says seconds since the epoch). */
  created: string;
  /** This resource's own address in the API. */
  selfLink: string;
  /** The user's blogs. */
  blogs: {
    /** The API address of the blogs the user holds a role in (`blogs.listByUser`). */
    selfLink: string;
  };
}

/** One page of a blog's posts. */
export interface PostList {
  /** Always `blogger#postList`. */
  kind: 'blogger#postList';
  /** The posts of this page, in the order asked for. */
  items: Post[];
  /** Pass as `pageToken` for the page after this one; absent on the last page. */
  nextPageToken?: string;
  /** Pass as `pageToken` for the page before this one; absent on the first page. */
  prevPageToken?: string;
  /** The page's tag: a GET with `If-None-Match` answers 304 while it holds. */
  etag: string;
}
/** One page of a blog's pages. */
export interface PageList {
  /** Always `blogger#pageList`. */
  kind: 'blogger#pageList';
  /** The pages of this page of results, newest first. */
  items: Page[];
  /** Pass as `pageToken` for the next page; absent on the last. */
  nextPageToken?: string;
  /** Pass as `pageToken` for the previous page; absent on the first. */
  prevPageToken?: string;
  /** The page's tag, for `If-None-Match`. */
  etag: string;
}
/** One page of comments (of a post, or of a whole blog). */
export interface CommentList {
  /** Always `blogger#commentList`. */
  kind: 'blogger#commentList';
  /** The comments of this page. */
  items: Comment[];
  /** Pass as `pageToken` for the next page; absent on the last. */
  nextPageToken?: string;
  /** Pass as `pageToken` for the previous page; absent on the first. */
  prevPageToken?: string;
  /** The page's tag, for `If-None-Match`. */
  etag: string;
}
/** The blogs a user holds a role in (`blogs.listByUser`). */
export interface BlogList {
  /** Always `blogger#blogList`. */
  kind: 'blogger#blogList';
  /** The blogs, each at the view asked for (or the user's role in it). */
  items: Blog[];
  /** With `fetchUserInfo: true`: the user's standing in each blog of `items`, in the same order. */
  blogUserInfos?: BlogUserInfo[];
}

/** A user's standing in one blog (names as the discovery document gives them, snake_case included). */
export interface BlogPerUserInfo {
  /** Always `blogger#blogPerUserInfo`. */
  kind: 'blogger#blogPerUserInfo';
  /** The user's id. */
  userId: string;
  /** The blog's id. */
  blogId: string;
  /** True when the user is an ADMIN of the blog. */
  hasAdminAccess: boolean;
  /** READER for a signed-in user without a role: blogs are public. */
  role: Role;
}
/** A blog with one user's standing in it (`blogUserInfos.get`). */
export interface BlogUserInfo {
  /** Always `blogger#blogUserInfo`. */
  kind: 'blogger#blogUserInfo';
  /** The blog. */
  blog: Blog;
  /** The user's standing in it. */
  blog_user_info: BlogPerUserInfo;
}
/** A user's standing toward one post. */
export interface PostPerUserInfo {
  /** Always `blogger#postPerUserInfo`. */
  kind: 'blogger#postPerUserInfo';
  /** The user's id. */
  userId: string;
  /** The id of the post's blog. */
  blogId: string;
  /** The post's id. */
  postId: string;
  /** The user may change the post: the blog's ADMIN, or its AUTHOR who wrote it. */
  hasEditAccess: boolean;
}
/** A post with one user's standing toward it (`postUserInfos.get`). */
export interface PostUserInfo {
  /** Always `blogger#postUserInfo`. */
  kind: 'blogger#postUserInfo';
  /** The post. */
  post: Post;
  /** The user's standing toward it. */
  post_user_info: PostPerUserInfo;
}
/** The discovery document documents this list's kind as `blogger#postList`. */
export interface PostUserInfosList {
  /** `blogger#postList`, as the discovery document has it. */
  kind: 'blogger#postList';
  /** The posts of this page, each with the user's standing toward it. */
  items: PostUserInfo[];
  /** Pass as `pageToken` for the next page; absent on the last. */
  nextPageToken?: string;
}
/** An extension (not in Blogger v3): a blog's labels, in label order. */
export interface Label {
  /** Always `blogcore#label`. */
  kind: 'blogcore#label';
  /** The label's text, exactly as posts carry it. */
  name: string;
  /** LIVE posts carrying the label. */
  livePosts: number;
  /** Posts in any state carrying it: at AUTHOR view and above. */
  allPosts?: number;
}
/** An old address of a blog and where it moved: the site answers `from` with a 301 to `to` (docs/design.md §22). */
export interface Redirect {
  /** Always `blogcore#redirect`. */
  kind: 'blogcore#redirect';
  /** The old path and query, as the site matches it (`/2019/05/old.html`, `/?p=12`). */
  from: string;
  /** The new address: a url, or a path on the blog's host. */
  to: string;
}
/** One page of a blog's redirects (`redirects.list`), in `from` order. */
export interface RedirectList {
  /** Always `blogcore#redirectList`. */
  kind: 'blogcore#redirectList';
  /** The redirects of this page. */
  items: Redirect[];
  /** Pass as `pageToken` for the next page; absent on the last. */
  nextPageToken?: string;
  /** Pass as `pageToken` for the previous page; absent on the first. */
  prevPageToken?: string;
  /** The page's tag, for `If-None-Match`. */
  etag: string;
}

/** One page of a blog's labels (`labels.list`). */
export interface LabelList {
  /** Always `blogcore#labelList`. */
  kind: 'blogcore#labelList';
  /** The labels of this page, in label order. */
  items: Label[];
  /** Pass as `pageToken` for the next page; absent on the last. */
  nextPageToken?: string;
  /** Pass as `pageToken` for the previous page; absent on the first. */
  prevPageToken?: string;
  /** The page's tag, for `If-None-Match`. */
  etag: string;
}

/** An extension: an earlier version of a post (with `post`) or page (with `page`). */
export interface Revision {
  /** Always `blogcore#revision`. */
  kind: 'blogcore#revision';
  /** The revision's id: pass it to `revisions.get` or `revisions.restore`. */
  id: string;
  /** The blog of the post or page. */
  blog: {
    /** The blog's id. */
    id: string;
  };
  /** The post this is a version of (for a post's revision). */
  post?: {
    /** The post's id. */
    id: string;
  };
  /** The page this is a version of (for a page's revision). */
  page?: {
    /** The page's id. */
    id: string;
  };
  /** The title as it was. */
  title: string;
  /** The HTML content as it was. */
  content: string;
  /** The labels as they were (a post's). */
  labels?: string[];
  /** When this version was current from. */
  updated: string;
  /** When a change replaced it. */
  replaced: string;
  /** This resource's own address in the API. */
  selfLink: string;
}
/** One page of a post's or page's revisions, newest first. */
export interface RevisionList {
  /** Always `blogcore#revisionList`. */
  kind: 'blogcore#revisionList';
  /** The revisions of this page. */
  items: Revision[];
  /** Pass as `pageToken` for the next page; absent on the last. */
  nextPageToken?: string;
  /** Pass as `pageToken` for the previous page; absent on the first. */
  prevPageToken?: string;
  /** The page's tag, for `If-None-Match`. */
  etag: string;
}

/** A user's role in a blog (`members.set`, `members.list`). */
export interface Member {
  /** The user's id. */
  userId: string;
  /** READER, AUTHOR or ADMIN. */
  role: Role;
}
/** A blog's members (`members.list`): every user with a role in it. */
export interface MemberList {
  /** The members, each with their role. */
  items: Member[];
}

/** A blog's page views (`pageViews.get`): the views the host reported with `pageViews.record`, by time range. */
export interface PageViews {
  /** Always `blogger#page_views`. */
  kind: 'blogger#page_views';
  /** The blog's id. */
  blogId: string;
  /** One count per range asked for. */
  counts: Array<{
    /** The range counted: ALL_TIME, THIRTY_DAYS or SEVEN_DAYS (whole UTC days, today included). */
    timeRange: 'ALL_TIME' | 'THIRTY_DAYS' | 'SEVEN_DAYS';
    /** The views in that range, as a decimal string. */
    count: string;
  }>;
}
