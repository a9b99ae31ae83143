/**
 * Pictures for readers (docs/design.md §9, §23), part of `npm run bench -- --only=media`:
 *
 * - What a phone downloads for a 4000×3000 camera JPEG: the post page's AVIF srcset, picked as a 375 px DPR 2
 *   phone picks it (the smallest candidate at least 2 × 343 css px), beside the original. Target ≤ 150 KB.
 * - A variant made on first request (w960 JPEG, WebP and AVIF through `variant()`: read the original from the
 *   store, resize, keep it) beside sharp alone doing the same resize and encoding of the same bytes already in
 *   memory, photo by photo in alternation; and where the difference goes (reading the original from the store, sharp, storing the result),
 *   plus sharp's own options (sequentialRead, one thread). Target ≤ 250 ms per 12 MP.
 * - Cleaning a 12 MB camera JPEG of its metadata (the upload's rewrite) beside a raw copy of its bytes.
 */
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import sharp from 'sharp';
import { sqliteDriver } from '../../drivers/sqlite/index.js';
import { createBlogService } from '../../src/index.js';
import { createHttpHandler } from '../../src/http/index.js';
import { createSite } from '../../src/site/index.js';
import { internalsOf } from '../../src/service/internals.js';
import { ENCODE, variant } from '../../src/media/variants.js';
import type { MediaType } from '../../src/schema/media.js';
import { cleanPicture } from '../../src/media/clean.js';
import { summary, type BenchContext } from './harness.js';
import { cameraPhoto } from '../media/camera-photo.js';

const ms = (t0: number) => performance.now() - t0;
const f = (x: number) => `${x.toFixed(0)} ms`;

async function readAll(s: ReadableStream<Uint8Array>) {
  return new Uint8Array(await new Response(s).arrayBuffer());
}

