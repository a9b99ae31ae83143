/**
 * Metadata out of a picture (docs/design.md §23, docs/media.md): a lossless rewrite of its container, streamed, that
 * keeps the pixels, the orientation and the colour profile and drops what can tell who took it and where — EXIF
 * (GPS, serials, owner names, maker notes, thumbnails), XMP, IPTC, comments, and bytes after the picture's end.
 * The orientation survives as a minimal EXIF block holding that one tag. No Node built-ins: the replica and the
 * editor run the same function in the browser, so a picture keeps its id (the SHA-256 of the cleaned bytes)
 * wherever it was cleaned. Cleaning a clean picture changes nothing.
 *
 * - JPEG: segments kept are the frame's (tables, frame and scan headers, entropy data) and APP0 JFIF (without its
 *   thumbnail), APP2 ICC_PROFILE, APP14 Adobe; APP1 EXIF becomes the orientation alone; every other APPn and COM goes.
 * - PNG: only the chunks that draw the picture are kept (IHDR, PLTE, IDAT, IEND, transparency, colour and gamma,
 *   physical size, APNG's frames); eXIf becomes the orientation alone; text, time and private chunks go.
 * - WebP: XMP and unknown chunks go, EXIF becomes the orientation alone, VP8X's flags and the RIFF size follow.
 *   The RIFF size leads the file, so a WebP that loses anything is passed twice (`again`).
 * - GIF: comment extensions and application extensions other than animation loops and ICC profiles go.
 * - AVIF: metadata are items of the `meta` box, addressed by offset: their bytes (EXIF, XMP) are blanked in place.
 *   Orientation (`irot`, `imir`) and colour (`colr`) are properties, untouched.
 */
import type { MediaType } from '../schema/media.js';
import { concat } from '../util/streams.js';
import { sniff } from './images.js';

/** What a second pass over the same bytes needs, when the first one's output is not the clean picture. */
export interface CleanPlan {
  /** WebP: the RIFF size of the clean file, and the orientation its EXIF keeps (VP8X, ahead of it, says so). */
  riffSize?: number;
  orientation?: number;
  /** AVIF: byte ranges [start, end) of the input to blank. */
  blank?: Array<[number, number]>;
}

/** Filled in as a cleaning pass ends: `again` when the output is to be thrown away and the bytes passed again. */
export interface CleanResult {
  again?: CleanPlan;
}

/** Metadata blocks larger than this are dropped without being read (an orientation sits in the first bytes). */
const META_MAX = 1 << 20;
/** An AVIF `meta` box larger than this is passed as it is (no encoder writes one near it). */
const AVIF_META_MAX = 4 << 20;

const EMPTY: Uint8Array = new Uint8Array(0);

/** The input as a pull parser sees it: bytes made contiguous only as many as a header needs. */
class Input {
  private buf: Uint8Array = EMPTY;
  private at = 0;
  private queue: Uint8Array[] = [];
  /** Absolute offset of buf[0]. */
  private base = 0;
  private done = false;
  constructor(private readonly source: AsyncIterator<Uint8Array>) {}

  get offset(): number {
    return this.base + this.at;
  }

  private async next(): Promise<Uint8Array | undefined> {
    const queued = this.queue.shift();
    if (queued) return queued;
    if (this.done) return undefined;
    for (;;) {
      const r = await this.source.next();
      if (r.done) {
        this.done = true;
        return undefined;
      }
      if (r.value.byteLength > 0) return r.value;
    }
  }

  /** At least `n` bytes contiguous at `view()`; false when the input ends first. */
  async ensure(n: number): Promise<boolean> {
    if (this.buf.byteLength - this.at >= n) return true;
    const rest = this.buf.subarray(this.at);
    const parts = [rest];
    let have = rest.byteLength;
    while (have < n) {
      const chunk = await this.next();
      if (!chunk) {
        // Keep what there is, so `rest()` can still pass it on.
        this.setBuf(concat(parts));
        return false;
      }
      const want = n - have;
      if (chunk.byteLength > want) {
        parts.push(chunk.subarray(0, want));
        this.queue.unshift(chunk.subarray(want));
        have = n;
      } else {
        parts.push(chunk);
        have += chunk.byteLength;
      }
    }
    this.setBuf(concat(parts));
    return true;
  }

  private setBuf(b: Uint8Array) {
    this.base += this.at;
    this.buf = b;
    this.at = 0;
  }

  /** The bytes from the current position (at least what `ensure` asked for). */
  view(): Uint8Array {
    return this.buf.subarray(this.at);
  }

