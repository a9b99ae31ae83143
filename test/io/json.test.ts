import { describe, expect, it } from 'vitest';
import { sqliteDriver } from '../../drivers/sqlite/index.js';
import { memoryDriver } from '../../drivers/memory/index.js';
import { createBlogService } from '../../src/index.js';
import { exportBlog, importBlog } from '../../src/io/index.js';
import { clock, collect, memoryService, sampleBlog, snapshot } from './helpers.js';

describe('blogcore-json', () => {
  it('export → import into an empty store answers every read the same', async () => {
    const c = clock();
    const source = memoryService(c.now);
    const { blogId } = await sampleBlog(source, c);
    const text = await collect(exportBlog(source, blogId, { format: 'blogcore-json' }));
    const target = memoryService(c.now);
    const report = await importBlog(target, text);
    expect(report).toMatchObject({
      blogId,
      format: 'blogcore-json',
      created: { posts: 7, pages: 3, comments: 5, users: 2, media: 0 },
      unchanged: { posts: 0, pages: 0, comments: 0, media: 0 },
      skipped: [],
      redirects: [],
    });
    expect(await snapshot(target, blogId)).toEqual(await snapshot(source, blogId));
    // The same file again changes nothing.
    const again = await importBlog(target, text);
    expect(again).toMatchObject({
      blogId,
      created: { posts: 0, pages: 0, comments: 0, users: 0, media: 0 },
      unchanged: { posts: 7, pages: 3, comments: 5, media: 0 },
      skipped: [],
    });
    expect(await snapshot(target, blogId)).toEqual(await snapshot(source, blogId));
  });

  it('restores into SQLite with the same reads, from a stream of bytes', async () => {
    const c = clock();
    const source = memoryService(c.now);
    const { blogId } = await sampleBlog(source, c);
    const target = createBlogService({
      driver: sqliteDriver({ filename: ':memory:' }),
      now: c.now,
      apiBaseUrl: 'https://api.example.test',
    });
    const bytes = new TextEncoder().encode(await collect(exportBlog(source, blogId, { format: 'blogcore-json' })));
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        // Chunks that split lines and multi-byte characters.
        for (let i = 0; i < bytes.length; i += 7) controller.enqueue(bytes.subarray(i, i + 7));
        controller.close();
      },
    });
    const progress: number[] = [];
    await importBlog(target, stream, { onProgress: (p) => progress.push(p.items) });
    expect(progress.at(-1)).toBe(15);
    expect(await snapshot(target, blogId)).toEqual(await snapshot(source, blogId));
    await target.close();
  });

  it('revisions stay behind, their count too: an imported post or page keeps up to the cap from its first edit', async () => {
    const c = clock();
    const keeping = () => createBlogService({ driver: memoryDriver(), now: c.now, revisionsKept: 2 });
    const source = keeping();
    await source.users.insert({ body: { id: 'u', displayName: 'U' } });
    const blogId = (await source.blogs.insert({ body: { name: 'B', url: 'https://b.example.test/' }, ownerId: 'u' }))
      .id!;
    const postId = (await source.posts.insert({ blogId, body: { title: 'P', content: 'v0' } })).id!;
    const pageId = (await source.pages.insert({ blogId, body: { title: 'G', content: 'v0' } })).id!;
    const edit = async (s: typeof source, n: number) => {
      for (let i = 1; i <= n; i++) {
        c.ms += 1000;
        await s.posts.patch({ blogId, postId, body: { content: `v${i}` } });
        await s.pages.patch({ blogId, pageId, body: { content: `v${i}` } });
      }
    };
    const kept = async (s: typeof source) => [
      (await s.posts.revisions.list({ blogId, postId })).items.length,
      (await s.pages.revisions.list({ blogId, pageId })).items.length,
    ];
    await edit(source, 3);
    expect(await kept(source)).toEqual([2, 2]);
    const text = await collect(exportBlog(source, blogId, { format: 'blogcore-json' }));
    expect(text).not.toContain('"revisions"');
    const target = keeping();
    await importBlog(target, text);
    expect(await kept(target)).toEqual([0, 0]);
    await edit(target, 1);
    expect(await kept(target)).toEqual([1, 1]);
    await edit(target, 3);
    expect(await kept(target)).toEqual([2, 2]);
  });

  it('needs the host service: a scoped one is refused', async () => {
    const c = clock();
    const service = memoryService(c.now);
    const { blogId, ownerId } = await sampleBlog(service, c);
    await expect(importBlog(service.as({ userId: ownerId }), '{}')).rejects.toMatchObject({ code: 403 });
    expect(() => exportBlog(service.as(null), blogId, { format: 'wxr' })).toThrow(/host service/);
  });

  it('validates imported records like any other input: unknown keys never stored, bad values skipped with the reason', async () => {
    const driver = memoryDriver();
    const service = createBlogService({ driver, now: clock().now });
    const blog = {
      id: 'b1',
      name: 'B',
      url: 'https://b.example.test/',
      ownerId: 'u1',
      description: '',
      locale: { language: 'en', country: '', variant: '' },
    };
    const evil = { EVIL: 1 }; // written out below as own keys, as a hostile file has them (a literal __proto__ would set the prototype)
    const at = '2026-01-01T00:00:00.000Z';
    const post = (id: string, more: object) => ({
      id,
      authorId: 'u1',
      title: 'T',
      content: 'c',
      updated: at,
      published: at,
      status: 'LIVE',
      labels: [],
      rev: 1,
      readerComments: 'ALLOW',
      ...more,
    });
    const lines = [
      { type: 'user', record: { id: 'u1', displayName: 'U', created: at, ...evil } },
      { type: 'member', record: { id: 'b1:u1', blogId: 'b1', userId: 'u1', role: 'ADMIN', ...evil } },
      { type: 'post', record: post('p1', evil) },
      {
        type: 'comment',
        record: {
          id: 'c1',
          postId: 'p1',
          status: 'LIVE',
          content: 'hi',
          published: at,
          updated: at,
          authorName: 'V',
          authorUrl: 'https://v.example/a\u0000b',
          ...evil,
        },
      },
      { type: 'post', record: post('p2', { titleLink: 'javascript:alert(1)' }) },
      { type: 'post', record: post('p3', { location: { name: 'x', ...evil } }) },
      { type: 'user', record: { id: 'u2', displayName: 'V', url: 'https://v.example/\u0000', created: at } },
    ];
    const text = `{"format":"blogcore-json","version":1,"blog":${JSON.stringify(blog)},"records":[\n${lines
      .map((l) =>
        JSON.stringify(l).replaceAll('"EVIL":1', '"__proto__":{"polluted":true},"constructor":"x","isAdmin":true'),
      )
      .join(',\n')}\n]}\n`;
    const report = await importBlog(service, text);
    expect(report.created).toMatchObject({ posts: 1, comments: 1, users: 1 });
    expect(report.skipped.map((s) => s.reason)).toEqual([
      expect.stringMatching(/titleLink: must be an absolute http\(s\) URL/),
      expect.stringMatching(/Unknown fields in body.location: __proto__, constructor, isAdmin/),
      expect.stringMatching(/url: must be an absolute http\(s\) URL/),
    ]);
    for (const [collection, id] of [
      ['users', 'u1'],
      ['members', 'b1:u1'],
      ['posts', 'p1'],
      ['comments', 'c1'],
    ] as const) {
      const stored = (await driver.get(collection, id))!.doc;
      expect(Object.keys(stored), `${collection}/${id}`).not.toEqual(expect.arrayContaining(['__proto__']));
      expect(JSON.stringify(stored), `${collection}/${id}`).not.toMatch(/__proto__|constructor|isAdmin|polluted/);
    }
    // An author url with a raw NUL is not stored as sent: the comment keeps its text, without the url.
    expect((await driver.get('comments', 'c1'))!.doc).not.toHaveProperty('authorUrl');
    expect(({} as { polluted?: unknown }).polluted).toBeUndefined();
  });
});
