/**
 * The bytes decide what a picture is (docs/design.md §19): JPEG, PNG, GIF, WebP and AVIF, recognized by their first
 * bytes; width and height from the header (image-size); a file cut short is refused (each format's structure
 * is walked to its end as the bytes stream by: JPEG segments to EOI, PNG chunks to IEND, the RIFF size of
 * WebP, the box sizes of AVIF, GIF's trailer). Everything else (SVG included: it can carry script) is 400
 * `invalid`, as is a declared type that disagrees with the bytes, a picture over MAX_PIXELS, and one whose
 * size is not in its first HEAD_MAX bytes. Over the byte limit is 413, found on the way: nothing after the
 * crossing piece is read. Memory per check is at most HEAD_MAX, whatever the picture's size.
 */
import type { MediaType } from '../schema/media.js';
import { GIF } from 'image-size/types/gif';
import { HEIF } from 'image-size/types/heif';
import { JPG } from 'image-size/types/jpg';
import { PNG } from 'image-size/types/png';
import { WEBP } from 'image-size/types/webp';
import { BlogError } from '../util/errors.js';
import { MEDIA_LIMITS } from '../schema/values.js';

export const MEDIA_TYPES = ['image/jpeg', 'image/png', 'image/gif', 'image/webp', 'image/avif'] as const;
/** Pictures larger than this many pixels are refused (a decompression bomb fits in a few bytes). */
export const MAX_PIXELS = 100_000_000;
/** The default of `maxMediaBytes`. */
export const DEFAULT_MAX_MEDIA_BYTES = 20 * 1024 * 1024;
/** The first bytes kept to read the size from (JPEG's can sit behind large metadata segments). */
export const HEAD_MAX = 1024 * 1024;
/** File name extensions by type (the first is the one given to files named without one). */
export const EXTENSIONS: Record<MediaType, readonly string[]> = {
  'image/jpeg': ['jpg', 'jpeg', 'jpe', 'jfif'],
  'image/png': ['png'],
  'image/gif': ['gif'],
  'image/webp': ['webp'],
  'image/avif': ['avif'],
};

const bad = (message: string) =>
  new BlogError({ code: 400, reason: 'invalid', message, location: 'body', locationType: 'body' });
const NOT_AN_IMAGE = 'The body is not a JPEG, PNG, GIF, WebP or AVIF picture (SVG and other types are not accepted)';

const ascii = (b: Uint8Array, from: number, to: number) => String.fromCharCode(...b.subarray(from, to));

/** The type the first bytes (at least 32, or the whole file) announce, if one we take. */
export function sniff(head: Uint8Array): MediaType | undefined {
  if (head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) return 'image/jpeg';
  if (ascii(head, 0, 8) === '\x89PNG\r\n\x1a\n') return 'image/png';
  if (/^GIF8[79]a$/.test(ascii(head, 0, 6))) return 'image/gif';
  if (ascii(head, 0, 4) === 'RIFF' && ascii(head, 8, 12) === 'WEBP') return 'image/webp';
  if (ascii(head, 4, 8) === 'ftyp') {
    // AVIF's major brand, or a general HEIF brand listing AVIF among its compatible ones.
    const size = new DataView(head.buffer, head.byteOffset, head.byteLength).getUint32(0);
    const brands = [];
    for (let at = 8; at + 4 <= Math.min(size, head.byteLength); at += 4)
      if (at !== 12) brands.push(ascii(head, at, at + 4));
    if (
      brands[0] === 'avif' ||
      brands[0] === 'avis' ||
      ((brands[0] === 'mif1' || brands[0] === 'msf1') && brands.includes('avif'))
    )
      return 'image/avif';
  }
  return undefined;
}

/** HEIF brands of HEVC pictures (an iPhone's HEIC), which no browser but Safari shows. */
const HEIC_BRANDS = new Set(['heic', 'heix', 'heim', 'heis', 'hevc', 'hevx', 'hevm', 'hevs']);
const HEIC =
  "The body is a HEIC picture (an iPhone's default format), which most browsers cannot show: convert it to JPEG " +
  'first (on the iPhone: Settings › Camera › Formats › Most Compatible; or export it as JPEG from Photos or Preview)';

/** Whether the first bytes announce a HEIF picture coded in HEVC (major or compatible brand), not AVIF. */
function isHeic(head: Uint8Array): boolean {
  if (ascii(head, 4, 8) !== 'ftyp' || head.byteLength < 12) return false;
  const size = new DataView(head.buffer, head.byteOffset, head.byteLength).getUint32(0);
  for (let at = 8; at + 4 <= Math.min(size, head.byteLength); at += 4)
    if (at !== 12 && HEIC_BRANDS.has(ascii(head, at, at + 4))) return true;
  return false;
}

