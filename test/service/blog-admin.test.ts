/**
 * Blogs and users become mutable: users.update, blogs.update/patch (old urls keep answering getByUrl, post
 * urls follow), blogs.delete (everything goes; a SIGKILL midway leaves a blog that reads as gone, and a second
 * call finishes), and the core's caches staying right in one process and across processes (SQLite, IndexedDB
 * tabs, PostgreSQL).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { IDBFactory } from 'fake-indexeddb';
import { sqliteDriver } from '../../drivers/sqlite/index.js';
import { idbDriver } from '../../drivers/idb/index.js';
import { postgresDriver } from '../../drivers/postgres/index.js';
import { dropOwnSchemas, freshSchema, pgUrl } from '../drivers/postgres/env.js';
import type { StorageDriver } from '../../src/store/driver.js';
import { createBlogService, type BlogService } from '../../src/index.js';
import { runAndKill } from '../drivers/sqlite/child.js';
import { BLOG_URL, USERS, expectError, makePost, world, type Wire } from './helpers.js';
import { DRIVERS } from '../support/drivers.js';

const dir = mkdtempSync(join(tmpdir(), 'blogcore-blog-admin-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const COLLECTIONS: Array<[string, string]> = [
  ['posts', 'published'],
  ['pages', 'published'],
  ['comments', 'post'],
  ['labels', 'blog'],
  ['pageviews', 'owner'],
  ['members', 'blog'],
];

/** How many records of the blog each collection still holds (through the indexes blogs.delete walks). */
async function leftovers(driver: StorageDriver, blogId: string): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const [collection, index] of COLLECTIONS)
    out[collection] = await driver.count({ collection, index, prefix: [blogId] });
  out.blog = (await driver.get('blogs', blogId)) ? 1 : 0;
  return out;
}
const NOTHING = { posts: 0, pages: 0, comments: 0, labels: 0, pageviews: 0, members: 0, blog: 0 };

async function fill(service: BlogService, blogId: string, posts: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < posts; i++) {
    const post = await service.posts.insert({
      blogId,
      body: { title: `Post ${i}`, content: `<p>${i}</p>`, labels: [`l${i % 3}`] },
    });
    await service.posts.patch({ blogId, postId: post.id, body: { content: `<p>${i} edited</p>` } });
    await service.comments.insert({ blogId, postId: post.id, body: { content: 'hello' } });
    await service.pageViews.record({ blogId, postId: post.id });
    ids.push(post.id);
  }
  await service.pages.insert({ blogId, body: { title: 'About', content: 'a' } });
  return ids;
}

