/**
 * Metadata out at upload (docs/design.md §23): JPEG, PNG and WebP photos made by sharp, carrying a GPS position, a camera
 * serial, an owner's name, XMP and an ICC profile, lose all but the orientation and the profile; their pixels are
 * the same; the id is the SHA-256 of the bytes stored; the browser's service (Chromium, IndexedDB) stores the same
 * bytes under the same id; `keepImageMetadata: true` keeps everything; cleaning a clean picture changes nothing.
 */
import sharp from 'sharp';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryDriver } from '../../drivers/memory/index.js';
import { createBlogService } from '../../src/index.js';
import { bundlePage, launchChromium, serveScript, type Site } from '../browser/serve.js';
import { bytesOf } from '../blobs/suite.js';
import { sha256Hex } from './pictures.js';

const XMP =
  '<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">' +
  '<rdf:Description xmlns:dc="http://purl.org/dc/elements/1.1/" dc:creator="Ada Secretowner"/></rdf:RDF></x:xmpmeta>';
const EXIF = {
  IFD0: { Make: 'Camerafirm', Model: 'X100', Artist: 'Ada Secretowner', Copyright: 'Ada Secretowner' },
  IFD2: { BodySerialNumber: 'SN-4455667788', CameraOwnerName: 'Ada Secretowner' },
  IFD3: {
    GPSLatitudeRef: 'N',
    GPSLatitude: '51/1 30/1 1234/100',
    GPSLongitudeRef: 'W',
    GPSLongitude: '0/1 7/1 4321/100',
  },
};
const SECRETS = ['Secretowner', 'SN-4455667788', 'Camerafirm', 'X100'];
const latin1 = (b: Uint8Array) => Buffer.from(b).toString('latin1');

type Format = 'jpeg' | 'png' | 'webp';
/** A 2000×1500 photo (noise, so it is megabytes as a camera's is) turned a quarter by its orientation. */
async function photo(format: Format): Promise<Uint8Array> {
  const size = format === 'png' ? { width: 800, height: 600 } : { width: 2000, height: 1500 };
  const out = await sharp({
    create: { ...size, channels: 3, background: '#808080', noise: { type: 'gaussian', mean: 128, sigma: 60 } },
  })
    .withMetadata({ orientation: 6 })
    .withExifMerge(EXIF)
    .withXmp(XMP)
    .withIccProfile('p3')
    .toFormat(format, { quality: 95 })
    .toBuffer();
  return new Uint8Array(out);
}

const pixels = (b: Uint8Array) => sharp(b).raw().toBuffer();
/** Byte for byte (a deep equal of megabytes is slow). */
const same = (a: Uint8Array, b: Uint8Array) => Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(b);

const photos = {} as Record<Format, Uint8Array>;
let browser: Browser;
let page: Page;
let site: Site;

beforeAll(async () => {
  for (const f of ['jpeg', 'png', 'webp'] as const) photos[f] = await photo(f);
  site = await serveScript(await bundlePage('test/browser/clean-page.ts'));
  browser = await launchChromium();
  page = await browser.newPage();
  await page.goto(site.url);
  await page.waitForFunction(() => 'cleanPage' in globalThis);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await site?.close();
});

async function service(keepImageMetadata = false) {
  const s = createBlogService({ driver: memoryDriver(), keepImageMetadata });
  await s.users.insert({ body: { id: 'ada', displayName: 'Ada' } });
  const blog = await s.blogs.insert({ body: { name: 'Pictures', url: 'https://pictures.example/' }, ownerId: 'ada' });
  return { s, blogId: blog.id };
}

describe.each(['jpeg', 'png', 'webp'] as const)('a %s photo with GPS, serial, owner and XMP', (format) => {
  it('is stored without them: same pixels, orientation and colour profile; id the SHA-256 of the stored bytes', async () => {
    const original = photos[format];
    const before = await sharp(original).metadata();
    expect(before.exif && before.xmp && before.icc && before.orientation).toBeTruthy();
    for (const secret of SECRETS) expect(latin1(original)).toContain(secret);

    const { s, blogId } = await service();
    const m = await s.media.upload({ blogId, body: original, filename: `harbour.${format}` });
    const stored = (await bytesOf((await s.media.read({ blogId, mediaId: m.id })).body))!;
    expect(m.id).toBe(await sha256Hex(stored));
    expect(m.bytes).toBe(stored.byteLength);
    expect(stored.byteLength).toBeLessThan(original.byteLength);
    for (const secret of SECRETS) expect(latin1(stored)).not.toContain(secret);
    const after = await sharp(stored).metadata();
    expect(after.xmp).toBeUndefined();
    expect(after.iptc).toBeUndefined();
    expect(after.orientation).toBe(6);
    expect(after.icc).toEqual(before.icc);
    expect(after.exif!.byteLength).toBeLessThan(40); // the orientation alone
    expect(same(await pixels(stored), await pixels(original))).toBe(true);
    // A JPEG turned a quarter: the record's size is the one readers see (image-size reads PNG's and WebP's as stored).
    if (format === 'jpeg') expect([m.width, m.height]).toEqual([before.height, before.width]);

    // Cleaning a clean picture changes nothing: the same id, one copy.
    const again = await s.media.upload({ blogId, body: stored });
    expect(again.id).toBe(m.id);

    // The browser's service stores the same bytes under the same id.
    const b64 = Buffer.from(original).toString('base64');
    const there = await page.evaluate((x) => (globalThis as any).cleanPage.upload(x), b64);
    expect(there).toEqual({ id: m.id, bytes: m.bytes });
    await s.close();
  }, 120_000);

  it('is stored as it is with keepImageMetadata: true', async () => {
    const { s, blogId } = await service(true);
    const m = await s.media.upload({ blogId, body: photos[format] });
    expect(m.id).toBe(await sha256Hex(photos[format]));
    const stored = (await bytesOf((await s.media.read({ blogId, mediaId: m.id })).body))!;
    expect(same(stored, photos[format])).toBe(true);
    await s.close();
  }, 60_000);
});

it('a photo of megabytes is cleaned however its bytes are split', async () => {
  const original = photos.jpeg;
  expect(original.byteLength).toBeGreaterThan(2_000_000);
  const { s, blogId } = await service();
  const ids = new Set<string>();
  for (const size of [1, 7, 4096, 65_537]) {
    const body = (async function* () {
      for (let at = 0, n = 0; at < original.byteLength; at += size * (n % 3) + 1, n++)
        yield original.subarray(at, at + size * (n % 3) + 1);
    })();
    if (size === 1) {
      // Single bytes over the first 64 KB (where metadata sits), then the rest whole.
      const head = original.subarray(0, 65_536);
      ids.add(
        (
          await s.media.upload({
            blogId,
            body: (async function* () {
              for (let i = 0; i < head.byteLength; i++) yield head.subarray(i, i + 1);
              yield original.subarray(65_536);
            })(),
          })
        ).id,
      );
    } else ids.add((await s.media.upload({ blogId, body })).id);
  }
  expect(ids.size).toBe(1);
  const stored = (await bytesOf((await s.media.read({ blogId, mediaId: [...ids][0]! })).body))!;
  for (const secret of SECRETS) expect(latin1(stored)).not.toContain(secret);
  await s.close();
}, 120_000);
