/**
 * Photos a camera turned a quarter by their EXIF orientation (6 and 8: stored 2000×1500, shown 1500×2000): the
 * media's size, the site's `<img width height>`, the widths its srcset offers and the variants stored are the
 * picture as shown, so the page does not jump and no variant is an upscale or on its side. Checked in Chromium
 * (what the browser shows of the original and of the variant it picks) and with sharp over every variant named.
 */
import type { Server } from 'node:http';
import { parse } from 'parse5';
import type { Browser } from 'playwright-core';
import sharp from 'sharp';
import { afterAll, expect, it } from 'vitest';
import { launchChromium } from '../browser/serve.js';
import { attrs, closeAll, servedBlog, walk } from './page-elements.js';

let server: Server | undefined;
let browser: Browser | undefined;
afterAll(() => closeAll({ browser, server }));

/** A 2000×1500 JPEG whose orientation says to turn it (6: clockwise, 8: counter-clockwise). */
const turned = async (orientation: number) =>
  new Uint8Array(
    await sharp({
      create: { width: 2000, height: 1500, channels: 3, background: { r: 30 * orientation, g: 90, b: 60 } },
    })
      .withMetadata({ orientation })
      .jpeg()
      .toBuffer(),
  );

it('a photo turned by its EXIF orientation has the size it is shown at: media, <img>, srcset and variants', async () => {
  const served = await servedBlog('Turned');
  ({ server } = served);
  const { service, origin, blog } = served;
  const media = [];
  for (const orientation of [6, 8]) {
    const bytes = await turned(orientation);
    const m = await service.media.upload({ blogId: blog.id, body: bytes, filename: `o${orientation}.jpg` });
    // Stored with its orientation (the pixels untouched), sized as shown.
    expect((await sharp(bytes).metadata()).orientation).toBe(orientation);
    expect([m.width, m.height]).toEqual([1500, 2000]);
    media.push(m);
  }
  const post = await service.posts.insert({
    blogId: blog.id,
    body: { title: 'Portraits', content: media.map((m) => `<p><img src="${m.url}" alt="${m.filename}"></p>`).join('') },
  });

  const html = await (await fetch(post.url!)).text();
  const elements = walk(parse(html));
  const imgs = elements.filter((e) => e.tagName === 'img').map(attrs);
  expect(imgs.map((i) => [i.width, i.height])).toEqual([
    ['1500', '2000'],
    ['1500', '2000'],
  ]);
  // Widths below the shown 1500 only (1920 would be an upscale), then the original at 1500w.
  for (const img of imgs)
    expect(img.srcset!.split(', ').map((s) => s.split(' ')[1])).toEqual(['320w', '640w', '960w', '1280w', '1500w']);
  const named = [
    ...imgs.flatMap((i) => i.srcset!.split(', ')),
    ...elements.filter((e) => e.tagName === 'source').flatMap((e) => attrs(e).srcset!.split(', ')),
  ].filter((s) => /\/w\d+\//.test(s));
  expect(named).toHaveLength(2 * 4 * 3);
  for (const entry of named) {
    const [url, w] = entry.split(' ');
    const r = await fetch(new URL(url!, origin));
    expect(r.status, url).toBe(200);
    const meta = await sharp(new Uint8Array(await r.arrayBuffer())).metadata();
    // Upright (no orientation left to apply) and as wide as its descriptor, in the shown proportion.
    expect([meta.width, meta.height, meta.orientation ?? 1], url).toEqual([
      Number.parseInt(w!, 10),
      Math.round((Number.parseInt(w!, 10) * 4) / 3),
      1,
    ]);
  }

  // What Chromium shows: the original (it applies the orientation) and the variant it picks for a phone.
  browser = await launchChromium();
  const context = await browser.newContext({ viewport: { width: 375, height: 740 }, deviceScaleFactor: 2 });
  const page = await context.newPage();
  await page.goto(post.url!, { waitUntil: 'networkidle' });
  const shown = await page.locator('img').evaluateAll((list: HTMLImageElement[]) =>
    Promise.all(
      list.map(async (img) => {
        await img.decode();
        const original = new Image();
        original.src = img.src;
        await original.decode();
        return {
          attrs: [Number(img.getAttribute('width')), Number(img.getAttribute('height'))],
          picked: /\/(w\d+)\//.exec(img.currentSrc)?.[1],
          // Density-corrected by the browser; their proportion is the variant's as shown.
          pickedRatio: img.naturalHeight / img.naturalWidth,
          original: [original.naturalWidth, original.naturalHeight],
          box: img.getBoundingClientRect().height / img.getBoundingClientRect().width,
        };
      }),
    ),
  );
  for (const s of shown) {
    expect(s.original).toEqual(s.attrs);
    expect(s.picked).toBe('w960');
    expect(s.pickedRatio).toBeCloseTo(2000 / 1500, 2);
    expect(s.box).toBeCloseTo(2000 / 1500, 2);
  }
  await service.close();
}, 300_000);
