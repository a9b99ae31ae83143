/**
 * `ready()` is optional: on a store that already holds a blog, every service method and every exported function of
 * blogcore/io, blogcore/site and blogcore/sync works as a freshly created service's first call (a static-site
 * script calls `atomFeed` first; a server's first request may be a list or a search). Each call below runs on a
 * new service over the same SQLite file or PostgreSQL schema, first thing, and must answer as it would later.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { postgresDriver } from '../../drivers/postgres/index.js';
import { sqliteDriver } from '../../drivers/sqlite/index.js';
import { type BlogService, createBlogService } from '../../src/index.js';
import { atomFeed, exportBlog, importBlog, rssFeed } from '../../src/io/index.js';
import { createSite, exportSite } from '../../src/site/index.js';
import type { StorageDriver } from '../../src/store/driver.js';
import { createReplica } from '../../src/sync/index.js';
import { dropOwnSchemas, freshSchema, pgUrl } from '../drivers/postgres/env.js';

const PNG = Uint8Array.from(
  atob('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=='),
  (c) => c.charCodeAt(0),
);

interface Ids {
  blogId: string;
  postId: string;
  pageId: string;
  commentId: string;
  mediaId: string;
  path: string;
  /** Where the post's shared document stood (collab.pull's `since`). */
  since: string;
  /** Records the destructive calls use up, one each. */
  spare: { postId: string; pageId: string; commentId: string; mediaId: string };
}

/** The existing store: a user, a blog with a post (and a comment), a page, a picture, a redirect, spares to delete. */
async function fill(service: BlogService): Promise<Ids> {
  await service.users.insert({ body: { id: 'ada', displayName: 'Ada' } });
  await service.users.insert({ body: { id: 'bob', displayName: 'Bob' } });
  const blog = await service.blogs.insert({ ownerId: 'ada', body: { name: 'Notes', url: 'https://notes.example/' } });
  const blogId = blog.id;
  const post = await service.posts.insert({ blogId, body: { title: 'River', content: '<p>the river was high</p>' } });
  const spare = await service.posts.insert({ blogId, body: { title: 'Spare', content: '<p>x</p>' } });
  const page = await service.pages.insert({ blogId, body: { title: 'About', content: '<p>about</p>' } });
  const sparePage = await service.pages.insert({ blogId, body: { title: 'Spare', content: '<p>x</p>' } });
  const comment = await service.comments.insert({ blogId, postId: post.id, body: { content: 'kept' } });
  const spareComment = await service.comments.insert({ blogId, postId: post.id, body: { content: 'spare' } });
  const media = await service.media.upload({ blogId, body: PNG, contentType: 'image/png', filename: 'a.png' });
  const spareMedia = await service.media.upload({
    blogId,
    body: PNG.slice(),
    contentType: 'image/png',
    filename: 'b.png',
  });
  await service.posts.patch({ blogId, postId: post.id, body: { title: 'River, revised' } });
  await service.redirects.insert({ blogId, body: { from: '/old.html', to: '/new.html' } });
  await service.members.set({ blogId, userId: 'bob', role: 'READER' });
  const { position } = await service.collab.open({ blogId, postId: post.id });
  return {
    since: position,
    blogId,
    postId: post.id,
    pageId: page.id,
    commentId: comment.id,
    mediaId: media.id,
    path: new URL(post.url!).pathname,
    spare: { postId: spare.id, pageId: sparePage.id, commentId: spareComment.id, mediaId: spareMedia.id },
  };
}

type Call = (service: BlogService, ids: Ids) => Promise<unknown>;

const drain = async (chunks: AsyncIterable<string>) => {
  let n = 0;
  for await (const c of chunks) n += c.length;
  return n;
};

