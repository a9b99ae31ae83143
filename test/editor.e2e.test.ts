/**
 * The offline browser editor (examples/browser-editor) end to end: Vite builds it and serves the build on
 * 127.0.0.1, Debian's Chromium (fresh profile) uses it as a person would — by labels, buttons and the words
 * on screen. Data lives in the page's IndexedDB only.
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { build, preview, type PreviewServer } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumArgs, chromiumPath, root } from './browser/serve.js';

const appRoot = join(root, 'examples/browser-editor');
const shots = join(root, 'test-output');

let outDir: string;
let profile: string;
let server: PreviewServer | undefined;
let url: string;
let context: BrowserContext;
let page: Page;
let postUrl: string;
const pageErrors: Error[] = [];

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

/** A tab of the editor that fails the test on any page error. */
async function newTab(): Promise<Page> {
  const tab = await context.newPage();
  tab.on('pageerror', (error) => pageErrors.push(error));
  tab.on('dialog', (dialog) => void dialog.accept());
  return tab;
}

/** The status badge next to the editor's heading. */
const editorBadge = (tab: Page) => tab.locator('.page-head .badge');
const toast = (tab: Page) => tab.locator('.toast');
const rowOf = (tab: Page, title: string) => tab.locator('.rows > li').filter({ has: tab.getByRole('link', { name: title, exact: true }) });

/** Nothing went wrong on the way: no problem shown to the person, no script error. */
async function expectNoProblems(tab: Page) {
  expect(await tab.locator('.problem').allTextContents()).toEqual([]);
  expect(pageErrors).toEqual([]);
}

beforeAll(async () => {
  outDir = await mkdtemp(join(tmpdir(), 'blogkit-editor-build-'));
  profile = await mkdtemp(join(tmpdir(), 'blogkit-editor-profile-'));
  await mkdir(shots, { recursive: true });
  const config = { root: appRoot, configFile: join(appRoot, 'vite.config.ts'), logLevel: 'warn' as const, build: { outDir, emptyOutDir: true } };
  await build(config);
  server = await preview({ ...config, preview: { host: '127.0.0.1', port: await freePort(), strictPort: true } });
  url = server.resolvedUrls!.local[0]!;
  context = await chromium.launchPersistentContext(profile, {
    executablePath: chromiumPath,
    args: chromiumArgs,
    headless: true,
    viewport: { width: 1280, height: 860 },
  });
  context.setDefaultTimeout(10_000);
  page = await newTab();
}, 60_000);

afterAll(async () => {
  await context?.close();
  await server?.close();
  await rm(outDir, { recursive: true, force: true });
  await rm(profile, { recursive: true, force: true });
});

