/**
 * The example editor's first posts on a server (issue 33): signed in to a running `blogcore serve`, a new post
 * published at once, and another saved as a draft, each stays on the screen after the replica sends it and the
 * post takes its server id (the address follows it); the server holds each; an edit after the move is saved
 * to the same post; and an address naming the id a post had before it was sent still opens it.
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import type { PreviewServer } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../browser/serve.js';
import { requireBuild, type Proc } from '../http/spawn.js';
import { closeServed, serveDemo, serveEditor, signIn } from './editor-app.js';

interface WirePost {
  id: string;
  title: string;
  content: string;
  status: string;
}

let dir: string;
let site: PreviewServer | undefined;
let server: Proc | undefined;
let browser: Browser | undefined;
let page: Page;
let editorUrl: string;
let api: string;
let token: string;
let blogId: string;
const errors: Error[] = [];

/** A sync crosses processes and the network: seconds on a busy machine. */
const eventually = <T>(fn: () => T | Promise<T>) => expect.poll(fn, { timeout: 20_000 });

async function serverPosts(): Promise<WirePost[]> {
  const res = await fetch(`${api}/blogs/${blogId}/posts?status=live,draft,scheduled&view=ADMIN&maxResults=50`, {
    headers: { authorization: `Bearer ${token}` },
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { items?: WirePost[] }).items ?? [];
}
const onServer = async (title: string) => (await serverPosts()).find((p) => p.title === title);

const syncLine = () => page.locator('.sync-status').textContent();
const shownId = () => /#\/posts\/edit\/([^/?]+)$/.exec(page.url())?.[1];

/** What the screen shows: the editor's heading, title, badge and problems. */
async function screen() {
  return {
    heading: await page.getByRole('heading', { level: 1 }).textContent(),
    title: await page.getByLabel('Title').inputValue(),
    badge: await page.locator('.page-head .badge').textContent(),
    problems: await page.locator('.problem').allTextContents(),
  };
}

/** Writes a new post and presses `button`; answers the post as the server holds it once the replica sent it. */
async function newPost(title: string, button: 'Publish now' | 'Save draft', toast: string) {
  await page.goto(`${editorUrl}#/posts/new`);
  await page.getByLabel('Title').fill(title);
  await page.getByRole('textbox', { name: 'Content', exact: true }).click();
  await page.keyboard.type(`${title}, written in the editor.`);
  await page.getByRole('button', { name: button }).click();
  await eventually(() => page.locator('.toast').textContent()).toBe(toast);
  await eventually(() => onServer(title)).toBeDefined();
  const sent = (await onServer(title))!;
  await eventually(syncLine).toBe('Synced — nothing waits to be sent');
  // The screen follows the post to its server id, and still shows it after the sync redraws the view.
  await eventually(shownId).toBe(sent.id);
  return sent;
}

beforeAll(async () => {
  requireBuild();
  dir = await mkdtemp(join(tmpdir(), 'blogcore-editor-first-post-'));
  ({ site, editorUrl } = await serveEditor(join(dir, 'app')));
  ({ server, api, blogId, token } = await serveDemo(join(dir, 'blog.db'), editorUrl));
  browser = await launchChromium();
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  context.setDefaultTimeout(10_000);
  page = await context.newPage();
  page.on('pageerror', (error) => errors.push(error));
}, 90_000);

afterAll(() => closeServed({ browser, server, site, dir }));

describe('the first posts written in the editor, signed in to blogcore serve', { timeout: 90_000 }, () => {
  it('signs in with the admin token', async () => {
    await signIn(page, editorUrl, api, token);
    await page.getByRole('heading', { name: 'Posts', level: 1 }).waitFor();
    await eventually(syncLine).toBe('Synced — nothing waits to be sent');
  });

  it('"Publish now" on a new post: the screen keeps showing it, published, and the server holds it', async () => {
    const sent = await newPost('Hello from the editor', 'Publish now', 'Published.');
    expect(sent.status).toBe('LIVE');
    // Let a later round of the sync redraw the view too: the post is still what the screen shows.
    await page.waitForTimeout(1_500);
    expect(await screen()).toEqual({
      heading: 'Edit post',
      title: 'Hello from the editor',
      badge: 'Published',
      problems: [],
    });
    expect(shownId()).toBe(sent.id);
  });

  it('"Save draft" on a new post: the screen keeps showing the draft, and the server holds it', async () => {
    const sent = await newPost('A draft from the editor', 'Save draft', 'Draft saved.');
    expect(sent.status).toBe('DRAFT');
    await page.waitForTimeout(1_500);
    expect(await screen()).toEqual({
      heading: 'Edit post',
      title: 'A draft from the editor',
      badge: 'Draft',
      problems: [],
    });

    // Edited and published after its move: the same post on the server, no copy.
    await page.getByLabel('Title').fill('A draft, then published');
    await page.getByRole('button', { name: 'Publish now' }).click();
    await eventually(() => page.locator('.toast').textContent()).toBe('Published.');
    await eventually(async () => {
      const p = await onServer('A draft, then published');
      return p && [p.id, p.status];
    }).toEqual([sent.id, 'LIVE']);
    expect(await onServer('A draft from the editor')).toBeUndefined();
    await eventually(syncLine).toBe('Synced — nothing waits to be sent');
    expect(await screen()).toMatchObject({ title: 'A draft, then published', badge: 'Published', problems: [] });
  });

  it('written offline: its local address still opens it after it was sent', async () => {
    await page.context().setOffline(true);
    await eventually(syncLine).toMatch(/^Offline/);
    await page.goto(`${editorUrl}#/posts/new`);
    await page.getByLabel('Title').fill('Written offline');
    await page.getByRole('button', { name: 'Save draft' }).click();
    await eventually(() => page.locator('.page-head .badge').textContent()).toBe('Draft');
    const localAddress = page.url();
    const localId = shownId();
    expect(localId).toBeTruthy();

    // Typed, not saved, while the post is sent: the form keeps it, and its save goes to the same post.
    await page.getByLabel('Title').fill('Written offline, then more');
    await page.context().setOffline(false);
    await eventually(() => onServer('Written offline')).toBeDefined();
    const sent = (await onServer('Written offline'))!;
    expect(sent.id).not.toBe(localId);
    await eventually(shownId).toBe(sent.id);
    await eventually(syncLine).toBe('Synced — nothing waits to be sent');
    expect(await screen()).toEqual({
      heading: 'Edit post',
      title: 'Written offline, then more',
      badge: 'Draft',
      problems: [],
    });
    await page.getByRole('button', { name: 'Save draft' }).click();
    await eventually(() => page.locator('.toast').textContent()).toBe('Saved.');
    await eventually(async () => (await onServer('Written offline, then more'))?.id).toBe(sent.id);
    expect(await page.locator('.conflict').count()).toBe(0);
    await page.getByLabel('Title').fill('Written offline');
    await page.getByRole('button', { name: 'Save draft' }).click();
    await eventually(async () => (await onServer('Written offline'))?.id).toBe(sent.id);
    await eventually(syncLine).toBe('Synced — nothing waits to be sent');

    // A bookmark (or the back button) naming the local id opens the post at its server id.
    await page.goto(`${editorUrl}#/posts`);
    await page.getByRole('heading', { name: 'Posts', level: 1 }).waitFor();
    await page.goto(localAddress);
    await eventually(shownId).toBe(sent.id);
    expect(await screen()).toEqual({ heading: 'Edit post', title: 'Written offline', badge: 'Draft', problems: [] });
    expect(errors).toEqual([]);
  });

  it("published offline: the reader view and the post's comments, at addresses naming its local id, show it", async () => {
    await page.context().setOffline(true);
    await eventually(syncLine).toMatch(/^Offline/);
    await page.goto(`${editorUrl}#/posts/new`);
    await page.getByLabel('Title').fill('Published offline');
    await page.getByRole('button', { name: 'Publish now' }).click();
    await eventually(() => page.locator('.page-head .badge').textContent()).toBe('Published');
    const localId = shownId()!;
    await page.context().setOffline(false);
    await eventually(() => onServer('Published offline')).toBeDefined();
    const sent = (await onServer('Published offline'))!;
    expect(sent.id).not.toBe(localId);
    await eventually(syncLine).toBe('Synced — nothing waits to be sent');

    await page.goto(`${editorUrl}#/read/post/${localId}`);
    await eventually(() => page.locator('.reader-main h1').first().textContent()).toBe('Published offline');
    expect(await page.locator('.problem').allTextContents()).toEqual([]);
    await page.goto(`${editorUrl}#/comments/pending?post=${localId}`);
    await eventually(() => page.locator('.comments-view .hint').first().textContent()).toMatch(
      /^Comments on “Published offline”/,
    );
    expect(await page.locator('.problem').allTextContents()).toEqual([]);
    expect(errors).toEqual([]);
  });

  it('a change on the server to the open post: shown in place, or — with text typed — noted, the text kept', async () => {
    const post = (await onServer('Hello from the editor'))!;
    const patch = (body: Partial<WirePost>) =>
      fetch(`${api}/blogs/${blogId}/posts/${post.id}`, {
        method: 'PATCH',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      }).then((res) => expect(res.status).toBe(200));
    await page.goto(`${editorUrl}#/posts/edit/${post.id}`);
    await eventually(() => page.getByLabel('Title').inputValue()).toBe('Hello from the editor');
    // The form the person types in is never swapped for a new one by a sync: marked here, checked below.
    await page.getByLabel('Title').evaluate((el) => el.setAttribute('data-mark', 'kept'));

    await patch({ title: 'Retitled on the server' });
    await eventually(() => page.getByLabel('Title').inputValue()).toBe('Retitled on the server');
    await eventually(() => page.locator('.toast').textContent()).toBe('Updated with a change from the server.');

    await page.getByLabel('Title').fill('Typed here, not saved');
    await patch({ content: '<p>Changed on the server again.</p>' });
    await eventually(() => page.locator('.note').first().textContent()).toMatch(
      /^This post was just changed on the server/,
    );
    expect(await page.getByLabel('Title').inputValue()).toBe('Typed here, not saved');
    expect(await page.getByLabel('Title').getAttribute('data-mark')).toBe('kept');
    expect(errors).toEqual([]);
  });
});
