/**
 * The live site's behaviour over HTTP: one 404 for everything a reader may not see, ETag/304 and
 * Cache-Control, methods, the comment form (post/redirect/get, PENDING, readerComments, sanitizing), which
 * requests are its own, old blog urls, page views, theme parts, and bounded work per page.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { memoryDriver } from '../../drivers/memory/index.js';
import { createBlogService, type Post } from '../../src/index.js';
import { createSite, exportSite, html } from '../../src/site/index.js';
import { countingDriver } from '../support/counting-driver.js';
import { type Seeded, seed, serveSite, type SiteServer } from './fixture.js';

let srv: SiteServer;
let seeded: Seeded;
const at = (url: string) => `${srv.origin}${new URL(url).pathname}`;
/** The form of the post at `url` filled in as a person would: its token taken from the page, sent 16 s later. */
const form = async (url: string, body: Record<string, string>) => {
  const token = /name="token" value="([^"]+)"/.exec(await (await fetch(url)).text())?.[1];
  srv.later(16_000);
  return formWith({ ...body, ...(token ? { token } : {}) });
};
const formWith = (body: Record<string, string>) => ({
  method: 'POST',
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
  body: new URLSearchParams(body).toString(),
  redirect: 'manual' as const,
});

beforeAll(async () => {
  srv = await serveSite();
  seeded = await seed(srv.service, `${srv.origin}/`);
});
afterAll(() => srv.close());

const postTitled = (title: string) => seeded.posts.find((p) => p.title === title)!;

describe('what a reader may not see', () => {
  test('drafts, scheduled, trashed and reverted posts, hidden pages and draft-only labels get the 404 a missing page gets', async () => {
    const all = await srv.service.posts.list({
      blogId: seeded.blogId,
      status: ['DRAFT', 'SCHEDULED', 'SOFT_TRASHED'],
      maxResults: 50,
    });
    const reverted = all.items.find((p) => p.title === 'SECRET REVERTED')!;
    const hidden = [...seeded.hidden.urls.map(at), `${srv.origin}/search/label/secret-label`, `${srv.origin}/2026/12/`];
    expect(reverted.url).toBeDefined();
    expect(hidden).toContain(at(reverted.url!));
    const missing = await fetch(`${srv.origin}/2026/08/no-such-post.html`);
    const body = await missing.text();
    expect(missing.status).toBe(404);
    const headers = (r: Response) => [...r.headers].filter(([k]) => k !== 'date');
    for (const url of [...hidden, `${srv.origin}/p/no-such-page.html`, `${srv.origin}/search/label/no-such-label`]) {
      const r = await fetch(url);
      expect(r.status, url).toBe(404);
      expect(await r.text(), url).toBe(body);
      expect(headers(r), url).toEqual(headers(missing));
    }
  });

  test('a list token that is not one, or belongs to another list, is a 404 too', async () => {
    const home = await (await fetch(`${srv.origin}/`)).text();
    const token = /href="\/page\/([^"]+)" rel="next"/.exec(home)![1]!;
    expect((await fetch(`${srv.origin}/page/${token}`)).status).toBe(200);
    expect((await fetch(`${srv.origin}/search/label/rivers/page/${token}`)).status).toBe(404);
    expect((await fetch(`${srv.origin}/page/bm90LWEtdG9rZW4`)).status).toBe(404);
  });
});

