/**
 * Searches keep segment bodies in memory (drivers/idb/segments.ts): a repeated search reads them once. Their
 * answers still follow every write — segments merged away, posts edited and deleted, writes of another
 * connection on the same database (another tab) — as the memory driver's answers to the same calls show.
 */
import 'fake-indexeddb/auto';
import { IDBFactory } from 'fake-indexeddb';
import { expect, it } from 'vitest';
import { idbDriver } from '../../../drivers/idb/index.js';
import { memoryDriver } from '../../../drivers/memory/index.js';
import { createBlogService, type BlogService } from '../../../src/index.js';

it('a search answers after merges, edits, deletes and another tab’s writes as it did before it kept anything', async () => {
  const factory = new IDBFactory();
  const open = () => createBlogService({ driver: idbDriver({ name: 'memo', indexedDB: factory }) });
  const tab = open();
  const services: BlogService[] = [tab, createBlogService({ driver: memoryDriver() })];
  const blogs: string[] = [];
  for (const s of services) {
    const owner = await s.users.insert({ body: { displayName: 'Owner' } });
    blogs.push((await s.blogs.insert({ body: { name: 'B', url: 'https://memo.example/' }, ownerId: owner.id! })).id!);
  }
  const ids: string[][] = [[], []];
  const insert = async (i: number, words: string) => {
    for (const [n, s] of services.entries()) {
      const published = new Date(Date.UTC(2026, 0, 1, 0, i)).toISOString();
      ids[n]!.push(
        (
          await s.posts.insert({
            blogId: blogs[n]!,
            body: { title: `Post ${i}`, content: `<p>${words}</p>`, published },
          })
        ).id!,
      );
    }
  };
  const search = async () =>
    Promise.all(
      services.map(
        async (s, n) =>
          (await s.posts.search({ blogId: blogs[n]!, q: 'alpha beta', maxResults: 5 })).items?.map((p) => p.title) ??
          [],
      ),
    );
  // One post at a time: eight single-post segments merge into one as the ninth arrives.
  for (let i = 0; i < 7; i++) await insert(i, i % 2 ? 'alpha beta' : 'alpha');
  let [ours, theirs] = await search();
  expect(ours).toEqual(theirs);
  expect(ours!.length).toBeGreaterThan(0);
  for (let i = 7; i < 20; i++) await insert(i, i % 3 ? 'beta alpha' : 'gamma');
  [ours, theirs] = await search();
  expect(ours).toEqual(theirs);
  // Edits (older versions left in the segments) and deletes.
  for (const [n, s] of services.entries()) {
    await s.posts.patch({ blogId: blogs[n]!, postId: ids[n]![19]!, body: { content: '<p>gamma</p>' } });
    await s.posts.patch({ blogId: blogs[n]!, postId: ids[n]![2]!, body: { content: '<p>alpha beta</p>' } });
    await s.posts.delete({ blogId: blogs[n]!, postId: ids[n]![17]! });
  }
  [ours, theirs] = await search();
  expect(ours).toEqual(theirs);
  // Another tab on the same database writes; this tab's next search sees it.
  const other = open();
  await other.posts.insert({
    blogId: blogs[0]!,
    body: { title: 'Post 99', content: '<p>alpha beta</p>', published: '2026-02-01T00:00:00.000Z' },
  });
  await services[1]!.posts.insert({
    blogId: blogs[1]!,
    body: { title: 'Post 99', content: '<p>alpha beta</p>', published: '2026-02-01T00:00:00.000Z' },
  });
  [ours, theirs] = await search();
  expect(ours).toEqual(theirs);
  expect(ours![0]).toBe('Post 99');
  await other.close();
  for (const s of services) await s.close();
});
