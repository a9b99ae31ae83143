/**
 * Two tabs of one app on one IndexedDB store (fake-indexeddb), each with its local service and its replica,
 * as the browser editor runs them: one syncs, the other shows what waits and what conflicts, and may
 * resolve a conflict. Neither overwrites what the other stored in the replica's state.
 */
import { beforeEach, expect, it } from 'vitest';
import { closedAfterEach, localStore, replicaOf, serverFor } from './replicas.js';
import type { SyncServer } from './server.js';

let s: SyncServer;
const opened = closedAfterEach(() => s);

beforeEach(async () => {
  s = await serverFor('sqlite');
});

it('the tab that does not sync lists what waits and the conflicts the other found, and resolves one', async () => {
  const post = await s.as('admin').posts.insert({ blogId: s.blogId, body: { title: 'Shared', content: '<p>v1</p>' } });
  const store = localStore('idb');
  const a = replicaOf(s, 'admin', store.open());
  const b = replicaOf(s, 'admin', store.open());
  opened.push(a, b);
  await a.replica.sync();

  // Both tabs write; each lists both writes; the syncing tab sends them, and then neither lists anything.
  const made = await a.local.posts.insert({
    blogId: s.blogId,
    body: { title: 'From tab A', content: 'a' },
    isDraft: true,
  });
  await b.local.posts.patch({ blogId: s.blogId, postId: post.id!, body: { title: 'Edited in tab B' } });
  const waiting = [
    { kind: 'post', id: made.id, action: 'create', title: 'From tab A' },
    { kind: 'post', id: post.id, action: 'update', title: 'Edited in tab B' },
  ];
  const sorted = (list: readonly object[]) =>
    [...list].sort((x, y) => JSON.stringify(x).localeCompare(JSON.stringify(y)));
  expect(sorted(await b.replica.pending())).toEqual(sorted(waiting));
  expect(sorted(await a.replica.pending())).toEqual(sorted(waiting));
  expect(await a.replica.sync()).toMatchObject({ pushed: 2, conflicts: 0 });
  expect(await b.replica.pending()).toEqual([]);
  expect(await a.replica.pending()).toEqual([]);

  // A conflict the syncing tab meets is listed in the other, which resolves it; the syncing tab sends the choice.
  await s.as('admin').posts.patch({ blogId: s.blogId, postId: post.id!, body: { content: '<p>server</p>' } });
  await b.local.posts.patch({ blogId: s.blogId, postId: post.id!, body: { content: '<p>tab B</p>' } });
  expect(await b.replica.pending()).toHaveLength(1);
  expect(await a.replica.sync()).toMatchObject({ conflicts: 1 });
  expect((await b.replica.conflicts()).map((c) => [c.id, c.mine?.content, c.theirs?.content])).toEqual([
    [post.id, '<p>tab B</p>', '<p>server</p>'],
  ]);
  await b.replica.resolve(post.id!, 'mine');
  expect(await a.replica.conflicts()).toEqual([]);
  expect(await a.replica.sync()).toMatchObject({ pushed: 1, conflicts: 0 });
  expect((await s.service.posts.get({ blogId: s.blogId, postId: post.id! })).content).toBe('<p>tab B</p>');
  expect(await b.replica.pending()).toEqual([]);
  expect(await a.replica.sync()).toMatchObject({ pushed: 0, conflicts: 0 });

  // At the same time: the syncing tab's commits and the other tab's looks at what waits never fail each other.
  for (let i = 0; i < 5; i++) {
    await b.local.posts.patch({ blogId: s.blogId, postId: post.id!, body: { title: `Round ${i}` } });
    await Promise.all([a.replica.sync(), b.replica.pending(), b.replica.conflicts(), b.replica.pending()]);
  }
  await a.replica.sync();
  expect((await s.service.posts.get({ blogId: s.blogId, postId: post.id! })).title).toBe('Round 4');
  expect(await b.replica.pending()).toEqual([]);
});
