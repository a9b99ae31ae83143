/**
 * Real baseline JPEGs of camera-photo size, made in the test (no multi-MB fixtures): one grey component, its
 * 8×8 blocks' quantized coefficients drawn at random and Huffman-coded, so every decoder shows noise of the
 * asked size while the scan is as long as a photo's (about 75 bytes a block: 1600×1200 ≈ 2.3 MB). Optional: a
 * large APP1 segment ahead of the frame header (where a camera's EXIF sits) and restart markers in the scan.
 * No Node built-ins: it runs in the browser too.
 */

export interface JpegOptions {
  width: number;
  height: number;
  seed?: number;
  /** Restart markers every this many blocks (0: none). */
  restartInterval?: number;
  /** Bytes of an APP1 segment before the frame header (at most 65,533). */
  app1Bytes?: number;
}

/** Our Huffman tables: every symbol a 4-bit code (DC: sizes 0–11; AC: end of block, then run 0 with sizes 1–10). */
const DC_SYMBOLS = Array.from({ length: 12 }, (_, i) => i);
const AC_SYMBOLS = [0x00, ...Array.from({ length: 10 }, (_, i) => i + 1)];

function segment(marker: number, body: readonly number[] | Uint8Array): Uint8Array {
  const out = new Uint8Array(4 + body.length);
  out.set([0xff, marker, (body.length + 2) >> 8, (body.length + 2) & 0xff]);
  out.set(body, 4);
  return out;
}

/** A DHT body: class and id, how many codes of each length 1–16 (all of ours are 4 bits), the symbols. */
const table = (cls: number, symbols: readonly number[]) => [
  (cls << 4) | 0,
  ...Array.from({ length: 16 }, (_, i) => (i === 3 ? symbols.length : 0)),
  ...symbols,
];

export function makeJpeg({ width, height, seed = 1, restartInterval = 0, app1Bytes = 0 }: JpegOptions): Uint8Array {
  let state = seed >>> 0 || 1;
  const random = (n: number) => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) % n;
  };
  const blocks = Math.ceil(width / 8) * Math.ceil(height / 8);
  let out = new Uint8Array(blocks * 90 + 1024);
  let length = 0;
  const emit = (b: number) => emitAll(Uint8Array.of(b));
  const emitAll = (bytes: Uint8Array) => {
    while (length + bytes.byteLength > out.byteLength) {
      const grown = new Uint8Array(out.byteLength * 2);
      grown.set(out);
      out = grown;
    }
    out.set(bytes, length);
    length += bytes.byteLength;
  };

  emitAll(Uint8Array.of(0xff, 0xd8));
  emitAll(segment(0xe0, [0x4a, 0x46, 0x49, 0x46, 0, 1, 1, 0, 0, 1, 0, 1, 0, 0]));
  if (app1Bytes > 0)
    emitAll(
      segment(
        0xe1,
        Uint8Array.from({ length: app1Bytes }, () => random(256)),
      ),
    );
  emitAll(segment(0xdb, [0, ...new Array<number>(64).fill(1)]));
  emitAll(segment(0xc0, [8, height >> 8, height & 0xff, width >> 8, width & 0xff, 1, 1, 0x11, 0]));
  emitAll(segment(0xc4, [...table(0, DC_SYMBOLS), ...table(1, AC_SYMBOLS)]));
  if (restartInterval > 0) emitAll(segment(0xdd, [restartInterval >> 8, restartInterval & 0xff]));
  emitAll(segment(0xda, [1, 1, 0x00, 0, 63, 0]));

  // The scan: blocks drawn from a pool of coded blocks, each a whole number of bytes (so they are copied as they
  // are), DC difference 0 (so any may follow any, and a restart needs no padding).
  const pool = Array.from({ length: 32 }, () => codedBlock(random));
  for (let b = 0; b < blocks; b++) {
    if (restartInterval > 0 && b > 0 && b % restartInterval === 0) {
      emit(0xff);
      emit(0xd0 + ((b / restartInterval - 1) % 8));
    }
    emitAll(pool[random(pool.length)]!);
  }
  emit(0xff);
  emit(0xd9);
  return out.slice(0, length);
}

/**
 * One block coded: DC difference 0, then 63 non-zero AC coefficients (sizes 1–10, so no end-of-block code), the
 * last one's size chosen so the block ends on a byte boundary; 0xFF bytes stuffed with 0x00 as in any scan.
 */
function codedBlock(random: (n: number) => number): Uint8Array {
  const sizes = Array.from({ length: 63 }, () => 1 + random(10));
  const bits = 4 + sizes.slice(0, 62).reduce((n, size) => n + 4 + size, 0) + 4;
  sizes[62] = (8 - (bits % 8)) % 8 || 8;
  const out: number[] = [];
  let acc = 0;
  let have = 0;
  // Each code is 4 bits (in both our tables the code of size s is s), then `size` bits of the value.
  const put = (value: number, n: number) => {
    acc = (acc << n) | value;
    have += n;
    while (have >= 8) {
      have -= 8;
      const byte = (acc >> have) & 0xff;
      out.push(byte);
      if (byte === 0xff) out.push(0);
    }
    acc &= (1 << have) - 1;
  };
  put(0, 4);
  for (const size of sizes) {
    put(size, 4);
    // A positive value has its top bit set; a negative one (one's complement) has it clear.
    const magnitude = random(1 << (size - 1));
    put(random(2) ? (1 << (size - 1)) | magnitude : magnitude, size);
  }
  return Uint8Array.from(out);
}