describe('caching', () => {
  test('pages carry an ETag over their bytes and a public Cache-Control; If-None-Match gets 304; an edit changes the ETag', async () => {
    const post = postTitled('Field note 12');
    const first = await fetch(at(post.url!));
    const etag = first.headers.get('etag')!;
    expect(first.headers.get('cache-control')).toMatch(/^public, max-age=\d+/);
    expect(first.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const again = await fetch(at(post.url!), { headers: { 'if-none-match': etag } });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe('');
    await srv.service.posts.patch({ blogId: seeded.blogId, postId: post.id, body: { content: '<p>Changed.</p>' } });
    const changed = await fetch(at(post.url!), { headers: { 'if-none-match': etag } });
    expect(changed.status).toBe(200);
    expect(changed.headers.get('etag')).not.toBe(etag);
  });

  test('HEAD answers the headers of GET without a body; other methods get 405 with Allow', async () => {
    const get = await fetch(`${srv.origin}/`);
    const head = await fetch(`${srv.origin}/`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('etag')).toBe(get.headers.get('etag'));
    expect(await head.text()).toBe('');
    const put = await fetch(`${srv.origin}/`, { method: 'PUT', body: 'x' });
    expect(put.status).toBe(405);
    expect(put.headers.get('allow')).toBe('GET, HEAD');
    expect((await fetch(at(seeded.posts[0]!.url!), { method: 'DELETE' })).headers.get('allow')).toBe('GET, HEAD, POST');
  });

  test('the sitemap, robots.txt and the feeds are served with their own types', async () => {
    const types = await Promise.all(
      [
        '/sitemap.xml',
        '/robots.txt',
        '/feeds/posts/default',
        '/feeds/posts/default?alt=rss',
        '/feeds/posts/default/-/rivers',
      ].map(async (p) => {
        const r = await fetch(srv.origin + p);
        return [r.status, r.headers.get('content-type')];
      }),
    );
    expect(types).toEqual([
      [200, 'application/xml; charset=utf-8'],
      [200, 'text/plain; charset=utf-8'],
      [200, 'application/atom+xml; charset=utf-8'],
      [200, 'application/rss+xml; charset=utf-8'],
      [200, 'application/atom+xml; charset=utf-8'],
    ]);
  });
  test('each feed names its own address in rel="self", live and in a static export', async () => {
    const selfOf = (xml: string) =>
      /<(?:atom:)?link rel="self"[^>]*href="([^"]+)"/.exec(xml)?.[1]?.replaceAll('&amp;', '&');
    for (const p of ['/feeds/posts/default', '/feeds/posts/default?alt=rss', '/feeds/posts/default/-/rivers']) {
      expect(selfOf(await (await fetch(srv.origin + p)).text()), p).toBe(srv.origin + p);
    }
    const files = new Map<string, string>();
    await exportSite(srv.service, {
      blogId: seeded.blogId,
      files: { write: async (p, t) => void files.set(p, t), remove: async () => {} },
    });
    for (const p of ['feeds/posts/default.xml', 'feeds/posts/rss.xml'])
      expect(selfOf(files.get(p)!), p).toBe(`${srv.origin}/${p}`);
  });
});

describe('the comment form', () => {
  test('adds a PENDING comment, sanitized, then redirects to the post, which says it awaits moderation', async () => {
    const post = postTitled('Field note 20');
    const r = await fetch(
      at(post.url!),
      await form(at(post.url!), {
        name: 'Mallory <b>',
        content: 'Hello <script>alert(1)</script>\n\nSecond paragraph',
      }),
    );
    expect(r.status).toBe(303);
    expect(r.headers.get('location')).toBe(`${new URL(post.url!).pathname}?comment=pending#comments`);
    const stored = await srv.service.comments.list({ blogId: seeded.blogId, postId: post.id, status: ['PENDING'] });
    expect(stored.items).toHaveLength(1);
    expect(stored.items[0]!.content).toBe('<p>Hello &lt;script&gt;alert(1)&lt;/script&gt;</p><p>Second paragraph</p>');
    expect(stored.items[0]!.author.displayName).toBe('Mallory <b>');
    const after = await (await fetch(srv.origin + r.headers.get('location')!)).text();
    expect(after).toContain('role="status"');
    expect(after).not.toContain('Second paragraph');
    await srv.service.comments.approve({ blogId: seeded.blogId, postId: post.id, commentId: stored.items[0]!.id });
    const shown = await (await fetch(at(post.url!))).text();
    expect(shown).toContain('<p>Hello &lt;script&gt;alert(1)&lt;/script&gt;</p><p>Second paragraph</p>');
    expect(shown).toContain('Mallory &lt;b&gt;');
  });

  test('an empty comment or another content type is refused with the form again, and stores nothing', async () => {
    const post = postTitled('Field note 21');
    const empty = await fetch(at(post.url!), await form(at(post.url!), { name: 'Kim', content: '   ' }));
    expect(empty.status).toBe(400);
    const text = await empty.text();
    expect(text).toContain('role="alert"');
    expect(text).toContain('value="Kim"');
    const json = await fetch(at(post.url!), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"content":"x"}',
    });
    expect(json.status).toBe(400);
    expect(
      (await srv.service.comments.list({ blogId: seeded.blogId, postId: post.id, status: ['PENDING', 'LIVE'] })).items,
    ).toEqual([]);
  });

  test("obeys the post's readerComments: closed posts show their comments without a form and refuse new ones", async () => {
    const post = seeded.posts.find((p) => p.title === 'Field note 37')!;
    // A form served while the post was open, sent after it closed.
    const sent = await form(at(post.url!), { content: 'let me in' });
    await srv.service.posts.patch({
      blogId: seeded.blogId,
      postId: post.id,
      body: { readerComments: 'DONT_ALLOW_SHOW_EXISTING' },
    });
    const page = await (await fetch(at(post.url!))).text();
    expect(page).toContain('A <b>kept</b> comment');
    expect(page).toContain('This comment has been removed.');
    expect(page).not.toContain('<form method="post"');
    expect(page).not.toContain('PENDING-COMMENT-TEXT');
    expect(page).not.toContain('SPAM-COMMENT-TEXT');
    const refused = await fetch(at(post.url!), sent);
    expect(refused.status).toBe(403);
    await srv.service.posts.patch({
      blogId: seeded.blogId,
      postId: post.id,
      body: { readerComments: 'DONT_ALLOW_HIDE_EXISTING' },
    });
    const hidden = await (await fetch(at(post.url!))).text();
    expect(hidden).not.toContain('A <b>kept</b> comment');
    expect(
      (await srv.service.comments.list({ blogId: seeded.blogId, postId: post.id, status: ['PENDING'] })).items,
    ).toHaveLength(1);
    await srv.service.posts.patch({ blogId: seeded.blogId, postId: post.id, body: { readerComments: 'ALLOW' } });
  });

  test('a form post to a post a reader may not see answers as a bot is answered, and stores nothing', async () => {
    const r = await fetch(at(seeded.hidden.urls[0]!), await form(at(seeded.hidden.urls[0]!), { content: 'hello?' }));
    expect(r.status).toBe(303);
    const all = await srv.service.comments.listByBlog({ blogId: seeded.blogId, status: ['PENDING'], maxResults: 500 });
    expect(all.items.map((c) => c.content)).not.toContain('<p>hello?</p>');
  });
});

