/**
 * `cleanMedia` (`blogcore media clean`, docs/design.md §23): pictures stored before metadata came out at upload are
 * stored again cleaned (src/media/clean.ts): a new id (the SHA-256 of the cleaned bytes), the content of every post
 * and page that uses one rewritten to its new url (each item in one commit, its uses moving with it), a redirect
 * `/media/{blogId}/{old}/` → `/media/{blogId}/{new}/` kept with the blog (old urls answer 301, src/web/media.ts),
 * then the old picture's variants and bytes deleted, its record last. A page of pictures per call, in upload order
 * from a keyset token, and at most REWRITES posts and pages rewritten per call (a picture whose users take more
 * is resumed by the next call), so one call's reads are bounded whatever the blog holds. A run stopped anywhere
 * completes when run again: each step is repeatable, and a picture whose redirect is stored resumes from there.
 */
import { BlogError } from '../util/errors.js';
import {
  type Core,
  del,
  DriverConflict,
  type Key,
  mediaId,
  type MediaRecord,
  type PageRecord,
  type PostRecord,
  put,
  type StoredDoc,
} from '../service/store.js';
import { redirectOf, storeRedirects } from '../service/redirects.js';
import type { BlogService } from '../service/types.js';
import { storeMedia } from '../media/service.js';
import { deleteVariants } from '../media/variants.js';
import { coreOf } from './restore.js';

export interface CleanMediaOptions {
  blogId: string;
  /** Where the last call stopped (its `nextPageToken`); none: from the first picture. */
  pageToken?: string;
  /** Pictures looked at in this call: default 20, at most 100. */
  maxResults?: number;
}

export interface CleanedPicture {
  /** The old id and the new one (SHA-256 of the bytes before and after). */
  from: string;
  to: string;
  bytesBefore: number;
  bytesAfter: number;
  /** Posts and pages whose content this call rewrote to the new url (a picture resumed from an earlier call's
   * rewrites counts only this call's). */
  rewritten: number;
}

export interface CleanMediaReport {
  kind: 'blogcore#mediaCleanReport';
  /** Pictures that carried metadata, now stored without it. */
  cleaned: CleanedPicture[];
  /**
   * Pictures stored before the rule whose bytes are already what cleaning makes. Pictures stored cleaned (since
   * the rule, or by an earlier call) are passed by unread and counted nowhere.
   */
  unchanged: number;
  /** Pictures left as they were, and why (e.g. their bytes no longer pass the checks of today). */
  failed: Array<{ id: string; reason: string }>;
  /** Present when more pictures follow: pass it as `pageToken`. */
  nextPageToken?: string;
}

const BATCH = 50;
/** Posts and pages one call rewrites at most: the part of its reads that a picture's users decide. */
const REWRITES = 100;
const invalid = (location: string, message: string) =>
  new BlogError({ code: 400, reason: 'invalid', message, location, locationType: 'parameter' });

/** A position in the walk: after a picture, or at one (a picture whose users are not all rewritten yet). */
type Position = { key: Key; at: boolean };
const tokenOf = (key: Key, at = false) => btoa(JSON.stringify(at ? { at: key } : key));
function positionOf(token: string): Position {
  try {
    const parsed = JSON.parse(atob(token)) as unknown;
    const at = typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed);
    const key = at ? (parsed as { at?: unknown }).at : parsed;
    if (Array.isArray(key) && key.length === 2 && key.every((k) => typeof k === 'string'))
      return { key: key as Key, at };
  } catch {
    // Not one of ours: refused below.
  }
  throw invalid('pageToken', 'pageToken is not one this call gave out');
}

/** Cleans one page of a blog's pictures (the host service only). */
export async function cleanMedia(service: BlogService, options: CleanMediaOptions): Promise<CleanMediaReport> {
  const core = coreOf(service);
  const limit = options.maxResults ?? 20;
  if (!Number.isInteger(limit) || limit < 1 || limit > 100)
    throw invalid('maxResults', 'maxResults must be an integer from 1 to 100');
  await core.ready();
  const blog = await core.blog(options.blogId);
  const from = options.pageToken === undefined ? undefined : positionOf(options.pageToken);
  const page = await core.driver.list({
    collection: 'media',
    index: 'blog',
    prefix: [blog.id],
    ...(from ? { lower: { key: from.key, open: !from.at } } : {}),
    direction: 'asc',
    limit: limit + 1,
  });
  const report: CleanMediaReport = { kind: 'blogcore#mediaCleanReport', cleaned: [], unchanged: 0, failed: [] };
  const budget = { rewrites: REWRITES };
  for (const d of page.slice(0, limit)) {
    const r = d.doc as unknown as MediaRecord;
    // Stored cleaned (after the rule, or by an earlier call): nothing to read again.
    if (r.cleaned) continue;
    try {
      const done = await cleanOne(core, r, budget);
      if (done === LATER) {
        report.nextPageToken = tokenOf(d.key.slice(1), true);
        return report;
      }
      if (done) report.cleaned.push(done);
      else report.unchanged++;
    } catch (error) {
      if (!BlogError.is(error) || error.code >= 500) throw error;
      report.failed.push({ id: r.sha256, reason: error.message });
    }
  }
  if (page.length > limit) report.nextPageToken = tokenOf(page[limit - 1]!.key.slice(1));
  return report;
}