  /** Consumes `n` bytes of the view and answers them. */
  take(n: number): Uint8Array {
    const out = this.buf.subarray(this.at, this.at + n);
    this.at += n;
    return out;
  }

  /** `n` bytes as they come, for passing on or skipping; fewer when the input ends. */
  async *pass(n: number): AsyncGenerator<Uint8Array> {
    while (n > 0) {
      if (this.at >= this.buf.byteLength) {
        const chunk = await this.next();
        if (!chunk) return;
        this.setBuf(chunk);
      }
      const k = Math.min(n, this.buf.byteLength - this.at);
      yield this.take(k);
      n -= k;
    }
  }

  /** The current contiguous piece (reading one more when it is used up), consumed whole; undefined at the end. */
  async piece(): Promise<Uint8Array | undefined> {
    if (this.at >= this.buf.byteLength) {
      const chunk = await this.next();
      if (!chunk) return undefined;
      this.setBuf(chunk);
    }
    return this.take(this.buf.byteLength - this.at);
  }

  /** Gives back the end of the last piece taken (`n` bytes), to be read again. */
  unread(n: number) {
    this.at -= n;
  }

  async *rest(): AsyncGenerator<Uint8Array> {
    for (let p = await this.piece(); p; p = await this.piece()) yield p;
  }

  async skipAll(): Promise<void> {
    while (await this.piece());
  }
}

const ascii = (b: Uint8Array, from: number, to: number) => String.fromCharCode(...b.subarray(from, to));

/** The orientation (1–8) a TIFF structure (EXIF's body) gives in IFD0, or 1. */
export function tiffOrientation(tiff: Uint8Array): number {
  if (tiff.byteLength < 8) return 1;
  const v = new DataView(tiff.buffer, tiff.byteOffset, tiff.byteLength);
  const order = ascii(tiff, 0, 2);
  if (order !== 'II' && order !== 'MM') return 1;
  const le = order === 'II';
  const ifd = v.getUint32(4, le);
  if (ifd + 2 > tiff.byteLength) return 1;
  const count = v.getUint16(ifd, le);
  for (let i = 0; i < count; i++) {
    const e = ifd + 2 + i * 12;
    if (e + 12 > tiff.byteLength) return 1;
    if (v.getUint16(e, le) === 0x0112 && v.getUint16(e + 2, le) === 3) {
      const o = v.getUint16(e + 8, le);
      return o >= 1 && o <= 8 ? o : 1;
    }
  }
  return 1;
}

/** The smallest TIFF structure that says `orientation` (big-endian, IFD0 with one entry). */
export function orientationTiff(orientation: number): Uint8Array {
  const t = new Uint8Array(26);
  const v = new DataView(t.buffer);
  t.set([0x4d, 0x4d, 0, 42, 0, 0, 0, 8]);
  v.setUint16(8, 1);
  v.setUint16(10, 0x0112);
  v.setUint16(12, 3);
  v.setUint32(14, 1);
  v.setUint16(18, orientation);
  return t;
}

const EXIF_ID = Uint8Array.of(0x45, 0x78, 0x69, 0x66, 0, 0);

/**
 * The picture's bytes without its metadata, as they stream in. `result.again` is set at the end when the output
 * must be thrown away and the same bytes cleaned again with that plan (WebP losing a chunk; AVIF metadata found
 * after their bytes passed). A structure it does not follow is passed on as it is from there (the picture check
 * decides whether it is a picture at all).
 */
export async function* cleanMetadata(
  source: AsyncIterable<Uint8Array>,
  result: CleanResult = {},
  plan: CleanPlan = {},
): AsyncGenerator<Uint8Array> {
  const input = new Input(source[Symbol.asyncIterator]());
  await input.ensure(32);
  const type = sniff(input.view());
  const clean = type ? CLEANERS[type] : undefined;
  if (clean) yield* clean(input, result, plan);
  yield* input.rest();
}

type Clean = (input: Input, result: CleanResult, plan: CleanPlan) => AsyncGenerator<Uint8Array>;

