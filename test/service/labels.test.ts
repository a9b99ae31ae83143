/**
 * labels.list (extension) on every driver: counts of LIVE posts (and of all posts at AUTHOR view) that follow
 * inserts, label edits, state changes, scheduled posts going LIVE and deletes, and never reveal a label only
 * drafts or trashed posts carry to a reader.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { sqliteDriver } from '../../drivers/sqlite/index.js';
import { createHttpHandler } from '../../src/http/index.js';
import { createBlogService } from '../../src/index.js';
import { DAY, expectError, makePost, world, type Service, type Wire, type World } from './helpers.js';
import { DRIVERS } from '../support/drivers.js';

const dir = mkdtempSync(join(tmpdir(), 'blogcore-labels-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** label -> [livePosts, allPosts?] as `s` sees them, every page walked. */
async function counts(w: World, s: Service, view?: 'READER' | 'AUTHOR' | 'ADMIN'): Promise<Record<string, number[]>> {
  const out: Record<string, number[]> = {};
  let pageToken: string | undefined;
  do {
    const list = (await s.labels.list({
      blogId: w.blogId,
      maxResults: 2,
      ...(view ? { view } : {}),
      ...(pageToken ? { pageToken } : {}),
    })) as Wire;
    expect(list.kind).toBe('blogcore#labelList');
    for (const l of list.items) out[l.name] = l.allPosts === undefined ? [l.livePosts] : [l.livePosts, l.allPosts];
    pageToken = list.nextPageToken;
  } while (pageToken);
  return out;
}

/** The same numbers recounted from the posts themselves (what the counters must always agree with). */
async function recount(w: World): Promise<Record<string, number[]>> {
  const list = (await w.service.posts.list({
    blogId: w.blogId,
    status: ['LIVE', 'DRAFT', 'SCHEDULED', 'SOFT_TRASHED'],
    maxResults: 500,
    fetchBodies: false,
  })) as Wire;
  const out: Record<string, number[]> = {};
  for (const p of list.items) {
    for (const l of p.labels ?? []) {
      const c = (out[l] ??= [0, 0]);
      if (p.status === 'LIVE') c[0]! += 1;
      c[1]! += 1;
    }
  }
  return out;
}

