/**
 * A replica's pictures (docs/design.md §16), loaded the first time a pull or a push meets one. Media records come
 * through the change feed (to AUTHORs and ADMINs) and are stored like posts, with a base; their bytes are fetched
 * afterwards, in the background, for the pictures the local posts and pages use (a list of what is still
 * missing, kept in the store, so a reload carries on). A picture a post uses that has no record here (a
 * reader's: the feed gives readers no media records) is fetched by its url and gets a record of what its
 * bytes say (`BY_URL`); it goes when nothing here uses it any more. A picture uploaded here waits in
 * `pending()` and goes before the writes that use it: its id is the SHA-256 of its bytes, so its url names
 * the same picture on the server.
 */
import { type ChangeItem, asJson, mediaId, type MediaRecord, type UserRecord, type Core } from '../service/store.js';
import type { Media } from '../schema/media.js';
import { sha256 } from '../util/sha256.js';
import { piecesOfStream } from '../util/streams.js';
import { putPicture, type PictureFacts } from '../media/service.js';
import { BlogError, RemoteError } from '../util/errors.js';
import type { Remote } from './remote.js';
import { baseId, Batch, isDirty, keyOf, settled, type Ctx, type StoredConflict } from './state.js';
import { picturesId, picturesIn, type Pictures } from './wanted.js';
import type { Base } from './model.js';
import { editable, fingerprint, revOf } from './records.js';
import type { ConflictChoice, Downloads } from './types.js';

/** The pictures document as a batch changes it (every field there). */
type Wanted = Required<Pictures>;

/** The base status of a picture known by its url alone (no media record from the feed): reader-safe fields only. */
const BY_URL = 'url';

/** Where a pulled picture's bytes go here. */
const blobKey = (blogId: string, sha: string) => `${blogId}/replica-${sha}`;

/** The local record of a server picture; bytes stored here before (an upload, a download) keep their key. */
function mediaRecord(w: Media, old: MediaRecord | undefined): MediaRecord {
  const id = mediaId(w.blog.id, w.id);
  return {
    id,
    blogId: w.blog.id,
    sha256: w.id,
    blob: old?.blob ?? blobKey(w.blog.id, w.id),
    contentType: w.contentType,
    bytes: w.bytes,
    width: w.width,
    height: w.height,
    filename: w.filename,
    alt: w.alt,
    authorId: w.author.id,
    published: w.published,
    updated: w.updated,
    rev: revOf(id, w.etag),
  };
}

/**
 * The local record of a picture known by its url alone: what its bytes say, and none of what only those who see
 * the blog's media see (alt text, uploader, dates: a reader's content has the alt texts it shows).
 */
const urlRecord = (
  blogId: string,
  f: Pick<MediaRecord, 'sha256' | 'blob' | 'contentType' | 'bytes' | 'width' | 'height' | 'filename'>,
): MediaRecord => ({
  id: mediaId(blogId, f.sha256),
  blogId,
  sha256: f.sha256,
  blob: f.blob,
  contentType: f.contentType,
  bytes: f.bytes,
  width: f.width,
  height: f.height,
  filename: f.filename,
  alt: '',
  authorId: '',
  published: '',
  updated: '',
  rev: 1,
});

/** A picture stored here as `v`, equal to the server's copy of etag `etag` (or, `status` BY_URL, to what its url serves). */
async function putWithBase(
  ctx: Ctx,
  batch: Batch,
  record: MediaRecord,
  etag: string | undefined,
  status = '',
): Promise<void> {
  const v = await batch.put('media', record);
  const base: Base = {
    id: baseId(ctx.blogId, 'media', record.id),
    version: v,
    etag,
    status,
    fingerprint: fingerprint('media', record),
    gen: ctx.state.gen,
  };
  await batch.put('settings', base);
}

/** Writes a server picture here with its base; a picture new here joins what waits to be fetched. */
async function keep(ctx: Ctx, batch: Batch, pictures: Wanted, w: Media): Promise<void> {
  const id = mediaId(ctx.blogId, w.id);
  const local = (await batch.get<MediaRecord>('media', id))?.doc;
  const { id: authorId, displayName } = w.author;
  if (authorId && !(await batch.get('users', authorId)))
    await batch.put('users', { id: authorId, displayName, created: '' } satisfies UserRecord);
  await putWithBase(ctx, batch, mediaRecord(w, local), w.etag);
  if (!local && !pictures.want.includes(w.id)) pictures.want.push(w.id);
}

/** Removes a picture here, record, base and (soon after) bytes. */
async function forget(ctx: Ctx, batch: Batch, pictures: Wanted, id: string): Promise<void> {
  const bId = baseId(ctx.blogId, 'media', id);
  const local = (await batch.get<MediaRecord>('media', id))?.doc;
  if (await batch.get('settings', bId)) await batch.delete('settings', bId);
  if (!local) return;
  await batch.delete('media', id);
  pictures.want = pictures.want.filter((sha) => sha !== local.sha256);
  pictures.drop.push(local.blob);
}