describe('which requests are the site’s', () => {
  test('another host, or the API’s path, is not the site’s: the API (or the host) answers it', async () => {
    const site = createSite(srv.service);
    expect(await site(new Request('https://elsewhere.example/'))).toBeNull();
    expect(await site(new Request(`${srv.origin}/v3/blogs`))).toBeNull();
    // A path no page has, under the blog's address, is the site's own 404 page (docs/design.md §22).
    expect((await site(new Request(`${srv.origin}/wp-admin/setup.php`)))!.status).toBe(404);
    expect((await site(new Request(`${srv.origin}/`)))!.status).toBe(200);
    // Through the Node adapter, what the site leaves falls through to the API beside it.
    const api = await fetch(`${srv.origin}/v3/blogs/${seeded.blogId}/posts?maxResults=1`);
    expect(api.status).toBe(200);
    expect(((await api.json()) as { kind: string }).kind).toBe('blogger#postList');
  });

  test('with blogId, one blog is served whatever the host; a blog url that changed redirects from the old one', async () => {
    const one = createSite(srv.service, { blogId: seeded.blogId });
    expect((await one(new Request('http://localhost:1234/p/about.html')))!.status).toBe(200);
    const service = createBlogService({ driver: memoryDriver() });
    await service.users.insert({ body: { id: 'u', displayName: 'U' } });
    const blog = await service.blogs.insert({ body: { name: 'Moving', url: 'https://old.example/' }, ownerId: 'u' });
    const post = await service.posts.insert({ blogId: blog.id, body: { title: 'Hello' } });
    await service.blogs.patch({ blogId: blog.id, body: { url: 'https://new.example/notes/' } });
    const site = createSite(service);
    const path = new URL(post.url!).pathname;
    const moved = await site(new Request(`https://old.example${path}?x=1`));
    expect(moved!.status).toBe(301);
    expect(moved!.headers.get('location')).toBe(`https://new.example/notes${path}?x=1`);
    const now = await site(new Request(`https://new.example/notes${path}`));
    expect(now!.status).toBe(200);
    const text = await now!.text();
    expect(text).toContain(`<link rel="canonical" href="https://new.example/notes${path}">`);
    expect(text).toContain('<a href="/notes/">Home</a>');
    await service.close();
  });
});