export async function pictureLines(ctx: BenchContext, dir: string): Promise<string[]> {
  const rounds = Number(ctx.args['picture-rounds'] ?? (ctx.quick ? 2 : 3));
  const photos: Uint8Array[] = [];
  // The first as a phone's full-quality photo (about 12 MB: what a phone downloaded before, and what is cleaned);
  // the others at a camera's usual quality, for the variants' first requests (their time goes by pixels).
  photos.push(await cameraPhoto(0, { quality: 100, grain: 48 }));
  for (let i = 1; i < rounds * 2 + 1; i++) photos.push(await cameraPhoto(i));
  const lines: string[] = [];

  // What a phone downloads.
  const service = createBlogService({ driver: sqliteDriver({ filename: join(dir, 'pictures.db') }) });
  await service.users.insert({ body: { id: 'ada', displayName: 'Ada' } });
  const blog = await service.blogs.insert({ body: { name: 'Bench', url: 'https://bench.example/' }, ownerId: 'ada' });
  const core = internalsOf(service)!.core;
  const api = createHttpHandler(service);
  const site = createSite(service);
  const m = await service.media.upload({ blogId: blog.id, body: photos[0]!, filename: 'harbour.jpg' });
  const post = await service.posts.insert({
    blogId: blog.id,
    body: { title: 'Harbour', content: `<figure><img src="${m.url}" alt="The harbour"></figure>` },
  });
  const page = await (await site(new Request(post.url!)))!.text();
  const avif = /<source type="image\/avif" srcset="([^"]+)"/.exec(page)![1]!;
  const need = 2 * (375 - 32);
  const pick = avif
    .split(', ')
    .map((c) => c.split(' ') as [string, string])
    .find(([, w]) => Number(w.slice(0, -1)) >= need)!;
  const got = await api(new Request(new URL(pick[0], 'https://bench.example/')));
  const phone = (await got.arrayBuffer()).byteLength;
  lines.push(
    `\n## Pictures for readers: a ${(photos[0]!.byteLength / 1e6).toFixed(2)} MB 4000×3000 camera JPEG`,
    '',
    '| what | bytes | target |',
    '|---|---|---|',
    `| before (§14): the original, sent as uploaded | ${photos[0]!.byteLength} | |`,
    `| a 375 px DPR 2 phone now: ${pick[0].split('/').slice(-2).join('/')} (AVIF, its srcset's pick for ${need} px) | ${phone} | ≤ 150,000 ${phone <= 150_000 ? '✓' : '✗'} |`,
    `| the page's HTML | ${new TextEncoder().encode(page).byteLength} | |`,
  );

  // A variant made on first request, beside sharp alone; then where the time goes.
  const options = { limitInputPixels: 100_000_000, failOn: 'error' as const };
  const alone = (bytes: Uint8Array, type: MediaType = 'image/jpeg', extra: object = {}) =>
    ENCODE[type](
      sharp(bytes, { ...options, ...extra })
        .rotate()
        .resize({ width: 960, withoutEnlargement: true }) as never,
    ).toBuffer();
  const types = { jpg: 'image/jpeg', webp: 'image/webp', avif: 'image/avif' } as const;
  const ours = { jpg: [] as number[], webp: [] as number[], avif: [] as number[] };
  const raw = { jpg: [] as number[], webp: [] as number[], avif: [] as number[] };
  const parts = { read: [] as number[], sharp: [] as number[], put: [] as number[] };
  const sequential: number[] = [];
  const oneThread: number[] = [];
  const threads = sharp.concurrency();
  for (let r = 0; r < rounds; r++) {
    const a = await service.media.upload({ blogId: blog.id, body: photos[1 + 2 * r]!, filename: `a${r}.jpg` });
    const stored = await readAll((await service.media.read({ blogId: blog.id, mediaId: a.id })).body);
    for (const [ext, type] of Object.entries(types) as Array<[keyof typeof types, MediaType]>) {
      let t = performance.now();
      await variant(core, blog.id, a.id, 960, ext);
      ours[ext].push(ms(t));
      t = performance.now();
      await alone(stored, type);
      raw[ext].push(ms(t));
    }
    // The same steps one by one, on the next photo: the store's read, sharp, the store's put.
    const b = await service.media.upload({ blogId: blog.id, body: photos[2 + 2 * r]!, filename: `b${r}.jpg` });
    const record = (await core.get('media', `${blog.id}:${b.id}`))!.doc;
    let t = performance.now();
    const input = await readAll((await core.blobs.read(record.blob, { offset: 0, length: record.bytes }))!);
    parts.read.push(ms(t));
    t = performance.now();
    const out = await alone(input);
    parts.sharp.push(ms(t));
    t = performance.now();
    await core.blobs.put(
      `${record.blob}.bench`,
      (async function* () {
        yield new Uint8Array(out);
      })(),
    );
    parts.put.push(ms(t));
    t = performance.now();
    await alone(input, 'image/jpeg', { sequentialRead: true });
    sequential.push(ms(t));
    sharp.concurrency(1);
    t = performance.now();
    await alone(input);
    oneThread.push(ms(t));
    sharp.concurrency(threads);
  }
  const mean = (xs: number[]) => summary([...xs]).mean;
  const s = mean(raw.jpg);
  lines.push(
    '',
    `### First request of a variant (w960 of a 12 MP JPEG; ${rounds} photos, each once, alternating with sharp alone; sharp.concurrency() = ${threads})`,
    '',
    '| what | mean | p50 | ratio to sharp alone | target |',
    '|---|---|---|---|---|',
    ...(Object.keys(types) as Array<keyof typeof types>).flatMap((ext) => {
      const [o, a] = [mean(ours[ext]), mean(raw[ext])];
      return [
        `| blogcore: variant() as .${ext} (read from SQLite, resize, store) | ${f(o)} | ${f(summary([...ours[ext]]).p50)} | ${(o / a).toFixed(2)}× | ≤ 250 ms ${o <= 250 ? '✓' : '✗'} |`,
        `| sharp alone as .${ext}, the bytes in memory | ${f(a)} | ${f(summary([...raw[ext]]).p50)} | 1.00× | |`,
      ];
    }),
    `| · of which (.jpg): reading the original from the store | ${f(mean(parts.read))} | | | |`,
    `| · sharp (decode with shrink-on-load, resize, encode) | ${f(mean(parts.sharp))} | | | |`,
    `| · storing the variant | ${f(mean(parts.put))} | | | |`,
    `| sharp alone (.jpg) with sequentialRead | ${f(mean(sequential))} | | ${(mean(sequential) / s).toFixed(2)}× | |`,
    `| sharp alone (.jpg) on one thread (concurrency 1) | ${f(mean(oneThread))} | | ${(mean(oneThread) / s).toFixed(2)}× | |`,
  );

  // Cleaning at upload beside a raw copy.
  const big = photos[0]!;
  const cleanMs: number[] = [];
  const copyMs: number[] = [];
  let cleanedBytes = 0;
  for (let r = 0; r < Math.max(5, rounds * 3); r++) {
    let t = performance.now();
    cleanedBytes = (await cleanPicture(big)).byteLength;
    cleanMs.push(ms(t));
    t = performance.now();
    createHash('sha256').update(big.slice()).digest();
    copyMs.push(ms(t));
  }
  lines.push(
    '',
    `### Cleaning a ${(big.byteLength / 1e6).toFixed(2)} MB camera JPEG at upload (to ${cleanedBytes} bytes) beside a raw copy of it and its SHA-256`,
    '',
    '| what | mean | p50 |',
    '|---|---|---|',
    `| cleanPicture (the upload's rewrite) | ${f(mean(cleanMs))} | ${f(summary([...cleanMs]).p50)} |`,
    `| raw: copy the bytes and hash them | ${f(mean(copyMs))} | ${f(summary([...copyMs]).p50)} |`,
  );
  await service.close();
  return lines;
}