/** Takes pictures off what waits to be fetched. */
function unwant(pictures: Wanted, shas: ReadonlySet<string>): void {
  pictures.want = pictures.want.filter((sha) => !shas.has(sha));
  for (const sha of shas) delete pictures.names?.[sha];
}

/** Changes what waits to be fetched or let go, within a batch. */
async function dropOrFetch(
  batch: Batch,
  blogId: string,
  change: (pictures: Wanted) => void | Promise<void>,
): Promise<void> {
  const pictures = await picturesIn(batch, blogId);
  await change(pictures);
  await batch.put('settings', pictures);
}

/** Removes a picture here within a batch of other writes. */
const dropMedia = (ctx: Ctx, batch: Batch, id: string) =>
  dropOrFetch(batch, ctx.blogId, (pictures) => forget(ctx, batch, pictures, id));

/**
 * A fresh pull's sweep of a picture it did not bring (gone from the server, or from the user's sight: a role
 * lowered). One known by its url stays while posts here use it (releasePictures lets it go); so does a record
 * still used here, as one known by its url; the rest go.
 */
export async function sweepMedia(ctx: Ctx, batch: Batch, id: string, base: Base): Promise<void> {
  if (base.status === BY_URL) return;
  const local = (await batch.get<MediaRecord>('media', id))?.doc;
  if (local && (await usedHere(ctx.core, ctx.blogId, local.sha256)))
    await putWithBase(ctx, batch, urlRecord(ctx.blogId, local), undefined, BY_URL);
  else await dropMedia(ctx, batch, id);
}

/**
 * After a pull: of the pictures posts and pages stopped using (wanted.ts), those nothing here uses now and that
 * are known by their urls alone go, record, base and (in the next download pass) bytes; those still waiting
 * to be fetched are no longer wanted. An author's media records come and go with the feed, used or not.
 */
export async function releasePictures(ctx: Ctx): Promise<void> {
  const { core, blogId } = ctx;
  const batch = new Batch(core);
  await dropOrFetch(batch, blogId, async (pictures) => {
    const unused = new Set<string>();
    for (const sha of pictures.left) {
      if (await usedHere(core, blogId, sha)) continue;
      const id = mediaId(blogId, sha);
      const local = await batch.get<MediaRecord>('media', id);
      const base = (await batch.get<Base>('settings', baseId(blogId, 'media', id)))?.doc;
      if (!local) unused.add(sha);
      else if (base?.status === BY_URL && !isDirty(local.stored, base)) await forget(ctx, batch, pictures, id);
    }
    unwant(pictures, unused);
    pictures.left = [];
  });
  await batch.commit(ctx);
}

/** Applies a pulled page's media items in its batch; answers how many it applied (local edits keep theirs). */
export async function applyMedia(ctx: Ctx, batch: Batch, items: readonly ChangeItem[]): Promise<number> {
  let applied = 0;
  await dropOrFetch(batch, ctx.blogId, async (pictures) => {
    for (const item of items) {
      const id = mediaId(ctx.blogId, item.id);
      const local = await batch.get<MediaRecord>('media', id);
      if (local && isDirty(local.stored, (await batch.get<Base>('settings', baseId(ctx.blogId, 'media', id)))?.doc))
        continue;
      if (item.deleted || !item.resource) await forget(ctx, batch, pictures, id);
      else await keep(ctx, batch, pictures, item.resource as Media);
      applied++;
    }
  });
  return applied;
}

/** The bytes of a local picture, whole (an upload sends them with their length). */
async function bytesOf(core: Core, r: MediaRecord): Promise<Blob> {
  const stream = await core.blobs.read(r.blob);
  if (!stream) throw new RemoteError(400, 'invalid', `The bytes of ${r.filename} are not in the local store`);
  return new Response(stream).blob();
}

/**
 * Brings one picture to the server: an upload (the same bytes there already answer that media), then its alt
 * and file name if the server's differ; a patch of them; or a delete. The server's answer becomes the local
 * record and base, unless the picture was written again meanwhile.
 */