test('each post page served live counts a page view, gathered into one write a second', async () => {
  const driver = memoryDriver();
  const service = createBlogService({ driver });
  await service.users.insert({ body: { id: 'u', displayName: 'U' } });
  const blog = await service.blogs.insert({ body: { name: 'Views', url: 'https://views.example/' }, ownerId: 'u' });
  const post = await service.posts.insert({ blogId: blog.id, body: { title: 'Read me' } });
  const site = createSite(service);
  const views = async () => Number((await service.pageViews.get({ blogId: blog.id, range: ['all'] })).counts[0]!.count);
  const seq = async () => (await driver.logBounds()).newest;
  const before = await seq();
  // Three reads of the post (the second and third from the kept page), a HEAD and the home page.
  for (let i = 0; i < 3; i++) await (await site(new Request(post.url!)))!.text();
  await site(new Request(post.url!, { method: 'HEAD' }));
  await (await site(new Request('https://views.example/')))!.text();
  await expect.poll(views).toBe(3);
  // One write for the views, and one for the comment form's key (made once per store, with the first form).
  expect((await seq()) - before).toBe(2);
  await (await site(new Request(post.url!)))!.text();
  await expect.poll(views).toBe(4);
  expect((await seq()) - before).toBe(3);
  await service.close();
});

test('a theme part replaces only its pages; the layout wraps every page', async () => {
  const site = createSite(srv.service, {
    theme: {
      post: (post) =>
        html`<article><h1>${post.title}</h1><p class="custom">Custom post page</p>${post.content}</article>`,
      layout: ({ title, head, body, blog }) =>
        html`<!DOCTYPE html><html lang="${blog.lang}"><head><title>${title}</title>${head}</head><body><nav>Host nav</nav><main>${body}</main></body></html>`,
    },
  });
  const post = await (await site(new Request(at(postTitled('Field note 5').url!))))!.text();
  expect(post).toContain('<p class="custom">Custom post page</p>');
  expect(post).toContain('<nav>Host nav</nav>');
  const home = await (await site(new Request(`${srv.origin}/`)))!.text();
  expect(home).toContain('<nav>Host nav</nav>');
  expect(home).toContain('<ol class="posts">');
  expect(home).not.toContain('Custom post page');
});

test('bounded work: a page reads what it shows, however many posts and comments the blog holds', async () => {
  const driver = countingDriver(memoryDriver());
  const service = createBlogService({ driver });
  await service.users.insert({ body: { id: 'u', displayName: 'U' } });
  const blog = await service.blogs.insert({ body: { name: 'Big', url: 'https://big.example/' }, ownerId: 'u' });
  const site = createSite(service);
  const reads: Record<string, number[]> = {};
  let last: Post | undefined;
  let count = 0;
  for (const size of [150, 900]) {
    for (; count < size; count++) {
      last = await service.posts.insert({
        blogId: blog.id,
        body: {
          title: `P${count}`,
          labels: [`l${count % 3}`],
          published: new Date(Date.UTC(2025, 0, 1) + count * 3_600_000).toISOString(),
        },
      });
    }
    for (let i = 0; i < 120; i++)
      await service.comments.insert({ blogId: blog.id, postId: last!.id, body: { content: `c${i}` } });
    const home = await (await site(new Request('https://big.example/')))!.text();
    const older = /href="([^"]+)" rel="next"/.exec(home)![1]!;
    const urls = {
      home: '/',
      older,
      post: new URL(last!.url!).pathname,
      label: '/search/label/l1',
      month: '/2025/01/',
      sitemap: '/sitemap.xml',
    };
    for (const [kind, path] of Object.entries(urls)) {
      driver.reset();
      expect((await site(new Request(`https://big.example${path}`)))!.status, kind).toBe(200);
      (reads[kind] ??= []).push(driver.handedOut);
    }
  }
  // A list page reads at most 4 × 10 posts (2 × 10 at a time) and the token after its last; a post page its
  // first 50 comments (index entries, then documents) beside the post.
  for (const [kind, [small, large]] of Object.entries(reads)) {
    if (kind === 'sitemap') continue; // a sitemap lists every post up to 2,000: its page is the whole list
    expect(large, `${kind}: ${small} records at 150 posts, ${large} at 900`).toBeLessThanOrEqual(120);
  }
  // A page read again before any write is sent as it was rendered: nothing is read.
  driver.reset();
  await (await site(new Request('https://big.example/')))!.text();
  expect(driver.handedOut).toBe(0);
  await service.posts.insert({ blogId: blog.id, body: { title: 'Newest of all' } });
  expect(await (await site(new Request('https://big.example/')))!.text()).toContain('Newest of all');
  await service.close();
}, 60_000);