describe('the offline browser editor', () => {
  it('creates a local blog on the first visit', async () => {
    await page.goto(url);
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Start a blog in this browser');
    await page.getByLabel('Your name').fill('Ada');
    await page.getByLabel('Blog name').fill('Field notes');
    await page.getByRole('button', { name: 'Create my blog' }).click();
    await page.getByRole('heading', { name: 'Posts', level: 1 }).waitFor();
    await page.getByText('No posts yet.').waitFor();
    expect(await page.locator('.brand').textContent()).toContain('Field notes');
  });

  it('saves a draft, publishes it, finds it by search, and still shows it LIVE after a reload', async () => {
    await page.getByRole('link', { name: 'New post' }).click();
    await page.getByLabel('Title').fill('Offline first');
    await page.getByLabel('Labels').fill('travel, notes');
    await page.getByLabel('Content (HTML)').fill('<p>Written on a train with no signal at all.</p>');
    await page.getByRole('button', { name: 'Save draft' }).click();
    await expect.poll(() => editorBadge(page).textContent()).toBe('Draft');
    expect(await toast(page).textContent()).toBe('Draft saved.');
    expect(page.url()).toMatch(/#\/posts\/edit\/\w+$/);
    postUrl = page.url();

    await page.getByRole('button', { name: 'Publish now' }).click();
    await expect.poll(() => editorBadge(page).textContent()).toBe('Published');
    await page.locator('.meta').getByText(/^\/\d{4}\/\d{2}\/offline-first\.html$/).waitFor();
    await page.screenshot({ path: join(shots, 'editor.png'), fullPage: true });

    await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Posts' }).click();
    await page.getByLabel('Search posts').fill('train signal');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByText('Results for “train signal” in all').waitFor();
    await expect.poll(() => rowOf(page, 'Offline first').locator('.badge').textContent()).toBe('Published');
    await page.getByLabel('Search posts').fill('aeroplane');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByText('No posts match.').waitFor();

    await page.reload();
    await page.getByText('No posts match.').waitFor();
    await page.getByRole('link', { name: 'Clear' }).click();
    await page.getByRole('link', { name: 'Published', exact: true }).click();
    await expect.poll(() => rowOf(page, 'Offline first').locator('.badge').textContent()).toBe('Published');
    await expectNoProblems(page);
  });

  it('moves the post to the trash and restores it', async () => {
    await rowOf(page, 'Offline first').getByRole('link', { name: 'Offline first' }).click();
    await page.getByRole('button', { name: 'Move to trash' }).click();
    await expect.poll(() => editorBadge(page).textContent()).toBe('In trash');
    expect(await page.getByLabel('Title').getAttribute('readonly')).not.toBeNull();

    await page.getByRole('link', { name: '← All posts' }).click();
    await page.getByText('No posts yet.').waitFor(); // gone from "All" (which leaves the trash out)
    await page.getByRole('link', { name: 'Trash' }).click();
    await rowOf(page, 'Offline first').getByRole('link', { name: 'Offline first' }).click();
    await page.getByRole('button', { name: 'Restore as draft' }).click();
    await expect.poll(() => editorBadge(page).textContent()).toBe('Draft');
    await page.getByRole('button', { name: 'Publish now' }).click();
    await expect.poll(() => editorBadge(page).textContent()).toBe('Published');
    await expectNoProblems(page);
  });

  it('takes a reader comment as pending and lets the owner approve it', async () => {
    await page.getByRole('link', { name: 'See it as a reader' }).click();
    await page.getByRole('heading', { name: 'Offline first', level: 1 }).waitFor();
    await page.getByLabel('Your name (optional)').fill('Grace');
    await page.getByLabel('Comment', { exact: true }).fill('Lovely post!');
    await page.getByRole('button', { name: 'Post comment' }).click();
    await page.getByText('Thanks! Your comment will appear here once the blog owner approves it.').waitFor();
    expect(await page.locator('.thread').count()).toBe(0); // readers do not see it yet

    await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Comments' }).click();
    const pending = page.locator('.comment').filter({ hasText: 'Lovely post!' });
    await expect.poll(() => pending.locator('.badge').textContent()).toBe('Pending');
    expect(await pending.textContent()).toContain('Grace');
    await pending.getByRole('button', { name: 'Approve' }).click();
    await page.getByText('No comments are waiting for approval.').waitFor();
    await page.getByRole('link', { name: 'Published', exact: true }).click();
    await page.locator('.comment').filter({ hasText: 'Lovely post!' }).waitFor();

    await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Reader view' }).click();
    await page.getByRole('link', { name: 'Offline first' }).click();
    await page.locator('.thread').getByText('Lovely post!').waitFor();
    await expectNoProblems(page);
  });

  it('shows the conflict when two tabs edit the same post, keeping the second tab’s text', async () => {
    const a = page;
    const b = await newTab();
    await a.goto(postUrl);
    await b.goto(postUrl);
    for (const tab of [a, b]) await expect.poll(() => tab.getByLabel('Title').inputValue()).toBe('Offline first');

    await a.getByLabel('Title').fill('Offline first, edited in tab A');
    await a.getByRole('button', { name: 'Update' }).click();
    await expect.poll(() => toast(a).textContent()).toBe('Saved.');

    const mine = '<p>Tab B’s paragraph, which must not be lost.</p>';
    await b.getByLabel('Content (HTML)').fill(mine);
    await b.getByRole('button', { name: 'Update' }).click();
    const conflict = b.locator('.conflict');
    await conflict.waitFor();
    expect(await conflict.getAttribute('role')).toBe('alert');
    expect(await conflict.textContent()).toContain('changed in another tab');
    expect(await b.getByLabel('Content (HTML)').inputValue()).toBe(mine);
    expect(await b.locator('.save-state').textContent()).toBe('Unsaved changes');
    await b.screenshot({ path: join(shots, 'editor-conflict.png'), fullPage: true });

    // Overwriting stores tab B's version on top of tab A's save.
    await b.getByRole('button', { name: 'Overwrite with my version' }).click();
    await expect.poll(() => b.locator('.conflict').count()).toBe(0);
    await expect.poll(() => b.locator('.save-state').textContent()).toBe('All changes saved');

    // Tab A now saves over a stale version: it too is told, and "reload" shows what B stored.
    await a.getByLabel('Labels').fill('travel, notes, trains');
    await a.getByRole('button', { name: 'Update' }).click();
    await a.locator('.conflict').waitFor();
    await a.getByRole('button', { name: 'Reload to see it' }).click();
    await expect.poll(() => a.getByLabel('Content (HTML)').inputValue()).toBe(mine);
    await expectNoProblems(a);
    await b.close();
  });

  it('opens from the service worker when the web server is gone, with the data still there', async () => {
    await page.evaluate(() => navigator.serviceWorker.ready.then(() => undefined));
    await page.goto(`${url}#/posts/live`);
    await server!.close();
    server = undefined;
    await expect(fetch(url)).rejects.toThrow();
    await page.reload();
    await expect.poll(() => rowOf(page, 'Offline first').locator('.badge').textContent()).toBe('Published');
    await expectNoProblems(page);
  });
});
