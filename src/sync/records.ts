/**
 * Wire resources (what the server sends at the caller's view) turned back into the core's records, so the
 * local service answers with the server's ids, etags and fields; and the fields a replica pushes.
 */
import type { JsonObject } from '../driver.js';
import { shortHash } from '../ids.js';
import { commentVisOf, type BlogRecord, type CommentRecord, type PageRecord, type PostRecord } from '../records.js';
import type { CommentStatus } from '../schemas.js';
import { etagOf, type Blog, type Comment, type Page, type Post } from '../wire.js';

export type Synced = 'posts' | 'pages' | 'comments';
export const COLLECTION_OF = { 'blogger#post': 'posts', 'blogger#page': 'pages', 'blogger#comment': 'comments' } as const;
export const KIND_OF = { posts: 'post', pages: 'page', comments: 'comment' } as const;

/** The revision behind an etag (`"<hash><rev base 36>"`, wire.ts): the local record keeps it, so the local etag is the server's. */
export function revOf(id: string, etag: string): number {
  for (let n = 1; n <= 8 && n < etag.length - 2; n++) {
    const rev = Number.parseInt(etag.slice(-1 - n, -1), 36);
    if (Number.isSafeInteger(rev) && etagOf(id, rev) === etag) return rev;
  }
  return 1;
}

const pathOf = (blog: BlogRecord, url: string | undefined) => {
  const base = blog.url.replace(/\/$/, '');
  return url?.startsWith(`${base}/`) ? url.slice(base.length) : undefined;
};

export function blogRecord(b: Blog, ownerId: string): BlogRecord {
  return {
    id: b.id,
    name: b.name,
    description: b.description,
    url: b.url,
    locale: { ...b.locale },
    ...(b.customMetaData !== undefined ? { customMetaData: b.customMetaData } : {}),
    ownerId,
    published: b.published,
    updated: b.updated,
  };
}

/** A post as the server sent it; comment bookkeeping (allComments, commentsVis) stays the local store's own. */
export function postRecord(w: Post, blog: BlogRecord, old: PostRecord | undefined): PostRecord {
  const status = w.status ?? 'LIVE';
  const readerComments = w.readerComments ?? 'ALLOW';
  return {
    id: w.id,
    blogId: w.blog.id,
    authorId: w.author.id ?? '',
    title: w.title,
    content: w.content ?? old?.content ?? '',
    ...(w.published !== undefined ? { published: w.published } : {}),
    updated: w.updated,
    ...(w.trashed !== undefined ? { trashed: w.trashed } : {}),
    ...(pathOf(blog, w.url) !== undefined ? { path: pathOf(blog, w.url)! } : {}),
    rev: revOf(w.id, w.etag),
    status,
    labels: [...(w.labels ?? [])],
    ...(w.titleLink !== undefined ? { titleLink: w.titleLink } : {}),
    ...(w.customMetaData !== undefined ? { customMetaData: w.customMetaData } : {}),
    ...(w.location !== undefined ? { location: { ...w.location } } : {}),
    readerComments,
    liveComments: Number(w.replies?.totalItems ?? 0) || 0,
    allComments: old?.allComments ?? 0,
    commentsVis: old?.allComments ? old.commentsVis : commentVisOf({ status, readerComments }),
  };
}

export function pageRecord(w: Page, blog: BlogRecord, old: PageRecord | undefined): PageRecord {
  return {
    id: w.id,
    blogId: w.blog.id,
    authorId: w.author.id ?? '',
    title: w.title,
    content: w.content ?? old?.content ?? '',
    ...(w.published !== undefined ? { published: w.published } : {}),
    updated: w.updated,
    ...(w.trashed !== undefined ? { trashed: w.trashed } : {}),
    ...(pathOf(blog, w.url) !== undefined ? { path: pathOf(blog, w.url)! } : {}),
    rev: revOf(w.id, w.etag),
    status: w.status ?? 'LIVE',
  };
}

/** Below ADMIN view a comment has no status: readers see LIVE ones, and EMPTIED ones with empty content. */
export function commentRecord(w: Comment, post: PostRecord | undefined): CommentRecord {
  const status: CommentStatus = w.status ?? (w.content === '' ? 'EMPTIED' : 'LIVE');
  return {
    id: w.id,
    blogId: w.blog.id,
    postId: w.post.id,
    status,
    content: w.content ?? '',
    published: w.published,
    updated: w.updated,
    ...(w.inReplyTo ? { inReplyTo: w.inReplyTo.id } : {}),
    ...(w.author.id ? { authorId: w.author.id } : { authorName: w.author.displayName, ...(w.author.url ? { authorUrl: w.author.url } : {}) }),
    vis: post ? commentVisOf(post) : 'open',
  };
}

/** The fields a replica sends in a create or patch: what an author edits (status moves by publish/revert/delete). */
export function editable(collection: Synced, r: PostRecord | PageRecord | CommentRecord): JsonObject {
  if (collection === 'comments') {
    const c = r as CommentRecord;
    return { content: c.content, ...(c.inReplyTo ? { inReplyTo: { id: c.inReplyTo } } : {}) };
  }
  if (collection === 'pages') return { title: (r as PageRecord).title, content: r.content };
  const p = r as PostRecord;
  return {
    title: p.title,
    content: p.content,
    labels: [...p.labels],
    readerComments: p.readerComments,
    ...(p.titleLink !== undefined ? { titleLink: p.titleLink } : {}),
    ...(p.customMetaData !== undefined ? { customMetaData: p.customMetaData } : {}),
    ...(p.location !== undefined ? { location: { ...p.location } as JsonObject } : {}),
  };
}

/** A fingerprint of the editable fields: a record whose fingerprint left its base's has edits to send. */
export const fingerprint = (collection: Synced, r: PostRecord | PageRecord | CommentRecord) => shortHash(JSON.stringify(editable(collection, r)));
