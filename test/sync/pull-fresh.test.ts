/**
 * A first pull reads none of its items locally (there should be none yet). Should some be there after all —
 * here the replica's own state was lost while its records stayed — that page's commit fails whole and the
 * page is applied again, reading what is there: every post ends up once, as the server has it. The look at
 * what waits that follows skips the pulled pages' commits without reading their bases.
 */
import { beforeEach, expect, it } from 'vitest';
import { memoryDriver } from '../../drivers/memory/index.js';
import { createBlogService } from '../../src/index.js';
import { internalsOf } from '../../src/service/internals.js';
import { closedAfterEach, localStore, replicaOf, serverFor } from './replicas.js';
import type { SyncServer } from './server.js';

let s: SyncServer;
const opened = closedAfterEach(() => s);

beforeEach(async () => {
  s = await serverFor('sqlite');
});

// 6 posts: two pages, the second the last; 14: four, each sent while the one before is still being written.
it.each([
  ['memory', 6],
  ['idb', 6],
  ['idb', 14],
] as const)('a first pull on %s that finds its %i posts already there stores each once', async (kind, count) => {
  const admin = s.as('admin');
  const ids: string[] = [];
  for (let i = 0; i < count; i++)
    ids.push((await admin.posts.insert({ blogId: s.blogId, body: { title: `p${i}`, content: `<p>${i}</p>` } })).id!);
  const store = localStore(kind);
  const first = replicaOf(s, 'admin', store.open(), undefined, { maxResults: 4 });
  opened.push(first);
  await first.replica.sync();
  await first.replica.close();
  // The replica's state goes; its records stay. A new replica pulls from the start, as a first pull.
  const { driver } = internalsOf(first.local)!.core;
  const state = await driver.get('settings', `sync:${s.blogId}`);
  await driver.commit([{ type: 'delete', collection: 'settings', id: `sync:${s.blogId}`, expect: state!.version }]);
  await admin.posts.patch({ blogId: s.blogId, postId: ids[2]!, body: { title: 'changed meanwhile' } });
  const again = replicaOf(s, 'admin', first.local, undefined, { maxResults: 4 });
  opened.push(again);
  expect(await again.replica.sync()).toMatchObject({ pulled: count, pushed: 0, conflicts: 0 });
  const here = await again.local.posts.list({ blogId: s.blogId, view: 'ADMIN', maxResults: 50 });
  expect(here.items!.map((p) => p.id).sort()).toEqual([...ids].sort());
  expect(here.items!.find((p) => p.id === ids[2])?.title).toBe('changed meanwhile');
  expect(await again.replica.pending()).toEqual([]);
});

it('the look at what waits after a pull reads no base of a pulled post, and still finds a local edit', async () => {
  const admin = s.as('admin');
  const ids: string[] = [];
  for (let i = 0; i < 6; i++)
    ids.push((await admin.posts.insert({ blogId: s.blogId, body: { title: `p${i}`, content: `<p>${i}</p>` } })).id!);
  // The local store, counting the bases of synced records it hands out.
  const inner = memoryDriver();
  let basesRead = 0;
  const driver = new Proxy(inner, {
    get: (target, prop) =>
      prop === 'getMany'
        ? (collection: string, wanted: readonly string[]) => {
            if (collection === 'settings')
              basesRead += wanted.filter((id) => id.startsWith(`sync:${s.blogId}:`)).length;
            return target.getMany(collection as never, wanted);
          }
        : Reflect.get(target, prop),
  });
  const r = replicaOf(s, 'admin', createBlogService({ driver }), undefined, { maxResults: 4 });
  opened.push(r);
  expect(await r.replica.sync()).toMatchObject({ pulled: 6, pushed: 0 });
  expect(basesRead).toBe(0);
  // A local edit after the pull, and one more server page: the edit is found and sent, the pulled one is not.
  await r.local.posts.patch({ blogId: s.blogId, postId: ids[1]!, body: { title: 'edited here' } });
  await admin.posts.patch({ blogId: s.blogId, postId: ids[4]!, body: { title: 'edited there' } });
  expect(await r.replica.sync()).toMatchObject({ pulled: 1, pushed: 1, conflicts: 0 });
  expect((await admin.posts.get({ blogId: s.blogId, postId: ids[1]! })).title).toBe('edited here');
  expect(await r.replica.pending()).toEqual([]);
});
