/**
 * A picture is checked the same however its bytes are split (docs/design.md §19): camera-size JPEGs of 2 to
 * 20 MB, made here, upload whole (one Uint8Array), as a Blob, as a stream of one piece and as a stream of many;
 * the same bytes cut short are refused in every one of those forms. Every split of a small JPEG with restart
 * markers, and of a PNG, into two pieces and into single bytes is checked the same way; a PNG that stops on a
 * chunk boundary without IEND is cut short too.
 */
import { describe, expect, it } from 'vitest';
import { memoryDriver } from '../../drivers/memory/index.js';
import type { MediaBody } from '../../src/schema/media.js';
import { ImageCheck } from '../../src/media/images.js';
import { expectError, world } from '../service/helpers.js';
import { bytesOf } from '../blobs/suite.js';
import { makeJpeg } from './jpeg.js';
import { concatBytes, makePng, sha256Hex } from './pictures.js';

const MB = 1_000_000;

/** The forms a caller gives a picture in: whole, a Blob, a stream of one piece, a stream of many (odd sizes). */
const FORMS: Record<string, (bytes: Uint8Array) => MediaBody> = {
  'one Uint8Array': (bytes) => bytes,
  'a Blob': (bytes) => new Blob([bytes as Uint8Array<ArrayBuffer>]),
  'a stream of one piece': (bytes) =>
    new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(bytes);
        c.close();
      },
    }),
  'a stream of many pieces': (bytes) =>
    (async function* () {
      for (let at = 0, n = 1; at < bytes.byteLength; at += 65_537 * n, n = (n % 5) + 1)
        yield bytes.subarray(at, at + 65_537 * n);
    })(),
};

// Sizes as cameras make them; the last just under the default maxMediaBytes (20 MiB).
const PHOTOS = [
  { what: '2 MB', width: 1600, height: 1200, restartInterval: 0, app1Bytes: 0 },
  { what: '9 MB with restart markers', width: 3264, height: 2448, restartInterval: 47, app1Bytes: 0 },
  {
    what: '19 MB with a 65 KB APP1 (where a camera puts EXIF)',
    width: 4480,
    height: 3600,
    restartInterval: 0,
    app1Bytes: 65_000,
  },
];

/** The bytes an upload stores (docs/design.md §23): the APP1 segment, after SOI (2 bytes) and APP0 (18), taken out. */
const withoutApp1 = (bytes: Uint8Array, app1Bytes: number) =>
  app1Bytes ? concatBytes(bytes.subarray(0, 20), bytes.subarray(20 + 4 + app1Bytes)) : bytes;

describe.each(PHOTOS)('a $what JPEG', (photo) => {
  const bytes = makeJpeg({ seed: photo.width, ...photo });
  const stored = withoutApp1(bytes, photo.app1Bytes);

  it('uploads whole, as a Blob, as a stream of one piece and of many: the same picture each time', async () => {
    expect(bytes.byteLength).toBeGreaterThan(Number.parseInt(photo.what, 10) * MB * 0.9);
    expect(bytes.byteLength).toBeLessThan(20 * 1024 * 1024);
    const sha = await sha256Hex(stored);
    const w = await world(memoryDriver());
    const ids = new Set<string>();
    for (const [form, body] of Object.entries(FORMS)) {
      const m = await w.author.media.upload({ blogId: w.blogId, body: body(bytes), filename: 'photo.jpg' });
      ids.add(m.id);
      expect(m, form).toMatchObject({
        contentType: 'image/jpeg',
        width: photo.width,
        height: photo.height,
        bytes: stored.byteLength,
        sha256: sha,
      });
    }
    expect(ids.size).toBe(1);
    const read = await w.author.media.read({ blogId: w.blogId, mediaId: [...ids][0]! });
    expect(await sha256Hex((await bytesOf(read.body))!)).toBe(sha);
    await w.service.close();
  }, 120_000);

  it('is refused cut short in every form, mid-scan or just before its end marker, and nothing is kept', async () => {
    const w = await world(memoryDriver());
    for (const cut of [bytes.subarray(0, bytes.byteLength - 2), bytes.subarray(0, bytes.byteLength >> 1)])
      for (const [form, body] of Object.entries(FORMS)) {
        const e = await expectError(w.author.media.upload({ blogId: w.blogId, body: body(cut) }), 400, 'invalid');
        expect(e.message, form).toBe('The JPEG is cut short (its data ends before the end of the picture)');
      }
    expect((await w.admin.media.list({ blogId: w.blogId })).items).toEqual([]);
    await w.service.close();
  }, 120_000);
});

/** The check's answer for bytes given in these pieces: the info, or the refusal's message. */
function check(pieces: readonly Uint8Array[]): string {
  const c = new ImageCheck(undefined, 20 * 1024 * 1024);
  try {
    for (const p of pieces) if (p.byteLength) c.add(p);
    const info = c.finish();
    return `${info.contentType} ${info.width}×${info.height} ${info.bytes}`;
  } catch (e) {
    return (e as Error).message;
  }
}

describe('any split of the bytes', () => {
  const pictures = {
    // Restart markers every 3 blocks, and an APP1 segment the head holds whole.
    jpeg: makeJpeg({ width: 32, height: 16, seed: 3, restartInterval: 3, app1Bytes: 300 }),
    png: makePng(12, 9, 4),
  };

  it.each(Object.keys(pictures) as (keyof typeof pictures)[])(
    'a %s split in two anywhere, or byte by byte, is checked as it is whole; cut short anywhere, refused',
    (kind) => {
      const bytes = pictures[kind];
      const whole = check([bytes]);
      expect(whole).toMatch(/^image\/(jpeg|png) \d+×\d+ \d+$/);
      for (let at = 0; at <= bytes.byteLength; at++)
        expect(check([bytes.subarray(0, at), bytes.subarray(at)]), `split at ${at}`).toBe(whole);
      expect(check(Array.from(bytes, (b) => Uint8Array.of(b)))).toBe(whole);
      // Every shorter length that still names the type: refused whole and in two pieces.
      for (let end = 32; end < bytes.byteLength; end++) {
        const cut = bytes.subarray(0, end);
        expect(check([cut]), `cut at ${end}`).toMatch(/cut short|width and height/);
        expect(check([cut.subarray(0, end >> 1), cut.subarray(end >> 1)])).toBe(check([cut]));
      }
    },
  );
});

describe('a PNG that stops on a chunk boundary', () => {
  it('is cut short without IEND, whole, as a Blob and streamed, and nothing is kept', async () => {
    const png = makePng(30, 20, 7);
    const noEnd = png.subarray(0, png.byteLength - 12); // the IEND chunk is the last 12 bytes
    const w = await world(memoryDriver());
    for (const [form, body] of Object.entries(FORMS)) {
      const e = await expectError(w.author.media.upload({ blogId: w.blogId, body: body(noEnd) }), 400, 'invalid');
      expect(e.message, form).toBe('The PNG is cut short (its data ends before the end of the picture)');
    }
    expect((await w.admin.media.list({ blogId: w.blogId })).items).toEqual([]);
    // The same PNG with its IEND is taken.
    expect(await w.author.media.upload({ blogId: w.blogId, body: png })).toMatchObject({ width: 30, height: 20 });
    await w.service.close();
  });
});
