/**
 * Pictures on the reading site: a post's pictures (blogcore media) are shown at the site's own address and
 * served there as the HTTP helper serves them (ETag, ranges, immutable caching); the static export writes them
 * beside the pages, once; a picture of another blog, or none, is the site's 404. On SQLite, a blog at the root
 * and one at a path.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqliteDriver } from '../../drivers/sqlite/index.js';
import { createBlogService, type BlogService, type Media } from '../../src/index.js';
import { toNodeHandler } from '../../src/http/index.js';
import { createSite, exportSite, type SiteFiles, type SiteManifest } from '../../src/site/index.js';
import { makePng } from '../media/pictures.js';

const dir = mkdtempSync(join(tmpdir(), 'blogcore-site-pictures-'));
let service: BlogService;
let site: ReturnType<typeof createSite>;

interface Blog {
  origin: string;
  base: string;
  blogId: string;
  picture: Media;
  bytes: Uint8Array;
  postUrl: string;
}
const blogs: Blog[] = [];

async function blogWithPicture(url: string, seed: number): Promise<Blog> {
  const owner = await service.users.insert({ body: { displayName: 'Ada' } });
  const blog = await service.blogs.insert({ body: { name: 'Pictures', url }, ownerId: owner.id });
  const as = service.as({ userId: owner.id });
  const bytes = makePng(4, 3, seed);
  const picture = await as.media.upload({ blogId: blog.id, body: bytes, filename: 'sea view.png', alt: 'The sea' });
  const post = await as.posts.insert({
    blogId: blog.id,
    body: {
      title: 'By the sea',
      content: `<p>Look:</p><img src="${picture.url}" alt="The sea"><a href="${picture.url}">full size</a><img srcset="${picture.url} 2x" alt="">`,
    },
  });
  const { origin, pathname } = new URL(url);
  return { origin, base: pathname, blogId: blog.id, picture, bytes, postUrl: post.url! };
}

beforeAll(async () => {
  service = createBlogService({
    driver: sqliteDriver({ filename: join(dir, 'blog.db') }),
    apiBaseUrl: 'https://api.example',
  });
  await service.ready();
  site = createSite(service);
  blogs.push(await blogWithPicture('https://sea.example/', 1), await blogWithPicture('https://example.org/notes/', 2));
});
afterAll(async () => {
  await service.close();
  rmSync(dir, { recursive: true, force: true });
});

const get = async (url: string, headers: Record<string, string> = {}, method = 'GET') => {
  const r = await site(new Request(url, { method, headers }));
  if (!r) throw new Error(`${url}: not the site's`);
  return r;
};
const sitePath = (b: Blog, m: Media = b.picture) => `${b.base}media/${b.blogId}/${m.id}/sea%20view.png`;

describe.each([0, 1])('a blog at %s', (i) => {
  it("shows the post's pictures at the site's own address, og:image absolute on the blog's host", async () => {
    const b = blogs[i]!;
    const html = await (await get(b.postUrl)).text();
    expect(html).not.toContain('https://api.example/media/');
    expect(html).toContain(
      `<img src="${sitePath(b)}" alt="The sea" width="4" height="3" decoding="async" fetchpriority="high">`,
    );
    expect(html).toContain(`<a href="${sitePath(b)}">full size</a>`);
    expect(html).toContain(`srcset="${sitePath(b)} 2x"`);
    expect(html).toContain(`<meta property="og:image" content="${b.origin}${sitePath(b)}">`);
  });

  it('serves the bytes there: type, ETag and 304, a range, immutable caching', async () => {
    const b = blogs[i]!;
    const url = b.origin + sitePath(b);
    const r = await get(url);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('image/png');
    expect(r.headers.get('cache-control')).toContain('immutable');
    expect(r.headers.get('x-content-type-options')).toBe('nosniff');
    expect(new Uint8Array(await r.arrayBuffer())).toEqual(b.bytes);
    const etag = r.headers.get('etag')!;
    expect((await get(url, { 'if-none-match': etag })).status).toBe(304);
    const part = await get(url, { range: 'bytes=0-7' });
    expect(part.status).toBe(206);
    expect(new Uint8Array(await part.arrayBuffer())).toEqual(b.bytes.slice(0, 8));
    expect((await get(url, {}, 'HEAD')).headers.get('content-length')).toBe(String(b.bytes.byteLength));
    const post = await get(url, { 'content-type': 'image/png' }, 'POST');
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
    expect(post.headers.get('x-content-type-options')).toBe('nosniff');
    const past = await get(url, { range: `bytes=${b.bytes.byteLength}-` });
    expect(past.status).toBe(416);
    expect(past.headers.get('x-content-type-options')).toBe('nosniff');
    expect((await get(url, { range: 'bytes=5-2' })).status).toBe(200);
  });

  it("answers the site's 404 for another blog's picture, an unknown one, or a broken path", async () => {
    const b = blogs[i]!;
    const other = blogs[1 - i]!;
    const notFound = await get(`${b.origin}${b.base}2001/01/no-such-post.html`);
    const missing = await notFound.text();
    for (const path of [
      `${b.base}media/${other.blogId}/${other.picture.id}/sea.png`,
      `${b.base}media/${b.blogId}/${other.picture.id}/sea.png`,
      `${b.base}media/${b.blogId}/${'0'.repeat(64)}/sea.png`,
      `${b.base}media/${b.blogId}/%E0%A4%A/sea.png`,
      `${b.base}media/${b.blogId}`,
    ]) {
      const r = await get(b.origin + path);
      expect(r.status, path).toBe(404);
      expect(r.headers.get('content-type')).toContain('text/html');
      expect(await r.text()).toBe(missing);
    }
  });
});

it('serves them over node:http too (toNodeHandler streams the bytes)', async () => {
  const b = blogs[0]!;
  const server = createServer(toNodeHandler(createSite(service, { blogId: b.blogId })));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const { port } = server.address() as AddressInfo;
    const r = await fetch(`http://127.0.0.1:${port}${sitePath(b)}`);
    expect(r.status).toBe(200);
    expect(new Uint8Array(await r.arrayBuffer())).toEqual(b.bytes);
  } finally {
    server.close();
  }
});

it('a static export writes the pictures beside the pages, once, and keeps stored urls when it cannot', async () => {
  const b = blogs[1]!;
  const texts = new Map<string, string>();
  const pictures = new Map<string, Uint8Array>();
  const files: SiteFiles = {
    write: async (path, text) => void texts.set(path, text),
    remove: async (path) => void texts.delete(path),
    writeBytes: async (path, bytes) => void pictures.set(path, new Uint8Array(await new Response(bytes).arrayBuffer())),
  };
  const first = await exportSite(service, { blogId: b.blogId, files });
  const file = `media/${b.blogId}/${b.picture.id}/sea view.png`;
  expect([...pictures.keys()]).toEqual([file]);
  expect(pictures.get(file)).toEqual(b.bytes);
  expect(first.written).toContain(file);
  const postFile = [...texts.keys()].find(
    (p) => p.startsWith('20') && p.endsWith('.html') && texts.get(p)!.includes('By the sea'),
  )!;
  expect(texts.get(postFile)).toContain(
    `<img src="${sitePath(b)}" alt="The sea" width="4" height="3" decoding="async" fetchpriority="high">`,
  );

  // An edit: the post is written again, the picture (same bytes under the same id) is not.
  const post = (await service.posts.list({ blogId: b.blogId })).items[0]!;
  await service.posts.patch({ blogId: b.blogId, postId: post.id, body: { title: 'By the sea, again' } });
  pictures.clear();
  const second = await exportSite(service, { blogId: b.blogId, files, previous: first.manifest as SiteManifest });
  expect(second.full).toBe(false);
  expect(second.written).toContain(postFile);
  expect(pictures.size).toBe(0);
  expect(second.manifest.files[file]).toBe(b.picture.id);
  expect(second.removed).not.toContain(file);

  // Without writeBytes, pages link the pictures where they are stored.
  const plain = new Map<string, string>();
  await exportSite(service, {
    blogId: b.blogId,
    files: { write: async (p, t) => void plain.set(p, t), remove: async () => {} },
  });
  expect(plain.get(postFile)).toContain(
    `<img src="${b.picture.url}" alt="The sea" width="4" height="3" decoding="async" fetchpriority="high">`,
  );
});
