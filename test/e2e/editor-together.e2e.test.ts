/**
 * Writing together in the browser editor, end to end: `blogcore serve` (dist/cli.js) on a temp SQLite file, the
 * editor's Vite build, two Chromium contexts signed in to the same blog, both on one post's "Write together" view.
 * Both type into the same paragraph at once and converge; each sees the other's cursor and name; one goes offline,
 * both type 200 characters, it comes back, and no character is lost — on the screens and in the stored post.
 * A screenshot of the two cursors goes to test-output/editor-together.png (docs/collab.md shows one taken so).
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import type { PreviewServer } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, root } from '../browser/serve.js';
import { requireBuild, type Proc } from '../http/spawn.js';
import { closeServed, serveDemo, serveEditor } from './editor-app.js';

let dir: string;
let site: PreviewServer | undefined;
let server: Proc | undefined;
let browser: Browser | undefined;
let editorUrl: string;
let api: string;
let token: string;
let blogId: string;
let postId: string;
const pages: Page[] = [];
const errors: Error[] = [];

const eventually = <T>(fn: () => T | Promise<T>) => expect.poll(fn, { timeout: 30_000 });
/** The first paragraph's text as the editor shows it, without the others' caret labels drawn inside it. */
const text = (page: Page) =>
  page
    .locator('.together-surface .ProseMirror p')
    .first()
    .evaluate((p) => {
      const copy = p.cloneNode(true) as HTMLElement;
      for (const caret of copy.querySelectorAll('.collaboration-carets__caret')) caret.remove();
      return copy.textContent ?? '';
    });

async function storedContent(): Promise<string> {
  const res = await fetch(`${api}/blogs/${blogId}/posts/${postId}?view=ADMIN`, {
    headers: { authorization: `Bearer ${token}` },
  });
  return ((await res.json()) as { content: string }).content;
}

beforeAll(async () => {
  requireBuild();
  dir = await mkdtemp(join(tmpdir(), 'blogcore-editor-together-'));
  ({ site, editorUrl } = await serveEditor(join(dir, 'app')));
  ({ server, api, blogId, token } = await serveDemo(join(dir, 'blog.db'), editorUrl));
  const made = await fetch(`${api}/blogs/${blogId}/posts`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ title: 'On the train', content: '<p>Start.</p>' }),
  });
  postId = ((await made.json()) as { id: string }).id;
  browser = await launchChromium();
  for (let i = 0; i < 2; i++) {
    const context = await browser.newContext({ viewport: { width: 1100, height: 700 } });
    context.setDefaultTimeout(15_000);
    const page = await context.newPage();
    page.on('pageerror', (error) => errors.push(error));
    page.on('dialog', (dialog) => void dialog.accept());
    await page.goto(editorUrl);
    await page.getByText('Or edit a blog on a blogcore server').click();
    await page.getByLabel('Server address').fill(api.replace(/\/v3$/, ''));
    await page.getByLabel('Token').fill(token);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Posts', level: 1 }).waitFor();
    await page.locator('.sync-status', { hasText: 'Synced — nothing waits to be sent' }).waitFor({ timeout: 60_000 });
    pages.push(page);
  }
}, 180_000);

afterAll(() => closeServed({ browser, server, site, dir }));

describe('writing a post together in the editor', { timeout: 180_000 }, () => {
  it('opens the post from its editor, shows who else is there, and both cursors', async () => {
    for (const page of pages) {
      await page.goto(`${editorUrl}#/posts/edit/${postId}`);
      await page.getByRole('link', { name: 'Write together' }).click();
      await page.getByRole('heading', { name: 'Writing together' }).waitFor();
      await eventually(() => text(page)).toBe('Start.');
    }
    // Each sees the other: the header names them, and their caret is drawn in the text.
    for (const page of pages) {
      await eventually(() => page.locator('.together-people').textContent()).toMatch(/^Editing with /);
    }
    await pages[0]!.locator('.together-surface .ProseMirror').click();
    await pages[0]!.keyboard.press('End');
    await pages[1]!.locator('.together-surface .ProseMirror').click();
    await pages[1]!.keyboard.press('Home');
    for (const page of pages) await eventually(() => page.locator('.collaboration-carets__caret').count()).toBe(1);
  });

  it('both type into the same paragraph at once and converge', async () => {
    const [a, b] = pages as [Page, Page];
    await Promise.all([a.keyboard.type(' Ada was here.', { delay: 15 }), b.keyboard.type('Bob: ', { delay: 15 })]);
    await eventually(() => text(a)).toBe('Bob: Start. Ada was here.');
    await eventually(() => text(b)).toBe('Bob: Start. Ada was here.');
    await eventually(storedContent).toBe('<p>Bob: Start. Ada was here.</p>');
    await a.screenshot({ path: join(root, 'test-output/editor-together.png') });
  });

  it('one goes offline, both type 200 characters, it reconnects: no character is lost', async () => {
    const [a, b] = pages as [Page, Page];
    await a.context().setOffline(true);
    const typedA = 'a'.repeat(100) + 'A'.repeat(100);
    const typedB = 'b'.repeat(100) + 'B'.repeat(100);
    await a.keyboard.press('End');
    await b.keyboard.press('End');
    await Promise.all([a.keyboard.type(typedA), b.keyboard.type(typedB)]);
    await eventually(() => a.locator('.save-state').textContent()).toMatch(/^Offline/);
    await a.context().setOffline(false);
    for (const page of pages) {
      await eventually(async () => {
        const t = await text(page);
        return t.includes(typedA) && t.includes(typedB) && t.length === 'Bob: Start. Ada was here.'.length + 400;
      }).toBe(true);
    }
    expect(await text(a)).toBe(await text(b));
    await eventually(
      async () => (await storedContent()).includes(typedA) && (await storedContent()).includes(typedB),
    ).toBe(true);
    expect(errors).toEqual([]);
  });
});
