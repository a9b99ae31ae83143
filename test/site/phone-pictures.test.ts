/**
 * A post with a 4000×3000 camera photo, read on a phone (Chromium at a 375 px viewport, DPR 2) from the site and
 * API served over node:http: the page shows the photo from a variant (AVIF, the width its srcset and sizes call
 * for), never the original, and the bytes the phone downloads for it are recorded beside the original's size
 * (docs/design.md §23; the bench prints the same figure). The screenshot is test-output/pictures-phone.png (the copy
 * in docs/ comes from it).
 */
import type { Server } from 'node:http';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, expect, it } from 'vitest';
import { launchChromium, root } from '../browser/serve.js';
import { cameraPhoto } from '../media/camera-photo.js';
import { closeAll, servedBlog } from './page-elements.js';

let server: Server | undefined;
let browser: Browser | undefined;
afterAll(() => closeAll({ browser, server }));

it('a phone (375 px, DPR 2) downloads a variant of a 4000×3000 photo, not the original', async () => {
  const served = await servedBlog('Harbour notes');
  ({ server } = served);
  const { service, origin, blog } = served;
  const photo = await cameraPhoto(0);
  const m = await service.media.upload({ blogId: blog.id, body: photo, filename: 'harbour.jpg', alt: 'The harbour' });
  const post = await service.posts.insert({
    blogId: blog.id,
    body: {
      title: 'Morning at the harbour',
      content: `<p>The boats came in early.</p><figure><img src="${origin}/media/${blog.id}/${m.id}/harbour.jpg" alt="The harbour"><figcaption>From the quay</figcaption></figure><p>Then the fog lifted.</p>`,
    },
  });
  browser = await launchChromium();
  const context = await browser.newContext({ viewport: { width: 375, height: 740 }, deviceScaleFactor: 2 });
  const page = await context.newPage();
  const pictures: Array<{ url: string; bytes: number }> = [];
  page.on('response', async (r) => {
    if (r.url().includes('/media/')) pictures.push({ url: r.url(), bytes: (await r.body()).byteLength });
  });
  await page.goto(post.url!, { waitUntil: 'networkidle' });
  await expect.poll(() => pictures.length).toBeGreaterThan(0);
  // The one picture fetched is the AVIF variant the srcset picks for 343 css px × 2 (w960), never the original.
  expect(pictures.map((p) => new URL(p.url).pathname)).toEqual([`/media/${blog.id}/${m.id}/w960/harbour.avif`]);
  // Shown across the column (343 css px: the screen less the theme's padding, as `sizes` says), from that variant.
  const shown = await page.locator('figure img').evaluate((img: HTMLImageElement) => ({
    src: new URL(img.currentSrc).pathname,
    css: img.getBoundingClientRect().width,
  }));
  expect(shown).toEqual({ src: `/media/${blog.id}/${m.id}/w960/harbour.avif`, css: 343 });
  const bytes = pictures.reduce((n, p) => n + p.bytes, 0);
  expect(bytes).toBeLessThan(150_000);
  console.log(`phone (375 px, DPR 2): ${bytes} B for the picture; the original is ${photo.byteLength} B`);
  await page.screenshot({ path: join(root, 'test-output', 'pictures-phone.png') });
  await service.close();
}, 300_000);
