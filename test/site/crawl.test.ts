/**
 * The reading site, crawled as a search engine would: from the home page, every link followed with a real
 * HTML parser, live over HTTP and over the files of a static export. Every link answers, every LIVE post and
 * page is reached, nothing a reader may not see is, and the sitemap lists exactly the LIVE posts and pages.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { folderFiles } from '../../src/cli/site.js';
import { memoryDriver } from '../../drivers/memory/index.js';
import { createBlogService } from '../../src/index.js';
import { createSite, exportSite } from '../../src/site/index.js';
import { type Crawl, crawl, type Fetched, httpFetch } from './crawler.js';
import { type Seeded, seed, serveSite, type SiteServer } from './fixture.js';
import { isIndex, validIndex, validUrlset } from './sitemaps.js';

let srv: SiteServer;
let seeded: Seeded;
let dir: string;

beforeAll(async () => {
  srv = await serveSite();
  seeded = await seed(srv.service, `${srv.origin}/`);
  dir = mkdtempSync(join(tmpdir(), 'blogcore-site-crawl-'));
});
afterAll(async () => {
  await srv.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A static server with clean urls: `/x` from x, x.html or x/index.html; the query is not its business. */
const fileFetch =
  (root: string) =>
  async (url: string): Promise<Fetched> => {
    const path = decodeURIComponent(new URL(url).pathname).slice(1);
    const candidates =
      path === '' || path.endsWith('/') ? [`${path}index.html`] : [path, `${path}.html`, `${path}/index.html`];
    for (const c of candidates) {
      const file = join(root, c);
      if (existsSync(file) && !c.endsWith('/')) {
        try {
          const body = readFileSync(file, 'utf8');
          const type = c.endsWith('.xml') ? 'application/xml' : c.endsWith('.txt') ? 'text/plain' : 'text/html';
          return { status: 200, type, body };
        } catch {
          // a folder
        }
      }
    }
    return { status: 404, type: 'text/html', body: '' };
  };

function expectComplete(c: Crawl) {
  const broken = [...c.pages]
    .filter(([, p]) => p.status !== 200)
    .map(([url, p]) => `${url} → ${p.status} (linked from ${c.from.get(url)})`);
  expect(broken).toEqual([]);
  const reached = new Set(c.pages.keys());
  const missing = [...seeded.posts, ...seeded.pages].filter((p) => !reached.has(p.url!)).map((p) => p.url);
  expect(missing).toEqual([]);
  expect([...reached].filter((u) => seeded.hidden.urls.includes(u))).toEqual([]);
  for (const [url, page] of c.pages) {
    for (const title of seeded.hidden.titles) expect(page.body.includes(title), `${url} shows "${title}"`).toBe(false);
  }
  // The comments beyond the post's own page are reached too.
  expect([...reached].some((u) => u.startsWith(seeded.chatty.url!.replace(/\.html$/, '/comments/')))).toBe(true);
}

/** The sitemap's urls (through its index when it is one), each file validated. */
async function sitemapUrls(fetchUrl: (url: string) => Promise<Fetched>, origin: string): Promise<string[]> {
  const root = await fetchUrl(`${origin}/sitemap.xml`);
  expect(root.status).toBe(200);
  if (!isIndex(root.body)) return validUrlset(root.body);
  const out: string[] = [];
  for (const part of await validIndex(root.body)) {
    const file = await fetchUrl(part);
    expect(file.status, part).toBe(200);
    const urls = await validUrlset(file.body);
    expect(urls.length).toBeLessThanOrEqual(2000);
    out.push(...urls);
  }
  return out;
}

const liveUrls = () => [...seeded.posts, ...seeded.pages].map((p) => p.url!).sort();

