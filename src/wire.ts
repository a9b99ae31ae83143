/** Records -> the JSON resources of the Blogger v3 wire (DESIGN §6), shaped for a view. */
import { shortHash } from './ids.js';
import { atLeast } from './access.js';
import type { BlogRecord, CommentRecord, PageRecord, PostRecord, UserRecord } from './records.js';
import type { CommentStatus, PageStatus, PostStatus, ReaderComments, Role } from './schemas.js';
import { imagesOf } from './text.js';

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

export interface PageViews {
  kind: 'blogger#page_views';
  blogId: string;
  counts: Array<{ timeRange: 'ALL_TIME' | 'THIRTY_DAYS' | 'SEVEN_DAYS'; count: string }>;
}

/** Changes whenever the stored resource changes (its own revision), never for comment counts. */
export const etagOf = (id: string, rev: number) => `"${shortHash(`${id}:${rev}`)}${rev.toString(36)}"`;
export const listEtag = (parts: string[]) => `"${shortHash(parts.join('|'))}"`;

export const links = (base: string) => ({
  blog: (blogId: string) => `${base}/v3/blogs/${blogId}`,
  post: (blogId: string, id: string) => `${base}/v3/blogs/${blogId}/posts/${id}`,
  page: (blogId: string, id: string) => `${base}/v3/blogs/${blogId}/pages/${id}`,
  comment: (c: CommentRecord) => `${base}/v3/blogs/${c.blogId}/posts/${c.postId}/comments/${c.id}`,
  user: (id: string) => `${base}/v3/users/${id}`,
});

export type Links = ReturnType<typeof links>;

/** The public address of a post or page: the blog's url with the record's path. */
export const publicUrl = (blog: BlogRecord, path: string) => blog.url.replace(/\/$/, '') + path;

export function authorOf(user: UserRecord | undefined, id: string | undefined, fallbackName?: string, fallbackUrl?: string): Author {
  if (user) return { id: user.id, displayName: user.displayName, url: user.url ?? '', image: { url: '' } };
  return { ...(id ? { id } : {}), displayName: fallbackName ?? (id ? id : 'Anonymous'), url: fallbackUrl ?? '', image: { url: '' } };
}

export interface PostShape {
  view: Role;
  fetchBody: boolean;
  fetchImages: boolean;
  /** Comments to inline (already filtered and capped), or undefined. */
  comments?: Comment[];
  /** Hide the count of existing comments (DONT_ALLOW_HIDE_EXISTING below ADMIN view). */
  hideComments: boolean;
}

export function postWire(p: PostRecord, blog: BlogRecord, author: Author, shape: PostShape, l: Links): Post {
  const self = l.post(p.blogId, p.id);
  const out: Post = {
    kind: 'blogger#post',
    id: p.id,
    blog: { id: p.blogId },
    ...(p.published !== undefined ? { published: p.published } : {}),
    updated: p.updated,
    ...(p.path ? { url: publicUrl(blog, p.path) } : {}),
    selfLink: self,
    title: p.title,
    ...(p.titleLink ? { titleLink: p.titleLink } : {}),
    ...(shape.fetchBody ? { content: p.content } : {}),
    ...(shape.fetchImages ? { images: imagesOf(p.content) } : {}),
    ...(p.customMetaData !== undefined ? { customMetaData: p.customMetaData } : {}),
    author,
    replies: {
      totalItems: String(shape.hideComments ? 0 : p.liveComments),
      selfLink: `${self}/comments`,
      ...(shape.comments ? { items: shape.comments } : {}),
    },
    ...(p.labels.length ? { labels: [...p.labels] } : {}),
    ...(p.location ? { location: { ...p.location } } : {}),
    readerComments: p.readerComments,
    ...(atLeast(shape.view, 'AUTHOR') ? { status: p.status, ...(p.trashed ? { trashed: p.trashed } : {}) } : {}),
    etag: etagOf(p.id, p.rev),
  };
  return out;
}

export function pageWire(p: PageRecord, blog: BlogRecord, author: Author, view: Role, fetchBody: boolean, l: Links): Page {
  return {
    kind: 'blogger#page',
    id: p.id,
    blog: { id: p.blogId },
    ...(p.published !== undefined ? { published: p.published } : {}),
    updated: p.updated,
    ...(p.path ? { url: publicUrl(blog, p.path) } : {}),
    selfLink: l.page(p.blogId, p.id),
    title: p.title,
    ...(fetchBody ? { content: p.content } : {}),
    author,
    ...(atLeast(view, 'AUTHOR') ? { status: p.status, ...(p.trashed ? { trashed: p.trashed } : {}) } : {}),
    etag: etagOf(p.id, p.rev),
  };
}

export function commentWire(c: CommentRecord, author: Author, view: Role, fetchBody: boolean, l: Links): Comment {
  return {
    kind: 'blogger#comment',
    id: c.id,
    post: { id: c.postId },
    blog: { id: c.blogId },
    ...(c.inReplyTo ? { inReplyTo: { id: c.inReplyTo } } : {}),
    published: c.published,
    updated: c.updated,
    selfLink: l.comment(c),
    ...(fetchBody ? { content: c.content } : {}),
    author,
    ...(atLeast(view, 'ADMIN') ? { status: c.status } : {}),
  };
}

export function blogWire(b: BlogRecord, counts: { posts: number; pages: number }, posts: Post[] | undefined, l: Links): Blog {
  const self = l.blog(b.id);
  return {
    kind: 'blogger#blog',
    id: b.id,
    name: b.name,
    description: b.description,
    published: b.published,
    updated: b.updated,
    url: b.url,
    selfLink: self,
    posts: { totalItems: counts.posts, selfLink: `${self}/posts`, ...(posts ? { items: posts } : {}) },
    pages: { totalItems: counts.pages, selfLink: `${self}/pages` },
    locale: { ...b.locale },
    ...(b.customMetaData !== undefined ? { customMetaData: b.customMetaData } : {}),
    status: 'LIVE',
  };
}

export function userWire(u: UserRecord, l: Links): User {
  const self = l.user(u.id);
  return {
    kind: 'blogger#user',
    id: u.id,
    displayName: u.displayName,
    ...(u.url !== undefined ? { url: u.url } : {}),
    ...(u.about !== undefined ? { about: u.about } : {}),
    created: u.created,
    selfLink: self,
    blogs: { selfLink: `${self}/blogs` },
  };
}
