/**
 * `importBlog(…, { media: true })` (docs/design.md §19): after the records, the pictures the blog uses are downloaded
 * and stored as its media, and the content is rewritten to their new urls. What counts: every `<img src>` of
 * a post or page (and a link around it to a Blogger-hosted picture), and WordPress attachments. Blogger's own
 * sizes (`…/s640/…`, `=w400-h300`) are fetched at full size. Downloads run DOWNLOADS at a time, a page of
 * records at a time; one that fails is listed in `skipped` and its content keeps the old url. A picture
 * stored by an earlier run is found by its url (media.source), so a re-run fetches only what is missing.
 */
import { BlogError } from '../util/errors.js';
import {
  type Core,
  DriverConflict,
  type Key,
  type StoredDoc,
  put,
  type MediaRecord,
  type PageRecord,
  type PostRecord,
} from '../service/store.js';
import { PAGE_STATUSES, POST_STATUSES } from '../schema/schemas.js';
import { storeMedia } from '../media/service.js';
import { FetchFailure, fetchPicture, type FetchPolicy } from '../media/fetch.js';
import type { Restorer } from './restore.js';

const DOWNLOADS = 4;
const BATCH = 50;
export const DEFAULT_MEDIA_TIMEOUT_MS = 30_000;
export const DEFAULT_MEDIA_DEADLINE_MS = 120_000;

const ATTRIBUTE = /(<(img|a)\b[^>]*?\s(src|href)\s*=\s*)("([^"]*)"|'([^']*)'|([^\s>"']+))/gi;
const BLOGGER_HOST = /(^|\.)(googleusercontent\.com|bp\.blogspot\.com|blogger\.com)$/;
const SIZE = /^(?:[swh]\d+)(?:-[a-z0-9]+)*$/;

