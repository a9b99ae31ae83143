/**
 * `service.media` (docs/design.md §19): pictures of a blog. An upload streams its bytes into the blob store under a
 * key of its own while the picture is checked (src/media/images.ts) and hashed; the record (id: the SHA-256
 * of the bytes) is committed after. The same picture again answers the media already there (its new copy of
 * the bytes is removed), so a blog stores each picture once. A refused, oversized or broken upload leaves
 * nothing: the blob store keeps no bytes of a put whose source failed, and no record was written.
 */
import { actorUserId, mayEdit, requireRole, type Actor, type Standing } from '../rules/access.js';
import { checkIfMatch, type Core } from '../core/core.js';
import { etagOf } from '../core/wire.js';
import { decodeJson, encodeJson, page } from '../core/paging.js';
import { ImageCheck, fileName, pictureTooLarge, type ImageInfo } from './images.js';
import { cleanMetadata, type CleanResult } from './clean.js';
import { deleteVariants } from './variants.js';
import { mediaRefs } from '../rules/media-refs.js';
import { BlogError, conflict, forbidden, invalid, notFound } from '../util/errors.js';
import { sha256 } from '../util/sha256.js';
import { piecesOfStream } from '../util/streams.js';
import { shortHash } from '../util/ids.js';
import { del, mediaId, put, type MediaRecord } from '../store/records.js';
import { mediaParams } from '../schema/media.js';
import type {
  Media,
  MediaBody,
  MediaDeleteParams,
  MediaGetParams,
  MediaList,
  MediaListParams,
  MediaPatchParams,
  MediaRead,
  MediaReadParams,
  MediaUploadParams,
} from '../schema/media.js';

const DEFAULT_MAX = 20;

/** The pieces of any body an upload takes, as Uint8Arrays; a stream left early is cancelled (read no further). */
async function* piecesOf(body: MediaBody): AsyncGenerator<Uint8Array> {
  if (body instanceof Uint8Array) {
    yield body;
    return;
  }
  if (typeof Blob !== 'undefined' && body instanceof Blob) body = body.stream();
  const pieces =
    typeof ReadableStream !== 'undefined' && body instanceof ReadableStream
      ? piecesOfStream(body)
      : (body as AsyncIterable<Uint8Array>);
  for await (const value of pieces) yield piece(value);
}

const piece = (value: unknown): Uint8Array => {
  if (value instanceof Uint8Array) return value;
  throw invalid('body', 'The picture must come as Uint8Array pieces');
};

/**
 * The upload's pieces as they pass to the blob store: checked and hashed on the way. The check ends it, and so
 * does a hash other than `expect`: a picture that is not whole (or not the one expected) fails inside the put,
 * and the store keeps none of it.
 */
async function* inspected(
  pieces: AsyncIterable<Uint8Array>,
  check: ImageCheck,
  done: (info: ImageInfo, sha: string) => void,
  expect?: string,
): AsyncGenerator<Uint8Array> {
  const hash = sha256();
  for await (const chunk of pieces) {
    if (chunk.byteLength === 0) continue;
    check.add(chunk);
    hash.update(chunk);
    yield chunk;
  }
  const info = check.finish();
  const sha = hash.hex();
  if (expect !== undefined && sha !== expect)
    throw invalid('body', `The bytes are not those of the picture ${expect} (their SHA-256 is ${sha})`);
  done(info, sha);
}

/** Staged blob writes older than this are taken for those of a process that died. */
const STAGED_MAX_MS = 3_600_000;
const checked = new WeakSet<Core>();

/**
 * Once per service, on its first media call: the options media needs are sound, and what uploads cut short by a
 * crash left staged is swept (housekeeping, in the background; a failure waits for the next process).
 */
function ready(core: Core): void {
  if (checked.has(core)) return;
  if (typeof core.blobs?.put !== 'function')
    throw new TypeError('createBlogService: the driver has no blob store, and no { blobs } was given');
  const max = core.maxMediaBytes;
  if (!(Number.isSafeInteger(max) && max > 0))
    throw new TypeError('createBlogService: maxMediaBytes must be a positive whole number of bytes');
  checked.add(core);
  core.blobs.sweep(Date.now() - STAGED_MAX_MS, 100).catch(() => undefined);
}

/** A media record as its wire resource (every caller who may see one sees all of it). */
export async function mediaOut(core: Core, r: MediaRecord): Promise<Media> {
  const author = await core.user(r.authorId);
  return {
    kind: 'blogcore#media',
    id: r.sha256,
    blog: { id: r.blogId },
    url: core.links.media(r.blogId, r.sha256, r.filename),
    contentType: r.contentType,
    bytes: r.bytes,
    width: r.width,
    height: r.height,
    sha256: r.sha256,
    filename: r.filename,
    alt: r.alt,
    author: { id: r.authorId, displayName: author?.displayName ?? r.authorId },
    published: r.published,
    updated: r.updated,
    etag: etagOf(r.id, r.rev),
  };
}

