/** The bench's 1M loader stores what `posts.insert` stores: the same records, index entries and label counts. */
import { describe, expect, it } from 'vitest';
import { memoryDriver } from '../../drivers/memory/index.js';
import { createBlogService, type BlogService } from '../../src/index.js';
import { generator } from '../drivers/sqlite/bench-data.js';
import { bulkLoad } from './bulk-load.js';

const N = 60;
const gen = generator(7, 1);

async function snapshot(service: BlogService, blogId: string) {
  const posts = [];
  for (const status of ['LIVE', 'DRAFT'] as const) {
    const page = await service.posts.list({ blogId, status: [status], maxResults: 500, view: 'ADMIN' });
    for (const p of page.items ?? [])
      posts.push({
        status: p.status,
        title: p.title,
        labels: p.labels,
        published: p.published,
        path: p.url?.replace(/^https:\/\/[^/]+/, ''),
        content: p.content,
      });
  }
  const labels = (await service.labels.list({ blogId, view: 'ADMIN' })).items?.map((l) => [
    l.name,
    l.livePosts,
    l.allPosts,
  ]);
  const found = (
    await service.posts.search({ blogId, q: `${gen.vocabulary[1]} ${gen.vocabulary[4]}`, maxResults: 500 })
  ).items?.map((p) => p.title);
  return { posts, labels, found };
}

describe('bench bulk loader', () => {
  it('stores the posts, paths, search tokens and label counts posts.insert stores', async () => {
    const viaService = createBlogService({ driver: memoryDriver() });
    const owner = await viaService.users.insert({ body: { displayName: 'Bench author' } });
    const blog = await viaService.blogs.insert({
      body: { name: 'Bench', url: 'https://a.example/' },
      ownerId: owner.id!,
    });
    for (let i = 0; i < N; i++) {
      const p = gen.post(i);
      await viaService.posts.insert({
        blogId: blog.id!,
        body: { title: p.title, content: p.content, labels: p.labels, published: p.published },
        isDraft: p.draft,
      });
    }
    const bulk = createBlogService({ driver: memoryDriver() });
    const loaded = await bulkLoad(bulk, gen, N, 7);
    expect(loaded.ids).toHaveLength(N);
    const expected = await snapshot(viaService, blog.id!);
    expect(expected.posts).toHaveLength(N);
    expect(expected.labels!.length).toBeGreaterThan(5);
    expect(expected.found!.length).toBeGreaterThan(0);
    expect(await snapshot(bulk, loaded.blogId)).toEqual(expected);
  });
});