describe.each(DRIVERS)('%s', (_driver, makeDriver) => {
  it('counts LIVE posts for readers and all posts at AUTHOR view; a label only drafts carry stays hidden', async () => {
    const w = await world(makeDriver());
    await makePost(w, 'LIVE', { labels: ['news', 'tech'] });
    await makePost(w, 'LIVE', { labels: ['news'] });
    await makePost(w, 'DRAFT', { labels: ['news', 'secret'] });
    await makePost(w, 'SOFT_TRASHED', { labels: ['binned'] });
    await makePost(w, 'SCHEDULED', { labels: ['soon', 'tech'] });
    expect(await counts(w, w.anon)).toEqual({ news: [2], tech: [1] });
    expect(await counts(w, w.reader)).toEqual({ news: [2], tech: [1] });
    expect(await counts(w, w.author)).toEqual({
      binned: [0, 1],
      news: [2, 3],
      secret: [0, 1],
      soon: [0, 1],
      tech: [1, 2],
    });
    expect(await counts(w, w.admin, 'READER')).toEqual({ news: [2], tech: [1] });
    expect(await counts(w, w.author)).toEqual(await recount(w));
    await expectError(w.reader.labels.list({ blogId: w.blogId, view: 'AUTHOR' }), 403, 'forbidden');
    await expectError(w.anon.labels.list({ blogId: 'nope' }), 404, 'notFound');
    await w.service.close();
  });

  it('follows label edits, publish, revert, trash, scheduled posts going LIVE and deletes', async () => {
    const w = await world(makeDriver());
    const blogId = w.blogId;
    const a = await makePost(w, 'LIVE', { labels: ['x', 'y'] });
    const d = await makePost(w, 'DRAFT', { labels: ['x'] });
    const s = await makePost(w, 'SCHEDULED', { labels: ['later'] });
    expect(await counts(w, w.service)).toEqual({ later: [0, 1], x: [1, 2], y: [1, 1] });

    await w.author.posts.patch({ blogId, postId: a.id, body: { labels: ['y', 'z'] } });
    expect(await counts(w, w.service)).toEqual({ later: [0, 1], x: [0, 1], y: [1, 1], z: [1, 1] });
    await w.author.posts.publish({ blogId, postId: d.id });
    expect(await counts(w, w.anon)).toEqual({ x: [1], y: [1], z: [1] });
    await w.author.posts.revert({ blogId, postId: a.id });
    expect(await counts(w, w.anon)).toEqual({ x: [1] });
    await w.author.posts.update({ blogId, postId: a.id, body: { title: 'no labels now', content: 'c' } }); // PUT clears labels
    expect(await counts(w, w.service)).toEqual({ later: [0, 1], x: [1, 1] });
    await w.author.posts.delete({ blogId, postId: d.id, useTrash: true });
    expect(await counts(w, w.service)).toEqual({ later: [0, 1], x: [0, 1] });
    await w.author.posts.delete({ blogId, postId: d.id });
    expect(await counts(w, w.service)).toEqual({ later: [0, 1] });

    w.clock.advance(11 * DAY); // the scheduled post's time has come: the next read makes it LIVE
    expect(await counts(w, w.anon)).toEqual({ later: [1] });
    expect(await counts(w, w.service)).toEqual(await recount(w));
    void s;
    await w.service.close();
  });

  it('stays exact under concurrent writes to the same label', async () => {
    const w = await world(makeDriver());
    const posts = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        w.author.posts.insert({ blogId: w.blogId, body: { title: `p${i}`, labels: ['hot', `own${i % 2}`] } }),
      ),
    );
    await Promise.all(
      posts.slice(0, 3).map((p) => w.author.posts.delete({ blogId: w.blogId, postId: p.id, useTrash: true })),
    );
    expect(await counts(w, w.service)).toEqual({ hot: [5, 8], own0: [2, 4], own1: [3, 4] });
    expect(await counts(w, w.service)).toEqual(await recount(w));
    await w.service.close();
  });

  describe('labels over HTTP', () => {
    it('GET /v3/blogs/{blogId}/labels answers the list with an ETag', async () => {
      const w = await world(makeDriver());
      await makePost(w, 'LIVE', { labels: ['b', 'a'] });
      const handler = createHttpHandler(w.service);
      const res = await handler(new Request(`http://x.test/v3/blogs/${w.blogId}/labels?maxResults=1`));
      expect(res.status).toBe(200);
      const body = (await res.json()) as Wire;
      expect(res.headers.get('etag')).toBe(body.etag);
      expect(body.items).toEqual([{ kind: 'blogcore#label', name: 'a', livePosts: 1 }]);
      const next = (await (
        await handler(
          new Request(`http://x.test/v3/blogs/${w.blogId}/labels?maxResults=1&pageToken=${body.nextPageToken}`),
        )
      ).json()) as Wire;
      expect(next.items.map((l: Wire) => l.name)).toEqual(['b']);
    });
  });

  describe('labels after an import', () => {
    it('imported posts move their label counters like inserted ones (importing again changes nothing)', async () => {
      const { readFileSync } = await import('node:fs');
      const { importBlog } = await import('../../src/io/index.js');
      const w = await world(makeDriver());
      const file = readFileSync(new URL('../io/fixtures/blogger-legacy.xml', import.meta.url), 'utf8');
      const { blogId } = await importBlog(w.service, file);
      const v = { ...w, blogId } as World;
      const imported = await counts(v, w.service);
      expect(Object.keys(imported).length).toBeGreaterThan(0);
      expect(imported).toEqual(await recount(v));
      await importBlog(w.service, file);
      expect(await counts(v, w.service)).toEqual(imported);
    });
  });
});

describe('labels on a store written before label counters', () => {
  it('opening it counts the labels of the posts there, once', async () => {
    const file = join(dir, 'older.db');
    const w = await world(sqliteDriver({ filename: file }));
    await makePost(w, 'LIVE', { labels: ['a', 'b'] });
    await makePost(w, 'DRAFT', { labels: ['a'] });
    const expected = await counts(w, w.service);
    // What a store of layout 2 holds: the posts, no counters, the layout marker at 2.
    const counters = await w.driver.list({
      collection: 'labels',
      index: 'blog',
      prefix: [w.blogId],
      direction: 'asc',
      limit: 100,
    });
    const marker = (await w.driver.get('settings', 'storeLayout'))!;
    await w.driver.commit([
      ...counters.map((c) => ({ type: 'delete' as const, collection: 'labels', id: c.id, expect: c.version })),
      {
        type: 'put',
        collection: 'settings',
        id: 'storeLayout',
        expect: marker.version,
        doc: { id: 'storeLayout', layout: 2 },
        keys: {},
      },
    ]);
    expect(await counts(w, w.service)).toEqual({});
    await w.service.close();
    const reopened = createBlogService({ driver: sqliteDriver({ filename: file }) });
    expect(await counts(w, reopened)).toEqual(expected);
    await reopened.close();
  });
});
