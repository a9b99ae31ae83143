/**
 * Pictures in the browser editor, offline, end to end: `blogcore serve` (dist/cli.js) on a temp SQLite file
 * holding a post with a picture, the editor's Vite build served on another port, one Chromium profile. The
 * editor is opened once online (sign-in, first sync, the picture's bytes copied in); then, with the network
 * off, the page is reloaded (from its service worker), the post opened with its picture shown from the local
 * store, a picture pasted and one picked with the file chooser (each with alt text), and the post edited and
 * saved. Back online it syncs: the server holds both pictures byte for byte and the post names them.
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, CDPSession, Page } from 'playwright-core';
import type { PreviewServer } from 'vite';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { launchChromium, root } from '../browser/serve.js';
import { requireBuild, type Proc } from '../http/spawn.js';
import { closeServed, serveDemo, serveEditor, signIn } from './editor-app.js';
import { sha256Hex } from '../media/pictures.js';

const shots = join(root, 'test-output');

let dir: string;
let site: PreviewServer | undefined;
let server: Proc | undefined;
let browser: Browser | undefined;
let context: BrowserContext;
let page: Page;
const errors: Error[] = [];
/** Whether the page is signed in to the server (the first test does it as part of its story). */
let signedIn = false;
let editorUrl: string;
let api: string;
let token: string;
let blogId: string;

const eventually = <T>(fn: () => T | Promise<T>) => expect.poll(fn, { timeout: 20_000 });

