/**
 * Variants of a picture (docs/design.md §23): the picture `width` pixels wide, as its own type, WebP or AVIF, made on first
 * request by `sharp` (an optional dependency, loaded here only) and kept in the blob store beside the original
 * (`{blob}.w{N}.{ext}`), so later requests read them from there. Only widths of `imageWidths` below the picture's
 * own are offered (never upscaled); GIFs are not (their animation would be lost). Making is bounded per process:
 * MAKING at once, QUEUED waiting, 503 with `Retry-After` past that. A decompression bomb is stopped three times:
 * the record's size is within MAX_PIXELS (checked at upload), the stored bytes' header is checked again as at
 * upload before sharp sees them (a record written before the rule, or bytes changed under it), and sharp's own input
 * pixel limit is set to it. A picture sharp cannot resize has no variants (404 that says why), never a 500.
 */
import type { Core } from '../core/core.js';
import { mediaId, type MediaRecord } from '../store/records.js';
import type { MediaType } from '../schema/media.js';
import { BlogError } from '../util/errors.js';
import { concat, piecesOfStream } from '../util/streams.js';
import { EXTENSIONS, HEAD_MAX, ImageCheck, MAX_PIXELS } from './images.js';

/** What we use of sharp: the few calls of a resize (its own types stay out of ours). */
export interface SharpLike {
  (input: Uint8Array, options: { limitInputPixels: number; failOn: 'error' }): SharpLike;
  rotate(): SharpLike;
  resize(options: { width: number; withoutEnlargement: boolean }): SharpLike;
  jpeg(o: object): SharpLike;
  png(o: object): SharpLike;
  webp(o: object): SharpLike;
  avif(o: object): SharpLike;
  toBuffer(): Promise<Uint8Array>;
}

let sharpLoad: Promise<SharpLike | undefined> | undefined;
let sharpError: string | undefined;

/** sharp when it loads here (once per process), else undefined; `sharpProblem()` then says why. */
export function loadSharp(): Promise<SharpLike | undefined> {
  // A name in a variable: bundlers leave it alone, and a browser bundle never pulls sharp in.
  const name = 'sharp';
  sharpLoad ??= import(name).then(
    (m: { default: SharpLike }) => m.default,
    (error: unknown) => {
      sharpError = error instanceof Error ? error.message.split('\n', 1)[0] : String(error);
      return undefined;
    },
  );
  return sharpLoad;
}

/** Why sharp did not load (after `loadSharp()` answered undefined). */
export const sharpProblem = () => sharpError;

/** The variant types a picture of `type` is offered in, by file extension. */
export function variantTypes(type: MediaType): Record<string, MediaType> {
  if (type === 'image/gif') return {};
  const own = Object.fromEntries(EXTENSIONS[type].map((e) => [e, type]));
  return { ...own, webp: 'image/webp', avif: 'image/avif' };
}

/** The widths a picture is offered at: those of `imageWidths` below its own. */
export const variantWidths = (core: Core, r: Pick<MediaRecord, 'width' | 'contentType'>) =>
  r.contentType === 'image/gif' ? [] : core.imageWidths.filter((w) => w < r.width);

const FORMAT_EXT: Record<MediaType, string> = {
  'image/jpeg': 'jpg',
  'image/png': 'png',
  'image/gif': 'gif',
  'image/webp': 'webp',
  'image/avif': 'avif',
};

const keyOf = (r: MediaRecord, width: number, type: MediaType) => `${r.blob}.w${width}.${FORMAT_EXT[type]}`;

/** Every key a picture's variants may be kept under (deleted with it). */
export function variantKeys(core: Core, r: MediaRecord): string[] {
  const types = [...new Set(Object.values(variantTypes(r.contentType)))];
  return variantWidths(core, r).flatMap((w) => types.map((t) => keyOf(r, w, t)));
}

/** Removes a picture's variants (after its record went; a crash in between leaves unreferenced bytes only). */
export async function deleteVariants(core: Core, r: MediaRecord): Promise<void> {
  await Promise.all(variantKeys(core, r).map((k) => core.blobs.delete(k).catch(() => undefined)));
}

/** Pictures made at once per process, and requests that may wait for a turn (past them: 503). */
const MAKING = 2;
const QUEUED = 8;
let making = 0;
const waiting: Array<() => void> = [];
/** Variants being made: a second request for one waits for the first's. */
const inFlight = new Map<string, Promise<Uint8Array>>();

