/** The JSON resources of the Blogger v3 wire (docs/design.md §7), as the service answers them: plain types. */
import type { CommentStatus, PageStatus, PostStatus, ReaderComments, Role } from './schemas.js';

export interface Author {
  id?: string;
  displayName: string;
  url: string;
  image: { url: string };
}

export interface Post {
  kind: 'blogger#post';
  id: string;
  blog: { id: string };
  published?: string;
  updated: string;
  url?: string;
  selfLink: string;
  title: string;
  titleLink?: string;
  content?: string;
  images?: Array<{ url: string }>;
  customMetaData?: string;
  author: Author;
  replies: { totalItems: string; selfLink: string; items?: Comment[] };
  labels?: string[];
  location?: { name?: string; lat?: number; lng?: number; span?: string };
  readerComments?: ReaderComments;
  status?: PostStatus;
  trashed?: string;
  etag: string;
}

export interface Page {
  kind: 'blogger#page';
  id: string;
  blog: { id: string };
  published?: string;
  updated: string;
  url?: string;
  selfLink: string;
  title: string;
  content?: string;
  author: Author;
  status?: PageStatus;
  trashed?: string;
  etag: string;
}

export interface Comment {
  kind: 'blogger#comment';
  id: string;
  post: { id: string };
  blog: { id: string };
  inReplyTo?: { id: string };
  published: string;
  updated: string;
  selfLink: string;
  content?: string;
  author: Author;
  status?: CommentStatus;
}

export interface Blog {
  kind: 'blogger#blog';
  id: string;
  name: string;
  description: string;
  published: string;
  updated: string;
  url: string;
  selfLink: string;
  posts: { totalItems: number; selfLink: string; items?: Post[] };
  pages: { totalItems: number; selfLink: string };
  locale: { language: string; country: string; variant: string };
  customMetaData?: string;
  status: 'LIVE';
}

export interface User {
  kind: 'blogger#user';
  id: string;
  displayName: string;
  url?: string;
  about?: string;
  created: string;
  selfLink: string;
  blogs: { selfLink: string };
}

export interface PostList {
  kind: 'blogger#postList';
  items: Post[];
  nextPageToken?: string;
  prevPageToken?: string;
  etag: string;
}
export interface PageList {
  kind: 'blogger#pageList';
  items: Page[];
  nextPageToken?: string;
  prevPageToken?: string;
  etag: string;
}
export interface CommentList {
  kind: 'blogger#commentList';
  items: Comment[];
  nextPageToken?: string;
  prevPageToken?: string;
  etag: string;
}
export interface BlogList {
  kind: 'blogger#blogList';
  items: Blog[];
  /** With `fetchUserInfo: true`: the user's standing in each blog of `items`, in the same order. */
  blogUserInfos?: BlogUserInfo[];
}

/** A user's standing in one blog (names as the discovery document gives them, snake_case included). */
export interface BlogPerUserInfo {
  kind: 'blogger#blogPerUserInfo';
  userId: string;
  blogId: string;
  hasAdminAccess: boolean;
  /** READER for a signed-in user without a role: blogs are public. */
  role: Role;
}
export interface BlogUserInfo {
  kind: 'blogger#blogUserInfo';
  blog: Blog;
  blog_user_info: BlogPerUserInfo;
}
export interface PostPerUserInfo {
  kind: 'blogger#postPerUserInfo';
  userId: string;
  blogId: string;
  postId: string;
  /** The user may change the post: the blog's ADMIN, or its AUTHOR who wrote it. */
  hasEditAccess: boolean;
}
export interface PostUserInfo {
  kind: 'blogger#postUserInfo';
  post: Post;
  post_user_info: PostPerUserInfo;
}
/** The discovery document documents this list's kind as `blogger#postList`. */
export interface PostUserInfosList {
  kind: 'blogger#postList';
  items: PostUserInfo[];
  nextPageToken?: string;
}
/** An extension (not in Blogger v3): a blog's labels, in label order. */
export interface Label {
  kind: 'blogcore#label';
  name: string;
  /** LIVE posts carrying the label. */
  livePosts: number;
  /** Posts in any state carrying it: at AUTHOR view and above. */
  allPosts?: number;
}
export interface LabelList {
  kind: 'blogcore#labelList';
  items: Label[];
  nextPageToken?: string;
  prevPageToken?: string;
  etag: string;
}

/** An extension: an earlier version of a post (with `post`) or page (with `page`). */
export interface Revision {
  kind: 'blogcore#revision';
  id: string;
  blog: { id: string };
  post?: { id: string };
  page?: { id: string };
  title: string;
  content: string;
  labels?: string[];
  /** When this version was current from. */
  updated: string;
  /** When a change replaced it. */
  replaced: string;
  selfLink: string;
}
export interface RevisionList {
  kind: 'blogcore#revisionList';
  items: Revision[];
  nextPageToken?: string;
  prevPageToken?: string;
  etag: string;
}

/** A user's role in a blog (`members.set`, `members.list`). */
export interface Member {
  userId: string;
  role: Role;
}
export interface MemberList {
  items: Member[];
}

export interface PageViews {
  kind: 'blogger#page_views';
  blogId: string;
  counts: Array<{ timeRange: 'ALL_TIME' | 'THIRTY_DAYS' | 'SEVEN_DAYS'; count: string }>;
}