export interface StoreMediaInput {
  blogId: string;
  body: MediaBody;
  authorId: string;
  contentType?: string | undefined;
  filename?: string | undefined;
  alt?: string | undefined;
  /** When it was first published and last changed, and its revision (a restore keeps the file's); default now, 1. */
  published?: string | undefined;
  updated?: string | undefined;
  rev?: number | undefined;
  /** An upload: announced with `media.inserted` by `actorId` (none: host code). Imports and restores write quietly, as they do posts. */
  upload?: { actorId: string | undefined };
  /** The url it was downloaded from (an import finds it by it on a re-run). */
  source?: string | undefined;
  /** The SHA-256 the bytes must have (a restore from a file): others are refused. */
  sha256?: string | undefined;
}

/** What the bytes of a picture decide of its record (and the file name, fitted to its type). */
export type PictureFacts = ImageInfo & { sha256: string; filename: string };

/** Bytes of a known picture (a restore, a replica's fetch) are stored exactly; others lose their metadata. */
const cleans = (core: Core, input: { sha256?: string | undefined }) =>
  !core.keepImageMetadata && input.sha256 === undefined;

/**
 * Streams a picture's bytes into the blob store under `key` while they are checked and hashed (against `sha256`
 * when given): answers what they are. Refused bytes leave nothing (the put keeps none).
 */
export async function putPicture(
  core: Core,
  key: string,
  input: {
    body: MediaBody;
    contentType?: string | undefined;
    filename?: string | undefined;
    sha256?: string | undefined;
  },
): Promise<PictureFacts> {
  await core.ready();
  ready(core);
  if (!cleans(core, input)) return putChecked(core, key, input, piecesOf(input.body));
  const result: CleanResult = {};
  const facts = await putChecked(
    core,
    key,
    input,
    cleanMetadata(wholeAsSent(counted(piecesOf(input.body), core), input.contentType, core), result),
  );
  if (!result.again) return facts;
  // WebP and AVIF may need a second pass (their sizes lead the file): over the bytes the first one stored.
  const first = key.replace(/[^/]*$/, `${core.newId()}-first`);
  await core.blobs.put(first, piecesOfStream((await core.blobs.read(key, { offset: 0, length: facts.bytes }))!));
  const again = await core.blobs.read(first, { offset: 0, length: facts.bytes });
  try {
    return await putChecked(core, key, input, cleanMetadata(piecesOfStream(again!), {}, result.again));
  } finally {
    await core.blobs.delete(first).catch(() => undefined);
  }
}

/**
 * The upload as sent must itself be a whole picture (the checks of src/media/images.ts): cleaning rewrites a
 * container, it never mends one, so bytes after a picture's end or a picture cut short are refused as before.
 */
async function* wholeAsSent(
  pieces: AsyncIterable<Uint8Array>,
  contentType: string | undefined,
  core: Core,
): AsyncGenerator<Uint8Array> {
  const check = new ImageCheck(contentType, core.maxMediaBytes);
  for await (const p of pieces) {
    if (p.byteLength > 0) check.add(p);
    yield p;
  }
  check.finish();
}

/** The upload's own bytes, counted before cleaning shrinks them: 413 past `maxMediaBytes`, read no further. */
async function* counted(pieces: AsyncIterable<Uint8Array>, core: Core): AsyncGenerator<Uint8Array> {
  let bytes = 0;
  for await (const p of pieces) {
    bytes += p.byteLength;
    if (bytes > core.maxMediaBytes) throw pictureTooLarge(core.maxMediaBytes);
    yield p;
  }
}

async function putChecked(
  core: Core,
  key: string,
  input: { contentType?: string | undefined; filename?: string | undefined; sha256?: string | undefined },
  pieces: AsyncIterable<Uint8Array>,
): Promise<PictureFacts> {
  const check = new ImageCheck(input.contentType, core.maxMediaBytes);
  let info: ImageInfo | undefined;
  let sha = '';
  await core.blobs.put(
    key,
    inspected(
      pieces,
      check,
      (i, hex) => {
        info = i;
        sha = hex;
      },
      input.sha256,
    ),
  );
  return { ...info!, sha256: sha, filename: fileName(input.filename, info!.contentType) };
}

/**
 * Streams a picture into the blob store while it is checked and hashed, then commits its record: the one
 * way media enters a store (uploads and imports). A blog that already has the picture keeps its record
 * (`fresh: false`) and the new copy of the bytes goes. Refused bytes leave nothing (the put keeps none).
 */