/** Said of a picture whose users this call had no budget left to rewrite: the next call resumes it. */
const LATER = Symbol('later');

/** One picture: stored again cleaned, its old urls redirected, its users rewritten, then it goes. */
async function cleanOne(
  core: Core,
  r: MediaRecord,
  budget: { rewrites: number },
): Promise<CleanedPicture | undefined | typeof LATER> {
  const from = `/media/${r.blogId}/${r.sha256}/`;
  // A picture whose redirect is stored (by an earlier call, or a run that stopped) goes on from there.
  let next = await movedTo(core, r.blogId, from);
  if (!next) {
    const bytes = await core.blobs.read(r.blob, { offset: 0, length: r.bytes });
    if (!bytes)
      throw new BlogError({ code: 404, reason: 'notFound', message: 'The picture has no bytes in the store' });
    next = (
      await storeMedia(core, {
        blogId: r.blogId,
        body: bytes,
        contentType: r.contentType,
        filename: r.filename,
        alt: r.alt,
        authorId: r.authorId,
        published: r.published,
        updated: core.nowIso(),
        source: r.source,
      })
    ).record;
    if (next.sha256 === r.sha256) return undefined;
    // The redirect before any post names the new url: from here on the old url leads to the new one.
    await storeRedirects(core, r.blogId, [{ from, to: `/media/${r.blogId}/${next.sha256}/` }]);
  }
  const to = `/media/${r.blogId}/${next.sha256}/`;
  let rewritten = 0;
  for (const collection of ['posts', 'pages'] as const) {
    const users = await rewriteUsers(core, collection, r, from, to, budget);
    rewritten += users.count;
    if (!users.done) return LATER;
  }
  // Its variants and bytes (which carry the metadata) before its record: a run stopped between them meets the
  // record again, follows its redirect and ends it.
  await deleteVariants(core, r);
  await core.blobs.delete(r.blob);
  const old = await core.get('media', r.id);
  if (old) await core.commit([del('media', old.id, old.version, { blogId: r.blogId })]).catch(ignoreConflict);
  return { from: r.sha256, to: next.sha256, bytesBefore: r.bytes, bytesAfter: next.bytes, rewritten };
}

/** The picture an earlier run stored in place of the one at `from`, when its redirect and record are there. */
async function movedTo(core: Core, blogId: string, from: string): Promise<MediaRecord | undefined> {
  const to = await redirectOf(core, blogId, from);
  const sha = to && /^\/media\/[^/]+\/([0-9a-f]{64})\/$/.exec(to)?.[1];
  return sha ? (await core.get('media', mediaId(blogId, sha)))?.doc : undefined;
}

const ignoreConflict = (error: unknown) => {
  if (!DriverConflict.is(error)) throw error;
};

/**
 * Every post or page of the blog whose content uses the old picture, rewritten to the new url: BATCH at a time
 * along the `media` index from a keyset position (a rewritten item leaves the prefix in its own commit), while the
 * call's budget lasts (`done: false` when it ran out first).
 */
async function rewriteUsers(
  core: Core,
  collection: 'posts' | 'pages',
  r: MediaRecord,
  from: string,
  to: string,
  budget: { rewrites: number },
): Promise<{ count: number; done: boolean }> {
  let count = 0;
  let after: Key | undefined;
  for (;;) {
    if (budget.rewrites <= 0) return { count, done: false };
    const limit = Math.min(BATCH, budget.rewrites);
    const users = await core.driver.list({
      collection,
      index: 'media',
      prefix: [r.blogId, r.sha256],
      ...(after ? { lower: { key: after, open: true } } : {}),
      direction: 'asc',
      limit,
    });
    budget.rewrites -= users.length;
    for (const d of users)
      if (await rewriteOne(core, collection, d as unknown as StoredDoc<PostRecord>, from, to)) count++;
    if (users.length < limit) return { count, done: true };
    after = users[users.length - 1]!.key.slice(2);
  }
}

/** One item's content with the new url (compare-and-set; read again when it moved meanwhile). */
async function rewriteOne(
  core: Core,
  collection: 'posts' | 'pages',
  first: StoredDoc<PostRecord | PageRecord>,
  from: string,
  to: string,
): Promise<boolean> {
  let d: StoredDoc<PostRecord | PageRecord> | undefined = first;
  for (let attempt = 0; d; attempt++) {
    const content = d.doc.content.split(from).join(to);
    if (content === d.doc.content) return false;
    try {
      await core.commit([put(collection, { ...d.doc, content, rev: d.doc.rev + 1 }, d)]);
      return true;
    } catch (error) {
      if (!DriverConflict.is(error) || attempt > 50) throw error;
      d = await core.get(collection, d.id);
    }
  }
  return false;
}