/** A declared type as the bytes' type would be named: lower case, no parameters, `image/jpg` as `image/jpeg`. */
export function normalizeType(declared: string): string {
  const t = declared.split(';', 1)[0]!.trim().toLowerCase();
  return t === 'image/jpg' || t === 'image/pjpeg' ? 'image/jpeg' : t;
}

/** Walks a format's structure as bytes arrive; `ended()` says whether the picture was complete. */
interface Walker {
  feed(chunk: Uint8Array): void;
  ended(): boolean;
}

/**
 * Length-prefixed units (PNG chunks, ISO-BMFF boxes): after `start` bytes, each unit's 8-byte header says how
 * many bytes to skip (`unit`), or that the picture ends after this unit's `last` bytes, runs to the end of the
 * file ('rest'), or that 8 more header bytes give the length ('large', then `large` turns them into the bytes
 * to skip). A format with an end unit (`marked`) ends only after it; another may end after any whole unit.
 */
function units(
  start: number,
  marked: boolean,
  unit: (h: DataView) => number | { last: number } | 'rest' | 'large',
  large: (h: DataView) => number = () => -1,
): Walker {
  let skip = start;
  const h = new Uint8Array(8);
  let have = 0;
  let count = 0;
  let wide = false;
  let closing = false;
  let state: 'walk' | 'end' | 'rest' | 'broken' = 'walk';
  return {
    feed(chunk) {
      let at = 0;
      while (at < chunk.byteLength && state === 'walk') {
        if (skip > 0) {
          const n = Math.min(skip, chunk.byteLength - at);
          skip -= n;
          at += n;
          if (skip === 0 && closing) state = 'end';
          continue;
        }
        const n = Math.min(8 - have, chunk.byteLength - at);
        h.set(chunk.subarray(at, at + n), have);
        have += n;
        at += n;
        if (have < 8) continue;
        have = 0;
        const view = new DataView(h.buffer);
        const r = wide ? large(view) : unit(view);
        if (!wide) count++;
        wide = r === 'large';
        if (typeof r === 'number') {
          if (r < 0 || !Number.isSafeInteger(r)) state = 'broken';
          else skip = r;
        } else if (typeof r === 'object') {
          closing = true;
          skip = r.last;
          if (skip === 0) state = 'end';
        } else if (r !== 'large') state = r;
      }
    },
    // Ended at the end marker, inside a unit that runs to the end of the file, or (where the format has no end
    // marker) on a unit boundary.
    ended: () =>
      state === 'end' ||
      state === 'rest' ||
      (!marked && state === 'walk' && count > 0 && skip === 0 && have === 0 && !wide),
  };
}

const fourcc = (h: DataView) => String.fromCharCode(h.getUint8(4), h.getUint8(5), h.getUint8(6), h.getUint8(7));

// Only IEND (with its CRC) ends a PNG: a file that stops at any other chunk boundary was cut short.
const pngWalker = () =>
  units(8, true, (h) => (fourcc(h) === 'IEND' ? { last: h.getUint32(0) + 4 } : h.getUint32(0) + 4));

/** ISO-BMFF boxes (AVIF): every box whole, or a last box of size 0 that runs to the end of the file. */
const avifWalker = () =>
  units(
    0,
    false,
    (h) => {
      const size = h.getUint32(0);
      return size === 0 ? 'rest' : size === 1 ? 'large' : size - 8;
    },
    (h) => h.getUint32(0) * 2 ** 32 + h.getUint32(4) - 16,
  );

function webpWalker(): Walker {
  let total = 0;
  let expected = Infinity;
  const first = new Uint8Array(8);
  return {
    feed(chunk) {
      if (total < 8) first.set(chunk.subarray(0, 8 - total), total);
      total += chunk.byteLength;
      if (total >= 8 && expected === Infinity) expected = new DataView(first.buffer).getUint32(4, true) + 8;
    },
    ended: () => total >= expected,
  };
}

function gifWalker(): Walker {
  let last = -1;
  return {
    feed(chunk) {
      if (chunk.byteLength > 0) last = chunk[chunk.byteLength - 1]!;
    },
    ended: () => last === 0x3b,
  };
}

/**
 * JPEG: marker segments (skipped by their length) up to a scan, whose entropy-coded data runs until a marker
 * that is neither a stuffed 0xFF00 nor a restart; EOI ends the picture. Embedded thumbnails sit inside
 * segments and are skipped with them. Bytes after EOI (phones append motion clips) are allowed.
 */