const decodeEntities = (s: string) =>
  s
    .replace(/&#0*38;|&#x0*26;/gi, '&')
    .replace(/&quot;/g, '"')
    .replace(/&#0*39;|&apos;/g, "'")
    .replace(/&amp;/g, '&');

/** A picture url as it is fetched: absolute, http(s), Blogger-hosted ones at full size; undefined for anything else. */
export function pictureUrl(raw: string): string | undefined {
  const text = decodeEntities(raw.trim());
  let u: URL;
  try {
    u = new URL(text.startsWith('//') ? `https:${text}` : text);
  } catch {
    return undefined;
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return undefined;
  if (BLOGGER_HOST.test(u.hostname)) {
    const parts = u.pathname.split('/');
    if (parts.length >= 3 && SIZE.test(parts[parts.length - 2]!)) parts[parts.length - 2] = 's0';
    u.pathname = parts.join('/').replace(/=[swh]\d+(?:-[a-z0-9]+)*$/, '=s0');
  }
  u.hash = '';
  return u.href;
}

/** The pictures `html` uses, as fetch urls: img sources, and links to Blogger-hosted pictures. */
export function picturesOf(html: string, own: (url: string) => boolean): string[] {
  const out = new Set<string>();
  for (const m of html.matchAll(ATTRIBUTE)) {
    const tag = m[2]!.toLowerCase();
    const attr = m[3]!.toLowerCase();
    if ((tag === 'img') !== (attr === 'src')) continue;
    const url = pictureUrl(m[5] ?? m[6] ?? m[7] ?? '');
    if (!url || own(url) || (tag === 'a' && !BLOGGER_HOST.test(new URL(url).hostname))) continue;
    out.add(url);
  }
  return [...out];
}

/** `html` with every img src (and link) whose picture was stored pointing at its new url. */
export function rewrite(html: string, stored: ReadonlyMap<string, string | null>): string {
  return html.replace(
    ATTRIBUTE,
    (whole, start: string, tag: string, attr: string, _q, a?: string, b?: string, c?: string) => {
      if ((tag.toLowerCase() === 'img') !== (attr.toLowerCase() === 'src')) return whole;
      const url = pictureUrl(a ?? b ?? c ?? '');
      const to = url ? stored.get(url) : undefined;
      return to ? `${start}"${to}"` : whole;
    },
  );
}

/** Runs `fn` over `items`, `n` at a time. */
async function eachLimit<T>(items: readonly T[], n: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await fn(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(n, items.length) }, worker));
}

const fileOf = (url: string) => {
  try {
    return decodeURIComponent(new URL(url).pathname.split('/').pop() ?? '');
  } catch {
    return undefined;
  }
};

export async function importMedia(restorer: Restorer, policy: FetchPolicy): Promise<void> {
  const { core, report } = restorer;
  const blog = restorer.blog!;
  const marker = `/media/${blog.id}/`;
  const own = (url: string) => url.includes(marker);
  /** This run's pictures: fetch url → new url, or null when it failed (tried once per run). */
  const stored = new Map<string, string | null>();

  const fetchOne = async (url: string, source: string) => {
    if (stored.has(url)) return;
    stored.set(url, null);
    const [earlier] = await core.driver.list({
      collection: 'media',
      index: 'source',
      prefix: [blog.id, url],
      direction: 'asc',
      limit: 1,
    });
    if (earlier) {
      const m = earlier.doc as unknown as MediaRecord;
      stored.set(url, core.links.media(m.blogId, m.sha256, m.filename));
      report.unchanged.media++;
      return restorer.picture();
    }
    let fetched: Awaited<ReturnType<typeof fetchPicture>> | undefined;
    try {
      fetched = await fetchPicture(url, policy);
      if (fetched.length !== undefined && fetched.length > core.maxMediaBytes)
        throw new FetchFailure(`larger than ${core.maxMediaBytes} bytes (maxMediaBytes)`);
      const { record, fresh } = await storeMedia(core, {
        blogId: blog.id,
        body: fetched.body,
        authorId: blog.ownerId,
        filename: fileOf(url),
        source: url,
      });
      stored.set(url, core.links.media(record.blogId, record.sha256, record.filename));
      if (fresh) report.created.media++;
      else report.unchanged.media++;
      restorer.picture();
    } catch (error) {
      fetched?.abort();
      if (!(error instanceof FetchFailure || BlogError.is(error) || (error as { code?: string }).code !== undefined))
        throw error;
      restorer.skip(`picture ${url} (${source})`, `Not downloaded: ${(error as Error).message}`);
    }
  };

  // WordPress attachments: the blog's pictures, used in a post or not.
  for (let at = 0; at < restorer.attachments.length; at += BATCH) {
    const batch = restorer.attachments.slice(at, at + BATCH).flatMap((a) => {
      const url = pictureUrl(a.url);
      return url ? [{ url, source: a.source }] : [];
    });
    await eachLimit(batch, DOWNLOADS, (a) => fetchOne(a.url, a.source));
  }
  // Every post and page, a page of records at a time: their pictures, then their content rewritten.
  const walks: Array<['posts' | 'pages', readonly string[]]> = [
    ['posts', POST_STATUSES],
    ['pages', PAGE_STATUSES],
  ];
  for (const [collection, statuses] of walks) {
    for (const status of statuses) {
      let after: Key | undefined;
      for (;;) {
        const page = await core.driver.list({
          collection,
          index: 'published',
          prefix: [blog.id, status],
          ...(after ? { lower: { key: after, open: true } } : {}),
          direction: 'asc',
          limit: BATCH,
        });
        const wanted = page.flatMap((d) =>
          picturesOf((d.doc as unknown as PostRecord).content, own).map((url) => ({
            url,
            source: `${collection.slice(0, -1)} ${d.id}`,
          })),
        );
        await eachLimit(wanted, DOWNLOADS, (w) => fetchOne(w.url, w.source));
        for (const d of page)
          await rewriteRecord(core, collection, d as unknown as StoredDoc<PostRecord | PageRecord>, stored);
        if (page.length < BATCH) break;
        after = page[page.length - 1]!.key.slice(2);
      }
    }
  }
}

/** Writes a record's content with its pictures' new urls (compare-and-set; re-read if it moved). */
async function rewriteRecord(
  core: Core,
  collection: 'posts' | 'pages',
  first: StoredDoc<PostRecord | PageRecord>,
  stored: ReadonlyMap<string, string | null>,
) {
  let d: StoredDoc<PostRecord | PageRecord> | undefined = first;
  for (let attempt = 0; d && attempt < 5; attempt++) {
    const content = rewrite(d.doc.content, stored);
    if (content === d.doc.content) return;
    try {
      await core.commit([put(collection, { ...d.doc, content, rev: d.doc.rev + 1 }, d)]);
      return;
    } catch (error) {
      if (!DriverConflict.is(error)) throw error;
      d = await core.get(collection, d.id);
    }
  }
}