describe.each(DRIVERS)('%s', (_driver, makeDriver) => {
  describe('users.update', () => {
    it('changes the given fields, for the user themselves or host code; authors shown everywhere follow', async () => {
      const w = await world(makeDriver());
      const post = await makePost(w, 'LIVE');
      const me = (await w.author.users.update({
        userId: 'self',
        body: { displayName: 'Arthur A.', about: 'writes' },
      })) as Wire;
      expect(me).toMatchObject({
        kind: 'blogger#user',
        id: USERS.author.id,
        displayName: 'Arthur A.',
        about: 'writes',
      });
      expect(((await w.anon.posts.get({ blogId: w.blogId, postId: post.id })) as Wire).author.displayName).toBe(
        'Arthur A.',
      );
      expect(
        ((await w.service.users.update({ userId: USERS.author.id, body: { url: 'https://arthur.example/' } })) as Wire)
          .displayName,
      ).toBe('Arthur A.');
      await expectError(
        w.author2.users.update({ userId: USERS.author.id, body: { displayName: 'x' } }),
        403,
        'forbidden',
      );
      await expectError(w.anon.users.update({ userId: USERS.author.id, body: { displayName: 'x' } }), 401, 'authError');
      await expectError(w.service.users.update({ userId: 'ghost', body: { displayName: 'x' } }), 404, 'notFound');
      await expectError(w.author.users.update({ userId: 'self', body: { displayName: ' ' } }), 400, 'invalid');
    });
  });

  describe('blogs.update and blogs.patch', () => {
    it('rename and move a blog: old and new urls both resolve, post urls follow, the old url stays this blog’s', async () => {
      const w = await world(makeDriver());
      const blogId = w.blogId;
      const post = await makePost(w, 'LIVE');
      const path = new URL(post.url).pathname;
      const moved = (await w.admin.blogs.patch({
        blogId,
        body: { name: 'Renamed', url: 'https://moved.example/' },
      })) as Wire;
      expect(moved).toMatchObject({
        id: blogId,
        name: 'Renamed',
        url: 'https://moved.example/',
        description: 'A blog for tests',
      });
      expect(((await w.anon.blogs.getByUrl({ url: BLOG_URL })) as Wire).id).toBe(blogId);
      expect(((await w.anon.blogs.getByUrl({ url: 'https://moved.example' })) as Wire).name).toBe('Renamed');
      expect(((await w.anon.posts.get({ blogId, postId: post.id })) as Wire).url).toBe(`https://moved.example${path}`);
      await expectError(
        w.service.blogs.insert({ body: { name: 'Squatter', url: BLOG_URL }, ownerId: USERS.reader.id }),
        409,
        'conflict',
      );
      const other = await w.service.blogs.insert({
        body: { name: 'Other', url: 'https://other.example/' },
        ownerId: USERS.reader.id,
      });
      await expectError(
        w.service.blogs.patch({ blogId: other.id, body: { url: 'https://moved.example/' } }),
        409,
        'conflict',
      );
      // PUT replaces: the description goes.
      const replaced = (await w.admin.blogs.update({
        blogId,
        body: { name: 'Again', url: 'https://moved.example/' },
      })) as Wire;
      expect(replaced.description).toBe('');
      await expectError(w.author.blogs.patch({ blogId, body: { name: 'Mine' } }), 403, 'forbidden');
      await expectError(w.anon.blogs.patch({ blogId, body: { name: 'Mine' } }), 403);
    });
  });

  describe('blogs.delete', () => {
    it('removes everything of the blog, and only that; admins only', async () => {
      const w = await world(makeDriver());
      const ids = await fill(w.service, w.blogId, 5);
      const other = await w.service.blogs.insert({
        body: { name: 'Other', url: 'https://other.example/' },
        ownerId: USERS.admin.id,
      });
      await fill(w.service, other.id, 2);
      await expectError(w.author.blogs.delete({ blogId: w.blogId }), 403, 'forbidden');
      await w.admin.blogs.delete({ blogId: w.blogId });
      expect(await leftovers(w.driver, w.blogId)).toEqual(NOTHING);
      expect(await w.driver.count({ collection: 'revisions', index: 'item', prefix: [ids[0]!] })).toBe(0);
      await expectError(w.anon.blogs.get({ blogId: w.blogId }), 404, 'notFound');
      await expectError(w.anon.blogs.getByUrl({ url: BLOG_URL }), 404, 'notFound');
      await expectError(w.admin.posts.get({ blogId: w.blogId, postId: ids[0]! }), 404, 'notFound');
      expect(((await w.admin.blogs.listByUser({ userId: 'self' })) as Wire).items.map((b: Wire) => b.id)).toEqual([
        other.id,
      ]);
      expect((await leftovers(w.driver, other.id)).posts).toBe(2);
      // The url is free again.
      await w.service.blogs.insert({ body: { name: 'Reborn', url: BLOG_URL }, ownerId: USERS.admin.id });
    });
  });
});

describe('blogs.delete on SQLite', () => {
  it('a SIGKILL midway leaves a blog that reads as gone; a second call finishes the work', async () => {
    const file = join(dir, 'killed.db');
    const setup = createBlogService({ driver: sqliteDriver({ filename: file }) });
    const user = await setup.users.insert({ body: { id: 'owner', displayName: 'Owner' } });
    const blog = await setup.blogs.insert({
      body: { name: 'Doomed', url: 'https://doomed.example/' },
      ownerId: user.id,
    });
    await fill(setup, blog.id, 120);
    await setup.close();

    // Killed after the mark and two batches of comments: posts, pages, labels, views and members remain.
    await runAndKill('test/service/blog-admin-child.ts', [file, blog.id], 3);
    const driver = sqliteDriver({ filename: file });
    const service = createBlogService({ driver });
    await service.ready();
    const half = await leftovers(driver, blog.id);
    expect(half.blog).toBe(1);
    expect(half.comments).toBeLessThan(120);
    expect(half.posts! + half.pages! + half.members!).toBeGreaterThan(0);
    await expectError(service.blogs.get({ blogId: blog.id }), 404, 'notFound');
    await expectError(service.blogs.getByUrl({ url: 'https://doomed.example/' }), 404, 'notFound');
    await expectError(service.as({ userId: 'owner' }).posts.list({ blogId: blog.id }), 404, 'notFound');
    expect((await service.as({ userId: 'owner' }).blogs.listByUser({ userId: 'self' })).items).toEqual([]);

    await service.as({ userId: 'owner' }).blogs.delete({ blogId: blog.id });
    expect(await leftovers(driver, blog.id)).toEqual(NOTHING);
    await service.close();
  }, 60_000);
});