export async function storeMedia(core: Core, input: StoreMediaInput): Promise<{ record: MediaRecord; fresh: boolean }> {
  const key = `${input.blogId}/${core.newId()}`;
  const info = await putPicture(core, key, input);
  const sha = info.sha256;
  const id = mediaId(input.blogId, sha);
  let fresh = false;
  let record: MediaRecord;
  try {
    record = await core.transact(
      async () => {
        const there = await core.get('media', id);
        fresh = !there;
        if (there) return { ops: [], result: there.doc };
        const now = core.nowIso();
        const r: MediaRecord = {
          id,
          blogId: input.blogId,
          sha256: sha,
          blob: key,
          contentType: info.contentType,
          bytes: info.bytes,
          width: info.width,
          height: info.height,
          filename: info.filename,
          alt: input.alt ?? '',
          authorId: input.authorId,
          published: input.published ?? now,
          updated: input.updated ?? input.published ?? now,
          rev: input.rev ?? 1,
          ...(input.source ? { source: input.source } : {}),
          ...(cleans(core, input) ? { cleaned: true as const } : {}),
        };
        return { ops: [put('media', r, 0)], result: r };
      },
      (r) => (input.upload ? mediaEvent(core, 'media.inserted', r, input.upload.actorId) : []),
    );
  } catch (error) {
    await core.blobs.delete(key).catch(() => undefined);
    throw error;
  }
  // The blog already had this picture: one copy of its bytes is enough.
  if (!fresh) await core.blobs.delete(key).catch(() => undefined);
  return { record, fresh };
}

/** A media event: the picture's id is its SHA-256, as on the wire; the resource as an author sees it. */
const mediaEvent = (
  core: Core,
  type: 'media.inserted' | 'media.updated',
  r: MediaRecord,
  actorId: string | undefined,
) => core.event(type, { blogId: r.blogId, id: r.sha256, ...(actorId ? { actorId } : {}) }, () => mediaOut(core, r));

export function mediaApi(core: Core, actor: Actor) {
  ready(core);
  const userId = actorUserId(actor);

  const out = (r: MediaRecord) => mediaOut(core, r);
  const editor = (blogId: string) => mediaEditor(core, actor, blogId);

  return {
    async upload(input: MediaUploadParams): Promise<Media> {
      const p = core.parse(mediaParams.mediaUpload, input);
      const s = await core.writer(actor, p.blogId);
      requireRole(s, 'AUTHOR', 'upload media');
      const { record } = await storeMedia(core, {
        ...p,
        authorId: userId ?? s.blog.ownerId,
        upload: { actorId: userId },
      });
      return out(record);
    },

    async get(input: MediaGetParams): Promise<Media> {
      const p = core.parse(mediaParams.mediaGet, input);
      await editor(p.blogId);
      return out((await load(core, p.blogId, p.mediaId)).doc);
    },

    async list(input: MediaListParams): Promise<MediaList> {
      const p = core.parse(mediaParams.mediaList, input);
      await editor(p.blogId);
      const max = p.maxResults ?? DEFAULT_MAX;
      const { records, next } = await (p.postId === undefined
        ? blogMedia(core, p.blogId, max, p.pageToken)
        : postMedia(core, p.blogId, p.postId, max, p.pageToken));
      const items = await Promise.all(records.map(out));
      return { kind: 'blogcore#mediaList', items, ...(next ? { nextPageToken: next } : {}) };
    },

    async patch(input: MediaPatchParams): Promise<Media> {
      const p = core.parse(mediaParams.mediaPatch, input);
      await core.requireWriter(actor);
      await editor(p.blogId);
      const record = await core.transact(
        async () => {
          const stored = await load(core, p.blogId, p.mediaId);
          checkIfMatch(p.ifMatch, stored.id, stored.doc.rev);
          const r = stored.doc;
          const next: MediaRecord = {
            ...r,
            ...(p.body.alt !== undefined ? { alt: p.body.alt } : {}),
            ...(p.body.filename !== undefined ? { filename: fileName(p.body.filename, r.contentType) } : {}),
          };
          if (next.alt === r.alt && next.filename === r.filename) return { ops: [], result: r };
          const changed = { ...next, updated: core.nowIso(), rev: r.rev + 1 };
          return { ops: [put('media', changed, stored.version)], result: changed };
        },
        (r) => mediaEvent(core, 'media.updated', r, userId),
      );
      return out(record);
    },

    async delete(input: MediaDeleteParams): Promise<void> {
      const p = core.parse(mediaParams.mediaDelete, input);
      const s = await core.writer(actor, p.blogId);
      requireRole(s, 'AUTHOR', 'delete media');
      const gone = await core.transact(
        async () => {
          const stored = await load(core, p.blogId, p.mediaId);
          if (!mayEdit(s.role, userId, 'media', stored.doc))
            throw forbidden('Authors may delete only the media they uploaded');
          checkIfMatch(p.ifMatch, stored.id, stored.doc.rev);
          if (!p.force && (await used(core, p.blogId, p.mediaId))) {
            throw conflict(
              'A post or page still uses this picture: remove it from them first, or delete with force: true',
            );
          }
          return { ops: [del('media', stored.id, stored.version, { blogId: p.blogId })], result: stored.doc };
        },
        (r) => core.event('media.deleted', { blogId: r.blogId, id: r.sha256, ...(userId ? { actorId: userId } : {}) }),
      );
      // After the record: a crash in between leaves unreferenced bytes, never a record without its bytes.
      await core.blobs.delete(gone.blob);
      await deleteVariants(core, gone);
    },

    async read(input: MediaReadParams): Promise<MediaRead> {
      const p = core.parse(mediaParams.mediaRead, input);
      await core.reader(actor, p.blogId);
      const r = (await load(core, p.blogId, p.mediaId)).doc;
      const range = p.range && rangeOf(r, p.range);
      // Always a range (all of it by default): the store then need not look the size up.
      const body = await core.blobs.read(r.blob, range ?? { offset: 0, length: r.bytes });
      if (!body) throw notFound('Media bytes');
      return { contentType: r.contentType, bytes: r.bytes, etag: `"${r.sha256}"`, ...(range ? { range } : {}), body };
    },
  };
}

