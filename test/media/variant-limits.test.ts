/**
 * Variants under load and attack (docs/design.md §23). Twenty parallel first requests for distinct variants of
 * two 12-megapixel camera photos answer 200 or 503 (never 500), and the process's memory grows by what the
 * queue's few resizes need, not by twenty originals and their decodings. A stored picture whose bytes declare
 * 60000×60000 pixels (a decompression bomb: its record, written before, says otherwise) is refused on the variant
 * path before anything is decoded, never a 500.
 */
import sharp from 'sharp';
import { beforeAll, expect, it } from 'vitest';
import { memoryDriver } from '../../drivers/memory/index.js';
import { createBlogService } from '../../src/index.js';
import { createHttpHandler } from '../../src/http/index.js';
import { cameraPhoto } from './camera-photo.js';

const BASE = 'https://pictures.example';
let photos: Uint8Array[];

beforeAll(async () => {
  photos = [await cameraPhoto(1), await cameraPhoto(2), await cameraPhoto(3)];
}, 120_000);

async function setUp() {
  const driver = memoryDriver();
  const service = createBlogService({ driver, apiBaseUrl: BASE });
  await service.users.insert({ body: { id: 'ada', displayName: 'Ada' } });
  const blogId = (await service.blogs.insert({ body: { name: 'Pictures', url: `${BASE}/` }, ownerId: 'ada' })).id;
  const handler = createHttpHandler(service);
  const get = (path: string) => handler(new Request(`${BASE}${path}`));
  return { driver, service, blogId, get };
}

it('20 parallel first requests for distinct variants: 200 or 503, never 500, memory bounded', async () => {
  const { service, blogId, get } = await setUp();
  const [a, b, warm] = await Promise.all(
    photos.map((body, i) => service.media.upload({ blogId, body, filename: `p${i}.jpg` })),
  );
  // sharp loaded and its pools warm before the baseline.
  expect((await get(`/media/${blogId}/${warm!.id}/w320/p2.webp`)).status).toBe(200);
  const paths = [a!, b!]
    .flatMap((m, i) =>
      [320, 640, 960, 1280, 1920].flatMap((w) =>
        ['jpg', 'webp'].map((ext) => `/media/${blogId}/${m.id}/w${w}/p${i}.${ext}`),
      ),
    )
    .slice(0, 20);
  expect(new Set(paths).size).toBe(20);
  const base = process.memoryUsage().rss;
  let peak = base;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 5);
  const answers = await Promise.all(
    paths.map(async (p) => {
      const r = await get(p);
      peak = Math.max(peak, process.memoryUsage().rss);
      return { status: r.status, retryAfter: r.headers.get('retry-after'), bytes: (await r.arrayBuffer()).byteLength };
    }),
  );
  clearInterval(sampler);
  const statuses = answers.map((r) => r.status);
  const grown = (peak - base) / 2 ** 20;
  expect(
    statuses.every((s) => s === 200 || s === 503),
    statuses.join(' '),
  ).toBe(true);
  expect(statuses).toContain(503);
  for (const r of answers) if (r.status === 503) expect(r.retryAfter).toBe('1');
  // What the queue's resizes may hold at once: each its original (read, and as one buffer) and the whole picture
  // decoded (3 bytes a pixel), plus sharp's cache; twenty at once would hold ten times the originals.
  const original = Math.max(a!.bytes, b!.bytes);
  const bound = 2 * (2 * original + 3 * 4000 * 3000) + 64 * 2 ** 20;
  expect(peak - base, `grew ${(grown).toFixed(1)} MiB; bound ${(bound / 2 ** 20).toFixed(1)} MiB`).toBeLessThan(bound);
  // Each answered later (the queue freed) with 200.
  for (const p of paths) expect((await get(p)).status, p).toBe(200);
  await service.close();
}, 300_000);

/** `png` with its IHDR declaring `width`×`height` (its CRC made again). */
function declaring(png: Uint8Array, width: number, height: number): Uint8Array {
  const out = new Uint8Array(png);
  const view = new DataView(out.buffer);
  view.setUint32(16, width);
  view.setUint32(20, height);
  view.setUint32(29, crc32(out.subarray(12, 29)));
  return out;
}

function crc32(bytes: Uint8Array): number {
  let c = 0xffffffff;
  for (const byte of bytes) {
    c ^= byte;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  }
  return (c ^ 0xffffffff) >>> 0;
}

/** `jpeg` with its frame header (SOF0) declaring `width`×`height`. */
function declaringJpeg(jpeg: Uint8Array, width: number, height: number): Uint8Array {
  const out = new Uint8Array(jpeg);
  const view = new DataView(out.buffer);
  for (let at = 2; at < out.length; ) {
    const marker = out[at + 1]!;
    if (marker === 0xc0 || marker === 0xc2) {
      view.setUint16(at + 5, height);
      view.setUint16(at + 7, width);
      return out;
    }
    at += 2 + view.getUint16(at + 2);
  }
  throw new Error('no frame header');
}

it('a stored picture whose bytes declare 60000×60000 pixels is refused on the variant path, never a 500', async () => {
  const { driver, service, blogId, get } = await setUp();
  const png = new Uint8Array(
    await sharp({ create: { width: 1600, height: 1200, channels: 3, background: '#345' } })
      .png()
      .toBuffer(),
  );
  const jpeg = new Uint8Array(
    await sharp({ create: { width: 1600, height: 1200, channels: 3, background: '#543' } })
      .jpeg()
      .toBuffer(),
  );
  for (const [bytes, name, bomb] of [
    [png, 'bomb.png', declaring(png, 60000, 60000)],
    [jpeg, 'bomb.jpg', declaringJpeg(jpeg, 60000, 60000)],
  ] as const) {
    // Refused at upload as it is…
    await expect(service.media.upload({ blogId, body: bomb, filename: name })).rejects.toMatchObject({ code: 400 });
    // …so it stands in the store for a picture stored before (or bytes changed under the record).
    const m = await service.media.upload({ blogId, body: bytes, filename: name });
    const record = (await driver.get('media', `${blogId}:${m.id}`))!.doc as { blob: string };
    await driver.blobs.put(
      record.blob,
      (async function* () {
        yield bomb;
      })(),
    );
    const before = process.memoryUsage().rss;
    for (const ext of [name.split('.')[1], 'webp', 'avif']) {
      const r = await get(`/media/${blogId}/${m.id}/w640/bomb.${ext}`);
      expect(r.status, `${name} as ${ext}`).toBe(404);
      expect(((await r.json()) as { error: { message: string } }).error.message).toMatch(/60000×60000/);
    }
    // Nothing was decoded (a 60000×60000 picture is 10 GB of pixels).
    expect(process.memoryUsage().rss - before).toBeLessThan(256 * 2 ** 20);
    // The original still answers as stored.
    expect((await get(`/media/${blogId}/${m.id}/${name}`)).status).toBe(200);
  }
  await service.close();
}, 120_000);