async function http(
  method: string,
  path: string,
  body?: Uint8Array | object,
  headers: Record<string, string> = {},
): Promise<Response> {
  const raw = body instanceof Uint8Array;
  const res = await fetch(`${api}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body && !raw ? { 'content-type': 'application/json' } : {}),
      ...headers,
    },
    ...(body ? { body: raw ? (body as Uint8Array<ArrayBuffer>) : JSON.stringify(body) } : {}),
  });
  expect(res.ok, `${method} ${path}: ${res.status}`).toBe(true);
  return res;
}
const json = async <T>(res: Promise<Response>) => (await (await res).json()) as T;

/** The page's own CDP session, kept for the page's life: a session's emulation ends with it. */
let pageNetwork: CDPSession | undefined;
/**
 * Takes the network away from the browser (or gives it back), as the page's document sees it too. Chromium 150
 * starts a document its service worker serves under Playwright's offline emulation with `navigator.onLine` true
 * (requests still fail), where a browser that lost its network says false from the start; the page's own
 * emulation, set again once the document is there, tells it (and fires `offline`), as losing the network would.
 */
async function network(on: boolean, reload = false): Promise<void> {
  await context.setOffline(!on);
  if (reload) await page.reload();
  pageNetwork ??= await context.newCDPSession(page);
  await pageNetwork.send('Network.emulateNetworkConditions', {
    offline: !on,
    latency: 0,
    downloadThroughput: -1,
    uploadThroughput: -1,
  });
}

const syncLine = () => page.locator('.sync-status');
/** The pictures in the rich text: the url the post names and the address each is shown from. */
const shown = () =>
  page.locator('.rt-doc img.rt-picture').evaluateAll((imgs) =>
    imgs.map((i) => ({
      src: (i as HTMLImageElement).dataset.src,
      local: (i as HTMLImageElement).src.startsWith('blob:'),
      width: (i as HTMLImageElement).naturalWidth,
      alt: (i as HTMLImageElement).alt,
    })),
  );

beforeAll(async () => {
  requireBuild();
  dir = await mkdtemp(join(tmpdir(), 'blogcore-editor-pictures-'));
  ({ site, editorUrl } = await serveEditor(join(dir, 'app')));
  ({ server, api, blogId, token } = await serveDemo(join(dir, 'blog.db'), editorUrl));
  browser = await launchChromium();
  context = await browser.newContext({ viewport: { width: 1280, height: 1000 } });
  context.setDefaultTimeout(10_000);
  page = await context.newPage();
  page.on('pageerror', (error) => errors.push(error));
}, 60_000);

afterAll(() => closeServed({ browser, server, site, dir }));

/** A PNG drawn in the page (a sky, a sea, a sun): real pictures for the screenshots, their bytes known to the test. */
async function drawn(width: number, height: number, sky: string, sea: string): Promise<Uint8Array> {
  const bytes = await page.evaluate(
    async ({ width, height, sky, sea }) => {
      const canvas = new OffscreenCanvas(width, height);
      const g = canvas.getContext('2d')!;
      const fill = g.createLinearGradient(0, 0, 0, height);
      fill.addColorStop(0, sky);
      fill.addColorStop(0.6, '#fde7c2');
      fill.addColorStop(0.61, sea);
      fill.addColorStop(1, '#0b2540');
      g.fillStyle = fill;
      g.fillRect(0, 0, width, height);
      g.fillStyle = '#f9b233';
      g.beginPath();
      g.arc(width * 0.7, height * 0.45, height / 7, 0, Math.PI * 2);
      g.fill();
      return Array.from(new Uint8Array(await (await canvas.convertToBlob({ type: 'image/png' })).arrayBuffer()));
    },
    { width, height, sky, sea },
  );
  return Uint8Array.from(bytes);
}

it('adds pictures offline by paste and file chooser (online by drag and drop), shows them at once, and sends them byte for byte', {
  timeout: 120_000,
}, async () => {
  // On the server: a post with a picture.
  await page.goto(editorUrl);
  const first = await drawn(240, 150, '#7fb3e6', '#2f6f9f');
  const pasted = await drawn(200, 150, '#e68a7f', '#1f5f7f');
  const picked = await drawn(150, 150, '#b59fe0', '#2a4f6f');
  const media = await json<{ id: string; url: string }>(
    http('POST', `/blogs/${blogId}/media`, first, {
      'content-type': 'image/png',
      'content-disposition': 'attachment; filename="harbour.png"',
    }),
  );
  const post = await json<{ id: string }>(
    http('POST', `/blogs/${blogId}/posts`, {
      title: 'Harbour walk',
      content: `<p>Boats at dawn.</p><p><img src="${media.url}" alt="The harbour"></p>`,
    }),
  );

  // Online once: sign in; the first sync brings the post, and the picture's bytes follow.
  await signIn(page, editorUrl, api, token);
  signedIn = true;
  await eventually(() => syncLine().textContent()).toBe('Synced — nothing waits to be sent');
  await page.evaluate(() => navigator.serviceWorker.ready.then(() => undefined));
  await page.goto(`${editorUrl}#/sync`);
  await eventually(() => page.locator('.pictures-line').textContent()).toBe(
    'Every picture the posts use is in this browser.',
  );

  // The network goes; the editor reloads from its service worker and shows the post's picture from the local store.
  await network(false, true);
  await eventually(() => syncLine().textContent()).toMatch(/^Offline/);
  await page.goto(`${editorUrl}#/posts/edit/${post.id}`);
  await eventually(shown).toEqual([{ src: media.url, local: true, width: 240, alt: 'The harbour' }]);

  // A picture pasted at the end of the text, then one picked with the file chooser, each given its alt text.
  await page.getByRole('textbox', { name: 'Content', exact: true }).click();
  await page.keyboard.press('Control+End');
  await page.evaluate((bytes) => {
    const data = new DataTransfer();
    data.items.add(new File([new Uint8Array(bytes)], 'pasted.png', { type: 'image/png' }));
    document
      .querySelector('.rt-doc')!
      .dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }));
  }, Array.from(pasted));
  await eventually(async () => (await shown()).length).toBe(2);
  await page.getByLabel('Alt text').fill('Nets drying on the quay');
  await page.getByText('Boats at dawn.').click();
  await page.keyboard.press('Control+End');
  const chooser = page.waitForEvent('filechooser');
  await page.getByRole('button', { name: 'Add a picture' }).click();
  await (await chooser).setFiles({ name: 'picked.png', mimeType: 'image/png', buffer: Buffer.from(picked) });
  await eventually(async () => (await shown()).length).toBe(3);
  await page.getByLabel('Alt text').fill('A gull on a post');
  await page.getByLabel('Title').fill('Harbour walk, with more pictures');
  const [pastedId, pickedId] = await Promise.all([sha256Hex(pasted), sha256Hex(picked)]);
  const urlOf = (id: string, name: string) => `${api.replace(/\/v3$/, '')}/media/${blogId}/${id}/${name}`;
  await eventually(shown).toEqual([
    { src: media.url, local: true, width: 240, alt: 'The harbour' },
    { src: urlOf(pastedId, 'pasted.png'), local: true, width: 200, alt: 'Nets drying on the quay' },
    { src: urlOf(pickedId, 'picked.png'), local: true, width: 150, alt: 'A gull on a post' },
  ]);
  await page.getByRole('button', { name: 'Update' }).click();
  await eventually(() => page.locator('.save-state').textContent()).toBe('All changes saved');
  // The last picture selected: its alt text shows under the toolbar.
  await page.locator('.rt-doc img.rt-picture').nth(2).click();
  await page.getByLabel('Alt text').waitFor();
  await page.screenshot({ path: join(shots, 'editor-pictures-offline.png') });
  // The preview (a sandboxed frame of the post's HTML) shows them from the local store too.
  await page.locator('.preview summary').click();
  const previewed = () =>
    page
      .frameLocator('.preview-body iframe')
      .locator('img')
      .evaluateAll((imgs) =>
        imgs.map((i) => (i as HTMLImageElement).src.startsWith('blob:') && (i as HTMLImageElement).naturalWidth > 0),
      );
  await eventually(previewed).toEqual([true, true, true]);

  // The Sync screen lists the pictures waiting to be sent, before the post that uses them.
  await page.goto(`${editorUrl}#/sync`);
  await eventually(() => page.locator('.pending-list li').allTextContents()).toEqual([
    'New picture: pasted.png',
    'New picture: picked.png',
    'Changed post: Harbour walk, with more pictures',
  ]);
  await page.screenshot({ path: join(shots, 'editor-pictures-sync.png'), fullPage: true });
  expect((await json<{ items?: unknown[] }>(http('GET', `/blogs/${blogId}/media`))).items).toHaveLength(1); // nothing left the browser

  // Online again: the pictures go up first, then the post; the server holds them byte for byte.
  await network(true);
  await eventually(() => syncLine().textContent()).toBe('Synced — nothing waits to be sent');
  for (const [id, name, bytes] of [
    [pastedId, 'pasted.png', pasted],
    [pickedId, 'picked.png', picked],
  ] as const) {
    const res = await fetch(urlOf(id, name));
    expect(res.status).toBe(200);
    expect(new Uint8Array(await res.arrayBuffer())).toEqual(bytes);
  }
  const there = await json<{ title: string; content: string }>(http('GET', `/blogs/${blogId}/posts/${post.id}`));
  expect(there.title).toBe('Harbour walk, with more pictures');
  expect(there.content).toContain(`<img src="${urlOf(pastedId, 'pasted.png')}" alt="Nets drying on the quay">`);
  expect(there.content).toContain(`<img src="${urlOf(pickedId, 'picked.png')}" alt="A gull on a post">`);
  const used = await json<{ items: Array<{ id: string }> }>(http('GET', `/blogs/${blogId}/media?postId=${post.id}`));
  expect(used.items.map((m) => m.id)).toEqual([media.id, pastedId, pickedId]);

  // Online, a picture dropped on the text goes the same way, straight to the server.
  const dropped = await drawn(120, 90, '#9fd6b0', '#245a4a');
  const droppedId = await sha256Hex(dropped);
  await page.goto(`${editorUrl}#/posts/edit/${post.id}`);
  const box = (await page.getByText('Boats at dawn.').boundingBox())!;
  await page.evaluate(
    ({ bytes, x, y }) => {
      const data = new DataTransfer();
      data.items.add(new File([new Uint8Array(bytes)], 'dropped.png', { type: 'image/png' }));
      document
        .querySelector('.rt-doc')!
        .dispatchEvent(
          new DragEvent('drop', { dataTransfer: data, clientX: x, clientY: y, bubbles: true, cancelable: true }),
        );
    },
    { bytes: Array.from(dropped), x: box.x + box.width, y: box.y + box.height / 2 },
  );
  await eventually(async () => (await shown()).map((p) => p.src)).toContain(urlOf(droppedId, 'dropped.png'));
  await page.getByLabel('Alt text').fill('Sea grass');
  await page.getByRole('button', { name: 'Update' }).click();
  await eventually(() => syncLine().textContent()).toBe('Synced — nothing waits to be sent');
  await eventually(
    async () => (await json<{ content: string }>(http('GET', `/blogs/${blogId}/posts/${post.id}`))).content,
  ).toContain(`<img src="${urlOf(droppedId, 'dropped.png')}" alt="Sea grass">`);
  expect(new Uint8Array(await (await fetch(urlOf(droppedId, 'dropped.png'))).arrayBuffer())).toEqual(dropped);
  expect(await page.locator('.problem').allTextContents()).toEqual([]);
  expect(errors).toEqual([]);
});

