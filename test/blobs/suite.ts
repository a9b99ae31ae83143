/**
 * The blob-store suite: the executable form of `BlobStore` in src/store/driver.ts. It runs unchanged against
 * every store: the four drivers' own (from the driver suite), fsBlobs and s3Blobs (against an S3-protocol
 * server the test starts). No Node built-ins: it runs in Chromium too.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { BlobStore } from '../../src/store/driver.js';

export interface BlobFixture {
  blobs: BlobStore;
  close(): Promise<void>;
}

/** Bytes whose every position differs from its neighbours (a misplaced chunk shows). */
export function pattern(size: number, seed = 1): Uint8Array {
  const out = new Uint8Array(size);
  let x = seed;
  for (let i = 0; i < size; i++) {
    x = (x * 1103515245 + 12345) >>> 0;
    out[i] = x >>> 24;
  }
  return out;
}

export async function bytesOf(stream: ReadableStream<Uint8Array> | undefined): Promise<Uint8Array | undefined> {
  if (!stream) return undefined;
  const parts: Uint8Array[] = [];
  let total = 0;
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    parts.push(value);
    total += value.byteLength;
  }
  const out = new Uint8Array(total);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.byteLength;
  }
  return out;
}

/** `bytes` as a source of pieces of `piece` bytes (odd sizes, so stores regroup them). */
async function* pieces(bytes: Uint8Array, piece = 65_537): AsyncGenerator<Uint8Array> {
  for (let at = 0; at < bytes.byteLength; at += piece) yield bytes.subarray(at, at + piece);
}

/** Equality without printing megabytes on failure. */
function same(a: Uint8Array | undefined, b: Uint8Array): void {
  expect(a, 'blob missing').toBeDefined();
  expect(a!.byteLength).toBe(b.byteLength);
  let first = -1;
  for (let i = 0; i < b.byteLength; i++) {
    if (a![i] !== b[i]) {
      first = i;
      break;
    }
  }
  expect(first, 'first differing byte').toBe(-1);
}

export function runBlobSuite(name: string, setup: () => Promise<BlobFixture>): void {
  describe(`blob store: ${name}`, () => {
    let f: BlobFixture;
    let s: BlobStore;
    beforeEach(async () => {
      f = await setup();
      s = f.blobs;
    });
    afterEach(async () => {
      await f.close();
    });

    it('keeps bytes of any size under their key and answers how many it stored', async () => {
      for (const size of [0, 1, 1000, 256 * 1024, 256 * 1024 + 1, 700_001]) {
        const bytes = pattern(size, size + 1);
        expect(await s.put(`b1/size-${size}`, pieces(bytes))).toBe(size);
        same(await bytesOf(await s.read(`b1/size-${size}`)), bytes);
      }
    });

    it('streams a picture larger than any store keeps in one piece', async () => {
      const bytes = pattern(5 * 1024 * 1024 + 12_345, 7);
      expect(await s.put('b1/large', pieces(bytes, 1 << 20))).toBe(bytes.byteLength);
      same(await bytesOf(await s.read('b1/large')), bytes);
      same(
        await bytesOf(await s.read('b1/large', { offset: 5 * 1024 * 1024 - 3, length: 10 })),
        bytes.subarray(5 * 1024 * 1024 - 3, 5 * 1024 * 1024 + 7),
      );
    });

    it('reads any range: within a chunk, across chunks, the very ends, and none', async () => {
      const bytes = pattern(600_000, 3);
      await s.put('b1/ranges', pieces(bytes));
      for (const [offset, length] of [
        [0, 1],
        [0, 600_000],
        [262_143, 2],
        [262_144, 262_144],
        [100_000, 400_000],
        [599_999, 1],
        [1234, 0],
      ] as const) {
        same(await bytesOf(await s.read('b1/ranges', { offset, length })), bytes.subarray(offset, offset + length));
      }
    });

    it('answers undefined for a key that holds nothing, and deletes', async () => {
      expect(await s.read('b1/none')).toBeUndefined();
      await s.delete('b1/none');
      await s.put('b1/gone', pieces(pattern(10)));
      await s.delete('b1/gone');
      expect(await s.read('b1/gone')).toBeUndefined();
      expect(await s.read('b1/gone', { offset: 0, length: 1 })).toBeUndefined();
    });

    it('keeps keys apart, and a put replaces what its key held', async () => {
      await s.put('b1/x', pieces(pattern(1000, 1)));
      await s.put('b2/x', pieces(pattern(2000, 2)));
      await s.put('b1/x', pieces(pattern(3000, 3)));
      same(await bytesOf(await s.read('b1/x')), pattern(3000, 3));
      same(await bytesOf(await s.read('b2/x')), pattern(2000, 2));
      await s.delete('b1/x');
      same(await bytesOf(await s.read('b2/x')), pattern(2000, 2));
    });

    it('copies what it is given: a source that reuses one buffer stores every piece as it was', async () => {
      const buffer = new Uint8Array(100_000);
      async function* reused() {
        for (let i = 0; i < 8; i++) {
          buffer.fill(i + 1);
          yield buffer;
        }
      }
      expect(await s.put('b1/reused', reused())).toBe(800_000);
      const got = (await bytesOf(await s.read('b1/reused')))!;
      expect([0, 99_999, 100_000, 450_000, 799_999].map((i) => got[i])).toEqual([1, 1, 2, 5, 8]);
    });

    it('a put whose source fails keeps nothing of it: the key holds what it held before', async () => {
      const before = pattern(1000, 9);
      await s.put('b1/kept', pieces(before));
      const broken = async function* () {
        yield pattern(300_000, 4);
        throw new Error('client went away');
      };
      await expect(s.put('b1/kept', broken())).rejects.toThrow('client went away');
      same(await bytesOf(await s.read('b1/kept')), before);
      await expect(s.put('b1/never', broken())).rejects.toThrow('client went away');
      expect(await s.read('b1/never')).toBeUndefined();
    });

    it('never shows half a blob: a put still arriving reads as nothing', async () => {
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      let sent!: () => void;
      const halfway = new Promise<void>((resolve) => (sent = resolve));
      const bytes = pattern(600_000, 5);
      async function* slow() {
        yield bytes.subarray(0, 400_000);
        sent();
        await held;
        yield bytes.subarray(400_000);
      }
      const putting = s.put('b1/slow', slow());
      await halfway;
      expect(await s.read('b1/slow')).toBeUndefined();
      release();
      expect(await putting).toBe(600_000);
      same(await bytesOf(await s.read('b1/slow')), bytes);
    });

    it('lets a reader stop early, and sweeps nothing that was committed', async () => {
      const bytes = pattern(600_000, 6);
      await s.put('b1/early', pieces(bytes));
      const reader = (await s.read('b1/early'))!.getReader();
      expect((await reader.read()).done).toBe(false);
      await reader.cancel();
      expect(await s.sweep(Date.now() + 60_000, 100)).toBeGreaterThanOrEqual(0);
      same(await bytesOf(await s.read('b1/early')), bytes);
      await s.delete('b1/early');
      expect(await s.read('b1/early')).toBeUndefined();
    });
  });
}
