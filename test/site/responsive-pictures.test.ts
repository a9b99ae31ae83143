/**
 * The site's pictures for readers (docs/design.md §23), read with parse5 from a post page: each picture of the blog as
 * `<picture>` with AVIF and WebP sources, an `<img>` with srcset (w descriptors of the variants, then the original),
 * sizes, its intrinsic width and height, decoding="async", the first with fetchpriority="high" and the others lazy;
 * every url named answers 200 with a picture of the width it claims. A picture outside the blog is left alone.
 */
import { parse } from 'parse5';
import sharp from 'sharp';
import { expect, it } from 'vitest';
import { memoryDriver } from '../../drivers/memory/index.js';
import { createBlogService } from '../../src/index.js';
import { createHttpHandler } from '../../src/http/index.js';
import { createSite, exportSite, type SiteFiles, type SiteManifest } from '../../src/site/index.js';
import { atomFeed, rssFeed } from '../../src/io/index.js';
import { parseFeed } from '@rowanmanning/feed-parser';
import { attrs, walk } from './page-elements.js';

it('renders each picture of the blog as <picture> with sources, srcset, sizes, size and loading', async () => {
  const service = createBlogService({ driver: memoryDriver(), apiBaseUrl: 'https://blog.example' });
  await service.users.insert({ body: { id: 'ada', displayName: 'Ada' } });
  const blog = await service.blogs.insert({ body: { name: 'Harbour', url: 'https://blog.example/' }, ownerId: 'ada' });
  const photo = async (width: number, height: number, hue: number) =>
    new Uint8Array(
      await sharp({ create: { width, height, channels: 3, background: { r: hue, g: 120, b: 200 } } })
        .jpeg()
        .toBuffer(),
    );
  const big = await service.media.upload({ blogId: blog.id, body: await photo(2000, 1500, 10), filename: 'quay.jpg' });
  const small = await service.media.upload({ blogId: blog.id, body: await photo(500, 400, 90), filename: 'boat.jpg' });
  const post = await service.posts.insert({
    blogId: blog.id,
    body: {
      title: 'At the harbour',
      content: `<p><img src="${big.url}" alt="The quay"></p><p><img src="${small.url}" alt="A boat"></p><p><img src="https://elsewhere.example/x.jpg" alt="x"></p>`,
    },
  });
  const site = createSite(service);
  const api = createHttpHandler(service);
  const get = async (url: string) => (await site(new Request(url))) ?? api(new Request(url));
  const page = await (await get(post.url!)).text();
  const elements = walk(parse(page));
  const pictures = elements.filter((e) => e.tagName === 'picture');
  expect(pictures).toHaveLength(2);
  const imgs = elements.filter((e) => e.tagName === 'img').map(attrs);
  expect(imgs).toHaveLength(3);
  const [first, second, other] = imgs as [Record<string, string>, Record<string, string>, Record<string, string>];
  expect(first).toMatchObject({ width: '2000', height: '1500', decoding: 'async', fetchpriority: 'high' });
  expect(first.loading).toBeUndefined();
  expect(second).toMatchObject({ width: '500', height: '400', decoding: 'async', loading: 'lazy' });
  expect(other).toEqual({ src: 'https://elsewhere.example/x.jpg', alt: 'x' });
  expect(first.sizes).toBe('(max-width: 44rem) calc(100vw - 2rem), 42rem');
  // The quay at every width below its own, then itself; the boat (500 px) at 320 only.
  const widthsOf = (srcset: string) => srcset.split(', ').map((s) => Number(s.split(' ')[1]!.slice(0, -1)));
  expect(widthsOf(first.srcset!)).toEqual([320, 640, 960, 1280, 1920, 2000]);
  expect(widthsOf(second.srcset!)).toEqual([320, 500]);
  const sources = pictures.map((p) =>
    walk(p)
      .filter((e) => e.tagName === 'source')
      .map(attrs),
  );
  expect(sources[0]!.map((s) => s.type)).toEqual(['image/avif', 'image/webp']);
  // Every url named answers with a picture of the type and width it claims.
  for (const [type, srcset] of [
    ['jpeg', first.srcset!],
    ['heif', sources[0]![0]!.srcset!],
    ['webp', sources[0]![1]!.srcset!],
    ['jpeg', second.srcset!],
  ] as const)
    for (const candidate of srcset.split(', ')) {
      const [url, w] = candidate.split(' ') as [string, string];
      const r = await get(new URL(url, post.url).href);
      expect(r.status, url).toBe(200);
      const meta = await sharp(new Uint8Array(await r.arrayBuffer())).metadata();
      expect([meta.format, `${meta.width}w`], url).toEqual([type, w]);
    }
  // og:image: the featured (first) picture at 1280 px, its own type, with its size; the url serves exactly that.
  const meta = (name: string) =>
    elements.find((e) => e.tagName === 'meta' && attrs(e).property === name)?.attrs.find((a) => a.name === 'content')
      ?.value;
  const og = `https://blog.example/media/${blog.id}/${big.id}/w1280/quay.jpg`;
  expect([meta('og:image'), meta('og:image:width'), meta('og:image:height')]).toEqual([og, '1280', '960']);
  const ogMeta = await sharp(new Uint8Array(await (await get(og)).arrayBuffer())).metadata();
  expect([ogMeta.format, ogMeta.width, ogMeta.height]).toEqual(['jpeg', 1280, 960]);
  // The feeds: <media:thumbnail> of the featured picture at most 640 px, with its size, read by a feed parser.
  const thumb = `https://blog.example/media/${blog.id}/${big.id}/w640/quay.jpg`;
  for (const feed of [await atomFeed(service, { blogId: blog.id }), await rssFeed(service, { blogId: blog.id })]) {
    expect(parseFeed(feed).items[0]!.image?.url).toBe(thumb);
    expect(feed).toContain(`<media:thumbnail url="${thumb}" width="640" height="480"/>`);
  }
  // A picture marked featured (on its <figure>) is the one named; at 500 px it is the original, with its size.
  const marked = await service.posts.insert({
    blogId: blog.id,
    body: {
      title: 'The boat',
      content: `<p><img src="${big.url}" alt="The quay"></p><figure data-featured><img src="${small.url}" alt="A boat"><figcaption>Ours</figcaption></figure>`,
    },
  });
  const markedPage = walk(parse(await (await get(marked.url!)).text()));
  const ogOf = (name: string) =>
    markedPage.find((e) => e.tagName === 'meta' && attrs(e).property === name)?.attrs.find((a) => a.name === 'content')
      ?.value;
  expect([ogOf('og:image'), ogOf('og:image:width'), ogOf('og:image:height')]).toEqual([small.url, '500', '400']);
  const rss = parseFeed(await rssFeed(service, { blogId: blog.id }));
  expect(rss.items.map((i) => i.image?.url)).toEqual([small.url, thumb]);
  await service.close();
}, 300_000);