it('makes figures: a caption, wide alignment and a second picture marked featured survive save and reload, and preview at the reader’s width', {
  timeout: 120_000,
}, async () => {
  if (signedIn) await page.goto(editorUrl);
  else await signIn(page, editorUrl, api, token);
  await eventually(() => syncLine().textContent()).toBe('Synced — nothing waits to be sent');
  const wide = await drawn(1200, 800, '#8fc1e8', '#28628c');
  const gull = await drawn(300, 200, '#f0c27f', '#3a5f7f');
  const post = await json<{ id: string }>(
    http('POST', `/blogs/${blogId}/posts`, { title: 'Figures', content: '<p>Harbour notes.</p>' }),
  );
  await eventually(() => syncLine().textContent()).toBe('Synced — nothing waits to be sent');
  await page.goto(`${editorUrl}#/posts/edit/${post.id}`);
  await page.getByText('Harbour notes.').click();
  await page.keyboard.press('Control+End');
  const pick = async (name: string, bytes: Uint8Array) => {
    const chooser = page.waitForEvent('filechooser');
    await page.getByRole('button', { name: 'Add a picture' }).click();
    await (await chooser).setFiles({ name, mimeType: 'image/png', buffer: Buffer.from(bytes) });
  };
  const figures = page.locator('.rt-doc figure');

  // The first picture: alt text, a caption typed under it, wide.
  await pick('quay.png', wide);
  await eventually(() => figures.count()).toBe(1);
  await page.getByLabel('Alt text').fill('The quay at dawn');
  await figures.nth(0).locator('figcaption').click();
  await page.keyboard.type('Boats leaving at six');
  await page.getByLabel('Alignment').selectOption('wide');
  // The first picture is the featured one until another is marked.
  await eventually(() => page.getByLabel('Featured picture').isChecked()).toBe(true);
  expect(await page.getByLabel('Featured picture').isDisabled()).toBe(true);

  // The second, after it: marked featured (the first loses its badge).
  await pick('gull.png', gull);
  await eventually(() => figures.count()).toBe(2);
  await page.getByLabel('Alt text').fill('A gull');
  await eventually(() => page.getByLabel('Featured picture').isChecked()).toBe(false);
  await page.getByLabel('Featured picture').check();
  await eventually(() => figures.evaluateAll((f) => f.map((x) => x.classList.contains('rt-featured')))).toEqual([
    false,
    true,
  ]);
  await page.getByRole('button', { name: 'Update' }).click();
  await eventually(() => page.locator('.save-state').textContent()).toBe('All changes saved');
  await eventually(() => syncLine().textContent()).toBe('Synced — nothing waits to be sent');

  // Stored as the site reads it: the figure's alignment, its caption, the mark on the featured picture's <img>.
  const [quayId, gullId] = await Promise.all([sha256Hex(wide), sha256Hex(gull)]);
  const urlOf = (id: string, name: string) => `${api.replace(/\/v3$/, '')}/media/${blogId}/${id}/${name}`;
  // (The untouched paragraph goes back exactly as it came, with nothing after it.)
  const stored =
    `<p>Harbour notes.</p>` +
    `<figure data-align="wide"><img src="${urlOf(quayId, 'quay.png')}" alt="The quay at dawn"><figcaption>Boats leaving at six</figcaption></figure>\n` +
    `<figure><img src="${urlOf(gullId, 'gull.png')}" alt="A gull" data-featured=""></figure>`;
  await eventually(
    async () => (await json<{ content: string }>(http('GET', `/blogs/${blogId}/posts/${post.id}`))).content,
  ).toBe(stored);

  // Reloaded: the same figures on screen, and the same HTML out (nothing rewritten by reading it).
  await page.reload();
  await page.goto(`${editorUrl}#/posts/edit/${post.id}`);
  await eventually(() =>
    figures.evaluateAll((f) =>
      f.map((x) => ({
        align: (x as HTMLElement).dataset.align ?? null,
        caption: x.querySelector('figcaption')!.textContent,
        featured: x.classList.contains('rt-featured'),
        alt: x.querySelector('img')!.alt,
      })),
    ),
  ).toEqual([
    { align: 'wide', caption: 'Boats leaving at six', featured: false, alt: 'The quay at dawn' },
    { align: null, caption: '', featured: true, alt: 'A gull' },
  ]);
  await figures.nth(1).locator('img').click();
  await eventually(() => page.getByLabel('Featured picture').isChecked()).toBe(true);
  await page.locator('.richtext').screenshot({ path: join(shots, 'editor-figures.png') });
  await page.getByRole('tab', { name: 'HTML' }).click();
  expect(await page.locator('textarea#content').inputValue()).toBe(stored);
  await page.getByRole('tab', { name: 'Rich text' }).click();

  // The preview lays the post out in the site's column with its theme: the wide picture fills the column
  // (the width readers get), the small one keeps its own size.
  await page.locator('.preview summary').click();
  const frame = page.frameLocator('.preview-body iframe');
  const widths = () =>
    frame.locator('.content').evaluate((c) => ({
      column: c.clientWidth,
      pictures: [...c.querySelectorAll('img')].map((i) => (i.naturalWidth ? i.clientWidth : 0)),
    }));
  await eventually(async () => (await widths()).pictures.every((w) => w > 0)).toBe(true);
  const { column, pictures } = await widths();
  expect(column).toBeGreaterThan(300);
  expect(column).toBeLessThanOrEqual(672); // the default theme's column: 44rem less its padding
  expect(pictures).toEqual([column, 300]);
  expect(await frame.locator('figcaption').allTextContents()).toEqual(['Boats leaving at six']);
  expect(await page.locator('.problem').allTextContents()).toEqual([]);
  expect(errors).toEqual([]);
});