const busy = () =>
  new BlogError({
    code: 503,
    reason: 'backendError',
    message: 'Too many pictures are being resized; try again',
    retryAfter: 1,
  });

async function turn<T>(work: () => Promise<T>): Promise<T> {
  if (making >= MAKING) {
    if (waiting.length >= QUEUED) throw busy();
    await new Promise<void>((resolve) => waiting.push(resolve));
  } else making++;
  try {
    return await work();
  } finally {
    const next = waiting.shift();
    if (next) next();
    else making--;
  }
}

export interface Variant {
  contentType: MediaType;
  bytes: Uint8Array;
  etag: string;
}

const notFound = () => new BlogError({ code: 404, reason: 'notFound', message: 'Media not found' });

/**
 * The variant of picture `sha` of `blogId`, `width` wide, of the type `ext` names: from the store, or made now
 * and stored. 404 for a width or type not offered, or when sharp is not there; 503 when too many are being made.
 * The caller has checked that its reader may read the blog.
 */
export async function variant(core: Core, blogId: string, sha: string, width: number, ext: string): Promise<Variant> {
  const r = (await core.get('media', mediaId(blogId, sha)))?.doc;
  if (!r) throw notFound();
  const type = variantTypes(r.contentType)[ext.toLowerCase()];
  if (!type || !variantWidths(core, r).includes(width)) throw notFound();
  const key = keyOf(r, width, type);
  const etag = `"${sha}-w${width}.${FORMAT_EXT[type]}"`;
  const stored = await core.blobs.read(key);
  if (stored) return { contentType: type, bytes: await readAll(stored), etag };
  const sharp = await loadSharp();
  if (!sharp) throw notFound();
  let made = inFlight.get(key);
  if (!made) {
    made = turn(() => make(core, sharp, r, width, type, key)).finally(() => inFlight.delete(key));
    inFlight.set(key, made);
  }
  return { contentType: type, bytes: await made, etag };
}

/**
 * How each type of variant is encoded: at the effort a reader waiting for the first request can afford
 * (docs/design.md §23) — JPEG with mozjpeg's quantisation tables, optimised Huffman codes and progressive scans
 * but no trellis search, WebP effort 2, AVIF effort 0, PNG level 6.
 */
export const ENCODE: Record<MediaType, (pipeline: SharpLike) => SharpLike> = {
  'image/jpeg': (p) => p.jpeg({ quality: 80, progressive: true, optimiseCoding: true, quantisationTable: 3 }),
  'image/png': (p) => p.png({ compressionLevel: 6 }),
  'image/webp': (p) => p.webp({ quality: 75, effort: 2 }),
  'image/avif': (p) => p.avif({ quality: 50, effort: 0 }),
  'image/gif': (p) => p,
};

/** Resizes the original (turned as its orientation says) and stores the result under `key`. */
async function make(
  core: Core,
  sharp: SharpLike,
  r: MediaRecord,
  width: number,
  type: MediaType,
  key: string,
): Promise<Uint8Array> {
  const original = await core.blobs.read(r.blob, { offset: 0, length: r.bytes });
  if (!original) throw notFound();
  const input = await readAll(original);
  let out: Uint8Array;
  try {
    // The header as at upload (a 60000×60000 picture is refused here, undecoded); a cut-short rest is sharp's.
    const check = new ImageCheck(r.contentType, input.byteLength);
    check.add(input.subarray(0, HEAD_MAX));
    check.finish(false);
    const pipeline = ENCODE[type](
      sharp(input, { limitInputPixels: MAX_PIXELS, failOn: 'error' })
        .rotate()
        .resize({ width, withoutEnlargement: true }),
    );
    out = new Uint8Array(await pipeline.toBuffer());
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    throw new BlogError({ code: 404, reason: 'notFound', message: `This picture has no variants: ${why}` });
  }
  await core.blobs.put(key, one(out));
  return out;
}

async function* one(bytes: Uint8Array): AsyncGenerator<Uint8Array> {
  yield bytes;
}

async function readAll(stream: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  const pieces: Uint8Array[] = [];
  for await (const piece of piecesOfStream(stream)) pieces.push(piece);
  return concat(pieces);
}
