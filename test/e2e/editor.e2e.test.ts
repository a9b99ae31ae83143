/**
 * The offline browser editor (examples/browser-editor) end to end: Vite builds it and serves the build on
 * 127.0.0.1, Debian's Chromium (fresh profile) uses it as a person would — by labels, buttons and the words
 * on screen. Data lives in the page's IndexedDB only.
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import type { PreviewServer } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumArgs, chromiumPath, root } from '../browser/serve.js';
import { serveEditor } from './editor-app.js';

const shots = join(root, 'test-output');

let outDir: string;
let profile: string;
let server: PreviewServer | undefined;
let url: string;
let context: BrowserContext;
let page: Page;
let postUrl: string;
const pageErrors: Error[] = [];

/** A tab of the editor that fails the test on any page error. */
async function newTab(): Promise<Page> {
  const tab = await context.newPage();
  tab.on('pageerror', (error) => pageErrors.push(error));
  tab.on('dialog', (dialog) => void dialog.accept());
  return tab;
}

/** The post's HTML: the content field's HTML tab (opened if it is not). */
async function htmlSource(tab: Page) {
  const open = tab.getByRole('tab', { name: 'HTML' });
  if ((await open.getAttribute('aria-selected')) !== 'true') await open.click();
  return tab.getByLabel('Content (HTML)');
}

/** The status badge next to the editor's heading. */
const editorBadge = (tab: Page) => tab.locator('.page-head .badge');
const toast = (tab: Page) => tab.locator('.toast');
const rowOf = (tab: Page, title: string) =>
  tab.locator('.rows > li').filter({ has: tab.getByRole('link', { name: title, exact: true }) });

/** Nothing went wrong on the way: no problem shown to the person, no script error. */
async function expectNoProblems(tab: Page) {
  expect(await tab.locator('.problem').allTextContents()).toEqual([]);
  expect(pageErrors).toEqual([]);
}

