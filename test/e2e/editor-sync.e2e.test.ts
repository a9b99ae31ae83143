/**
 * The browser editor against a real server, end to end: `blogcore serve` (the built dist/cli.js) on a temp
 * SQLite file, the editor's Vite build served on another port (so `--cors` lets it in), and two Chromium
 * contexts signed in with the admin token. Both go offline, edit, come back; the server (over HTTP) and
 * both replicas (through the editor's own screens) are compared field by field, and the conflict screen is
 * used with each choice. Everything listens on 127.0.0.1 and is stopped at the end.
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { PreviewServer } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, root } from '../browser/serve.js';
import { requireBuild, start, type Proc } from '../http/spawn.js';
import { closeServed, serveDemo, serveEditor, signIn } from './editor-app.js';

const shots = join(root, 'test-output');

interface WirePost {
  id: string;
  title: string;
  content: string;
  labels?: string[];
  status: string;
  etag: string;
}

let dir: string;
let site: PreviewServer | undefined;
let server: Proc | undefined;
let browser: Browser | undefined;
let editorUrl: string;
let api: string;
let token: string;
let blogId: string;
const tabs: Record<'a' | 'b', { context: BrowserContext; page: Page; errors: Error[] }> = {} as never;

/** The server's answer over HTTP, as the admin. */
async function http<T>(method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(`${api}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  expect(res.ok, `${method} ${path}: ${res.status}`).toBe(true);
  return (await res.json()) as T;
}
const serverPosts = async () =>
  (
    await http<{ items?: WirePost[] }>(
      'GET',
      `/blogs/${blogId}/posts?status=live,draft,scheduled&view=ADMIN&maxResults=50`,
    )
  ).items ?? [];
const serverPost = (id: string) => http<WirePost>('GET', `/blogs/${blogId}/posts/${id}?view=ADMIN`);

/** Polls until it holds (a sync crosses processes and the network: seconds on a busy machine — CI runs this beside the other suites on two cores — not vitest's 1 s). */
const eventually = <T>(fn: () => T | Promise<T>) => expect.poll(fn, { timeout: 20_000 });

/** The post's HTML: the content field's HTML tab (opened if it is not). */
async function htmlSource(tab: Page) {
  const open = tab.getByRole('tab', { name: 'HTML' });
  if ((await open.getAttribute('aria-selected')) !== 'true') await open.click();
  return tab.getByLabel('Content (HTML)');
}

/** The status line in the top bar (state and what waits). */
const syncLine = (page: Page) => page.locator('.sync-status');

/** The replica's copy of a post, read from the editor's own form. */
async function replicaPost(page: Page, id: string) {
  await page.goto(`${editorUrl}#/posts/edit/${id}`);
  await page.getByLabel('Title').waitFor();
  await page.locator('.page-head .badge').waitFor();
  return {
    title: await page.getByLabel('Title').inputValue(),
    content: await (await htmlSource(page)).inputValue(),
    labels: (await page.getByLabel('Labels').inputValue())
      .split(',')
      .map((l) => l.trim())
      .filter(Boolean),
    status: await page.locator('.page-head .badge').getAttribute('data-status'),
  };
}
const wireFields = (p: WirePost) => ({ title: p.title, content: p.content, labels: p.labels ?? [], status: p.status });

/** Every post title the replica lists (all statuses but the trash), sorted. */
async function replicaTitles(page: Page): Promise<string[]> {
  await page.goto(`${editorUrl}#/posts/all`);
  await page.getByRole('heading', { name: 'Posts', level: 1 }).waitFor();
  await page.locator('.rows, .empty').first().waitFor();
  return (await page.locator('.rows .row-title').allTextContents()).sort();
}

/** Both replicas hold exactly what the server holds, post by post. */
async function expectAllAgree(ids: string[]) {
  const onServer = await serverPosts();
  const titles = onServer.map((p) => p.title).sort();
  for (const { page } of Object.values(tabs)) {
    await eventually(() => replicaTitles(page)).toEqual(titles);
    for (const id of ids) expect(await replicaPost(page, id)).toEqual(wireFields(await serverPost(id)));
  }
}

/** Saves the open post with new fields (an offline save lands in the replica and waits to be sent). */
async function edit(page: Page, id: string, fields: { title?: string; content?: string }) {
  await page.goto(`${editorUrl}#/posts/edit/${id}`);
  await page.getByLabel('Title').waitFor();
  if (fields.title !== undefined) await page.getByLabel('Title').fill(fields.title);
  if (fields.content !== undefined) await (await htmlSource(page)).fill(fields.content);
  await page.getByRole('button', { name: /^(Update|Save draft|Save)$/ }).click();
  await eventually(() => page.locator('.save-state').textContent()).toBe('All changes saved');
}

async function expectNoProblems() {
  for (const { page, errors } of Object.values(tabs)) {
    expect(await page.locator('.problem').allTextContents()).toEqual([]);
    expect(errors).toEqual([]);
  }
}

beforeAll(async () => {
  requireBuild();
  dir = await mkdtemp(join(tmpdir(), 'blogcore-editor-sync-'));
  ({ site, editorUrl } = await serveEditor(join(dir, 'app')));
  ({ server, api, blogId, token } = await serveDemo(join(dir, 'blog.db'), editorUrl));
  browser = await launchChromium();
  for (const name of ['a', 'b'] as const) {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    context.setDefaultTimeout(10_000);
    const page = await context.newPage();
    const errors: Error[] = [];
    page.on('pageerror', (error) => errors.push(error));
    page.on('dialog', (dialog) => void dialog.accept());
    tabs[name] = { context, page, errors };
  }
}, 60_000);

afterAll(() => closeServed({ browser, server, site, dir }));

describe('the browser editor synced with blogcore serve', { timeout: 90_000 }, () => {
  it('is let in only from the origin given to --cors', async () => {
    const preflight = (origin: string) =>
      fetch(`${api}/blogs/${blogId}/posts`, {
        method: 'OPTIONS',
        headers: { origin, 'access-control-request-method': 'POST' },
      });
    const allowed = await preflight(new URL(editorUrl).origin);
    expect(allowed.status).toBe(204);
    expect(allowed.headers.get('access-control-allow-origin')).toBe(new URL(editorUrl).origin);
    const other = await preflight('http://127.0.0.1:1');
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
    const wrong = start([
      'dist/cli.js',
      'serve',
      '--db',
      join(dir, 'unused.db'),
      '--port',
      '0',
      '--cors',
      '127.0.0.1:5173',
    ]);
    expect(await wrong.exited).toBe(2); // a usage error
    expect(wrong.output()).toContain('--cors: an origin such as http://127.0.0.1:5173');
  });

  it('signs in with the admin token and replicates the blog into each browser', async () => {
    for (const { page } of Object.values(tabs)) {
      await signIn(page, editorUrl, api, token);
      await page.getByRole('heading', { name: 'Posts', level: 1 }).waitFor();
      await eventually(() => syncLine(page).textContent()).toBe('Synced — nothing waits to be sent');
      expect(await page.locator('.brand').textContent()).toContain('blogcore demo');
    }
    // A second tab on the same store leaves the syncing to the first (one replica sends a store's writes).
    const second = await tabs.a.context.newPage();
    await second.goto(editorUrl);
    await eventually(() => syncLine(second).textContent()).toBe(
      'Synced by another tab of this editor — nothing waits to be sent',
    );
    await second.close();
    const ids = (await serverPosts()).map((p) => p.id);
    expect(ids.length).toBeGreaterThanOrEqual(3);
    await expectAllAgree(ids);
    await expectNoProblems();
  });

  it('keeps both offline edits: the first back wins, the other gets the conflict screen and keeps its text', async () => {
    const { a, b } = tabs;
    const target = (await serverPosts()).find((p) => p.status === 'LIVE')!;
    await a.context.setOffline(true);
    await b.context.setOffline(true);
    for (const { page } of [a, b]) await eventually(() => syncLine(page).textContent()).toMatch(/^Offline/);

    // A writes a new post and retitles the shared one; B rewrites the shared one's text (with hostile HTML).
    await a.page.goto(`${editorUrl}#/posts/new`);
    await a.page.getByLabel('Title').fill('Written on a train');
    await a.page.getByLabel('Labels').fill('travel');
    await (await htmlSource(a.page)).fill('<p>No signal since Lyon.</p>');
    await a.page.getByRole('button', { name: 'Publish now' }).click();
    await eventually(() => a.page.locator('.page-head .badge').textContent()).toBe('Published');
    await edit(a.page, target.id, { title: 'Retitled in A' });
    const hostile = '<p>B’s paragraph.</p><img src=x onerror="window.__owned=1">';
    await edit(b.page, target.id, { title: 'Retitled in B', content: hostile });
    // The top bar counts both (it once stayed at "1 change" under load), as does the Sync screen.
    await eventually(() => syncLine(a.page).textContent()).toBe(
      'Offline — 2 changes wait to be sent when you are back online',
    );
    // What waits in A, as its Sync screen reads it from the replica (the two items, in the order written).
    await a.page.goto(`${editorUrl}#/sync`);
    await eventually(() => a.page.locator('.pending-list li').allTextContents()).toEqual([
      'New post: Written on a train',
      'Changed post: Retitled in A',
    ]);
    await eventually(() => syncLine(b.page).textContent()).toBe(
      'Offline — 1 change waits to be sent when you are back online',
    );
    await b.page.goto(`${editorUrl}#/sync`);
    await eventually(() => b.page.locator('.pending-list li').allTextContents()).toEqual([
      `Changed post: Retitled in B`,
    ]);
    await b.page.screenshot({ path: join(shots, 'editor-sync-offline.png'), fullPage: true });
    expect((await serverPost(target.id)).title).toBe(target.title); // nothing left the browsers

    // A comes back first: its create and its edit reach the server.
    await a.context.setOffline(false);
    await eventually(() => syncLine(a.page).textContent()).toBe('Synced — nothing waits to be sent');
    expect((await serverPost(target.id)).title).toBe('Retitled in A');
    const created = (await serverPosts()).find((p) => p.title === 'Written on a train')!;
    expect(wireFields(created)).toEqual({
      title: 'Written on a train',
      content: '<p>No signal since Lyon.</p>',
      labels: ['travel'],
      status: 'LIVE',
    });

    // B comes back: its edit is refused (the server's copy moved), shown as a conflict with both texts.
    await b.context.setOffline(false);
    await eventually(() => syncLine(b.page).textContent()).toContain('1 conflict needs your choice');
    await b.page.getByRole('link', { name: '1 conflict needs your choice' }).click();
    const card = b.page.locator('.conflict').filter({ hasText: 'Retitled in A' });
    await card.waitFor();
    expect(await card.locator('.version').first().textContent()).toContain('Retitled in B');
    expect(await card.locator('.version').first().locator('pre').textContent()).toBe(hostile); // as text: nothing runs
    expect(await card.locator('.version').nth(1).textContent()).toContain('Retitled in A');
    expect(await b.page.evaluate(() => (window as { __owned?: number }).__owned)).toBeUndefined();
    await b.page.screenshot({ path: join(shots, 'editor-sync-conflict.png'), fullPage: true });
    expect((await serverPost(target.id)).title).toBe('Retitled in A'); // never a silent overwrite

    // "Keep my version": B's text goes to the server, and A (live) follows.
    await card.getByRole('button', { name: 'Keep my version' }).click();
    await eventually(() => syncLine(b.page).textContent()).toBe('Synced — nothing waits to be sent');
    await eventually(async () => (await serverPost(target.id)).title).toBe('Retitled in B');
    expect((await serverPost(target.id)).content).toBe(hostile);
    await expectAllAgree([target.id, created.id]);
    await expectNoProblems();
  });

  it('"Use the server’s version" drops the local edit and shows the winner everywhere', async () => {
    const { a, b } = tabs;
    const target = (await serverPosts()).find((p) => p.title === 'Written on a train')!;
    await a.context.setOffline(true);
    await b.context.setOffline(true);
    await edit(a.page, target.id, { content: '<p>A: arrived in Turin.</p>' });
    await edit(b.page, target.id, { content: '<p>B: still somewhere near Lyon.</p>' });
    await b.context.setOffline(false);
    await eventually(() => syncLine(b.page).textContent()).toBe('Synced — nothing waits to be sent');
    await a.context.setOffline(false);
    await eventually(() => syncLine(a.page).textContent()).toContain('1 conflict needs your choice');
    await a.page.goto(`${editorUrl}#/sync`);
    const card = a.page.locator('.conflict').filter({ hasText: 'Written on a train' });
    expect(await card.locator('.version').first().locator('pre').textContent()).toBe('<p>A: arrived in Turin.</p>');
    expect(await card.locator('.version').nth(1).locator('pre').textContent()).toBe(
      '<p>B: still somewhere near Lyon.</p>',
    );
    await card.getByRole('button', { name: 'Use the server’s version' }).click();
    await eventually(() => syncLine(a.page).textContent()).toBe('Synced — nothing waits to be sent');
    expect((await serverPost(target.id)).content).toBe('<p>B: still somewhere near Lyon.</p>');
    await expectAllAgree([target.id]);
    await expectNoProblems();
  });

  it('says when the server is down, keeps the edit, and sends it once the server is back', async () => {
    const { a } = tabs;
    const target = (await serverPosts()).find((p) => p.title === 'Written on a train')!;
    const port = new URL(api).port;
    await server!.stop('SIGKILL');
    await edit(a.page, target.id, { title: 'Saved while the server was down' });
    await eventually(() => syncLine(a.page).textContent()).toBe('Sync failed — 1 change waits to be sent');
    await a.page.goto(`${editorUrl}#/sync`);
    await a.page.locator('.problem-title').getByText('The server cannot be reached right now.').waitFor();

    server = start([
      'dist/cli.js',
      'serve',
      '--db',
      join(dir, 'blog.db'),
      '--port',
      port,
      '--host',
      '127.0.0.1',
      '--quiet',
      '--cors',
      new URL(editorUrl).origin,
    ]);
    await server.waitFor(/Ctrl\+C stops the server/);
    await a.page.getByRole('button', { name: 'Sync now' }).click();
    await eventually(() => syncLine(a.page).textContent()).toBe('Synced — nothing waits to be sent');
    expect((await serverPost(target.id)).title).toBe('Saved while the server was down');
    await expectAllAgree([target.id]);
    await expectNoProblems();
  });
});