/** A blog's media as an AUTHOR or ADMIN sees it (readers list nothing and see no records). */
async function mediaEditor(core: Core, actor: Actor, blogId: string): Promise<Standing> {
  const s = await core.reader(actor, blogId);
  requireRole(s, 'AUTHOR', 'see the media of this blog');
  return s;
}

async function load(core: Core, blogId: string, sha: string) {
  const stored = await core.get('media', mediaId(blogId, sha));
  if (!stored) throw notFound('Media');
  return stored;
}

/** Whether a post or page of the blog still uses the picture (the `media` index of records.ts). */
async function used(core: Core, blogId: string, sha: string): Promise<boolean> {
  for (const collection of ['posts', 'pages'] as const) {
    const found = await core.driver.keys({
      collection,
      index: 'media',
      prefixes: [[blogId, sha]],
      direction: 'asc',
      limit: 1,
    });
    if (found.length > 0) return true;
  }
  return false;
}

/** A page of a blog's media, newest first (keyset-paged on the `blog` index). */
async function blogMedia(core: Core, blogId: string, max: number, pageToken: string | undefined) {
  const pg = await page(
    core.driver,
    {
      collection: 'media',
      index: 'blog',
      prefixes: [[blogId]],
      direction: 'desc',
      fingerprint: shortHash(`media:${blogId}`),
    },
    max,
    pageToken,
  );
  return { records: pg.items.map((h) => h.doc as unknown as MediaRecord), next: pg.nextPageToken };
}

/** The media one post (or page) uses, in the order its content first uses them: read from that one record. */
async function postMedia(core: Core, blogId: string, postId: string, max: number, pageToken: string | undefined) {
  const item = (await core.get('posts', postId)) ?? (await core.get('pages', postId));
  if (!item || item.doc.blogId !== blogId) throw notFound('Post');
  const refs = mediaRefs(blogId, item.doc.content);
  const from = pageToken === undefined ? 0 : offsetOf(pageToken, postId);
  const ids = refs.slice(from, from + max);
  const found = ids.length
    ? await core.driver.getMany(
        'media',
        ids.map((sha) => mediaId(blogId, sha)),
      )
    : [];
  const records = found.flatMap((d) => (d ? [d.doc as unknown as MediaRecord] : []));
  return { records, next: from + max < refs.length ? encodeJson([postId, from + max]) : undefined };
}

/** The bytes a `range` asks for, cut to the picture's end; 416 when it starts at or past it, or is empty. */
function rangeOf(r: MediaRecord, asked: { offset: number; length?: number | undefined }) {
  const { offset } = asked;
  if (offset >= r.bytes || asked.length === 0) {
    throw new BlogError({
      code: 416,
      reason: 'requestedRangeNotSatisfiable',
      message: `The range starts at or past the end of the picture (${r.bytes} bytes), or is empty`,
      location: 'range',
      locationType: 'parameter',
    });
  }
  return { offset, length: Math.min(asked.length ?? r.bytes, r.bytes - offset) };
}

/** A `list({ postId })` page token: the post it was made for and the position in its media. */
function offsetOf(token: string, postId: string): number {
  const t = decodeJson(token);
  if (Array.isArray(t) && t[0] === postId && Number.isSafeInteger(t[1]) && t[1] >= 0) return t[1];
  throw invalid('pageToken', 'pageToken is not one this list gave out');
}
