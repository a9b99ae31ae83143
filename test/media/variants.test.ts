/**
 * Variants (docs/design.md §23): `GET|HEAD /media/{blogId}/{mediaId}/w{N}/{name}` answers the picture N pixels wide in the
 * original's type, WebP or AVIF, made by sharp on first request and kept in the blob store beside the original
 * (memory, SQLite and PostgreSQL stores, fsBlobs, s3Blobs), deleted with it; 404 for widths not offered (upscales,
 * unlisted widths) and types not offered; ETag/304, Range, HEAD. Under load and attack: variant-limits.test.ts.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryDriver } from '../../drivers/memory/index.js';
import { sqliteDriver } from '../../drivers/sqlite/index.js';
import { postgresDriver } from '../../drivers/postgres/index.js';
import { createBlogService, type BlogService } from '../../src/index.js';
import { createHttpHandler } from '../../src/http/index.js';
import { fsBlobs, s3Blobs } from '../../src/media/blobs/index.js';
import type { BlobStore, StorageDriver } from '../../src/store/driver.js';
import { pgUrl, tracked } from '../drivers/postgres/env.js';
import { startS3, type S3Test } from '../blobs/s3-server.js';
import { trackedBlobs } from './suite.js';

const BASE = 'https://pictures.example';
const dir = mkdtempSync(join(tmpdir(), 'blogcore-variants-'));
const pg = tracked((schema) => postgresDriver({ connectionString: pgUrl(), schema, max: 3 }), 'variants');
let s3: S3Test;
let n = 0;
let photo: Uint8Array;
let small: Uint8Array;

beforeAll(async () => {
  s3 = await startS3();
  // A 2400×1800 photo (smooth, as a camera's is: gradients and a little noise) and a small one.
  const w = 2400;
  const h = 1800;
  const raw = Buffer.alloc(w * h * 3);
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++) {
      const i = (y * w + x) * 3;
      raw[i] = (x * 255) / w;
      raw[i + 1] = (y * 255) / h;
      raw[i + 2] = ((x + y) * 7) & 255;
    }
  photo = new Uint8Array(
    await sharp(raw, { raw: { width: w, height: h, channels: 3 } })
      .jpeg({ quality: 92 })
      .toBuffer(),
  );
  small = new Uint8Array(
    await sharp(raw, { raw: { width: w, height: h, channels: 3 } })
      .resize(800)
      .png()
      .toBuffer(),
  );
}, 120_000);

afterAll(async () => {
  await pg.dropAll();
  await s3?.close();
  rmSync(dir, { recursive: true, force: true });
});

type Store = () => Promise<{ driver: StorageDriver; blobs?: BlobStore }>;
const STORES: Array<[string, Store]> = [
  ['memory', async () => ({ driver: memoryDriver() })],
  ['SQLite', async () => ({ driver: sqliteDriver({ filename: join(dir, `v-${n++}.db`) }) })],
  ['PostgreSQL', async () => ({ driver: pg.make() })],
  ['fsBlobs', async () => ({ driver: memoryDriver(), blobs: fsBlobs({ dir: join(dir, `fs-${n++}`) }) })],
  [
    's3Blobs',
    async () => ({ driver: memoryDriver(), blobs: s3Blobs({ client: s3.client, bucket: await s3.bucket() }) }),
  ],
];

async function setUp(store: Store) {
  const { driver, blobs: given } = await store();
  const blobs = trackedBlobs(given ?? driver.blobs);
  const service: BlogService = createBlogService({ driver, blobs, apiBaseUrl: BASE });
  await service.users.insert({ body: { id: 'ada', displayName: 'Ada' } });
  const blogId = (await service.blogs.insert({ body: { name: 'Pictures', url: `${BASE}/` }, ownerId: 'ada' })).id;
  const handler = createHttpHandler(service);
  const get = (path: string, headers: Record<string, string> = {}, method = 'GET') =>
    handler(new Request(`${BASE}${path}`, { method, headers }));
  return { service, blogId, blobs, get };
}

describe.each(STORES)('variants on %s', (_, store) => {
  it('every width and type, made once and kept beside the original; 404 for what is not offered', async () => {
    const { service, blogId, blobs, get } = await setUp(store);
    const m = await service.media.upload({ blogId, body: photo, filename: 'harbour.jpg' });
    const at = (w: string, name: string) => `/media/${blogId}/${m.id}/${w}/${name}`;
    for (const width of [320, 640, 960, 1280, 1920])
      for (const [ext, type, format] of [
        ['jpg', 'image/jpeg', 'jpeg'],
        ['webp', 'image/webp', 'webp'],
        ['avif', 'image/avif', 'heif'],
      ] as const) {
        const r = await get(at(`w${width}`, `harbour.${ext}`));
        expect(r.status, `w${width} ${ext}`).toBe(200);
        expect(r.headers.get('content-type')).toBe(type);
        expect(r.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
        expect(r.headers.get('x-content-type-options')).toBe('nosniff');
        const bytes = new Uint8Array(await r.arrayBuffer());
        expect(Number(r.headers.get('content-length'))).toBe(bytes.byteLength);
        const meta = await sharp(bytes).metadata();
        expect([meta.format, meta.width, meta.height]).toEqual([format, width, (width * 3) / 4]);
        // Made once: the second answer comes from the store, the same bytes.
        const again = new Uint8Array(await (await get(at(`w${width}`, `harbour.${ext}`))).arrayBuffer());
        expect(Buffer.from(again).equals(bytes)).toBe(true);
      }
    // The original and 15 variants in the store.
    expect(blobs.held.size).toBe(16);
    for (const path of [
      at('w2560', 'harbour.jpg'), // wider than the picture (and not listed)
      at('w500', 'harbour.jpg'), // not one of imageWidths
      at('w640', 'harbour.gif'), // not a type offered
      at('w640', 'harbour'),
      `/media/${blogId}/${'0'.repeat(64)}/w640/harbour.jpg`,
    ])
      expect((await get(path)).status, path).toBe(404);
    // Never upscaled: an 800 px picture is offered at 320 and 640 only.
    const s = await service.media.upload({ blogId, body: small, filename: 'small.png' });
    expect((await get(`/media/${blogId}/${s.id}/w640/small.png`)).status).toBe(200);
    expect((await get(`/media/${blogId}/${s.id}/w960/small.webp`)).status).toBe(404);
    // Deleted with the original.
    await service.media.delete({ blogId, mediaId: m.id, force: true });
    await service.media.delete({ blogId, mediaId: s.id, force: true });
    expect(blobs.held.size).toBe(0);
    expect((await get(at('w640', 'harbour.webp'))).status).toBe(404);
    await service.close();
  }, 300_000);
});

describe('a variant over HTTP', () => {
  it('answers ETag/304, Range and HEAD as the original does', async () => {
    const { service, blogId, get } = await setUp(STORES[0]![1]);
    const m = await service.media.upload({ blogId, body: photo, filename: 'harbour.jpg' });
    const url = `/media/${blogId}/${m.id}/w640/harbour.webp`;
    const r = await get(url);
    const bytes = new Uint8Array(await r.arrayBuffer());
    const etag = r.headers.get('etag')!;
    expect(etag).toBe(`"${m.id}-w640.webp"`);
    expect((await get(url, { 'if-none-match': etag })).status).toBe(304);
    const part = await get(url, { range: 'bytes=10-19' });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe(`bytes 10-19/${bytes.byteLength}`);
    expect(new Uint8Array(await part.arrayBuffer())).toEqual(bytes.subarray(10, 20));
    expect((await get(url, { range: `bytes=${bytes.byteLength}-` })).status).toBe(416);
    const head = await get(url, {}, 'HEAD');
    expect(head.status).toBe(200);
    expect(head.headers.get('content-length')).toBe(String(bytes.byteLength));
    expect((await get(url, {}, 'POST')).status).toBe(405);
    await service.close();
  }, 120_000);
});
