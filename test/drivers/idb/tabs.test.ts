/**
 * blogcore on real IndexedDB across tabs: two Chromium pages of one origin share a database. Concurrent
 * edits with `ifMatch` lose nothing, and the data outlives a page reload and a browser restart.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundlePage, launchPersistent, serveScript, type Site } from '../../browser/serve.js';

type Blogcore = typeof import('../../../src/index.js') & typeof import('../../../drivers/idb/index.js');
type Service = ReturnType<Blogcore['createBlogService']>;
declare global {
  // eslint-disable-next-line no-var
  var blogcore: Blogcore;
  // eslint-disable-next-line no-var
  var service: Service;
}

let site: Site;
let profile: string;
let context: BrowserContext;

/** Opens a tab on the test origin with its own service (its own IndexedDB connection). */
async function openTab(): Promise<Page> {
  const page = await context.newPage();
  await page.goto(site.url);
  await page.waitForFunction(() => 'blogcore' in globalThis);
  await page.evaluate(async () => {
    globalThis.service = globalThis.blogcore.createBlogService({
      driver: globalThis.blogcore.idbDriver({ name: 'tabs' }),
    });
    await globalThis.service.ready();
  });
  return page;
}

beforeAll(async () => {
  site = await serveScript(await bundlePage('test/browser/idb-tabs-page.ts'));
  profile = await mkdtemp(join(tmpdir(), 'blogcore-idb-'));
  context = await launchPersistent(profile);
}, 60_000);

afterAll(async () => {
  await context?.close();
  await site?.close();
  if (profile) await rm(profile, { recursive: true, force: true });
});

describe('blogcore on IndexedDB in Chromium, across tabs', () => {
  let blogId: string;
  let postId: string;

  it('lets exactly one of two tabs editing the same post with ifMatch win; the other gets 412 and loses nothing', async () => {
    const a = await openTab();
    const b = await openTab();
    ({ blogId, postId } = await a.evaluate(async () => {
      const user = await service.users.insert({ body: { displayName: 'Ada', id: 'ada' } });
      const blog = await service.blogs.insert({
        body: { name: 'Tabs', url: 'https://tabs.example/' },
        ownerId: user.id,
      });
      const post = await service.posts.insert({
        blogId: blog.id,
        body: { title: 'Draft one', content: '<p>first</p>' },
      });
      return { blogId: blog.id as string, postId: post.id as string };
    }));
    // Tab B sees tab A's post, with the same etag.
    const etagA = await a.evaluate(async ([blogId, postId]) => (await service.posts.get({ blogId, postId })).etag, [
      blogId,
      postId,
    ] as const);
    const etagB = await b.evaluate(async ([blogId, postId]) => (await service.posts.get({ blogId, postId })).etag, [
      blogId,
      postId,
    ] as const);
    expect(etagB).toBe(etagA);

    // Both tabs save at once against that etag.
    const save = (page: Page, title: string) =>
      page.evaluate(
        async ([blogId, postId, etag, title]) => {
          try {
            const post = await service.posts.patch({ blogId, postId, ifMatch: etag, body: { title } });
            return { ok: true as const, title: post.title as string, etag: post.etag as string };
          } catch (e) {
            if (!blogcore.BlogError.is(e)) throw e;
            return { ok: false as const, code: e.code, reason: e.reason };
          }
        },
        [blogId, postId, etagA as string, title] as const,
      );
    const [fromA, fromB] = await Promise.all([save(a, 'Title from A'), save(b, 'Title from B')]);
    const results = [fromA, fromB];
    const winners = results.filter((r) => r.ok);
    const losers = results.filter((r) => !r.ok);
    expect(winners).toHaveLength(1);
    expect(losers).toEqual([{ ok: false, code: 412, reason: 'conditionNotMet' }]);
    const winner = winners[0]! as { title: string; etag: string };
    const [loserPage, loserTitle] = fromA.ok ? [b, 'Title from B'] : [a, 'Title from A'];

    // Both tabs now read the winner's edit.
    for (const page of [a, b]) {
      const now = await page.evaluate(async ([blogId, postId]) => service.posts.get({ blogId, postId }), [
        blogId,
        postId,
      ] as const);
      expect(now.title).toBe(winner.title);
      expect(now.etag).toBe(winner.etag);
    }
    // The loser re-reads and applies its edit on top: nothing is lost.
    const merged = await loserPage.evaluate(
      async ([blogId, postId, title]) => {
        const fresh = await service.posts.get({ blogId, postId });
        const post = await service.posts.patch({
          blogId,
          postId,
          ifMatch: fresh.etag as string,
          body: { content: `${fresh.content as string}<p>${title}</p>` },
        });
        return { title: post.title, content: post.content };
      },
      [blogId, postId, loserTitle] as const,
    );
    expect(merged).toEqual({ title: winner.title, content: `<p>first</p><p>${loserTitle}</p>` });
    await a.close();
    await b.close();
  });

  it('keeps the data through a page reload', async () => {
    const page = await openTab();
    const before = await page.evaluate(async ([blogId, postId]) => service.posts.get({ blogId, postId }), [
      blogId,
      postId,
    ] as const);
    await page.reload();
    await page.waitForFunction(() => 'blogcore' in globalThis);
    const after = await page.evaluate(
      async ([blogId, postId]) => {
        globalThis.service = blogcore.createBlogService({ driver: blogcore.idbDriver({ name: 'tabs' }) });
        await service.ready();
        const post = await service.posts.get({ blogId, postId });
        const list = await service.posts.list({ blogId });
        return { post, listed: (list.items ?? []).map((p: { id?: string }) => p.id) };
      },
      [blogId, postId] as const,
    );
    expect(after.post).toEqual(before);
    expect(after.listed).toEqual([postId]);
    await page.close();
  });

  it('keeps the data through a browser restart (same profile)', async () => {
    await context.close();
    context = await launchPersistent(profile);
    const page = await openTab();
    const post = await page.evaluate(async ([blogId, postId]) => service.posts.get({ blogId, postId }), [
      blogId,
      postId,
    ] as const);
    expect(post.content).toMatch(/^<p>first<\/p><p>Title from [AB]<\/p>$/);
    await page.close();
  }, 60_000);
});
