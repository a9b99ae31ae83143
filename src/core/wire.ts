/** Records -> the JSON resources of the Blogger v3 wire (docs/design.md §7), shaped for a view. */
import { shortHash } from '../util/ids.js';
import { seesClientAddress, seesDrafts, seesHeldComments } from '../rules/access.js';
import type { BlogRecord, CommentRecord, PageRecord, PostRecord, UserRecord } from '../store/records.js';
import type { Role } from '../schema/schemas.js';
import type { Author, Post, Page, Comment, Blog, User, BlogUserInfo } from '../schema/resources.js';
import { imagesOf } from '../rules/text.js';

/** Changes whenever the stored resource changes (its own revision), never for comment counts. */
export const etagOf = (id: string, rev: number) => `"${shortHash(`${id}:${rev}`)}${rev.toString(36)}"`;
export const listEtag = (parts: string[]) => `"${shortHash(parts.join('|'))}"`;

export const links = (base: string) => ({
  blog: (blogId: string) => `${base}/v3/blogs/${blogId}`,
  post: (blogId: string, id: string) => `${base}/v3/blogs/${blogId}/posts/${id}`,
  page: (blogId: string, id: string) => `${base}/v3/blogs/${blogId}/pages/${id}`,
  comment: (c: CommentRecord) => `${base}/v3/blogs/${c.blogId}/posts/${c.postId}/comments/${c.id}`,
  user: (id: string) => `${base}/v3/users/${id}`,
  /** Where a picture's bytes are served (beside /v3, as the feeds are). */
  media: (blogId: string, sha256: string, filename: string) =>
    `${base}/media/${blogId}/${sha256}/${encodeURIComponent(filename)}`,
});

export type Links = ReturnType<typeof links>;

/** The public address of a post or page: the blog's url with the record's path. */
export const publicUrl = (blog: BlogRecord, path: string) =>
  (blog.url.endsWith('/') ? blog.url.slice(0, -1) : blog.url) + path;

export function authorOf(
  user: UserRecord | undefined,
  id: string | undefined,
  fallbackName?: string,
  fallbackUrl?: string,
): Author {
  if (user) return { id: user.id, displayName: user.displayName, url: user.url ?? '', image: { url: '' } };
  return {
    ...(id ? { id } : {}),
    displayName: fallbackName ?? (id ? id : 'Anonymous'),
    url: fallbackUrl ?? '',
    image: { url: '' },
  };
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

/** A post on the wire. Built field by field in the wire's order (no spread objects: lists shape many of these). */
export function postWire(p: PostRecord, blog: BlogRecord, author: Author, shape: PostShape, l: Links): Post {
  const self = l.post(p.blogId, p.id);
  const out = { kind: 'blogger#post', id: p.id, blog: { id: p.blogId } } as Post;
  if (p.published !== undefined) out.published = p.published;
  out.updated = p.updated;
  if (p.path) out.url = publicUrl(blog, p.path);
  out.selfLink = self;
  out.title = p.title;
  if (p.titleLink) out.titleLink = p.titleLink;
  if (shape.fetchBody) out.content = p.content;
  if (shape.fetchImages) out.images = imagesOf(p.content);
  if (p.customMetaData !== undefined) out.customMetaData = p.customMetaData;
  out.author = author;
  const replies: Post['replies'] = {
    totalItems: String(shape.hideComments ? 0 : p.liveComments),
    selfLink: `${self}/comments`,
  };
  if (shape.comments) replies.items = shape.comments;
  out.replies = replies;
  if (p.labels.length) out.labels = [...p.labels];
  if (p.location) out.location = { ...p.location };
  out.readerComments = p.readerComments;
  if (seesDrafts(shape.view)) {
    out.status = p.status;
    if (p.trashed) out.trashed = p.trashed;
  }
  out.etag = etagOf(p.id, p.rev);
  return out;
}

export function pageWire(
  p: PageRecord,
  blog: BlogRecord,
  author: Author,
  view: Role,
  fetchBody: boolean,
  l: Links,
): Page {
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
    ...(seesDrafts(view) ? { status: p.status, ...(p.trashed ? { trashed: p.trashed } : {}) } : {}),
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
    ...(seesHeldComments(view) ? { status: c.status } : {}),
    // Where an anonymous comment came from is for the blog's ADMINs alone (docs/design.md §25).
    ...(c.clientAddress !== undefined && seesClientAddress(view) ? { clientAddress: c.clientAddress } : {}),
  };
}

export function blogWire(
  b: BlogRecord,
  counts: { posts: number; pages: number },
  posts: Post[] | undefined,
  l: Links,
): Blog {
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

export function blogUserInfoWire(blog: Blog, userId: string, role: Role): BlogUserInfo {
  return {
    kind: 'blogger#blogUserInfo',
    blog,
    blog_user_info: {
      kind: 'blogger#blogPerUserInfo',
      userId,
      blogId: blog.id,
      hasAdminAccess: role === 'ADMIN',
      role,
    },
  };
}
