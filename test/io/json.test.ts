import { describe, expect, it } from 'vitest';
import { sqliteDriver } from '../../drivers/sqlite/index.js';
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
    const target = createBlogService({ driver: sqliteDriver({ filename: ':memory:' }), now: c.now, apiBaseUrl: 'https://api.example.test' });
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

  it('needs the host service: a scoped one is refused', async () => {
    const c = clock();
    const service = memoryService(c.now);
    const { blogId, ownerId } = await sampleBlog(service, c);
    await expect(importBlog(service.as({ userId: ownerId }), '{}')).rejects.toMatchObject({ code: 403 });
    expect(() => exportBlog(service.as(null), blogId, { format: 'wxr' })).toThrow(/host service/);
  });
});