/** JPEG: segment by segment; scans stream through; nothing after EOI. */
async function* cleanJpeg(input: Input): AsyncGenerator<Uint8Array> {
  yield input.take(2); // SOI
  for (;;) {
    if (!(await input.ensure(2))) return;
    const head = input.view();
    if (head[0] !== 0xff) return;
    const code = head[1]!;
    if (code === 0xff) {
      yield input.take(1); // a fill byte
      continue;
    }
    if (code === 0xd9) {
      yield input.take(2);
      await input.skipAll(); // what follows EOI (phones append clips and second pictures with their own EXIF)
      return;
    }
    if (code === 0x01 || (code >= 0xd0 && code <= 0xd7)) {
      yield input.take(2);
      continue;
    }
    if (!(await input.ensure(4))) return;
    const length = (input.view()[2]! << 8) | input.view()[3]!;
    if (length < 2) return;
    const keep = jpegKeeps(code);
    if (keep === 'pass') {
      yield* input.pass(2 + length);
      if (code === 0xda) yield* jpegScan(input);
      continue;
    }
    if (keep === 'drop' || length - 2 > META_MAX) {
      for await (const _ of input.pass(2 + length));
      continue;
    }
    if (!(await input.ensure(2 + length))) return;
    const segment = input.take(2 + length);
    const out = jpegSegment(code, segment.subarray(4));
    if (out) yield out;
  }
}

/** What happens to a segment: passed as it is, dropped, or read and rewritten (`jpegSegment`). */
function jpegKeeps(code: number): 'pass' | 'drop' | 'read' {
  if (code === 0xfe) return 'drop'; // COM
  if (code === 0xe0 || code === 0xe1 || code === 0xe2 || code === 0xee) return 'read';
  if (code >= 0xe0 && code <= 0xef) return 'drop';
  return 'pass';
}

function segmentOf(code: number, body: Uint8Array): Uint8Array {
  const out = new Uint8Array(4 + body.byteLength);
  out.set([0xff, code, (body.byteLength + 2) >> 8, (body.byteLength + 2) & 0xff]);
  out.set(body, 4);
  return out;
}

/** An APP0, APP1, APP2 or APP14 segment as the clean picture keeps it, or undefined to drop it. */
function jpegSegment(code: number, body: Uint8Array): Uint8Array | undefined {
  if (code === 0xe0) {
    // JFIF: its header without the thumbnail (JFXX extensions hold only thumbnails).
    if (body.byteLength < 14 || ascii(body, 0, 5) !== 'JFIF\0') return undefined;
    const head = body.slice(0, 14);
    head[12] = 0;
    head[13] = 0;
    return segmentOf(code, head);
  }
  if (code === 0xe1) {
    if (body.byteLength < 6 || ascii(body, 0, 6) !== 'Exif\0\0') return undefined;
    const o = tiffOrientation(body.subarray(6));
    return o === 1 ? undefined : segmentOf(code, concat([EXIF_ID, orientationTiff(o)]));
  }
  if (code === 0xe2) return ascii(body, 0, 12) === 'ICC_PROFILE\0' ? segmentOf(code, body) : undefined;
  return ascii(body, 0, 5) === 'Adobe' ? segmentOf(code, body) : undefined; // APP14: how to read the colours
}

/**
 * A scan's entropy-coded data, passed on up to the marker that ends it (neither a stuffed 0xFF00 nor a restart
 * marker), which is left for the segment loop.
 */
async function* jpegScan(input: Input): AsyncGenerator<Uint8Array> {
  for (;;) {
    const piece = await input.piece();
    if (!piece) return;
    let i = piece.indexOf(0xff);
    while (i >= 0) {
      if (i + 1 >= piece.byteLength) break;
      const b = piece[i + 1]!;
      if (b !== 0x00 && !(b >= 0xd0 && b <= 0xd7)) {
        input.unread(piece.byteLength - i);
        if (i > 0) yield piece.subarray(0, i);
        return;
      }
      i = piece.indexOf(0xff, i + 2);
    }
    if (i >= 0) {
      // A 0xFF ends this piece: decide with the next byte.
      input.unread(1);
      if (i > 0) yield piece.subarray(0, i);
      if (!(await input.ensure(2))) return;
      const b = input.view()[1]!;
      if (b !== 0x00 && !(b >= 0xd0 && b <= 0xd7)) return;
      yield input.take(2);
    } else yield piece;
  }
}

const CRC_TABLE = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();