function jpegWalker(): Walker {
  type State = 'ff' | 'code' | 'len1' | 'len2' | 'skip' | 'data' | 'dataff' | 'end' | 'broken';
  let state: State = 'ff';
  let code = 0;
  let len = 0;
  let skip = 2; // SOI
  let afterSkip: State = 'ff';
  const standalone = (c: number) => c === 0x01 || (c >= 0xd0 && c <= 0xd8);
  return {
    feed(chunk) {
      let i = 0;
      const n = chunk.byteLength;
      if (skip > 0 && state === 'ff') {
        const k = Math.min(skip, n);
        skip -= k;
        i = k;
      }
      while (i < n && state !== 'end' && state !== 'broken') {
        const b = chunk[i]!;
        switch (state) {
          case 'ff':
            if (b !== 0xff) state = 'broken';
            else state = 'code';
            i++;
            break;
          case 'code':
            i++;
            if (b === 0xff) break; // fill bytes
            code = b;
            if (code === 0xd9) state = 'end';
            else if (standalone(code)) state = 'ff';
            else state = 'len1';
            break;
          case 'len1':
            len = b << 8;
            state = 'len2';
            i++;
            break;
          case 'len2': {
            len |= b;
            i++;
            if (len < 2) {
              state = 'broken';
              break;
            }
            skip = len - 2;
            afterSkip = code === 0xda ? 'data' : 'ff';
            state = skip > 0 ? 'skip' : afterSkip;
            break;
          }
          case 'skip': {
            const k = Math.min(skip, n - i);
            skip -= k;
            i += k;
            if (skip === 0) state = afterSkip;
            break;
          }
          case 'data': {
            // Entropy-coded data: skip stuffed 0xFF00 and restart markers here, without a turn of the switch each.
            let ff = chunk.indexOf(0xff, i);
            while (ff >= 0 && ff + 1 < n) {
              const next = chunk[ff + 1]!;
              if (next !== 0x00 && (next < 0xd0 || next > 0xd7)) break;
              ff = chunk.indexOf(0xff, ff + 2);
            }
            if (ff < 0) i = n;
            else {
              i = ff + 1;
              state = 'dataff';
            }
            break;
          }
          case 'dataff':
            i++;
            if (b === 0x00 || (b >= 0xd0 && b <= 0xd7)) state = 'data';
            else if (b === 0xff) state = 'dataff';
            else if (b === 0xd9) state = 'end';
            else {
              code = b;
              state = standalone(b) ? 'ff' : 'len1';
            }
            break;
        }
      }
    },
    ended: () => state === 'end',
  };
}

const WALKERS: Record<MediaType, () => Walker> = {
  'image/jpeg': jpegWalker,
  'image/png': pngWalker,
  'image/gif': gifWalker,
  'image/webp': webpWalker,
  'image/avif': avifWalker,
};
const SIZERS: Record<
  MediaType,
  { calculate(input: Uint8Array): { width?: number; height?: number; orientation?: number } }
> = {
  'image/jpeg': JPG,
  'image/png': PNG,
  'image/gif': GIF,
  'image/webp': WEBP,
  'image/avif': HEIF,
};

export interface ImageInfo {
  contentType: MediaType;
  width: number;
  height: number;
  bytes: number;
}

/** 413: a picture over `maxMediaBytes`. */
export const pictureTooLarge = (max: number) =>
  new BlogError({
    code: 413,
    reason: 'requestTooLarge',
    message: `The picture is larger than ${max} bytes (maxMediaBytes)`,
  });

/** Bytes that must arrive before the type is decided (fewer only if the whole file is shorter). */
const SNIFF_BYTES = 32;

type Size = { width?: number; height?: number; orientation?: number };

/** Checks one picture as its bytes stream by: `add` each piece in order, then `finish`. */
export class ImageCheck {
  private bytes = 0;
  private head: Uint8Array;
  private headLength = 0;
  private type: MediaType | undefined;
  private walker: Walker | undefined;
  /** The size, once read from the head (the head then stops growing); and how much head the last try had. */
  private size: Size | undefined;
  private tried = 0;

  constructor(
    private readonly declared: string | undefined,
    private readonly maxBytes: number,
  ) {
    this.head = new Uint8Array(Math.min(HEAD_MAX, maxBytes + 1));
  }

