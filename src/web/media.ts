/**
 * Media over HTTP (docs/design.md §19): the upload's request (raw bytes; `Content-Type`, the file name from
 * `Content-Disposition`) and the bytes at `GET|HEAD {prefix}/media/{blogId}/{mediaId}/{filename}`, beside
 * `/v3` as the feeds are. The bytes never change under an id: `ETag: "<sha256>"`, 304 for `If-None-Match`,
 * cached for a year as immutable, ranges (206, 416). They are served as what the bytes are, never sniffed
 * (`nosniff`), and with a policy that lets nothing in them run (`Content-Security-Policy: default-src 'none'`).
 * Public, like the blog: read as an anonymous reader whoever asks.
 */
import { BlogError } from '../util/errors.js';
import type { MediaRead } from '../schema/media.js';
import type { IncomingLike, Outgoing } from './dispatch.js';
import { etagMatches } from './conditional.js';
import { onlyGetOrHead } from './methods.js';
import { internalsOf } from '../service/internals.js';
import { redirectOf } from '../service/redirects.js';

/** Where the bytes live for a handler's basePath: `/v3` → `/media`, `/api/v3` → `/api/media`. */
export const mediaBase = (basePath: string) => `${basePath.replace(/\/v3$/, '')}/media`;

const SHA = /^[0-9a-f]{64}$/;
const WIDTH = /^w([1-9]\d{0,4})$/;
const IMMUTABLE = 'public, max-age=31536000, immutable';
const notFound = () => new BlogError({ code: 404, reason: 'notFound', message: 'Media not found' });

type Reader = { media: { read(p: unknown): Promise<MediaRead> } };

/** The variants' module (sharp's caller), loaded by the first variant request; kept, as every request needs it. */
let variants: Promise<typeof import('../media/variants.js')> | undefined;

/**
 * The upload's parameters from its headers: the declared type (`application/octet-stream` and absence declare
 * none), and the file name of `Content-Disposition` (`filename*=UTF-8''…` before `filename="…"`).
 */
export function uploadHeaders(incoming: IncomingLike): { contentType?: string; filename?: string } {
  const type = incoming.header('content-type')?.trim();
  const declared = type && !/^application\/octet-stream\s*(;|$)/i.test(type) ? type : undefined;
  const filename = dispositionName(incoming.header('content-disposition'));
  return { ...(declared ? { contentType: declared } : {}), ...(filename ? { filename } : {}) };
}

/** The file name of a Content-Disposition header (RFC 6266), or undefined. */
export function dispositionName(header: string | null): string | undefined {
  if (!header) return undefined;
  const star = /(?:^|;)\s*filename\*\s*=\s*([\w!#$&+.^`|~-]+)'[\w-]*'([^;\s]*)/i.exec(header);
  if (star && /^utf-8$/i.test(star[1]!)) {
    try {
      return decodeURIComponent(star[2]!);
    } catch {
      // A broken encoding: fall back to the plain parameter.
    }
  }
  const plain = /(?:^|;)\s*filename\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;\s]+))/i.exec(header);
  if (!plain) return undefined;
  return plain[1] !== undefined ? plain[1].replace(/\\(.)/g, '$1') : plain[2];
}

/**
 * `GET|HEAD {mediaBase}/{blogId}/{mediaId}/w{N}/{name}` (docs/design.md §23): the picture N pixels wide, in the type the
 * name's extension says (src/media/variants.ts), with the original's headers; 404 for what is not offered.
 */
async function serveVariant(
  reader: Reader,
  incoming: IncomingLike,
  parts: readonly string[],
  cors: Record<string, string> | undefined,
): Promise<Outgoing> {
  const [blogId, mediaId, w, name] = parts as [string, string, string, string];
  const dot = name.lastIndexOf('.');
  if (!SHA.test(mediaId) || dot < 1) throw notFound();
  onlyGetOrHead(incoming.method);
  const core = internalsOf(reader)?.core;
  if (!core) throw notFound();
  // Who may read the original may read its variants (and the original must be there).
  try {
    const original = await reader.media.read({ blogId, mediaId, range: { offset: 0, length: 1 } });
    await original.body.cancel();
  } catch (error) {
    const moved = await movedAway(reader, incoming, blogId, mediaId, error);
    if (moved) return moved;
    if (BlogError.is(error) && error.code === 400) throw notFound();
    throw error;
  }
  variants ??= import('../media/variants.js');
  const v = await (await variants).variant(core, blogId, mediaId, Number(WIDTH.exec(w)![1]), name.slice(dot + 1));
  const common = { etag: v.etag, 'cache-control': IMMUTABLE, 'x-content-type-options': 'nosniff', ...cors };
  if (etagMatches(incoming.header('if-none-match'), v.etag)) return { status: 304, headers: common, text: null };
  const headers: Record<string, string> = {
    ...common,
    'content-type': v.contentType,
    'content-security-policy': "default-src 'none'",
    'accept-ranges': 'bytes',
    'content-disposition': `inline; filename*=UTF-8''${encodeURIComponent(name)}`,
  };
  const ifRange = incoming.header('if-range');
  const range = rangeOf(
    ifRange === null || ifRange.trim() === v.etag ? incoming.header('range') : null,
    v.bytes.byteLength,
  );
  if (range === 'bad') throw unsatisfiable(v.bytes.byteLength);
  const part = range ? v.bytes.subarray(range.offset, range.offset + range.length) : v.bytes;
  if (range)
    headers['content-range'] = `bytes ${range.offset}-${range.offset + range.length - 1}/${v.bytes.byteLength}`;
  headers['content-length'] = String(part.byteLength);
  const status = range ? 206 : 200;
  if (incoming.method === 'HEAD') return { status, headers, text: null };
  return { status, headers, text: null, body: streamOf(part) };
}

