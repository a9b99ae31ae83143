/**
 * The site's kept pages cannot fill memory: query strings a page does not read do not make new copies of it,
 * and what is kept is bounded in bytes whatever the pages weigh. Memory is read as the bytes of ArrayBuffers
 * (where rendered pages live) after a full garbage collection.
 */
import { runInNewContext } from 'node:vm';
import { setFlagsFromString } from 'node:v8';
import { afterEach, expect, test } from 'vitest';
import { memoryDriver } from '../../drivers/memory/index.js';
import { type BlogService, createBlogService } from '../../src/index.js';
import { createSite, type SiteOptions } from '../../src/site/index.js';
import { internalsOf } from '../../src/service/internals.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const MB = 1024 * 1024;
const buffers = () => {
  gc();
  gc();
  return process.memoryUsage().arrayBuffers;
};

let service: BlogService;
afterEach(() => service?.close());

async function fresh(url: string) {
  service = createBlogService({ driver: memoryDriver() });
  await service.users.insert({ body: { id: 'ada', displayName: 'Ada' } });
  return service.blogs.insert({ body: { name: 'Blog', url }, ownerId: 'ada' });
}

async function bigPosts(n: number) {
  const blog = await fresh('https://big.example/');
  const words = `<p>${'A long day of writing, kept whole. '.repeat(28_000)}</p>`; // ~1 MB
  const urls: string[] = [];
  for (let i = 0; i < n; i++) {
    const post = await service.posts.insert({ blogId: blog.id, body: { title: `Big ${i}`, content: words } });
    urls.push(post.url!);
  }
  return urls;
}

async function read(options: SiteOptions, urls: string[]) {
  const site = createSite(service, options);
  for (const url of urls) {
    const r = await site(new Request(url));
    expect(r?.status).toBe(200);
    await r!.arrayBuffer();
  }
}

test('200 GETs of one 1 MB post, each with its own junk query string, keep one copy of the page', async () => {
  const [url] = await bigPosts(1);
  const before = buffers();
  await read(
    {},
    Array.from({ length: 200 }, (_, i) => `${url}?utm_source=x${i}&fbclid=${i}`),
  );
  const grown = buffers() - before;
  expect(grown).toBeLessThan(20 * MB);
});

test('pages that differ are kept up to the byte bound, not the page count', async () => {
  const urls = await bigPosts(24);
  const before = buffers();
  await read({ cacheBytes: 8 * MB }, urls);
  expect(buffers() - before).toBeLessThan(8 * MB + 6 * MB);
});

test('the parameters a page reads still make their own page', async () => {
  const blog = await fresh('https://small.example/');
  const post = await service.posts.insert({ blogId: blog.id, body: { title: 'Hello', content: '<p>Hi</p>' } });
  const site = createSite(service);
  // The comment form's time token is made for each answer (when the form was served): compared without it.
  const page = async (url: string) =>
    (await (await site(new Request(url)))!.text()).replace(/name="token" value="[^"]*"/, 'name="token"');
  const plain = await page(post.url!);
  const pending = await page(`${post.url!}?comment=pending`);
  expect(pending).not.toBe(plain);
  expect(await page(`${post.url!}?utm=1`)).toBe(plain);
  const atom = await (await site(new Request('https://small.example/feeds/posts/default')))!.text();
  const rss = await (await site(new Request('https://small.example/feeds/posts/default?alt=rss&x=1')))!.text();
  expect(atom).toContain('<feed');
  expect(rss).toContain('<rss');
});

test('sites made again and again do not accumulate: a site let go takes its pages and its listener with it', async () => {
  const [url] = await bigPosts(1);
  const { core } = internalsOf(service)!;
  const before = core.events.count();
  const arrays = buffers();
  for (let i = 0; i < 20; i++) await read({}, [url!]);
  expect(core.events.count()).toBeGreaterThan(before);
  // The listeners go once the sites are collected (a FinalizationRegistry's callbacks run after a collection).
  for (let i = 0; i < 50 && core.events.count() !== before; i++) {
    gc();
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  expect(core.events.count()).toBe(before);
  expect(buffers() - arrays).toBeLessThan(5 * MB); // twenty 1 MB pages were kept, none is held now
  // A site still held keeps its pages until a write.
  const site = createSite(service);
  const first = await (await site(new Request(url!)))!.text();
  gc();
  await new Promise((resolve) => setTimeout(resolve, 20));
  const post = (await service.posts.list({ blogId: (await service.blogs.listByUser({ userId: 'ada' })).items![0]!.id }))
    .items![0]!;
  await service.posts.patch({ blogId: post.blog!.id!, postId: post.id!, body: { title: 'Changed' } });
  const again = await (await site(new Request(url!)))!.text();
  expect(first).toContain('Big 0');
  expect(again).toContain('Changed');
});
