import { describe, expect, it } from 'vitest';
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
    expect(report).toMatchObject({ blogId, format: 'blogcore-json', created: { posts: 7, pages: 3, comments: 5, users: 2 }, unchanged: { posts: 0, pages: 0, comments: 0 }, skipped: [], redirects: [] });
    expect(await snapshot(target, blogId)).toEqual(await snapshot(source, blogId));
    // The same file again changes nothing.
    const again = await importBlog(target, text);
    expect(again).toMatchObject({ blogId, created: { posts: 0, pages: 0, comments: 0, users: 0 }, unchanged: { posts: 7, pages: 3, comments: 5 }, skipped: [] });
    expect(await snapshot(target, blogId)).toEqual(await snapshot(source, blogId));
  });
});