  add(chunk: Uint8Array): void {
    this.bytes += chunk.byteLength;
    if (this.bytes > this.maxBytes) throw pictureTooLarge(this.maxBytes);
    let kept = 0;
    if (!this.size && this.headLength < this.head.byteLength) {
      kept = Math.min(chunk.byteLength, this.head.byteLength - this.headLength);
      this.head.set(chunk.subarray(0, kept), this.headLength);
      this.headLength += kept;
    }
    // Deciding feeds the walker the head (everything so far, this piece's first `kept` bytes included), then
    // the rest of this piece; after that, each piece whole. Every byte reaches the walker once, however split.
    if (this.walker) this.walker.feed(chunk);
    else if (this.headLength >= SNIFF_BYTES) {
      this.decide();
      this.walker!.feed(chunk.subarray(kept));
    }
    // The size is read as soon as the head holds it (tries at growing lengths: a JPEG's may sit far in).
    if (
      this.type &&
      !this.size &&
      (this.headLength >= Math.max(4096, this.tried * 8) || this.headLength === this.head.byteLength)
    )
      this.readSize();
  }

  /**
   * The picture's type and size once all of it arrived; throws when it is not a whole picture we take. With
   * `whole` false, from what was added so far (its head), without asking for the end.
   */
  finish(whole = true): ImageInfo {
    if (this.bytes === 0) throw bad('The body is empty: send the picture as the request body');
    if (!this.type) this.decide();
    const type = this.type!;
    if (whole && !this.walker!.ended())
      throw bad(`The ${label(type)} is cut short (its data ends before the end of the picture)`);
    if (!this.size) this.readSize();
    if (!this.size)
      throw bad(`The ${label(type)}'s width and height could not be read from its first ${HEAD_MAX} bytes`);
    let { width = 0, height = 0 } = this.size;
    // EXIF orientations 5-8 turn the picture a quarter: browsers show it with width and height swapped.
    if ((this.size.orientation ?? 1) >= 5) [width, height] = [height, width];
    if (!(width > 0 && height > 0)) throw bad(`The ${label(type)} has no width or height`);
    if (width * height > MAX_PIXELS)
      throw bad(`The picture is ${width}×${height}: larger than ${MAX_PIXELS / 1e6} megapixels`);
    return { contentType: type, width, height, bytes: this.bytes };
  }

  private readSize(): void {
    if (this.tried === this.headLength) return;
    this.tried = this.headLength;
    try {
      const size = SIZERS[this.type!].calculate(this.head.subarray(0, this.headLength));
      if (size.width !== undefined && size.height !== undefined) this.size = size;
    } catch {
      // Not in the head yet: a later try, with more of it, may find it.
    }
  }

  private decide(): void {
    const type = sniff(this.head.subarray(0, this.headLength));
    if (!type) throw bad(isHeic(this.head.subarray(0, this.headLength)) ? HEIC : NOT_AN_IMAGE);
    if (this.declared !== undefined && normalizeType(this.declared) !== type) {
      throw bad(`The declared type ${this.declared} disagrees with the bytes, which are ${type}`);
    }
    this.type = type;
    this.walker = WALKERS[type]();
    // Catch up with what came before the decision (all of it is in the head).
    this.walker.feed(this.head.subarray(0, this.headLength));
  }
}

const label = (type: MediaType) =>
  ({ 'image/jpeg': 'JPEG', 'image/png': 'PNG', 'image/gif': 'GIF', 'image/webp': 'WebP', 'image/avif': 'AVIF' })[type];

const ALL_EXTENSIONS = new Set(Object.values(EXTENSIONS).flat());

/**
 * The file name a picture is kept and served under: the last part of the name given (no directories, no
 * control, quoting, direction or invisible characters, no leading dots), at most `MEDIA_LIMITS.filename` characters, its extension made to match the
 * type. Without a usable name: `image.<ext>`.
 */
export function fileName(given: string | undefined, type: MediaType): string {
  let name = (given ?? '')
    .split(/[/\\]/)
    .pop()!
    .replace(/[\u0000-\u001f\u007f"<>|*?:]/g, '')
    // Direction overrides and invisible characters make a name show as another (`gpj.exe` read as `exe.jpg`).
    .replace(/[\u00ad\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]/g, '')
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/^\.+/, '');
  const dot = name.lastIndexOf('.');
  const ext = dot > 0 ? name.slice(dot + 1).toLowerCase() : '';
  if (!EXTENSIONS[type].includes(ext)) {
    if (ALL_EXTENSIONS.has(ext)) name = name.slice(0, dot);
    name = `${name || 'image'}.${EXTENSIONS[type][0]}`;
  }
  if (name.length > MEDIA_LIMITS.filename) {
    const cut = name.lastIndexOf('.');
    name = name.slice(0, MEDIA_LIMITS.filename - (name.length - cut)) + name.slice(cut);
  }
  return name;
}