export async function pushMedia(ctx: Ctx, remote: Remote, id: string): Promise<boolean> {
  const { core, blogId, state: st } = ctx;
  const rec = await core.driver.get('media', id);
  const bId = baseId(blogId, 'media', id);
  const base = (await core.getAs<Base>('settings', bId))?.doc;
  const sha = id.slice(-64);
  const path = `/blogs/${blogId}/media/${sha}`;
  const batch = new Batch(core);
  if (!rec) {
    if (base) {
      await remote.call('DELETE', path, { ifMatch: base.etag }).catch((error: unknown) => {
        if (!(error instanceof RemoteError && error.status === 404)) throw error;
      });
      await batch.delete('settings', bId);
    }
    settled(st, 'media', id);
    await batch.commit(ctx);
    return !!base;
  }
  const r = rec.doc;
  const wanted = editable('media', r);
  let server: Media;
  if (!base) {
    server = await remote.call<Media>('POST', `/blogs/${blogId}/media`, {
      bytes: { body: await bytesOf(core, r), type: r.contentType, filename: r.filename },
    });
    if (server.alt !== r.alt || server.filename !== r.filename)
      server = await remote.call<Media>('PATCH', path, { body: wanted, ifMatch: server.etag });
  } else server = await remote.call<Media>('PATCH', path, { body: wanted, ifMatch: base.etag });
  const now = await batch.get<MediaRecord>('media', id);
  if (now?.stored === rec.version) {
    settled(st, 'media', id);
    await putWithBase(ctx, batch, mediaRecord(server, r), server.etag);
  } else
    await batch.put('settings', {
      id: bId,
      version: -1,
      etag: server.etag,
      status: '',
      fingerprint: '',
      gen: st.gen,
    } satisfies Base);
  await batch.commit(ctx);
  return true;
}

/**
 * The server refused a picture: the conflict names it (its id is the picture's SHA-256) and says why; the
 * local picture stays as it is (the posts that use it still show it here) until `resolve` picks a side.
 */
export async function mediaConflict(ctx: Ctx, remote: Remote, id: string, error: RemoteError): Promise<void> {
  const { core, blogId, state: st } = ctx;
  const local = (await core.driver.get('media', id))?.doc;
  const base = (await core.getAs<Base>('settings', baseId(blogId, 'media', id)))?.doc;
  const theirs = base
    ? await remote.call<Media>('GET', `/blogs/${blogId}/media/${id.slice(-64)}`).catch((e: unknown) => {
        if (e instanceof RemoteError && (e.status === 404 || e.status === 403)) return undefined;
        throw e;
      })
    : undefined;
  const { status, message } = error;
  const batch = new Batch(core);
  // The server's version becomes the base: 'mine' is then sent over it.
  if (theirs) {
    await batch.put('settings', {
      id: baseId(blogId, 'media', id),
      version: -1,
      etag: theirs.etag,
      status: '',
      fingerprint: fingerprint('media', mediaRecord(theirs, undefined)),
      gen: st.gen,
    } satisfies Base);
  }
  const record: StoredConflict = {
    id,
    collection: 'media',
    reason: status === 412 ? 'changed' : status === 404 ? 'deleted' : 'rejected',
    message: status === 412 || status === 404 ? undefined : message,
    mine: local ? asJson(local) : null,
    theirs: theirs ? asJson(mediaRecord(theirs, undefined)) : null,
    etag: theirs?.etag,
    detected: core.nowIso(),
  };
  st.conflicts = [...st.conflicts.filter((c) => c.id !== id), record];
  settled(st, 'media', id);
  await batch.commit(ctx);
}

/**
 * `'mine'` sends the local picture (its upload, or its alt and name over the server's) again; `'theirs'` keeps
 * the server's picture, or, when the server has none, lets the local one go.
 */
export async function resolveMedia(ctx: Ctx, found: StoredConflict, choice: ConflictChoice): Promise<void> {
  const batch = new Batch(ctx.core);
  if (choice === 'mine') {
    ctx.state.dirty.push(keyOf('media', found.id));
    // Gone from the server: uploaded again, as a picture made here.
    if (!found.theirs) await batch.delete('settings', baseId(ctx.blogId, 'media', found.id));
  } else if (found.theirs) {
    const local = (await batch.get<MediaRecord>('media', found.id))?.doc;
    const theirs = found.theirs as unknown as MediaRecord;
    await putWithBase(ctx, batch, { ...theirs, blob: local?.blob ?? theirs.blob }, found.etag);
    // A delete refused: the picture comes back, its bytes from the server.
    if (!local) await dropOrFetch(batch, ctx.blogId, (p) => void p.want.push(theirs.sha256));
  } else await dropMedia(ctx, batch, found.id);
  ctx.state.conflicts = ctx.state.conflicts.filter((x) => x !== found);
  await batch.commit(ctx);
}

/** The pieces of a download, checked against the SHA-256 they must have: other bytes fail the put, which keeps none. */
async function* verified(stream: ReadableStream<Uint8Array>, sha: string): AsyncGenerator<Uint8Array> {
  const hash = sha256();
  for await (const piece of piecesOfStream(stream)) {
    hash.update(piece);
    yield piece;
  }
  const got = hash.hex();
  if (got !== sha)
    throw new RemoteError(502, 'badPicture', `The server sent bytes with SHA-256 ${got} for the picture ${sha}`);
}

