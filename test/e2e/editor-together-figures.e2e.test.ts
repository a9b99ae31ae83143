/**
 * Pictures in the editor for writing together look as in the single-author editor (docs/design.md §23): each
 * figure of the post is a `<figure>` with its picture, its caption typed in place (an empty one too, with its
 * placeholder), its alignment as readers get it, and the featured picture's badge; a caption typed there is saved
 * for everyone as `<figcaption>`. End to end: `blogcore serve` on a temp SQLite file, the editor's Vite build,
 * Chromium.
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import sharp from 'sharp';
import type { PreviewServer } from 'vite';
import { afterAll, expect, it } from 'vitest';
import { launchChromium } from '../browser/serve.js';
import { requireBuild, type Proc } from '../http/spawn.js';
import { closeServed, serveDemo, serveEditor, signIn } from './editor-app.js';

let dir: string | undefined;
let site: PreviewServer | undefined;
let server: Proc | undefined;
let browser: Browser | undefined;
afterAll(() => closeServed({ browser, server, site, dir }));

const eventually = <T>(fn: () => T | Promise<T>) => expect.poll(fn, { timeout: 30_000 });

it('shows figures as the single-author editor does: picture, caption in place, alignment, featured badge', async () => {
  requireBuild();
  dir = await mkdtemp(join(tmpdir(), 'blogcore-editor-together-figures-'));
  let editorUrl: string;
  ({ site, editorUrl } = await serveEditor(join(dir, 'app')));
  const demo = await serveDemo(join(dir, 'blog.db'), editorUrl);
  server = demo.server;
  const { api, blogId, token } = demo;
  const auth = { authorization: `Bearer ${token}` };
  const upload = async (name: string, background: string) => {
    const body = await sharp({ create: { width: 1200, height: 800, channels: 3, background } })
      .png()
      .toBuffer();
    const r = await fetch(`${api}/blogs/${blogId}/media`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'image/png', 'content-disposition': `attachment; filename="${name}"` },
      body,
    });
    expect(r.status).toBe(200);
    return ((await r.json()) as { url: string }).url;
  };
  const [quay, gull] = [await upload('quay.png', '#246'), await upload('gull.png', '#642')];
  const made = await fetch(`${api}/blogs/${blogId}/posts`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify({
      title: 'Harbour',
      content:
        `<figure data-align="wide"><img src="${quay}" alt="The quay"><figcaption>Boats at six</figcaption></figure>` +
        `<figure><img src="${gull}" alt="A gull" data-featured=""></figure>`,
    }),
  });
  const postId = ((await made.json()) as { id: string }).id;

  browser = await launchChromium();
  const page = await (await browser.newContext({ viewport: { width: 1100, height: 800 } })).newPage();
  const errors: Error[] = [];
  page.on('pageerror', (error) => errors.push(error));
  await signIn(page, editorUrl, api, token);
  await page.getByRole('heading', { name: 'Posts', level: 1 }).waitFor({ timeout: 60_000 });
  await page.goto(`${editorUrl}#/posts/edit/${postId}`);
  await page.getByRole('link', { name: 'Write together' }).click();
  const figures = page.locator('.together-surface .rt-doc figure');
  await eventually(() => figures.count()).toBe(2);
  const shown = () =>
    figures.evaluateAll((list) =>
      list.map((f) => {
        const img = f.querySelector('img')!;
        const caption = f.querySelector('figcaption');
        return {
          className: f.className,
          align: (f as HTMLElement).dataset.align ?? null,
          alt: img.alt,
          loaded: img.complete && img.naturalWidth === 1200,
          caption: caption && { text: caption.textContent, empty: caption.classList.contains('rt-empty') },
        };
      }),
    );
  // As the single-author editor shows them (its figure view, test/e2e/editor-pictures.e2e.test.ts).
  await eventually(shown).toEqual([
    {
      className: 'rt-figure',
      align: 'wide',
      alt: 'The quay',
      loaded: true,
      caption: { text: 'Boats at six', empty: false },
    },
    {
      className: 'rt-figure rt-featured',
      align: null,
      alt: 'A gull',
      loaded: true,
      caption: { text: '', empty: true },
    },
  ]);
  // The empty caption takes typing, and it is saved for everyone as the figure's <figcaption>.
  await figures.nth(1).locator('figcaption').click();
  await page.keyboard.type('A gull on the wall');
  await eventually(async () => {
    const r = await fetch(`${api}/blogs/${blogId}/posts/${postId}?view=ADMIN`, { headers: auth });
    return ((await r.json()) as { content: string }).content;
  }).toMatch(/<figure><img [^>]*gull\.png"[^>]*><figcaption>A gull on the wall<\/figcaption><\/figure>/);
  expect(errors).toEqual([]);
}, 300_000);
