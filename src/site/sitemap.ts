/**
 * `/sitemap.xml` (sitemaps.org 0.9): every LIVE post and page with its `updated` time. Up to 2,000 urls it is
 * one `urlset`; past that it is a sitemap index of `sitemap-pages.xml` and one `sitemap-posts-<window>.xml`
 * per stretch of time holding at most 2,000 posts (a year, else its months, days, hours… as needed).
 *
 * Bounded work: the index finds its windows by hops (the newest post before a window: one post read) and
 * counts (an index range count), one of each per window; a window's sitemap reads its own posts only.
 */
import type { SiteParts } from './render.js';
import type { BlogScope } from './views.js';

export const MAX_URLS = 2000;
/** The protocol's limit for one file: what a window may hold if it grew since its index was read. */
const FILE_LIMIT = 50_000;
/** Window names are ISO time prefixes (lower case, `-` for `T` and `:`), from a year down to a second. */
const UNITS = [4, 7, 10, 13, 16, 19] as const;

const esc = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&apos;');
const HEAD = '<?xml version="1.0" encoding="UTF-8"?>\n';
const NS = 'http://www.sitemaps.org/schemas/sitemap/0.9';

const nameOf = (iso: string, unit: number) => iso.slice(0, unit).replace(/[T:]/g, '-').toLowerCase();

/** A window's time range from its name: `2026`, `2026-11`, `2026-11-05`, `2026-11-05-10`, … */
export function windowRange(name: string): { start: string; end: string } | undefined {
  const m = /^(\d{4})(?:-(\d{2})(?:-(\d{2})(?:-(\d{2})(?:-(\d{2})(?:-(\d{2}))?)?)?)?)?$/.exec(name);
  if (!m) return undefined;
  const parts = m
    .slice(1)
    .filter((x) => x !== undefined)
    .map(Number);
  const [y, mo = 1, d = 1, h = 0, mi = 0, s = 0] = parts;
  const start = Date.UTC(y!, mo - 1, d, h, mi, s);
  const fields = [y!, mo - 1, d, h, mi, s];
  fields[parts.length - 1]!++;
  const end = Date.UTC(fields[0]!, fields[1]!, fields[2], fields[3], fields[4], fields[5]);
  if (Number.isNaN(start) || nameOf(new Date(start).toISOString(), UNITS[parts.length - 1]!) !== name) return undefined;
  return { start: new Date(start).toISOString(), end: new Date(end).toISOString() };
}

/** The windows of the sitemap index, newest first: each holds at most MAX_URLS posts (unless a second holds more). */
export async function postWindows(parts: SiteParts, blogId: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (level: number, start: string | undefined, end: string | undefined): Promise<void> => {
    let upper = end;
    for (;;) {
      const newest = await parts.reader.posts.list({
        blogId,
        maxResults: 1,
        fetchBodies: false,
        ...(start ? { startDate: start } : {}),
        ...(upper ? { endDate: upper } : {}),
      });
      const post = newest.items[0];
      if (!post) return;
      const name = nameOf(post.published ?? post.updated, UNITS[level]!);
      const range = windowRange(name)!;
      if (level === UNITS.length - 1 || (await parts.store.countPosts(blogId, range.start, range.end)) <= MAX_URLS)
        out.push(name);
      else await walk(level + 1, range.start, range.end);
      upper = range.start;
    }
  };
  await walk(0, undefined, undefined);
  return out;
}

/** Every post of a list call, following its tokens (up to the protocol's limit for one file). */
async function allOf<T>(
  read: (pageToken: string | undefined) => Promise<{ items: T[]; nextPageToken?: string }>,
): Promise<T[]> {
  const out: T[] = [];
  let token: string | undefined;
  do {
    const page = await read(token);
    out.push(...page.items);
    token = page.nextPageToken;
  } while (token && out.length < FILE_LIMIT);
  return out.slice(0, FILE_LIMIT);
}

const urlset = (items: ReadonlyArray<{ url?: string | undefined; updated?: string }>) =>
  `${HEAD}<urlset xmlns="${NS}">\n${items
    .filter((i) => i.url)
    .map((i) => `<url><loc>${esc(i.url!)}</loc>${i.updated ? `<lastmod>${i.updated}</lastmod>` : ''}</url>\n`)
    .join('')}</urlset>\n`;

const postsIn = (parts: SiteParts, blogId: string, range?: { start: string; end: string }) =>
  allOf((pageToken) =>
    parts.reader.posts.list({
      blogId,
      maxResults: 500,
      fetchBodies: false,
      ...(range ? { startDate: range.start, endDate: range.end } : {}),
      ...(pageToken ? { pageToken } : {}),
    }),
  );
const pagesOf = (parts: SiteParts, blogId: string) =>
  allOf((pageToken) =>
    parts.reader.pages.list({ blogId, maxResults: 500, fetchBodies: false, ...(pageToken ? { pageToken } : {}) }),
  );

export interface SitemapFile {
  /** Path relative to the blog url. */
  path: string;
  text: string;
}

/** `/sitemap.xml`: one urlset, or the index naming the other files (their names in `parts`). */
export async function sitemapRoot(parts: SiteParts, scope: BlogScope): Promise<{ text: string; files: string[] }> {
  const blogId = scope.blog.id;
  const [posts, pages] = await Promise.all([parts.store.countPosts(blogId), parts.store.countPages(blogId)]);
  if (posts + pages <= MAX_URLS) {
    const [p, g] = await Promise.all([postsIn(parts, blogId), pagesOf(parts, blogId)]);
    // A urlset needs one url at least: a blog with nothing published yet lists its home page.
    const items = p.length + g.length ? [...p, ...g] : [{ url: scope.blog.url }];
    return { text: urlset(items), files: [] };
  }
  const files = [
    ...(pages ? ['sitemap-pages.xml'] : []),
    ...(await postWindows(parts, blogId)).map((w) => `sitemap-posts-${w}.xml`),
  ];
  const text = `${HEAD}<sitemapindex xmlns="${NS}">\n${files.map((f) => `<sitemap><loc>${esc(scope.blog.url + f)}</loc></sitemap>\n`).join('')}</sitemapindex>\n`;
  return { text, files };
}

/** One file the index names (`pages`, or `posts-<window>`); undefined for a name that is not one. */
export async function sitemapPart(parts: SiteParts, scope: BlogScope, part: string): Promise<string | undefined> {
  const blogId = scope.blog.id;
  if (part === 'pages') {
    const pages = await pagesOf(parts, blogId);
    return pages.length ? urlset(pages) : undefined;
  }
  const range = part.startsWith('posts-') ? windowRange(part.slice(6)) : undefined;
  const posts = range ? await postsIn(parts, blogId, range) : [];
  return posts.length ? urlset(posts) : undefined;
}

/** `/robots.txt`: everything may be crawled but search results; where the sitemap is. */
export const robotsTxt = (scope: BlogScope) =>
  `User-agent: *\nDisallow: ${scope.base}search?\nAllow: /\n\nSitemap: ${scope.blog.url}sitemap.xml\n`;