/** Pictures looked at per pass (the rest wait for the next). */
const PASS = 500;

/** A picture to fetch: its record here, or (known by its url alone) the name its url gives it. */
type Fetch = { sha256: string; blob: string; filename: string; record: boolean };

/**
 * Fetches the bytes of the pictures that wait and that a local post or page uses, `concurrency` at a time, into
 * the local blob store; lets go of the bytes of pictures removed here. A picture with a record here is checked
 * against its id; one known by its url alone is checked as an upload is (the local service's rules: a
 * picture, within its `maxMediaBytes`, with that SHA-256) and gets its record with the pass's save. What it
 * did is written (through `save`, which runs it as a replica operation) once the pass ends; a failed
 * download (offline) ends the pass, and what it fetched before stays fetched. A picture no post uses yet
 * waits until one does.
 */
export async function fetchPictures(
  core: Core,
  blogId: string,
  remote: Remote,
  concurrency: number,
  signal: AbortSignal,
  save: (change: (ctx: Ctx) => Promise<void>) => Promise<void>,
): Promise<Downloads> {
  const stored = (await core.getAs<Pictures>('settings', picturesId(blogId)))?.doc;
  if (!stored || (!stored.want.length && !stored.drop.length)) return { fetched: 0, waiting: 0 };
  const dropped = stored.drop.slice(0, PASS);
  for (const key of dropped) await core.blobs.delete(key);
  const gone: string[] = [];
  const todo: Fetch[] = [];
  // A slice of what waits at a time, until a pass's worth is to fetch (pictures no post uses are passed over).
  for (let at = 0; at < stored.want.length && todo.length < PASS; at += PASS) {
    const shas = stored.want.slice(at, at + PASS);
    const records = await core.driver.getMany(
      'media',
      shas.map((sha) => mediaId(blogId, sha)),
    );
    for (const [i, found] of records.entries()) {
      const sha = shas[i]!;
      if (!(await usedHere(core, blogId, sha))) continue;
      const r = found?.doc as MediaRecord | undefined;
      todo.push(
        r
          ? { sha256: sha, blob: r.blob, filename: r.filename, record: true }
          : { sha256: sha, blob: blobKey(blogId, sha), filename: stored.names?.[sha] || 'image', record: false },
      );
    }
  }
  const done: string[] = [];
  const byUrl: Array<PictureFacts & { blob: string }> = [];
  let failed: unknown;
  let next = 0;
  const worker = async () => {
    for (let i = next++; failed === undefined && !signal.aborted && i < todo.length; i = next++) {
      const t = todo[i]!;
      try {
        const body = await remote.picture(blogId, t.sha256, t.filename, signal);
        if (t.record) await core.blobs.put(t.blob, verified(body, t.sha256));
        else {
          byUrl.push({
            ...(await putPicture(core, t.blob, { body, filename: t.filename, sha256: t.sha256 })),
            blob: t.blob,
          });
        }
        done.push(t.sha256);
      } catch (error) {
        // Gone from the server (its removal comes through the feed, or its posts'), or bytes this store does not
        // take (the local service's checks): nothing to fetch.
        if ((error instanceof RemoteError && error.status === 404) || BlogError.is(error)) gone.push(t.sha256);
        else failed ??= error;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, concurrency) }, worker));
  if (done.length || gone.length || dropped.length) {
    await save(async (ctx) => {
      const batch = new Batch(core);
      const pictures = await picturesIn(batch, blogId);
      pictures.drop = pictures.drop.filter((key) => !dropped.includes(key));
      for (const f of byUrl) {
        // A record that came meanwhile (the feed's, an upload) stays, and so do its bytes; a picture a pull let go
        // meanwhile goes.
        const there = (await batch.get<MediaRecord>('media', mediaId(blogId, f.sha256)))?.doc;
        if (there) {
          if (there.blob !== f.blob) pictures.drop.push(f.blob);
        } else if (await usedHere(core, blogId, f.sha256))
          await putWithBase(ctx, batch, urlRecord(blogId, f), undefined, BY_URL);
        else pictures.drop.push(f.blob);
      }
      unwant(pictures, new Set([...done, ...gone]));
      await batch.put('settings', pictures);
      await batch.commit(ctx);
    });
  }
  return { fetched: done.length, waiting: todo.length - done.length };
}

/** Whether a local post or page uses the picture (the `media` index, docs/design.md §19). */
async function usedHere(core: Core, blogId: string, sha: string): Promise<boolean> {
  for (const collection of ['posts', 'pages'] as const) {
    if (
      (await core.driver.keys({ collection, index: 'media', prefixes: [[blogId, sha]], direction: 'asc', limit: 1 }))
        .length
    )
      return true;
  }
  return false;
}