const streamOf = (bytes: Uint8Array) =>
  new ReadableStream<Uint8Array>({
    start(c) {
      c.enqueue(bytes);
      c.close();
    },
  });

const unsatisfiable = (size: number) =>
  Object.assign(
    new BlogError({
      code: 416,
      reason: 'requestedRangeNotSatisfiable',
      message: `No byte of the range is in the picture (${size} bytes)`,
    }),
    { contentRange: `bytes */${size}` },
  );

/** A `Range` header's one range over `size` bytes: undefined to send everything, 'bad' when none is satisfiable. */
function rangeOf(header: string | null, size: number): { offset: number; length: number } | 'bad' | undefined {
  const m = header === null ? null : /^\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*$/i.exec(header);
  // Several ranges, or a unit we do not serve: the whole picture is a correct answer (RFC 9110 §14.2).
  if (!m || (m[1] === '' && m[2] === '')) return undefined;
  if (m[1] === '') {
    const n = Math.min(Number(m[2]), size);
    return n > 0 ? { offset: size - n, length: n } : 'bad';
  }
  const start = Number(m[1]);
  // A last position before the first makes the header invalid, to be ignored (RFC 9110 §14.1.1): the whole picture.
  if (m[2] !== '' && Number(m[2]) < start) return undefined;
  const end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
  if (start >= size) return 'bad';
  return { offset: start, length: end - start + 1 };
}

/**
 * A picture that `cleanMedia` stored again under a new id (src/io/clean-media.ts) left a redirect
 * `/media/{blogId}/{old}/` → `/media/{blogId}/{new}/`: a request for it (original or variant, under any prefix)
 * answers 301 to the same address with the new id. Undefined when the picture was not moved (or the error is
 * not a missing picture).
 */
async function movedAway(
  reader: Reader,
  incoming: IncomingLike,
  blogId: string,
  mediaId: string,
  error: unknown,
): Promise<Outgoing | undefined> {
  const core = internalsOf(reader)?.core;
  if (!core || !BlogError.is(error) || error.code !== 404) return undefined;
  const to = await redirectOf(core, blogId, `/media/${blogId}/${mediaId}/`);
  const moved = to && /^\/media\/[^/]+\/([0-9a-f]{64})\/$/.exec(to);
  if (!moved) return undefined;
  const location = incoming.target.replace(`/${mediaId}/`, `/${moved[1]}/`);
  return { status: 301, headers: { location, 'cache-control': 'public, max-age=86400' }, text: null };
}

/** Answers `GET|HEAD {mediaBase}/{blogId}/{mediaId}/{filename}`; `parts` are the decoded segments after the base. */
export async function serveMedia(
  reader: Reader,
  incoming: IncomingLike,
  parts: readonly string[],
  cors: Record<string, string> | undefined,
): Promise<Outgoing> {
  if (parts.length === 4 && WIDTH.test(parts[2]!)) return serveVariant(reader, incoming, parts, cors);
  const [blogId, mediaId, filename, ...extra] = parts;
  if (!blogId || !mediaId || !SHA.test(mediaId) || !filename || extra.length > 0) throw notFound();
  onlyGetOrHead(incoming.method);
  const etag = `"${mediaId}"`;
  const common = { etag, 'cache-control': IMMUTABLE, 'x-content-type-options': 'nosniff', ...cors };
  // The bytes of an id never change: a client holding this etag holds these bytes (once we know the media exists).
  const conditional = etagMatches(incoming.header('if-none-match'), etag);
  const ifRange = incoming.header('if-range');
  const wanted = ifRange === null || ifRange.trim() === etag ? incoming.header('range') : null;
  let read: MediaRead;
  try {
    read = await reader.media.read({ blogId, mediaId });
  } catch (error) {
    const moved = await movedAway(reader, incoming, blogId, mediaId, error);
    if (moved) return moved;
    // An id that is not a picture of this blog (or a blog that is not there) is simply not here.
    if (BlogError.is(error) && error.code === 400) throw notFound();
    throw error;
  }
  const headers: Record<string, string> = {
    ...common,
    'content-type': read.contentType,
    'content-security-policy': "default-src 'none'",
    'accept-ranges': 'bytes',
    'content-disposition': `inline; filename*=UTF-8''${encodeURIComponent(filename)}`,
  };
  const range = conditional ? undefined : rangeOf(wanted, read.bytes);
  if (conditional || incoming.method === 'HEAD' || range !== undefined) await read.body.cancel();
  if (conditional) return { status: 304, headers: common, text: null };
  if (range === 'bad') throw unsatisfiable(read.bytes);
  if (range) {
    headers['content-range'] = `bytes ${range.offset}-${range.offset + range.length - 1}/${read.bytes}`;
    headers['content-length'] = String(range.length);
    if (incoming.method === 'HEAD') return { status: 206, headers, text: null };
    const part = await reader.media.read({ blogId, mediaId, range });
    return { status: 206, headers, text: null, body: part.body };
  }
  headers['content-length'] = String(read.bytes);
  if (incoming.method === 'HEAD') return { status: 200, headers, text: null };
  return { status: 200, headers, text: null, body: read.body };
}
