import { parseFeed } from '@rowanmanning/feed-parser';
import { describe, expect, it } from 'vitest';
import { createHttpHandler } from '../../src/http/index.js';
import { atomFeed, rssFeed } from '../../src/io/index.js';
import { clock, memoryService, sampleBlog } from './helpers.js';

async function world() {
  const c = clock();
  const service = memoryService(c.now);
  const { blogId } = await sampleBlog(service, c);
  const live = (await service.as(null).posts.list({ blogId, maxResults: 500 })).items;
  return { service, blogId, live };
}

describe('feeds', () => {
  it('Atom and RSS list exactly the LIVE posts, newest first, and parse with a feed parser', async () => {
    const { service, blogId, live } = await world();
    expect(live.length).toBe(3);
    for (const render of [atomFeed, rssFeed]) {
      const feed = parseFeed(await render(service, { blogId }));
      expect(feed.title).toBe('Élan & Co');
      expect(feed.url).toBe('https://blog.example.test/');
      expect(feed.items.map((i) => i.title)).toEqual(live.map((p) => p.title));
      expect(feed.items.map((i) => i.url)).toEqual(live.map((p) => p.url));
      const first = feed.items.find((i) => i.title?.startsWith('Grüße'))!;
      // The parser decodes the HTML's entities; the markup arrives intact.
      expect(first.content ?? first.description).toBe('<p>Café & <b>bold</b> ünïcode</p>');
      expect(first.categories.map((c) => c.term)).toEqual(['travel', 'Köln']);
      expect(first.published?.toISOString()).toBe(live.find((p) => p.title === first.title)!.published);
    }
  });

  it('name their own address in a rel="self" link (Atom, and atom:link in RSS)', async () => {
    const { service, blogId } = await world();
    // From the service's absolute apiBaseUrl, at Blogger's feed path.
    const base = `https://api.example.test/feeds/${blogId}/posts/default`;
    expect(await atomFeed(service, { blogId })).toContain(
      `<link rel="self" type="application/atom+xml" href="${base}"/>`,
    );
    expect(await atomFeed(service, { blogId, label: 'Köln' })).toContain(`href="${base}/-/K%C3%B6ln"`);
    const rss = await rssFeed(service, { blogId });
    expect(rss).toContain(`<atom:link rel="self" type="application/rss+xml" href="${base}?alt=rss"/>`);
    expect(parseFeed(rss).items.length).toBeGreaterThan(0);
    // Given, it is used as it is (escaped).
    expect(await atomFeed(service, { blogId, selfUrl: 'https://x.example/f?a=1&b=2' })).toContain(
      'href="https://x.example/f?a=1&amp;b=2"',
    );
    // Over HTTP: the URL the client asked for.
    const handler = createHttpHandler(service);
    const url = `http://localhost:8080/feeds/${blogId}/posts/default?alt=rss&max-results=2`;
    const served = await (await handler(new Request(url))).text();
    expect(served).toContain(`<atom:link rel="self" type="application/rss+xml" href="${url.replace('&', '&amp;')}"/>`);
  });

  it('one label, and maxResults', async () => {
    const { service, blogId, live } = await world();
    const travel = parseFeed(await atomFeed(service, { blogId, label: 'travel' }));
    expect(travel.items.map((i) => i.title)).toEqual(
      live.filter((p) => p.labels?.includes('travel')).map((p) => p.title),
    );
    const one = parseFeed(await rssFeed(service, { blogId, maxResults: 1 }));
    expect(one.items.map((i) => i.title)).toEqual([live[0]!.title]);
    await expect(atomFeed(service, { blogId, maxResults: 0 })).rejects.toMatchObject({
      code: 400,
      location: 'maxResults',
    });
    await expect(atomFeed(service, { blogId: 'nope' })).rejects.toMatchObject({ code: 404 });
  });

  it("the HTTP helper serves them at Blogger's feed paths with ETag and 304", async () => {
    const { service, blogId, live } = await world();
    const handler = createHttpHandler(service);
    const get = (path: string, headers: Record<string, string> = {}) =>
      handler(new Request(`http://localhost${path}`, { headers }));
    const atom = await get(`/feeds/${blogId}/posts/default`);
    expect(atom.status).toBe(200);
    expect(atom.headers.get('content-type')).toBe('application/atom+xml; charset=UTF-8');
    const etag = atom.headers.get('etag')!;
    expect(parseFeed(await atom.text()).items).toHaveLength(live.length);
    const again = await get(`/feeds/${blogId}/posts/default`, { 'if-none-match': etag });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe('');
    const rss = await get(`/feeds/${blogId}/posts/default?alt=rss&max-results=2`);
    expect(rss.headers.get('content-type')).toBe('application/rss+xml; charset=UTF-8');
    expect(rss.headers.get('etag')).not.toBe(etag);
    expect(parseFeed(await rss.text()).items.map((i) => i.title)).toEqual(live.slice(0, 2).map((p) => p.title));
    const label = await get(`/feeds/${blogId}/posts/default/-/K%C3%B6ln`);
    expect(parseFeed(await label.text()).items.map((i) => i.title)).toEqual(['Grüße aus Köln — “quoted”']);
    // A new post changes the feed and its ETag.
    await service.posts.insert({ blogId, body: { title: 'Brand new', content: '<p>n</p>' } });
    const changed = await get(`/feeds/${blogId}/posts/default`, { 'if-none-match': etag });
    expect(changed.status).toBe(200);
    expect(parseFeed(await changed.text()).items[0]!.title).toBe('Brand new');
    // Client errors are Google-shaped JSON errors, never 500s.
    for (const [path, code] of [
      [`/feeds/nope/posts/default`, 404],
      [`/feeds/${blogId}/posts/default?max-results=9999`, 400],
      [`/feeds/${blogId}/posts/default?alt=json`, 400],
      [`/feeds/${blogId}/comments/default`, 404],
      [`/feeds/${blogId}/posts/default/-/a%ZZ`, 400],
    ] as const) {
      const r = await get(path);
      expect(r.status).toBe(code);
      expect(((await r.json()) as { error: { code: number } }).error.code).toBe(code);
    }
    expect(
      (await handler(new Request(`http://localhost/feeds/${blogId}/posts/default`, { method: 'POST', body: 'x' })))
        .status,
    ).toBe(405);
    // The /v3 routes are untouched.
    expect((await get(`/v3/blogs/${blogId}`)).status).toBe(200);
    // Mounted under /api, the feeds sit beside /api/v3.
    const mounted = createHttpHandler(service, { basePath: '/api/v3' });
    expect((await mounted(new Request(`http://localhost/api/feeds/${blogId}/posts/default`))).status).toBe(200);
    expect((await mounted(new Request(`http://localhost/feeds/${blogId}/posts/default`))).status).toBe(404);
  });
});
