/**
 * Wire resources (what the server sends at the caller's view) turned back into the core's records, so the
 * local service answers with the server's ids, etags and fields; and the fields a replica pushes.
 */
import {
  type JsonObject,
  type Core,
  commentVisOf,
  put,
  type BlogRecord,
  type CommentRecord,
  type MediaRecord,
  type PageRecord,
  type PostRecord,
  etagOf,
} from '../service/store.js';
import { shortHash } from '../util/ids.js';
import type { Base, Synced, Tracked } from './model.js';
import type { Blog, Comment, Page, Post } from '../schema/resources.js';

/** `blogger#post` → `posts`, and `posts` → `post` (`media` → `media`). */
export const collectionOf = (kind: string) => `${kind.slice(8)}s` as Synced;
export const kindOf = (collection: Tracked) =>
  collection === 'media' ? collection : (collection.slice(0, -1) as 'post' | 'page' | 'comment');

/** The revision behind an etag (`"<hash><rev base 36>"`, wire.ts): the local record keeps it, so the local etag is the server's. */
export function revOf(id: string, etag: string): number {
  for (let n = 1; n < 9; n++) {
    const rev = Number.parseInt(etag.slice(-1 - n, -1), 36);
    if (etagOf(id, rev) === etag) return rev;
  }
  return 1;
}

/*
 * Optional fields are copied as they come, undefined included: `put` (records.ts) leaves undefined out of
 * what it stores, and JSON.stringify out of what is sent and fingerprinted.
 */

/** The local blog before the first sync has fetched the server's: a stand-in, so the app can write offline at once. */
export type LocalBlog = BlogRecord & { placeholder?: true };

/**
 * Makes the stand-in local blog unless the blog is there: no name yet, an address of its own that no real blog
 * has (`.invalid`), written by the blog's admin-to-be (the signed-in user, known after the first sync). The first
 * sync replaces it with the server's blog; what was written meanwhile waits in `pending()` and is sent then.
 */
export async function localBlog(core: Core, blogId: string): Promise<void> {
  if (await core.driver.get('blogs', blogId)) return;
  const now = core.nowIso();
  const stand: LocalBlog = {
    id: blogId,
    name: '',
    description: '',
    url: `https://${blogId.toLowerCase()}.replica.invalid/`,
    locale: { language: '', country: '', variant: '' },
    ownerId: '',
    published: now,
    updated: now,
    placeholder: true,
  };
  await core.commit([put('blogs', stand, 0)]);
}

export function blogRecord(b: Blog, ownerId: string): BlogRecord {
  const { kind: _k, selfLink: _s, posts: _p, pages: _g, status: _t, ...rest } = b;
  return { ...rest, ownerId };
}

/** What posts and pages share; a body the server left out (fetchBody false) keeps the local one. */
export function pageRecord(w: Post | Page, blog: BlogRecord, old: PageRecord | PostRecord | undefined): PageRecord {
  const { kind: _k, blog: _b, author, selfLink: _s, url, etag, ...rest } = w;
  const base = blog.url.replace(/\/$/, '');
  return {
    ...(rest as Omit<Page, 'kind' | 'blog' | 'author' | 'selfLink' | 'url' | 'etag'>),
    blogId: w.blog.id,
    authorId: author.id ?? '',
    content: w.content ?? old?.content ?? '',
    path: url?.startsWith(`${base}/`) ? url.slice(base.length) : undefined,
    rev: revOf(w.id, etag),
    status: (w.status ?? 'LIVE') as PageRecord['status'],
  };
}

/**
 * A post as the server sent it. Its comment bookkeeping stays the local store's own: comments the replica
 * stores are filed under the post's visibility class as it is (the server refiles them when it changes, and
 * they come again), so they never count in `allComments`, which only makes the local core refile comments.
 */
export function postRecord(w: Post, blog: BlogRecord, old: PostRecord | undefined): PostRecord {
  const { replies, images: _i, ...p } = pageRecord(w, blog, old) as unknown as PostRecord & Post;
  const readerComments = w.readerComments ?? 'ALLOW';
  return {
    ...p,
    labels: w.labels ?? [],
    readerComments,
    liveComments: Number(replies?.totalItems) || 0,
    allComments: old?.allComments ?? 0,
    commentsVis: old?.allComments ? old.commentsVis : commentVisOf({ status: p.status, readerComments }),
  };
}

/** Below ADMIN view a comment has no status: readers see LIVE ones, and EMPTIED ones with empty content. */
export const commentRecord = (w: Comment, post: PostRecord | undefined): CommentRecord => ({
  id: w.id,
  blogId: w.blog.id,
  postId: w.post.id,
  status: w.status ?? (w.content === '' ? 'EMPTIED' : 'LIVE'),
  content: w.content ?? '',
  published: w.published,
  updated: w.updated,
  inReplyTo: w.inReplyTo?.id,
  authorId: w.author.id,
  authorName: w.author.id ? undefined : w.author.displayName,
  authorUrl: w.author.id ? undefined : w.author.url || undefined,
  vis: post ? commentVisOf(post) : 'open',
});

/** The fields a replica sends in a create or patch: what an author edits (status moves by publish/revert/delete). */
export function editable(collection: Tracked, r: Local): JsonObject {
  if (collection === 'media') return { alt: (r as MediaRecord).alt, filename: (r as MediaRecord).filename };
  if (collection === 'comments') return { content: (r as CommentRecord).content };
  const { title, content } = r as PostRecord;
  if (collection === 'pages') return { title, content };
  const p = r as PostRecord;
  return {
    title,
    content,
    labels: p.labels,
    readerComments: p.readerComments,
    titleLink: p.titleLink,
    customMetaData: p.customMetaData,
    location: p.location,
  } as JsonObject;
}

export type Local = PostRecord | PageRecord | CommentRecord | MediaRecord;

/** A fingerprint of the editable fields: a record whose fingerprint left its base's has edits to send. */
export const fingerprint = (collection: Tracked, r: Local) => shortHash(JSON.stringify(editable(collection, r)));

/** The status a base keeps of a record (pictures have none). */
export const statusOf = (r: Local): string => ('status' in r ? r.status : '');

/** Whether a local record differs from its base in what a push sends: its editable fields or its status. */
export const differs = (collection: Tracked, r: Local, base: Base) =>
  fingerprint(collection, r) !== base.fingerprint || statusOf(r) !== base.status;
