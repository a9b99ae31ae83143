/**
 * The editor's Comments screen against a spam run on a real server (docs/comments.md "Moderation at scale"):
 * `blogcore serve` on a temp SQLite file takes comments over HTTP from three client addresses of this machine
 * (127.0.0.2 floods, 127.0.0.3 is a reader, 127.0.0.4 sends links), and the owner, signed in to the editor in
 * Chromium, clears the run with two clicks: all pending from one address to spam, then all spam deleted. The
 * server is checked over HTTP after each.
 */
import { mkdtemp } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import type { PreviewServer } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../browser/serve.js';
import { requireBuild, type Proc } from '../http/spawn.js';
import { closeServed, serveDemo, serveEditor, signIn } from './editor-app.js';

let dir: string;
let site: PreviewServer | undefined;
let server: Proc | undefined;
let browser: Browser | undefined;
let page: Page;
const errors: Error[] = [];
let editorUrl: string;
let api: string;
let token: string;
let blogId: string;

/** An anonymous comment from one address of this machine; answers the status. */
function comment(postId: string, content: string, localAddress: string): Promise<number> {
  const body = JSON.stringify({ content, author: { displayName: `Sender at ${localAddress}` } });
  return new Promise((resolve, reject) => {
    const req = request(
      `${api}/blogs/${blogId}/posts/${postId}/comments`,
      {
        method: 'POST',
        localAddress,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode!));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** The server's comments of a status, as its ADMIN sees them: text and address. */
async function onServer(status: string): Promise<Array<[string, string | undefined]>> {
  const res = await fetch(`${api}/blogs/${blogId}/comments?status=${status}&maxResults=500`, {
    headers: { authorization: `Bearer ${token}` },
  });
  const list = (await res.json()) as { items?: Array<{ content: string; clientAddress?: string }> };
  return (list.items ?? []).map((c) => [c.content, c.clientAddress] as [string, string | undefined]).sort();
}

const eventually = <T>(fn: () => T | Promise<T>) => expect.poll(fn, { timeout: 20_000 });
const shownComments = async () => (await page.locator('.comment .comment-body').allTextContents()).sort();

beforeAll(async () => {
  requireBuild();
  dir = await mkdtemp(join(tmpdir(), 'blogcore-editor-comments-'));
  ({ site, editorUrl } = await serveEditor(join(dir, 'app')));
  ({ server, api, blogId, token } = await serveDemo(join(dir, 'blog.db'), editorUrl));
  browser = await launchChromium();
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  context.setDefaultTimeout(10_000);
  page = await context.newPage();
  page.on('pageerror', (error) => errors.push(error));
  page.on('dialog', (dialog) => void dialog.accept());
}, 120_000);

afterAll(() => closeServed({ browser, server, site, dir }));

describe('the editor clears a spam run on its server', { timeout: 120_000 }, () => {
  it('all pending from one address to spam, then all spam deleted: one click each', async () => {
    const posts = (await (await fetch(`${api}/blogs/${blogId}/posts`)).json()) as { items: Array<{ id: string }> };
    const postId = posts.items[0]!.id;
    const flood = [];
    for (let i = 0; i < 6; i++) flood.push(await comment(postId, `Cheap pills, offer ${i}`, '127.0.0.2'));
    // The server lets three in (the burst), then refuses the sender.
    expect(flood).toEqual([200, 200, 200, 429, 429, 429]);
    expect(await comment(postId, 'A thoughtful reply', '127.0.0.3')).toBe(200);
    const links = '<a href="https://a.example/">a</a> <a href="https://b.example/">b</a> https://c.example/';
    expect(await comment(postId, `Links ${links}`, '127.0.0.4')).toBe(200);
    const pendingBefore = await onServer('pending');
    expect(pendingBefore.filter(([, a]) => a === '127.0.0.2')).toHaveLength(3);

    await signIn(page, editorUrl, api, token);
    await page.getByRole('navigation', { name: 'Sections' }).waitFor();
    await page.goto(`${editorUrl}#/comments/pending`);
    // The replica pulls the queue; the rows say where each anonymous comment came from.
    await eventually(async () => {
      await page.goto(`${editorUrl}#/comments/pending`);
      await page.locator('.rows, .empty').first().waitFor();
      return (await page.locator('.comment .address').allTextContents()).sort();
    }).toEqual(['from 127.0.0.2', 'from 127.0.0.2', 'from 127.0.0.2', 'from 127.0.0.3']);

    await page
      .locator('.comment')
      .filter({ hasText: 'offer 0' })
      .getByRole('button', { name: 'Mark all pending from 127.0.0.2 as spam' })
      .click();
    await page.getByText('3 comments from 127.0.0.2 marked as spam.').waitFor();
    // The replica pulls the outcome: the run is gone from the queue, the reader is still in it.
    await eventually(async () => {
      const shown = await shownComments();
      return [shown.some((t) => t.startsWith('Cheap pills')), shown.includes('A thoughtful reply')];
    }).toEqual([false, true]);
    expect((await onServer('spam')).map(([, a]) => a)).toEqual(['127.0.0.2', '127.0.0.2', '127.0.0.2', '127.0.0.4']);

    await page.getByRole('navigation', { name: 'Comments by status' }).getByRole('link', { name: 'Spam' }).click();
    await page.getByRole('button', { name: 'Delete all spam' }).click();
    await page.getByText('4 spam comments deleted.').waitFor();
    expect(await onServer('spam')).toEqual([]);
    // The reader and the demo's own pending comment are still there to approve.
    expect(await onServer('pending')).toEqual(pendingBefore.filter(([, a]) => a !== '127.0.0.2'));
    expect(await page.locator('.problem').allTextContents()).toEqual([]);
    expect(errors).toEqual([]);
  });
});