beforeAll(async () => {
  outDir = await mkdtemp(join(tmpdir(), 'blogcore-editor-build-'));
  profile = await mkdtemp(join(tmpdir(), 'blogcore-editor-profile-'));
  await mkdir(shots, { recursive: true });
  ({ site: server, editorUrl: url } = await serveEditor(outDir));
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
    await page.screenshot({ path: join(shots, 'editor-welcome.png') });
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
    // Written as rich text: a heading, a paragraph with a bold word; stored as the post's HTML.
    await page.getByRole('textbox', { name: 'Content', exact: true }).click();
    await page.keyboard.press('Control+Alt+2');
    await page.keyboard.type('On the train');
    await page.keyboard.press('Enter');
    await page.keyboard.type('Written on a train with ');
    await page.getByRole('button', { name: 'Bold' }).click();
    await page.keyboard.type('no signal');
    await page.getByRole('button', { name: 'Bold' }).click();
    await page.keyboard.type(' at all.');
    await page.getByRole('button', { name: 'Save draft' }).click();
    await expect.poll(() => editorBadge(page).textContent()).toBe('Draft');
    expect(await toast(page).textContent()).toBe('Draft saved.');
    expect(page.url()).toMatch(/#\/posts\/edit\/\w+$/);
    postUrl = page.url();

    await page.getByRole('button', { name: 'Publish now' }).click();
    await expect.poll(() => editorBadge(page).textContent()).toBe('Published');
    await page
      .locator('.meta')
      .getByText(/^\/\d{4}\/\d{2}\/offline-first\.html$/)
      .waitFor();
    await page.screenshot({ path: join(shots, 'editor.png'), fullPage: true });
    expect(await (await htmlSource(page)).inputValue()).toBe(
      '<h2>On the train</h2>\n<p>Written on a train with <strong>no signal</strong> at all.</p>',
    );

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
    await page.screenshot({ path: join(shots, 'editor-reader.png'), fullPage: true });
    await expectNoProblems(page);
  });

  it('shows the conflict when two tabs edit the same post, keeping the second tab’s text', async () => {
    const a = page;
    const b = await newTab();
    await a.goto(postUrl);
    await b.goto(postUrl);
    for (const tab of [a, b]) await expect.poll(() => tab.getByLabel('Title').inputValue()).toBe('Offline first');

    // Both tabs edit the same post; tab A saves first.
    await a.getByLabel('Title').fill('Offline first, edited in tab A');
    const mine = '<p>Tab B’s paragraph, which must not be lost.</p>';
    await (await htmlSource(b)).fill(mine);
    await a.getByRole('button', { name: 'Update' }).click();
    await expect.poll(() => toast(a).textContent()).toBe('Saved.');

    // Tab B hears of it at once, and its save is refused with the conflict instead of overwriting A's title.
    await b.locator('.remote-slot').getByText('was just changed in another tab').waitFor();
    await b.getByRole('button', { name: 'Update' }).click();
    const conflict = b.locator('.conflict');
    await conflict.waitFor();
    expect(await conflict.getAttribute('role')).toBe('alert');
    expect(await conflict.textContent()).toContain('changed in another tab');
    expect(await (await htmlSource(b)).inputValue()).toBe(mine);
    expect(await b.locator('.save-state').textContent()).toBe('Unsaved changes');
    await b.screenshot({ path: join(shots, 'editor-conflict.png'), fullPage: true });

    // "Reload" shows A's save and drops B's text; here B overwrites instead, knowingly.
    await b.getByRole('button', { name: 'Overwrite with my version' }).click();
    await expect.poll(() => b.locator('.save-state').textContent()).toBe('All changes saved');
    expect(await b.locator('.conflict').count()).toBe(0);

    // Tab A had nothing unsaved, so it simply shows what B stored.
    await expect.poll(async () => (await htmlSource(a)).inputValue()).toBe(mine);
    expect(await a.getByLabel('Title').inputValue()).toBe('Offline first');
    await expectNoProblems(a);
    await expectNoProblems(b);
    await b.close();
  });

  it('says in words what the service refused, and keeps the text', async () => {
    await page.getByRole('link', { name: '← All posts' }).click();
    await page.getByRole('link', { name: 'New post' }).click();
    await page.getByLabel('Title').fill('Too long a label');
    await page.getByLabel('Labels').fill(`fine, ${'x'.repeat(201)}`);
    await page.getByRole('button', { name: 'Save draft' }).click();
    const problem = page.locator('.problem');
    await problem.waitFor();
    expect(await problem.locator('.problem-title').textContent()).toBe('Please check what you entered.');
    expect(await problem.locator('.problem-detail').textContent()).toMatch(/labels.*at most 200 characters/);
    expect(await page.getByLabel('Title').inputValue()).toBe('Too long a label');
    await page.getByRole('button', { name: 'Dismiss this message' }).click();
    expect(await page.locator('.problem').count()).toBe(0);
    await page.getByLabel('Labels').fill('fine');
    await page.keyboard.press('Control+s'); // the keyboard way to save
    await expect.poll(() => editorBadge(page).textContent()).toBe('Draft');
    await expectNoProblems(page);
  });

  it("checks the form by the service's rules before saving: the field at fault is marked, nothing is written", async () => {
    await page.getByRole('link', { name: '← All posts' }).click();
    await page.getByRole('link', { name: 'New post' }).click();
    await page.getByLabel('Title').fill('Checked in the page');
    await page.getByLabel('Labels').fill(`fine, ${'y'.repeat(201)}`);
    await page.getByRole('button', { name: 'Save draft' }).click();
    // The service's own words (blogcore/schema's parse), before any write: the post stays new.
    expect(await page.locator('.problem .problem-detail').textContent()).toBe(
      'Invalid value for labels: must be at most 200 characters (400 invalid · labels)',
    );
    expect(await page.getByLabel('Labels').getAttribute('aria-invalid')).toBe('true');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('labels');
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('New post');
    await page.getByLabel('Labels').fill('fine');
    expect(await page.getByLabel('Labels').getAttribute('aria-invalid')).toBeNull();
    // Leave without saving (the "unsaved changes" question is accepted): the list never had it.
    await page.getByRole('link', { name: '← All posts' }).click();
    await rowOf(page, 'Too long a label').waitFor();
    expect(await rowOf(page, 'Checked in the page').count()).toBe(0);
    await page.getByRole('link', { name: 'Too long a label', exact: true }).click(); // back in an editor, as the next test expects
    await expectNoProblems(page);
  });

  it('schedules a post for a later date; readers do not see it yet', async () => {
    const nextWeek = new Date(Date.now() + 7 * 24 * 3600_000);
    const pad = (n: number) => String(n).padStart(2, '0');
    const local = `${nextWeek.getFullYear()}-${pad(nextWeek.getMonth() + 1)}-${pad(nextWeek.getDate())}T09:30`;
    await page.getByRole('link', { name: '← All posts' }).click();
    await page.getByRole('link', { name: 'New post' }).click();
    await page.getByLabel('Title').fill('Next week');
    await (await htmlSource(page)).fill('<p>Coming soon.</p>');
    await page.getByLabel('Date and time').fill(local);
    await page.getByRole('button', { name: 'Schedule' }).click();
    await expect.poll(() => editorBadge(page).textContent()).toBe('Scheduled');
    expect(await page.locator('.meta').textContent()).toContain('Goes live');
    expect(await page.getByLabel('Date and time').inputValue()).toBe(local);

    await page.getByRole('link', { name: '← All posts' }).click();
    await page.getByRole('link', { name: 'Scheduled', exact: true }).click();
    await expect.poll(() => rowOf(page, 'Next week').locator('.badge').textContent()).toBe('Scheduled');
    await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Reader view' }).click();
    // Within the reader view (a busy machine may still show the list left: it holds both links).
    const reader = page.locator('.reader-view');
    await reader.getByRole('link', { name: 'Offline first' }).waitFor();
    expect(await reader.getByRole('link', { name: 'Next week' }).count()).toBe(0);
    await expectNoProblems(page);
  });

  it('pages through the posts with Older and Newer', async () => {
    for (let i = 1; i <= 9; i++) {
      await page.goto(`${url}#/posts/new`);
      await page.getByLabel('Title').fill(`Note ${i}`);
      await page.getByRole('button', { name: 'Save draft' }).click();
      await expect.poll(() => editorBadge(page).textContent()).toBe('Draft');
    }
    // 12 posts (1 published, 1 scheduled, 10 drafts), the last edited first, 10 to a page.
    await page.goto(`${url}#/posts/all`);
    const titles = () => page.locator('.rows .row-title').allTextContents();
    await expect.poll(async () => (await titles()).length).toBe(10);
    expect((await titles())[0]).toBe('Note 9');
    await page.getByRole('link', { name: 'Older →' }).click();
    await expect.poll(titles).toEqual(['Too long a label', 'Offline first']);
    expect(await page.getByRole('link', { name: 'Older →' }).count()).toBe(0);
    await page.getByRole('link', { name: '← Newer' }).click();
    await expect.poll(async () => (await titles()).length).toBe(10);
    expect((await titles())[0]).toBe('Note 9');
    await page.screenshot({ path: join(shots, 'editor-posts.png'), fullPage: true });
    await expectNoProblems(page);
  });

  it('manages pages: draft, publish, revert, trash, restore and delete for good', async () => {
    await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Pages' }).click();
    await page.getByText('No pages here yet.').waitFor();
    await page.getByRole('link', { name: 'New page' }).click();
    await page.getByLabel('Title').fill('About');
    await (await htmlSource(page)).fill('<p>Who writes here, and why.</p>');
    await page.getByRole('button', { name: 'Save draft' }).click();
    await expect.poll(() => editorBadge(page).textContent()).toBe('Draft');
    await page.getByRole('button', { name: 'Publish now' }).click();
    await expect.poll(() => editorBadge(page).textContent()).toBe('Published');
    await page.locator('.meta').getByText('/p/about.html').waitFor();
    await page.getByRole('button', { name: 'Revert to draft' }).click();
    await expect.poll(() => editorBadge(page).textContent()).toBe('Draft');
    await page.getByRole('button', { name: 'Move to trash' }).click();
    await expect.poll(() => editorBadge(page).textContent()).toBe('In trash');
    await page.getByRole('button', { name: 'Restore as draft' }).click();
    await expect.poll(() => editorBadge(page).textContent()).toBe('Draft');
    await page.getByRole('button', { name: 'Publish now' }).click();
    await expect.poll(() => editorBadge(page).textContent()).toBe('Published');

    await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Reader view' }).click();
    await page.getByRole('navigation', { name: 'Pages of the blog' }).getByRole('link', { name: 'About' }).click();
    await page.getByRole('heading', { name: 'About', level: 1 }).waitFor();

    await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Pages' }).click();
    await rowOf(page, 'About').getByRole('link', { name: 'About' }).click();
    await page.getByRole('button', { name: 'Delete forever' }).click(); // the confirm() is accepted
    await page.getByText('No pages here yet.').waitFor();
    expect(await toast(page).textContent()).toBe('Page deleted for good.');
    await expectNoProblems(page);
  });

  it('moderates comments: spam, remove content, delete', async () => {
    await page.goto(`${url}#/read`);
    await page.getByRole('link', { name: 'Offline first' }).click();
    await page.getByLabel('Comment', { exact: true }).fill('Cheap pills here');
    await page.getByRole('button', { name: 'Post comment' }).click();
    await page.getByText('Thanks! Your comment will appear').waitFor();

    await page.goto(`${url}#/comments/pending`);
    const spam = page.locator('.comment').filter({ hasText: 'Cheap pills here' });
    expect(await spam.textContent()).toContain('Anonymous');
    await page.screenshot({ path: join(shots, 'editor-comments.png'), fullPage: true });
    await spam.getByRole('button', { name: 'Mark as spam' }).click();
    await page.getByText('No comments are waiting for approval.').waitFor();
    await page.getByRole('link', { name: 'Spam', exact: true }).click();
    await page
      .locator('.comment')
      .filter({ hasText: 'Cheap pills here' })
      .getByRole('button', { name: 'Delete' })
      .click();
    await page.getByText('No comments here.').waitFor();

    // A run of link spam (filed SPAM by the blog's rules) goes in one click.
    for (const n of [1, 2]) {
      await page.goto(`${url}#/read`);
      await page.getByRole('link', { name: 'Offline first' }).click();
      await page
        .getByLabel('Comment', { exact: true })
        .fill(`Offer ${n}: https://a.example/ https://b.example/ https://c.example/`);
      await page.getByRole('button', { name: 'Post comment' }).click();
      await page.getByText('Thanks! Your comment will appear').waitFor();
    }
    await page.goto(`${url}#/comments/spam`);
    await page.locator('.comment').filter({ hasText: 'Offer 2' }).waitFor();
    await page.getByRole('button', { name: 'Delete all spam' }).click();
    await page.getByText('2 spam comments deleted.').waitFor();
    await page.getByText('No comments here.').waitFor();

    await page.getByRole('link', { name: 'Published', exact: true }).click();
    await page
      .locator('.comment')
      .filter({ hasText: 'Lovely post!' })
      .getByRole('button', { name: 'Remove content' })
      .click();
    await page.getByText('No comments here.').waitFor();
    await page.getByRole('link', { name: 'Removed', exact: true }).click();
    const removed = page.locator('.comment').filter({ hasText: 'Grace' });
    expect(await removed.textContent()).toContain('Content removed');

    // From the post's editor, moderation opens filtered to that post.
    await page.goto(postUrl);
    await page.locator('.meta').getByRole('link', { name: 'moderate' }).click();
    await page.getByText('Comments on “Offline first”.').waitFor();
    await page.getByRole('link', { name: 'Removed', exact: true }).click();
    await page.locator('.comment').filter({ hasText: 'Grace' }).waitFor();
    await expectNoProblems(page);
  });

  it('works offline after one online visit, chunks it never loaded included', async () => {
    // A browser that saw the editor once, on its welcome screen: the rich text editor and the calls that make a
    // blog are chunks it has not loaded yet.
    const dir = await mkdtemp(join(tmpdir(), 'blogcore-editor-first-visit-'));
    const other = await chromium.launchPersistentContext(dir, {
      executablePath: chromiumPath,
      args: chromiumArgs,
      headless: true,
    });
    other.setDefaultTimeout(10_000);
    try {
      const tab = other.pages()[0] ?? (await other.newPage());
      const errors: Error[] = [];
      tab.on('pageerror', (error) => errors.push(error));
      await tab.goto(url);
      await tab.getByRole('heading', { name: 'Start a blog in this browser', level: 1 }).waitFor();
      await tab.evaluate(() => navigator.serviceWorker.ready.then(() => undefined));
      const loaded = await tab.evaluate(() => performance.getEntriesByType('resource').map((e) => e.name));
      expect(loaded.filter((name) => /\/assets\/editor-[\w-]+\.js$/.test(name))).toEqual([]);

      await other.setOffline(true);
      await tab.reload();
      await tab.getByLabel('Your name').fill('Lin');
      await tab.getByLabel('Blog name').fill('Notes from nowhere');
      await tab.getByRole('button', { name: 'Create my blog' }).click();
      await tab.getByRole('link', { name: 'New post' }).click();
      await tab.getByLabel('Title').fill('No network at all');
      await tab.getByRole('textbox', { name: 'Content', exact: true }).click();
      await tab.keyboard.type('Typed offline in a part of the app never opened online.');
      await tab.getByRole('button', { name: 'Save draft' }).click();
      await expect.poll(() => editorBadge(tab).textContent()).toBe('Draft');
      expect(await tab.locator('.problem').allTextContents()).toEqual([]);
      expect(errors).toEqual([]);
    } finally {
      await other.close();
      await rm(dir, { recursive: true, force: true });
    }
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