describe('the live site', () => {
  test('from the home page every link answers 200; every LIVE post and page is reached, and nothing else', async () => {
    const c = await crawl(`${srv.origin}/`, httpFetch);
    expectComplete(c);
    // Lists, labels, months, feeds and the search page were crawled too.
    const paths = [...c.pages.keys()].map((u) => new URL(u).pathname);
    for (const p of ['/page/', '/search/label/', '/2026/08/', '/feeds/posts/default', '/search'])
      expect(
        paths.some((x) => x.startsWith(p)),
        p,
      ).toBe(true);
    expect(srv.errors).toEqual([]);
  });

  test('the sitemap lists exactly the LIVE posts and pages and validates; robots.txt names it', async () => {
    expect((await sitemapUrls(httpFetch, srv.origin)).sort()).toEqual(liveUrls());
    const robots = await httpFetch(`${srv.origin}/robots.txt`);
    expect(robots.body).toContain(`Sitemap: ${srv.origin}/sitemap.xml`);
  });
});

describe('the static export', () => {
  beforeAll(async () => {
    await exportSite(srv.service, { blogId: seeded.blogId, files: folderFiles(dir) });
  });

  test('crawled as files: every link resolves, every LIVE post and page is there, and nothing else', async () => {
    const c = await crawl(`${srv.origin}/`, fileFetch(dir));
    expectComplete(c);
    // Nothing in a static export needs a server: no search form, no comment form, no query strings.
    for (const [url, page] of c.pages) {
      expect(new URL(url).search, url).toBe('');
      expect(page.body).not.toMatch(/<form/);
    }
  });

  test('its sitemap lists exactly the LIVE posts and pages and validates', async () => {
    expect((await sitemapUrls(fileFetch(dir), srv.origin)).sort()).toEqual(liveUrls());
  });
});

test('past 2,000 urls the sitemap is an index of parts of at most 2,000, together exactly the LIVE posts and pages', async () => {
  const service = createBlogService({ driver: memoryDriver() });
  await service.users.insert({ body: { id: 'ada', displayName: 'Ada' } });
  const blog = await service.blogs.insert({ body: { name: 'Big', url: 'https://big.example/' }, ownerId: 'ada' });
  const expected: string[] = [];
  // 2,150 posts in one year (so the year is split into months), a draft, and a page.
  for (let i = 0; i < 2150; i++) {
    const p = await service.posts.insert({
      blogId: blog.id,
      body: { title: `P${i}`, published: new Date(Date.UTC(2025, 0, 1) + i * 3_600_000 * 4).toISOString() },
    });
    expected.push(p.url!);
  }
  await service.posts.insert({ blogId: blog.id, isDraft: true, body: { title: 'Draft' } });
  expected.push((await service.pages.insert({ blogId: blog.id, body: { title: 'About' } })).url!);
  const site = createSite(service);
  const fetchUrl = async (url: string): Promise<Fetched> => {
    const r = (await site(new Request(url)))!;
    return { status: r.status, type: r.headers.get('content-type') ?? '', body: await r.text() };
  };
  const root = await fetchUrl('https://big.example/sitemap.xml');
  expect(isIndex(root.body)).toBe(true);
  expect((await sitemapUrls(fetchUrl, 'https://big.example')).sort()).toEqual(expected.sort());
  await service.close();
}, 60_000);

test('a blog with nothing published yet has a valid sitemap naming its home page; an empty part is a 404', async () => {
  const service = createBlogService({ driver: memoryDriver() });
  await service.users.insert({ body: { id: 'ada', displayName: 'Ada' } });
  await service.blogs.insert({ body: { name: 'New', url: 'https://new.example/' }, ownerId: 'ada' });
  const site = createSite(service);
  const root = await site(new Request('https://new.example/sitemap.xml'));
  expect(await validUrlset(await root!.text())).toEqual(['https://new.example/']);
  expect((await site(new Request('https://new.example/sitemap-posts-2020.xml')))!.status).toBe(404);
  expect((await site(new Request('https://new.example/sitemap-pages.xml')))!.status).toBe(404);
  await service.close();
});
