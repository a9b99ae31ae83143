/**
 * A replica in real Chromium on real IndexedDB (playwright-core, Debian's chromium): the page is served from
 * the same origin as the blog server's /v3 (a small proxy), goes offline with `context.setOffline`, its tab
 * is reloaded, and it meets the server again: edits made offline survive the reload and reach the server; a post
 * edited on both sides becomes a conflict resolved with 'mine'; a post deleted on the server while edited offline is a
 * conflict resolved with 'theirs'.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { bundlePage, launchChromium } from '../browser/serve.js';
import { startSyncServer, type SyncServer } from './server.js';

let s: SyncServer;
let site: Server;
let url: string;
let browser: Browser;
let context: BrowserContext;
let page: Page;
/** Writes that reached the server through the page's origin: `METHOD path If-Match`. */
const sent: string[] = [];

beforeAll(async () => {
  s = await startSyncServer();
  const script = await bundlePage('test/browser/replica-page.ts');
  const html =
    '<!doctype html><meta charset="utf-8"><title>replica</title><script type="module" src="/app.js"></script>';
  // The page and the blog's /v3 on one origin: "/" and "/app.js" here, everything else forwarded to the server.
  site = createServer(async (req, res) => {
    if (req.url === '/app.js') return void res.writeHead(200, { 'content-type': 'text/javascript' }).end(script);
    if (req.url === '/') return void res.writeHead(200, { 'content-type': 'text/html' }).end(html);
    if (req.method !== 'GET') sent.push(`${req.method} ${req.url!.split('?')[0]} ${req.headers['if-match']}`);
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const headers = Object.fromEntries(
      Object.entries(req.headers).filter(([k]) => k !== 'host' && k !== 'connection') as Array<[string, string]>,
    );
    const answer = await fetch(new URL(req.url!, s.api), {
      method: req.method!,
      headers,
      ...(chunks.length ? { body: Buffer.concat(chunks) } : {}),
    });
    res
      .writeHead(
        answer.status,
        Object.fromEntries([...answer.headers].filter(([k]) => k === 'content-type' || k === 'etag')),
      )
      .end(Buffer.from(await answer.arrayBuffer()));
  });
  await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(site.address() as AddressInfo).port}/`;
  browser = await launchChromium();
  context = await browser.newContext();
  page = await context.newPage();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await new Promise<void>((r) => (site ? site.close(() => r()) : r()));
  await s.close();
});

async function load(): Promise<void> {
  await page.goto(url);
  await page.waitForFunction(() => 'replicaPage' in globalThis);
  await page.evaluate(([blogId]) => (globalThis as any).replicaPage.open(blogId, 'author'), [s.blogId]);
}
/** Calls the page's replicaPage API (untyped on this side). */
const call = <T>(name: string, ...args: unknown[]): Promise<T> =>
  page.evaluate(([n, a]) => (globalThis as any).replicaPage[n as string](...(a as unknown[])), [name, args] as const);

it('in Chromium on IndexedDB: offline edits survive a reload and reach the server; a conflict keeps both texts', async () => {
  const shared = await s.as('author').posts.insert({ blogId: s.blogId, body: { title: 'Shared', content: 'v1' } });
  await load();
  expect(await call('sync')).toEqual({ pulled: 1, pushed: 0, conflicts: 0 });

  await context.setOffline(true);
  const made = await call<{ id: string }>('insert', 'Written offline', 'in the browser');
  await call('patch', shared.id, 'my browser words');
  expect(await call('syncError')).toEqual({ name: 'RemoteError', status: 0 });
  // The tab is reloaded (its page needs the network; nothing syncs until asked).
  await context.setOffline(false);
  await page.reload();
  await load();
  expect(
    (await call<Array<{ id: string; action: string }>>('pending')).map((p) => `${p.id}:${p.action}`).sort(),
  ).toEqual([`${made.id}:create`, `${shared.id}:update`].sort());

  // Meanwhile someone else changes the shared post on the server.
  await s.as('admin').posts.patch({ blogId: s.blogId, postId: shared.id!, body: { content: 'their words' } });
  expect(await call('sync')).toMatchObject({ pushed: 1, conflicts: 1 });
  const [conflict] =
    await call<Array<{ id: string; mine: { content: string }; theirs: { content: string }; fields: string[] }>>(
      'conflicts',
    );
  expect(conflict).toMatchObject({
    id: shared.id,
    mine: { content: 'my browser words' },
    theirs: { content: 'their words' },
    fields: ['content'],
  });
  await call('resolve', shared.id, 'mine');
  expect(await call('sync')).toMatchObject({ pushed: 1, conflicts: 0 });

  const there = (await s.service.posts.list({ blogId: s.blogId })).items;
  expect(there.map((p) => [p.title, p.content]).sort()).toEqual([
    ['Shared', 'my browser words'],
    ['Written offline', 'in the browser'],
  ]);
  const here = await call<Array<{ id: string; title: string; content: string; etag: string }>>('posts');
  expect(here.map((p) => [p.id, p.content, p.etag]).sort()).toEqual(there.map((p) => [p.id, p.content, p.etag]).sort());
  expect(await call('pending')).toEqual([]);
}, 60_000);

it('in Chromium on IndexedDB: a post deleted on the server while edited offline is a conflict; "theirs" drops the edit', async () => {
  const doomed = await s.as('author').posts.insert({ blogId: s.blogId, body: { title: 'Doomed', content: 'v1' } });
  expect(await call('sync')).toMatchObject({ conflicts: 0 });
  expect((await call<Array<{ id: string }>>('posts')).map((p) => p.id)).toContain(doomed.id);
  await context.setOffline(true);
  await call('patch', doomed.id, 'edited offline');
  await s.as('admin').posts.delete({ blogId: s.blogId, postId: doomed.id! });
  await context.setOffline(false);
  expect(await call('sync')).toMatchObject({ pushed: 0, conflicts: 1 });
  const [conflict] =
    await call<Array<{ id: string; reason: string; mine: { content: string }; theirs: unknown }>>('conflicts');
  expect(conflict).toMatchObject({
    id: doomed.id,
    reason: 'deleted',
    mine: { content: 'edited offline' },
    theirs: null,
  });
  await call('resolve', doomed.id, 'theirs');
  expect(await call('sync')).toMatchObject({ pushed: 0, conflicts: 0 });
  const here = await call<Array<{ id: string }>>('posts');
  expect(here.map((p) => p.id)).not.toContain(doomed.id);
  expect((await s.service.posts.list({ blogId: s.blogId })).items.map((p) => p.id)).not.toContain(doomed.id);
  expect(await call('conflicts')).toEqual([]);
  expect(await call('pending')).toEqual([]);
}, 60_000);

it('in Chromium on IndexedDB: a first pull over posts already here, pages sent while the one before is written, stores each once', async () => {
  for (let i = 0; i < 14; i++)
    await s.as('author').posts.insert({ blogId: s.blogId, body: { title: `Again ${i}`, content: `<p>${i}</p>` } });
  await call('sync');
  const before = await call<number>('count');
  // The state goes, the records stay: the next sync is a first pull, four items a page, each page's commit
  // sent while the one before is written, and each fails on what is here and is applied again, reading.
  await call('forgetState');
  await call('close');
  await page.evaluate(([blogId]) => (globalThis as any).replicaPage.open(blogId, 'author', 4), [s.blogId]);
  expect(await call('sync')).toMatchObject({ pushed: 0, conflicts: 0 });
  expect(await call<number>('count')).toBe(before);
  expect(await call('pending')).toEqual([]);
  const there = (await s.service.posts.list({ blogId: s.blogId, maxResults: 50 })).items;
  const here = await call<Array<{ id: string; etag: string }>>('posts');
  expect(here.map((p) => [p.id, p.etag]).sort()).toEqual(there.map((p) => [p.id, p.etag]).sort());
}, 60_000);

it('in Chromium on IndexedDB: a replica of layout 2 moves its bases into its records; queued writes go with their If-Match', async () => {
  const author = s.as('author');
  const made = [];
  for (let i = 0; i < 3; i++)
    made.push(await author.posts.insert({ blogId: s.blogId, body: { title: `Older ${i}`, content: `<p>${i}</p>` } }));
  await call('close');
  await page.evaluate(([blogId]) => (globalThis as any).replicaPage.open(blogId, 'author'), [s.blogId]);
  await call('sync');
  const [edited, reverted, deleted] = made.map((p) => ({ id: p.id!, etag: p.etag }));
  await call('patch', edited!.id, 'edited before the upgrade');
  await call('revert', reverted!.id);
  await call('remove', deleted!.id);
  await call('olderLayout');
  await page.evaluate(([blogId]) => (globalThis as any).replicaPage.open(blogId, 'author'), [s.blogId]);
  expect(
    (await call<Array<{ id: string; action: string }>>('pending')).map((p) => `${p.id} ${p.action}`).sort(),
  ).toEqual([`${edited!.id} update`, `${reverted!.id} update`, `${deleted!.id} delete`].sort());
  sent.length = 0;
  expect(await call('sync')).toMatchObject({ pushed: 3, conflicts: 0 });
  const path = (id: string) => `/v3/blogs/${s.blogId}/posts/${id}`;
  expect(sent.sort()).toEqual(
    [
      `PATCH ${path(edited!.id)} ${edited!.etag}`,
      `POST ${path(reverted!.id)}/revert ${reverted!.etag}`,
      `DELETE ${path(deleted!.id)} ${deleted!.etag}`,
    ].sort(),
  );
  const there = await s.service.posts.list({
    blogId: s.blogId,
    status: ['LIVE', 'DRAFT'],
    view: 'ADMIN',
    maxResults: 50,
  });
  const byId = new Map(there.items.map((p) => [p.id, p]));
  expect(byId.get(edited!.id)).toMatchObject({ content: 'edited before the upgrade', status: 'LIVE' });
  expect(byId.get(reverted!.id)).toMatchObject({ status: 'DRAFT' });
  expect(byId.has(deleted!.id)).toBe(false);
  expect(await call('pending')).toEqual([]);
}, 60_000);