/**
 * Two services on one store, as two processes would be: what one changes, the other's next call sees (its
 * cache of blogs and users follows the change log), with no waiting.
 */
/** `log`: the store's driver, to see what was written. */
async function twoProcesses(a: BlogService, b: BlogService, log: StorageDriver): Promise<void> {
  const user = await a.users.insert({ body: { id: 'u', displayName: 'Before' } });
  const blog = await a.blogs.insert({ body: { name: 'Before', url: 'https://two.example/' }, ownerId: user.id });
  const post = await a.posts.insert({ blogId: blog.id, body: { title: 'P' } });
  expect((await a.blogs.get({ blogId: blog.id })).name).toBe('Before'); // cached in a
  expect((await a.posts.get({ blogId: blog.id, postId: post.id })).author!.displayName).toBe('Before');
  const heard: string[] = [];
  const stop = a.on('post.inserted', (e) => heard.push((e.resource as { url: string }).url));
  await b.blogs.patch({ blogId: blog.id, body: { name: 'After', url: 'https://two-moved.example/' } });
  // A write first (where the look at the log rides in the commit: a refused commit and a second attempt). Its
  // event's post is made before the commit, from the blog as the cache has it.
  const moved = await a.posts.insert({ blogId: blog.id, body: { title: 'Moved' } });
  stop();
  expect(moved.url).toMatch(/^https:\/\/two-moved\.example\//);
  expect(heard).toEqual([moved.url]);
  expect((await a.blogs.get({ blogId: blog.id })).name).toBe('After');
  expect((await a.blogs.getByUrl({ url: 'https://two.example/' })).url).toBe('https://two-moved.example/');
  await b.users.update({ userId: 'u', body: { displayName: 'After' } });
  expect((await a.posts.get({ blogId: blog.id, postId: post.id })).author!.displayName).toBe('After');
  // More changes behind than the cache reads one by one: it starts over, and still sees the last of them.
  for (let i = 0; i < 20; i++) await b.users.insert({ body: { id: `x${i}`, displayName: 'X' } });
  await b.users.update({ userId: 'u', body: { displayName: 'Last' } });
  expect((await a.posts.get({ blogId: blog.id, postId: post.id })).author!.displayName).toBe('Last');
  // A search page's posts are kept between calls (core.docs): edits by either process still show at once.
  const found = async () => ((await a.posts.search({ blogId: blog.id, q: 'alpha' })).items ?? []).map((p) => p.title);
  await a.posts.patch({ blogId: blog.id, postId: post.id, body: { content: '<p>alpha</p>' } });
  expect(await found()).toEqual(['P']);
  await b.posts.patch({ blogId: blog.id, postId: post.id, body: { title: 'Q' } });
  expect(await found()).toEqual(['Q']);
  await a.posts.patch({ blogId: blog.id, postId: post.id, body: { title: 'R' } });
  expect(await found()).toEqual(['R']);
  await b.blogs.delete({ blogId: blog.id });
  const { newest } = await log.logBounds();
  await expectError(a.posts.insert({ blogId: blog.id, body: { title: 'late' } }), 404);
  await expectError(a.posts.patch({ blogId: blog.id, postId: post.id, body: { title: 'late' } }), 404);
  // Refused before anything was written: no post of a deleted blog.
  expect(await log.changesSince(newest)).toEqual([]);
  await expectError(a.blogs.get({ blogId: blog.id }), 404);
}

describe("caches follow another process's changes", () => {
  it('two connections on one SQLite file', async () => {
    const file = join(dir, 'two.db');
    const da = sqliteDriver({ filename: file });
    const a = createBlogService({ driver: da });
    const b = createBlogService({ driver: sqliteDriver({ filename: file }) });
    await twoProcesses(a, b, da);
    await a.close();
    await b.close();
  });

  it('two connections on one IndexedDB database (two tabs)', async () => {
    const factory = new IDBFactory();
    const da = idbDriver({ name: 'two', indexedDB: factory });
    const a = createBlogService({ driver: da });
    const b = createBlogService({ driver: idbDriver({ name: 'two', indexedDB: factory }) });
    await twoProcesses(a, b, da);
    await a.close();
    await b.close();
  });

  it('two pools on one PostgreSQL schema', async () => {
    const schema = freshSchema('cache');
    const da = postgresDriver({ connectionString: pgUrl(), schema, max: 2 });
    const a = createBlogService({ driver: da });
    const b = createBlogService({ driver: postgresDriver({ connectionString: pgUrl(), schema, max: 2 }) });
    try {
      await twoProcesses(a, b, da);
    } finally {
      await a.close();
      await b.close();
      await dropOwnSchemas();
    }
  });
});
