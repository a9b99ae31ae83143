/**
 * Bounded work of the pull (docs/design.md §10): every page hands out at most a constant × (maxResults + 1) records,
 * however many changes other blogs have, and however long the snapshot is. Counted by a driver that counts
 * what it hands out, over a SQLite store.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { sqliteDriver } from '../../drivers/sqlite/index.js';
import { createBlogService, type BlogService, type ChangeList } from '../../src/index.js';
import { countingDriver, type CountingDriver } from '../support/counting-driver.js';

let counter: CountingDriver;
let service: BlogService;
let blogA: string;
let blogB: string;
let postA: string;

beforeAll(async () => {
  counter = countingDriver(sqliteDriver({ filename: ':memory:' }));
  service = createBlogService({ driver: counter });
  const owner = (await service.users.insert({ body: { displayName: 'Owner' } })).id!;
  blogA = (await service.blogs.insert({ body: { name: 'A', url: 'https://a.example/' }, ownerId: owner })).id!;
  blogB = (await service.blogs.insert({ body: { name: 'B', url: 'https://b.example/' }, ownerId: owner })).id!;
  for (let i = 0; i < 60; i++)
    postA = (await service.posts.insert({ blogId: blogA, body: { title: `a${i}`, content: 'a' } })).id!;
  for (let i = 0; i < 30; i++)
    await service.comments.insert({ blogId: blogA, postId: postA, body: { content: `c${i}` } });
}, 60_000);
afterAll(async () => {
  await service.close();
});

/** Follows a pull page by page, checking each page's count; answers the items and the checkpoint. */
async function pull(since: string | undefined, maxResults: number) {
  let pageToken: string | undefined;
  const items: ChangeList['items'] = [];
  let checkpoint = '';
  let pages = 0;
  do {
    counter.reset();
    const page = await service
      .as(null)
      .changes.list({ blogId: blogA, maxResults, ...(since ? { since } : {}), ...(pageToken ? { pageToken } : {}) });
    expect(counter.handedOut, `page ${pages}`).toBeLessThanOrEqual(4 * (maxResults + 1));
    items.push(...page.items);
    checkpoint = page.checkpoint;
    pageToken = page.nextPageToken;
    pages++;
  } while (pageToken);
  return { items, checkpoint, pages };
}

it('a snapshot page reads a bounded number of records', async () => {
  const { items, pages } = await pull(undefined, 10);
  expect(items).toHaveLength(90);
  expect(pages).toBeGreaterThanOrEqual(9);
});

it("a change page never walks other blogs' changes", async () => {
  const { checkpoint } = await pull(undefined, 10);
  // Many changes in another blog, a few in this one.
  for (let i = 0; i < 300; i++) await service.posts.insert({ blogId: blogB, body: { title: `b${i}`, content: 'b' } });
  for (let i = 0; i < 25; i++)
    await service.posts.patch({ blogId: blogA, postId: postA, body: { title: `edit ${i}` } });
  const { items } = await pull(checkpoint, 5);
  expect(items.map((i) => i.id)).toContain(postA);
  expect(items.every((i) => i.kind === 'blogger#post' && i.id === postA)).toBe(true);
});