it('a static export writes every variant its pages name, once each, and not again on the next run', async () => {
  const service = createBlogService({ driver: memoryDriver(), apiBaseUrl: 'https://blog.example' });
  await service.users.insert({ body: { id: 'ada', displayName: 'Ada' } });
  const blog = await service.blogs.insert({ body: { name: 'Harbour', url: 'https://blog.example/' }, ownerId: 'ada' });
  const body = new Uint8Array(
    await sharp({ create: { width: 1000, height: 750, channels: 3, background: { r: 9, g: 99, b: 199 } } })
      .jpeg()
      .toBuffer(),
  );
  const m = await service.media.upload({ blogId: blog.id, body, filename: 'quay.jpg' });
  // The same picture in two posts: each file is written once.
  for (const title of ['One', 'Two'])
    await service.posts.insert({ blogId: blog.id, body: { title, content: `<p><img src="${m.url}" alt="q"></p>` } });
  const texts = new Map<string, string>();
  const bytes = new Map<string, Uint8Array>();
  const writes: string[] = [];
  const files: SiteFiles = {
    write: async (path, text) => void texts.set(path, text),
    remove: async (path) => void texts.delete(path),
    writeBytes: async (path, stream) => {
      writes.push(path);
      bytes.set(path, new Uint8Array(await new Response(stream).arrayBuffer()));
    },
  };
  const first = await exportSite(service, { blogId: blog.id, files });
  // Every url a page names (src, srcset, <source>, og:image) is a file written, of the size its name says.
  const named = new Set<string>();
  for (const [path, text] of texts)
    if (path.endsWith('.html'))
      for (const [url] of text.matchAll(/(?:https:\/\/blog\.example)?\/media\/[^"'\s,]+/g))
        named.add(decodeURIComponent(new URL(url, 'https://blog.example/').pathname.slice(1)));
  const variants = [320, 640, 960].flatMap((w) => ['jpg', 'webp', 'avif'].map((e) => `w${w}/quay.${e}`));
  expect([...named].sort()).toEqual([`quay.jpg`, ...variants].map((v) => `media/${blog.id}/${m.id}/${v}`).sort());
  expect(writes.sort()).toEqual([...named].sort());
  for (const path of named.values()) {
    const meta = await sharp(bytes.get(path)!).metadata();
    const w = /\/w(\d+)\//.exec(path)?.[1];
    expect(meta.width, path).toBe(w ? Number(w) : 1000);
  }
  // Another run after an edit writes the post again, none of the pictures.
  const one = (await service.posts.list({ blogId: blog.id })).items[0]!;
  await service.posts.patch({ blogId: blog.id, postId: one.id, body: { title: 'One, again' } });
  writes.length = 0;
  const second = await exportSite(service, { blogId: blog.id, files, previous: first.manifest as SiteManifest });
  expect(second.written.length).toBeGreaterThan(0);
  expect(writes).toEqual([]);
  await service.close();
}, 300_000);