function crc32(bytes: Uint8Array): number {
  let c = 0xffffffff;
  for (let i = 0; i < bytes.byteLength; i++) c = CRC_TABLE[(c ^ bytes[i]!) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/** The chunks that draw a PNG (and APNG's frames); everything else but eXIf goes. */
const PNG_KEPT = new Set([
  'IHDR',
  'PLTE',
  'IDAT',
  'IEND',
  'tRNS',
  'cHRM',
  'gAMA',
  'iCCP',
  'sBIT',
  'sRGB',
  'cICP',
  'mDCV',
  'cLLI',
  'bKGD',
  'hIST',
  'pHYs',
  'acTL',
  'fcTL',
  'fdAT',
]);

function pngChunk(type: string, data: Uint8Array): Uint8Array {
  const out = new Uint8Array(12 + data.byteLength);
  const v = new DataView(out.buffer);
  v.setUint32(0, data.byteLength);
  for (let i = 0; i < 4; i++) out[4 + i] = type.charCodeAt(i);
  out.set(data, 8);
  v.setUint32(8 + data.byteLength, crc32(out.subarray(4, 8 + data.byteLength)));
  return out;
}

async function* cleanPng(input: Input): AsyncGenerator<Uint8Array> {
  yield input.take(8);
  for (;;) {
    if (!(await input.ensure(8))) return;
    const h = input.view();
    const length = new DataView(h.buffer, h.byteOffset, 8).getUint32(0);
    const type = ascii(h, 4, 8);
    if (PNG_KEPT.has(type)) {
      yield* input.pass(12 + length);
      if (type === 'IEND') {
        await input.skipAll();
        return;
      }
    } else if (type === 'eXIf' && length <= META_MAX) {
      if (!(await input.ensure(12 + length))) return;
      const o = tiffOrientation(input.take(12 + length).subarray(8, 8 + length));
      if (o !== 1) yield pngChunk('eXIf', orientationTiff(o));
    } else for await (const _ of input.pass(12 + length));
  }
}

/** WebP chunks kept as they are; EXIF is rewritten, VP8X's flags follow; the rest goes. */
const WEBP_KEPT = new Set(['VP8 ', 'VP8L', 'VP8X', 'ALPH', 'ANIM', 'ANMF', 'ICCP']);

const webpChunk = (fourcc: string, payload: Uint8Array) => {
  const out = new Uint8Array(8 + payload.byteLength + (payload.byteLength & 1));
  for (let i = 0; i < 4; i++) out[i] = fourcc.charCodeAt(i);
  new DataView(out.buffer).setUint32(4, payload.byteLength, true);
  out.set(payload, 8);
  return out;
};

/**
 * WebP. Without a plan the bytes pass as they are while the chunks are read: if none is to go or change, that was
 * the clean picture; else `again` carries the clean RIFF size and the orientation, and the second pass writes it.
 */
async function* cleanWebp(input: Input, result: CleanResult, plan: CleanPlan): AsyncGenerator<Uint8Array> {
  const writing = plan.riffSize !== undefined;
  const header = input.take(12);
  const end = new DataView(header.buffer, header.byteOffset, 12).getUint32(4, true) + 8;
  if (writing) {
    const h = header.slice();
    new DataView(h.buffer).setUint32(4, plan.riffSize!, true);
    yield h;
  } else yield header;
  let size = 4; // 'WEBP'
  let changed = false;
  let orientation = 1;
  let flags: number | undefined;
  while (input.offset < end) {
    if (!(await input.ensure(8))) break;
    const h = input.view();
    const fourcc = ascii(h, 0, 4);
    const length = new DataView(h.buffer, h.byteOffset, 8).getUint32(4, true);
    const whole = 8 + length + (length & 1);
    if (fourcc === 'EXIF' && length <= META_MAX && orientation === 1 && (await input.ensure(whole))) {
      const chunk = input.take(whole);
      const body = chunk.subarray(8, 8 + length);
      // Some writers put JPEG's "Exif\0\0" before the TIFF structure.
      orientation = tiffOrientation(ascii(body, 0, 6) === 'Exif\0\0' ? body.subarray(6) : body);
      const out = orientation === 1 ? EMPTY : webpChunk('EXIF', orientationTiff(orientation));
      size += out.byteLength;
      if (!same(out, chunk)) changed = true;
      yield writing ? out : chunk;
      continue;
    }
    if (fourcc === 'VP8X' && length === 10 && (await input.ensure(18))) {
      const chunk = input.take(18);
      flags = chunk[8]!;
      size += 18;
      if (!writing) yield chunk;
      else {
        const c = chunk.slice();
        c[8] = (c[8]! & ~0x0c) | (plan.orientation !== undefined && plan.orientation !== 1 ? 0x08 : 0);
        yield c;
      }
      continue;
    }
    const keep = WEBP_KEPT.has(fourcc);
    if (keep) size += whole;
    else changed = true;
    for await (const p of input.pass(whole)) if (keep || !writing) yield p;
  }
  await input.skipAll();
  if (writing) return;
  // VP8X says whether EXIF and XMP are there.
  if (flags !== undefined && (flags & 0x0c) !== (orientation !== 1 ? 0x08 : 0)) changed = true;
  if (changed || size !== end - 8) result.again = { riffSize: size, orientation };
}

const same = (a: Uint8Array, b: Uint8Array) => a.byteLength === b.byteLength && a.every((x, i) => x === b[i]);

/** GIF: blocks in order; comment extensions and foreign application extensions go. */
async function* cleanGif(input: Input): AsyncGenerator<Uint8Array> {
  if (!(await input.ensure(13))) return;
  const lsd = input.view();
  const table = lsd[10]! & 0x80 ? 3 * 2 ** ((lsd[10]! & 7) + 1) : 0;
  yield* input.pass(13 + table);
  for (;;) {
    if (!(await input.ensure(1))) return;
    const b = input.view()[0]!;
    if (b === 0x3b) {
      yield input.take(1);
      await input.skipAll();
      return;
    }
    if (b === 0x2c) {
      if (!(await input.ensure(11))) return;
      const d = input.view();
      const local = d[9]! & 0x80 ? 3 * 2 ** ((d[9]! & 7) + 1) : 0;
      yield* input.pass(11 + local); // descriptor, local table, LZW code size
      yield* gifBlocks(input, true);
      continue;
    }
    if (b !== 0x21 || !(await input.ensure(2))) return;
    const label = input.view()[1]!;
    let keep = label !== 0xfe;
    if (label === 0xff && (await input.ensure(14))) {
      const app = ascii(input.view(), 3, 14);
      keep = app === 'NETSCAPE2.0' || app === 'ANIMEXTS1.0' || app === 'ICCRGBG1012';
    }
    const head = input.take(2);
    if (keep) yield head;
    yield* gifBlocks(input, keep);
  }
}

/** Data sub-blocks up to the empty one, passed on or dropped. */
async function* gifBlocks(input: Input, keep: boolean): AsyncGenerator<Uint8Array> {
  for (;;) {
    if (!(await input.ensure(1))) return;
    const n = input.view()[0]!;
    for await (const p of input.pass(1 + n)) if (keep) yield p;
    if (n === 0) return;
  }
}

/** The boxes of a box's body: [type, start, end] within `b`. */
function boxes(b: Uint8Array, from: number, to: number): Array<[string, number, number]> {
  const out: Array<[string, number, number]> = [];
  const v = new DataView(b.buffer, b.byteOffset, b.byteLength);
  for (let at = from; at + 8 <= to; ) {
    let size = v.getUint32(at);
    let head = 8;
    if (size === 1 && at + 16 <= to) {
      size = v.getUint32(at + 8) * 2 ** 32 + v.getUint32(at + 12);
      head = 16;
    } else if (size === 0) size = to - at;
    if (size < head || at + size > to) break;
    out.push([ascii(b, at + 4, at + 8), at + head, at + size]);
    at += size;
  }
  return out;
}

/**
 * The ranges of a `meta` box's metadata items (EXIF, XMP): file ranges for items in the file, ranges of
 * `meta` itself (from its start) for items in its `idat`.
 */
function avifMetadata(meta: Uint8Array, metaStart: number): Array<[number, number]> {
  const v = new DataView(meta.buffer, meta.byteOffset, meta.byteLength);
  const inner = boxes(meta, 12, meta.byteLength); // after the box header and FullBox version/flags
  const ids = new Set<number>();
  const iinf = inner.find((b) => b[0] === 'iinf');
  if (iinf) {
    const version = meta[iinf[1]]!;
    const first = iinf[1] + 4 + (version === 0 ? 2 : 4);
    for (const [type, s, e] of boxes(meta, first, iinf[2])) {
      if (type !== 'infe' || meta[s]! < 2) continue;
      const version2 = meta[s]!;
      const id = version2 === 2 ? v.getUint16(s + 4) : v.getUint32(s + 4);
      const typeAt = s + 4 + (version2 === 2 ? 2 : 4) + 2;
      const itemType = ascii(meta, typeAt, typeAt + 4);
      if (itemType === 'Exif') ids.add(id);
      else if (itemType === 'mime') {
        const text = ascii(meta, typeAt + 4, Math.min(e, typeAt + 200));
        if (text.includes('application/rdf+xml')) ids.add(id);
      }
    }
  }
  const iloc = inner.find((b) => b[0] === 'iloc');
  if (!iloc || ids.size === 0) return [];
  const idat = inner.find((b) => b[0] === 'idat');
  const out: Array<[number, number]> = [];
  let at = iloc[1];
  const version = meta[at]!;
  at += 4;
  const sizes = v.getUint16(at);
  at += 2;
  const offsetSize = sizes >> 12;
  const lengthSize = (sizes >> 8) & 15;
  const baseSize = (sizes >> 4) & 15;
  const indexSize = version >= 1 ? sizes & 15 : 0;
  const read = (n: number) => {
    let x = 0;
    for (let i = 0; i < n; i++) x = x * 256 + meta[at + i]!;
    at += n;
    return x;
  };
  const count = version < 2 ? read(2) : read(4);
  for (let i = 0; i < count && at < iloc[2]; i++) {
    const id = version < 2 ? read(2) : read(4);
    const method = version >= 1 ? read(2) & 15 : 0;
    read(2); // data reference index
    const base = read(baseSize);
    const extents = read(2);
    for (let k = 0; k < extents; k++) {
      read(indexSize);
      const offset = base + read(offsetSize);
      const length = read(lengthSize);
      if (!ids.has(id)) continue;
      if (method === 0) out.push([offset, offset + length]);
      else if (method === 1 && idat) out.push([metaStart + idat[1] + offset, metaStart + idat[1] + offset + length]);
    }
  }
  return out;
}

/** Zeroes the parts of `piece` (at input offset `at`) that fall in `ranges`; a copy when it changes any. */
function blanked(piece: Uint8Array, at: number, ranges: ReadonlyArray<[number, number]>): Uint8Array {
  let out = piece;
  for (const [s, e] of ranges) {
    const from = Math.max(s, at) - at;
    const to = Math.min(e, at + piece.byteLength) - at;
    if (from >= to) continue;
    if (out === piece) out = piece.slice();
    out.fill(0, from, to);
  }
  return out;
}

/** AVIF: the bytes of EXIF and XMP items blanked where they lie (their size kept: offsets elsewhere name them). */
async function* cleanAvif(input: Input, result: CleanResult, plan: CleanPlan): AsyncGenerator<Uint8Array> {
  const ranges: Array<[number, number]> = [...(plan.blank ?? [])];
  let late = false;
  for (;;) {
    if (!(await input.ensure(8))) break;
    const h = input.view();
    const v = new DataView(h.buffer, h.byteOffset, 8);
    const size = v.getUint32(0);
    const type = ascii(h, 4, 8);
    if (type === 'meta' && size >= 12 && size <= AVIF_META_MAX && (await input.ensure(size))) {
      const start = input.offset;
      const found = avifMetadata(input.view().subarray(0, size), start);
      for (const r of found) {
        if (r[0] < start) late = true;
        if (!ranges.some(([s, e]) => s === r[0] && e === r[1])) ranges.push(r);
      }
      yield blanked(input.take(size), start, ranges);
      continue;
    }
    if (size === 0) {
      for (let at = input.offset, p = await input.piece(); p; at += p.byteLength, p = await input.piece())
        yield blanked(p, at, ranges);
      break;
    }
    if (size === 1) break; // a 64-bit box: passed on as it is (the rest follows)
    if (size < 8) break;
    let at = input.offset;
    for await (const p of input.pass(size)) {
      yield blanked(p, at, ranges);
      at += p.byteLength;
    }
  }
  if (late && !plan.blank) result.again = { blank: ranges };
}

const CLEANERS: Partial<Record<MediaType, Clean>> = {
  'image/jpeg': cleanJpeg,
  'image/png': cleanPng,
  'image/webp': cleanWebp,
  'image/gif': cleanGif,
  'image/avif': cleanAvif,
};

/** A picture whole, cleaned (a second pass when the first asks for one): what the browser stores. */
export async function cleanPicture(bytes: Uint8Array): Promise<Uint8Array> {
  const once = async (plan?: CleanPlan) => {
    const result: CleanResult = {};
    const parts: Uint8Array[] = [];
    for await (const p of cleanMetadata(one(bytes), result, plan)) parts.push(p);
    return { out: concat(parts), result };
  };
  const first = await once();
  return first.result.again ? (await once(first.result.again)).out : first.out;
}

async function* one(bytes: Uint8Array): AsyncGenerator<Uint8Array> {
  yield bytes;
}