/** Every service method (destructive ones last, on spares), then the features' exported functions. */
const CALLS: ReadonlyArray<readonly [string, Call]> = [
  ['blogs.get', (s, i) => s.blogs.get({ blogId: i.blogId })],
  ['blogs.getByUrl', (s) => s.blogs.getByUrl({ url: 'https://notes.example/' })],
  ['blogs.listByUser', (s) => s.blogs.listByUser({ userId: 'ada' })],
  ['users.get', (s) => s.users.get({ userId: 'ada' })],
  ['members.list', (s, i) => s.members.list({ blogId: i.blogId })],
  ['posts.get', (s, i) => s.posts.get({ blogId: i.blogId, postId: i.postId })],
  ['posts.list', (s, i) => s.posts.list({ blogId: i.blogId })],
  ['posts.search', (s, i) => s.posts.search({ blogId: i.blogId, q: 'river' })],
  ['posts.getByPath', (s, i) => s.posts.getByPath({ blogId: i.blogId, path: i.path })],
  ['posts.revisions.list', (s, i) => s.posts.revisions.list({ blogId: i.blogId, postId: i.postId })],
  ['pages.get', (s, i) => s.pages.get({ blogId: i.blogId, pageId: i.pageId })],
  ['pages.list', (s, i) => s.pages.list({ blogId: i.blogId })],
  ['pages.revisions.list', (s, i) => s.pages.revisions.list({ blogId: i.blogId, pageId: i.pageId })],
  ['comments.get', (s, i) => s.comments.get({ blogId: i.blogId, postId: i.postId, commentId: i.commentId })],
  ['comments.list', (s, i) => s.comments.list({ blogId: i.blogId, postId: i.postId })],
  ['comments.listByBlog', (s, i) => s.comments.listByBlog({ blogId: i.blogId })],
  ['blogUserInfos.get', (s, i) => s.blogUserInfos.get({ userId: 'ada', blogId: i.blogId })],
  ['postUserInfos.get', (s, i) => s.postUserInfos.get({ userId: 'ada', blogId: i.blogId, postId: i.postId })],
  ['postUserInfos.list', (s, i) => s.postUserInfos.list({ userId: 'ada', blogId: i.blogId })],
  ['pageViews.get', (s, i) => s.pageViews.get({ blogId: i.blogId })],
  ['labels.list', (s, i) => s.labels.list({ blogId: i.blogId })],
  ['redirects.list', (s, i) => s.redirects.list({ blogId: i.blogId })],
  ['changes.list', (s, i) => s.changes.list({ blogId: i.blogId })],
  ['media.get', (s, i) => s.media.get({ blogId: i.blogId, mediaId: i.mediaId })],
  ['media.list', (s, i) => s.media.list({ blogId: i.blogId })],
  ['media.read', (s, i) => s.media.read({ blogId: i.blogId, mediaId: i.mediaId })],
  ['collab.open', (s, i) => s.collab.open({ blogId: i.blogId, postId: i.postId })],
  ['users.insert', (s) => s.users.insert({ body: { id: 'cy', displayName: 'Cy' } })],
  ['users.update', (s) => s.users.update({ userId: 'bob', body: { displayName: 'Bob B' } })],
  ['blogs.insert', (s) => s.blogs.insert({ ownerId: 'ada', body: { name: 'More', url: 'https://more.example/' } })],
  [
    'blogs.update',
    (s, i) => s.blogs.update({ blogId: i.blogId, body: { name: 'Notes', url: 'https://notes.example/' } }),
  ],
  ['blogs.patch', (s, i) => s.blogs.patch({ blogId: i.blogId, body: { description: 'd' } })],
  ['members.set', (s, i) => s.members.set({ blogId: i.blogId, userId: 'bob', role: 'AUTHOR' })],
  ['posts.insert', (s, i) => s.posts.insert({ blogId: i.blogId, body: { title: 'New', content: '<p>n</p>' } })],
  [
    'posts.update',
    (s, i) => s.posts.update({ blogId: i.blogId, postId: i.postId, body: { title: 'U', content: 'u' } }),
  ],
  ['posts.patch', (s, i) => s.posts.patch({ blogId: i.blogId, postId: i.postId, body: { labels: ['x'] } })],
  ['posts.revert', (s, i) => s.posts.revert({ blogId: i.blogId, postId: i.spare.postId })],
  ['posts.publish', (s, i) => s.posts.publish({ blogId: i.blogId, postId: i.spare.postId })],
  [
    'posts.revisions.get',
    async (s, i) => {
      const [first] = (await s.posts.revisions.list({ blogId: i.blogId, postId: i.postId })).items ?? [];
      return s.posts.revisions.get({ blogId: i.blogId, postId: i.postId, revisionId: first!.id });
    },
  ],
  [
    'posts.revisions.restore',
    async (s, i) => {
      const [first] = (await s.posts.revisions.list({ blogId: i.blogId, postId: i.postId })).items ?? [];
      return s.posts.revisions.restore({ blogId: i.blogId, postId: i.postId, revisionId: first!.id });
    },
  ],
  ['pages.insert', (s, i) => s.pages.insert({ blogId: i.blogId, body: { title: 'P', content: '<p>p</p>' } })],
  [
    'pages.update',
    (s, i) => s.pages.update({ blogId: i.blogId, pageId: i.pageId, body: { title: 'A', content: 'a' } }),
  ],
  ['pages.patch', (s, i) => s.pages.patch({ blogId: i.blogId, pageId: i.pageId, body: { title: 'About us' } })],
  ['pages.revert', (s, i) => s.pages.revert({ blogId: i.blogId, pageId: i.spare.pageId })],
  ['pages.publish', (s, i) => s.pages.publish({ blogId: i.blogId, pageId: i.spare.pageId })],
  [
    'pages.revisions.get',
    async (s, i) => {
      const [first] = (await s.pages.revisions.list({ blogId: i.blogId, pageId: i.pageId })).items ?? [];
      return s.pages.revisions.get({ blogId: i.blogId, pageId: i.pageId, revisionId: first!.id });
    },
  ],
  [
    'pages.revisions.restore',
    async (s, i) => {
      const [first] = (await s.pages.revisions.list({ blogId: i.blogId, pageId: i.pageId })).items ?? [];
      return s.pages.revisions.restore({ blogId: i.blogId, pageId: i.pageId, revisionId: first!.id });
    },
  ],
  ['comments.insert', (s, i) => s.comments.insert({ blogId: i.blogId, postId: i.postId, body: { content: 'c' } })],
  [
    'comments.markAsSpam',
    (s, i) => s.comments.markAsSpam({ blogId: i.blogId, postId: i.postId, commentId: i.commentId }),
  ],
  ['comments.approve', (s, i) => s.comments.approve({ blogId: i.blogId, postId: i.postId, commentId: i.commentId })],
  [
    'comments.removeContent',
    (s, i) => s.comments.removeContent({ blogId: i.blogId, postId: i.postId, commentId: i.commentId }),
  ],
  [
    'comments.delete',
    (s, i) => s.comments.delete({ blogId: i.blogId, postId: i.postId, commentId: i.spare.commentId }),
  ],
  ['pageViews.record', (s, i) => s.pageViews.record({ blogId: i.blogId, postId: i.postId })],
  ['redirects.insert', (s, i) => s.redirects.insert({ blogId: i.blogId, body: { from: '/a.html', to: '/b.html' } })],
  ['redirects.delete', (s, i) => s.redirects.delete({ blogId: i.blogId, from: '/a.html' })],
  [
    'media.upload',
    (s, i) => s.media.upload({ blogId: i.blogId, body: PNG, contentType: 'image/png', filename: 'c.png' }),
  ],
  ['media.patch', (s, i) => s.media.patch({ blogId: i.blogId, mediaId: i.mediaId, body: { alt: 'a dot' } })],
  ['media.delete', (s, i) => s.media.delete({ blogId: i.blogId, mediaId: i.spare.mediaId, force: true })],
  [
    'collab.push',
    async (s, i) => {
      const { Doc, encodeStateAsUpdate } = await import('yjs');
      return s.collab.push({ blogId: i.blogId, postId: i.postId, update: encodeStateAsUpdate(new Doc()) });
    },
  ],
  ['collab.pull', (s, i) => s.collab.pull({ blogId: i.blogId, postId: i.postId, since: i.since, wait: 0 })],
  ['members.remove', (s, i) => s.members.remove({ blogId: i.blogId, userId: 'bob' })],
  ['posts.delete', (s, i) => s.posts.delete({ blogId: i.blogId, postId: i.spare.postId })],
  ['pages.delete', (s, i) => s.pages.delete({ blogId: i.blogId, pageId: i.spare.pageId })],
  // blogcore/io
  ['io atomFeed', (s, i) => atomFeed(s, { blogId: i.blogId })],
  ['io rssFeed', (s, i) => rssFeed(s, { blogId: i.blogId })],
  ['io exportBlog', (s, i) => drain(exportBlog(s, i.blogId, { format: 'blogcore-json' }))],
  [
    'io importBlog',
    async (s) => {
      const from = createBlogService({ driver: (await import('../../drivers/memory/index.js')).memoryDriver() });
      await from.users.insert({ body: { id: 'zed', displayName: 'Zed' } });
      const b = await from.blogs.insert({ ownerId: 'zed', body: { name: 'Z', url: 'https://z.example/' } });
      let text = '';
      for await (const c of exportBlog(from, b.id, { format: 'blogger-atom' })) text += c;
      return importBlog(s, text, { ownerId: 'ada' });
    },
  ],
  // blogcore/site
  [
    'site createSite',
    async (s) => {
      const r = await createSite(s)(new Request('https://notes.example/'));
      if (r?.status !== 200) throw new Error(`home page answered ${r?.status}`);
    },
  ],
  [
    'site exportSite',
    (s, i) => exportSite(s, { blogId: i.blogId, files: { write: async () => {}, remove: async () => {} } }),
  ],
  // blogcore/sync: the replica's own calls read its local store first.
  [
    'sync createReplica',
    async (s, i) => {
      const replica = createReplica({ local: s, remote: { baseUrl: 'http://127.0.0.1:9/v3' }, blogId: i.blogId });
      try {
        await replica.pending();
        await replica.conflicts();
        await replica.downloads();
      } finally {
        await replica.close();
      }
    },
  ],
];

const STORES: ReadonlyArray<readonly [string, () => () => StorageDriver]> = [
  [
    'sqlite',
    () => {
      const file = join(mkdtempSync(join(tmpdir(), 'blogcore-first-call-')), 'blog.db');
      dirs.push(file);
      return () => sqliteDriver({ filename: file });
    },
  ],
  [
    'postgres',
    () => {
      const schema = freshSchema('first');
      return () => postgresDriver({ connectionString: pgUrl(), schema, max: 2 });
    },
  ],
];
const dirs: string[] = [];
afterAll(async () => {
  for (const f of dirs) rmSync(join(f, '..'), { recursive: true, force: true });
  await dropOwnSchemas();
});

describe.each(STORES)('the first call of a fresh service on an existing %s store', (_name, makeStore) => {
  let open: () => StorageDriver;
  let ids: Ids;
  beforeAll(async () => {
    open = makeStore();
    const service = createBlogService({ driver: open() });
    ids = await fill(service);
    await service.close();
  });

  test.each(CALLS)('%s', async (_call, call) => {
    const service = createBlogService({ driver: open() });
    try {
      await expect(call(service, ids)).resolves.not.toThrow();
    } finally {
      await service.close();
    }
  });
});
