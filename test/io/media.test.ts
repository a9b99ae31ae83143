/**
 * Moving a blog with its pictures (docs/design.md §19): `importBlog(…, { media: true })` downloads them from a local
 * HTTP server (one that serves, one that stalls, one that 404s, one that redirects to 127.0.0.1), stores them,
 * rewrites the content, lists failures in `skipped`, and on a re-run fetches only what is missing;
 * `blogcore-json` with `media: true` carries the bytes into an empty store; WXR lists attachments.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportBlog, importBlog, type ImportProgress } from '../../src/io/index.js';
import { pictureUrl } from '../../src/io/media.js';
import { sqliteDriver } from '../../drivers/sqlite/index.js';
import { createBlogService } from '../../src/index.js';
import { bytesOf } from '../blobs/suite.js';
import { makePng, PICTURES, sha256Hex } from '../media/pictures.js';
import { collect, memoryService } from './helpers.js';

let server: Server;
let port: number;
const hits = new Map<string, number>();

beforeAll(async () => {
  server = createServer((req, res) => {
    const path = req.url!;
    hits.set(path, (hits.get(path) ?? 0) + 1);
    if (path === '/a.png') return res.writeHead(200, { 'content-type': 'image/png' }).end(makePng(20, 20, 1));
    if (path === '/b.jpg') return res.writeHead(200, { 'content-type': 'image/jpeg' }).end(PICTURES.jpg);
    if (path === '/attached.gif')
      return res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(PICTURES.gif);
    if (path === '/stall.png')
      return res.writeHead(200, { 'content-type': 'image/png' }).write(PICTURES.png.subarray(0, 20)); // and nothing more
    if (path === '/drip.png') {
      // A byte every 50 ms: each pause is short, the whole never ends.
      res.writeHead(200, { 'content-type': 'image/png' });
      const timer = setInterval(() => res.write(PICTURES.png.subarray(0, 1)), 50);
      res.once('close', () => clearInterval(timer));
      return;
    }
    if (path === '/redirect.png') return res.writeHead(302, { location: `http://127.0.0.1:${port}/a.png` }).end();
    if (path === '/page.html')
      return res.writeHead(200, { 'content-type': 'text/html' }).end('<html>not a picture</html>');
    res.writeHead(404).end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => {
  server.closeAllConnections();
  server.close();
});

const at = (path: string) => `http://localhost:${port}${path}`;

function wxr(): string {
  const item = (id: number, content: string, type = 'post', extra = '') =>
    `<item><title>Item ${id}</title><link>http://old.example/${id}/</link><dc:creator>ann</dc:creator>` +
    `<content:encoded><![CDATA[${content}]]></content:encoded><wp:post_id>${id}</wp:post_id>` +
    `<wp:post_date_gmt>2024-01-0${id} 10:00:00</wp:post_date_gmt><wp:status>${type === 'attachment' ? 'inherit' : 'publish'}</wp:status><wp:post_type>${type}</wp:post_type>${extra}</item>`;
  return (
    '<?xml version="1.0"?><rss version="2.0" xmlns:wp="http://wordpress.org/export/1.2/" xmlns:dc="http://purl.org/dc/elements/1.1/" ' +
    'xmlns:content="http://purl.org/rss/1.0/modules/content/"><channel><title>Pictures</title><link>http://old.example</link>' +
    '<wp:base_blog_url>http://old.example</wp:base_blog_url><wp:author><wp:author_login>ann</wp:author_login><wp:author_display_name>Ann</wp:author_display_name></wp:author>' +
    item(1, `<p><img src="${at('/a.png')}" alt="a"> and <img src='${at('/b.jpg')}'></p>`) +
    item(
      2,
      `<img src="${at('/stall.png')}"><img src="${at('/missing.png')}"><img src="${at('/redirect.png')}"><img src="${at('/page.html')}">`,
    ) +
    item(3, `<p>Again: <img src="${at('/a.png')}"></p>`, 'page') +
    item(4, '', 'attachment', `<wp:attachment_url>${at('/attached.gif')}</wp:attachment_url>`) +
    '</channel></rss>'
  );
}

describe('importBlog with media: true', () => {
  it('downloads the pictures, rewrites the content, skips what fails with the reason, and a re-run fetches only what is missing', async () => {
    const service = memoryService();
    const progress: ImportProgress[] = [];
    const options = {
      media: true,
      allowPrivateHosts: ['localhost'],
      mediaTimeoutMs: 300,
      onProgress: (p: ImportProgress) => progress.push(p),
    };
    const report = await importBlog(service, wxr(), options);
    expect(report.created.media).toBe(3);
    expect(progress.at(-1)!.media).toBe(3);
    const reasons = Object.fromEntries(
      report.skipped
        .filter((s) => s.source.startsWith('picture'))
        .map((s) => [new URL(s.source.split(' ')[1]!).pathname, s.reason]),
    );
    expect(Object.keys(reasons).sort()).toEqual(['/missing.png', '/page.html', '/redirect.png', '/stall.png']);
    expect(reasons['/missing.png']).toMatch(/HTTP 404/);
    expect(reasons['/redirect.png']).toMatch(/127\.0\.0\.1.*private/);
    expect(reasons['/stall.png']).toMatch(/localhost sent nothing for 0\.[3-9] s/);
    expect(reasons['/page.html']).toMatch(/not a JPEG, PNG/);
    expect(hits.get('/a.png')).toBe(1); // used twice, fetched once (the redirect to it was never followed)

    const blogId = report.blogId;
    const media = (await service.media.list({ blogId })).items;
    expect(media.map((m) => m.filename).sort()).toEqual(['a.png', 'attached.gif', 'b.jpg']);
    const byName = Object.fromEntries(media.map((m) => [m.filename, m]));
    const posts = (await service.posts.list({ blogId })).items!;
    const first = posts.find((p) => p.title === 'Item 1')!;
    expect(first.content).toBe(
      `<p><img src="${byName['a.png']!.url}" alt="a"> and <img src="${byName['b.jpg']!.url}"></p>`,
    );
    const second = posts.find((p) => p.title === 'Item 2')!;
    expect(second.content).toContain(at('/stall.png'));
    const page = (await service.pages.list({ blogId })).items![0]!;
    expect(page.content).toBe(`<p>Again: <img src="${byName['a.png']!.url}"></p>`);
    expect((await service.media.list({ blogId, postId: first.id! })).items.map((m) => m.filename)).toEqual([
      'a.png',
      'b.jpg',
    ]);
    expect(await bytesOf((await service.media.read({ blogId, mediaId: byName['b.jpg']!.id })).body)).toEqual(
      PICTURES.jpg,
    );

    const again = await importBlog(service, wxr(), options);
    expect(again.created.media).toBe(0);
    expect(again.unchanged.media).toBe(1); // the attachment, found by its url
    expect(hits.get('/a.png')).toBe(1);
    expect(hits.get('/b.jpg')).toBe(1);
    expect(hits.get('/attached.gif')).toBe(1);
    expect(hits.get('/missing.png')).toBe(2); // what failed is tried again
  });

  it('says why a download failed in words a user can act on, a timeout only when one happened, and cuts a drip', async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const closedPort = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    const urls = {
      drip: at('/drip.png'),
      unresolvable: 'http://blogcore-test.invalid/x.png',
      refused: `http://127.0.0.1:${closedPort}/x.png`,
    };
    const file = wxr().replace(
      /<item>.*<\/item>/s,
      `<item><title>Item 1</title><link>http://old.example/1/</link><dc:creator>ann</dc:creator><content:encoded><![CDATA[${Object.values(
        urls,
      )
        .map((u) => `<img src="${u}">`)
        .join(
          '',
        )}]]></content:encoded><wp:post_id>1</wp:post_id><wp:post_date_gmt>2024-01-01 10:00:00</wp:post_date_gmt><wp:status>publish</wp:status><wp:post_type>post</wp:post_type></item>`,
    );
    const started = Date.now();
    const report = await importBlog(memoryService(), file, {
      media: true,
      allowPrivateHosts: ['localhost', '127.0.0.1'],
      mediaTimeoutMs: 5_000,
      mediaDeadlineMs: 1_000,
    });
    const reason = (url: string) => report.skipped.find((s) => s.source.includes(url))?.reason;
    // Each pause of the drip is far below mediaTimeoutMs: the deadline of the whole download cuts it.
    expect(reason(urls.drip)).toMatch(/localhost did not finish in 1(\.\d)? s \(the limit of a download\)/);
    expect(reason(urls.unresolvable)).toMatch(/could not resolve blogcore-test\.invalid: no network, or no such host/);
    expect(reason(urls.refused)).toMatch(/127\.0\.0\.1 refused the connection \(ECONNREFUSED\)/);
    // No timeout is reported for what failed at once.
    for (const url of [urls.unresolvable, urls.refused])
      expect(reason(url)).not.toMatch(/no answer|sent nothing|in \d/);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('never reaches a private address unless allowed: nothing is requested', async () => {
    const service = memoryService();
    const before = hits.get('/b.jpg') ?? 0;
    const report = await importBlog(service, wxr().replace(/Pictures/, 'Private'), {
      media: true,
      blogUrl: 'http://private.example/',
      mediaTimeoutMs: 300,
    });
    expect(report.created.media).toBe(0);
    expect(report.skipped.filter((s) => /private, loopback or link-local/.test(s.reason))).toHaveLength(7);
    expect(hits.get('/b.jpg') ?? 0).toBe(before);
  });

  it('fetches Blogger-hosted pictures at full size', () => {
    expect(pictureUrl('https://blogger.googleusercontent.com/img/b/R29vZ2xl/AVvXsEh/s640/photo.jpg')).toBe(
      'https://blogger.googleusercontent.com/img/b/R29vZ2xl/AVvXsEh/s0/photo.jpg',
    );
    expect(pictureUrl('http://1.bp.blogspot.com/-abc/XYZ/AAAAAAAAA/def/w400-h300-c/photo.png')).toBe(
      'http://1.bp.blogspot.com/-abc/XYZ/AAAAAAAAA/def/s0/photo.png',
    );
    expect(pictureUrl('https://lh3.googleusercontent.com/abcDEF=w640-h480-rw')).toBe(
      'https://lh3.googleusercontent.com/abcDEF=s0',
    );
    expect(pictureUrl('//2.bp.blogspot.com/-x/Y/Z/w/s1600/a.gif')).toBe('https://2.bp.blogspot.com/-x/Y/Z/w/s0/a.gif');
    // Other hosts are fetched as they are.
    expect(pictureUrl('https://example.com/s640/photo.jpg?a=1&amp;b=2')).toBe(
      'https://example.com/s640/photo.jpg?a=1&b=2',
    );
    expect(pictureUrl('data:image/png;base64,AAAA')).toBeUndefined();
  });
});

describe('exports with pictures', () => {
  it('blogcore-json with media: true restores every picture into an empty store (another driver)', async () => {
    const service = memoryService();
    const owner = await service.users.insert({ body: { id: 'owner', displayName: 'Owner' } });
    const blog = await service.blogs.insert({
      body: { name: 'Moving', url: 'https://moving.example/' },
      ownerId: owner.id,
    });
    const large = makePng(300, 300, 9); // several lines of bytes
    const m1 = await service.media.upload({ blogId: blog.id, body: large, filename: 'large.png', alt: 'Large' });
    const m2 = await service.media.upload({ blogId: blog.id, body: PICTURES.avif, filename: 'small.avif' });
    await service.posts.insert({
      blogId: blog.id,
      body: { title: 'With both', content: `<img src="${m1.url}"><img src="${m2.url}">` },
    });
    const text = await collect(exportBlog(service, blog.id, { format: 'blogcore-json', media: true }));
    expect(Math.max(...text.split('\n').map((l) => l.length))).toBeLessThan(300 * 1024);
    expect(await collect(exportBlog(service, blog.id, { format: 'blogcore-json' }))).not.toContain('"type":"media"');

    const target = createBlogService({
      driver: sqliteDriver({ filename: ':memory:' }),
      apiBaseUrl: 'https://api.example.test',
    });
    const report = await importBlog(target, text);
    expect(report.created.media).toBe(2);
    const restored = await target.media.get({ blogId: blog.id, mediaId: m1.id });
    expect(restored).toEqual(m1);
    expect(await bytesOf((await target.media.read({ blogId: blog.id, mediaId: m1.id })).body)).toEqual(large);
    expect(await sha256Hex((await bytesOf((await target.media.read({ blogId: blog.id, mediaId: m2.id })).body))!)).toBe(
      m2.id,
    );
    const post = (await target.posts.list({ blogId: blog.id })).items![0]!;
    expect((await target.media.list({ blogId: blog.id, postId: post.id! })).items.map((m) => m.id)).toEqual([
      m1.id,
      m2.id,
    ]);
    // Again: nothing new, the bytes not read twice.
    expect((await importBlog(target, text)).unchanged.media).toBe(2);
    // A picture whose bytes were changed in the file is refused, the rest comes.
    const tampered = text.replace(/"data":"iVBORw0KGgo/, '"data":"iVBORw0KGgp');
    const other = createBlogService({ driver: sqliteDriver({ filename: ':memory:' }) });
    const partial = await importBlog(other, tampered);
    expect(partial.created.media).toBe(1);
    expect(partial.skipped.map((s) => s.source)).toEqual([`media ${blog.id}:${m1.id}`]);
    await target.close();
    await other.close();
  });

  it('WXR lists the pictures as attachments', async () => {
    const service = memoryService();
    const owner = await service.users.insert({ body: { id: 'owner', displayName: 'Owner' } });
    const blog = await service.blogs.insert({ body: { name: 'W', url: 'https://w.example/' }, ownerId: owner.id });
    const m = await service.media.upload({
      blogId: blog.id,
      body: PICTURES.webp,
      filename: 'pic.webp',
      alt: 'A picture',
    });
    const text = await collect(exportBlog(service, blog.id, { format: 'wxr' }));
    expect(text).toContain('<wp:post_type>attachment</wp:post_type>');
    expect(text).toContain(`<wp:attachment_url>${m.url}</wp:attachment_url>`);
    expect(text).toContain('<wp:post_mime_type>image/webp</wp:post_mime_type>');
    expect(text).toContain('<wp:meta_value><![CDATA[A picture]]></wp:meta_value>');
  });
});
