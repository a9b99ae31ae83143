/**
 * A first pull reads none of its items locally (there should be none yet). Should some be there after all —
 * here the replica's own state was lost while its records stayed — that page's commit fails whole and the
 * page is applied again, reading what is there: every post ends up once, as the server has it.
 */
import { beforeEach, expect, it } from 'vitest';
import { internalsOf } from '../../src/service/internals.js';
import { closedAfterEach, localStore, replicaOf, serverFor } from './replicas.js';
import type { SyncServer } from './server.js';

let s: SyncServer;
const opened = closedAfterEach(() => s);

beforeEach(async () => {
  s = await serverFor('sqlite');
});

it.each(['memory', 'idb'] as const)('a first pull on %s that finds its posts already there stores each once', async (kind) => {
  const admin = s.as('admin');
  const ids: string[] = [];
  for (let i = 0; i < 6; i++) ids.push((await admin.posts.insert({ blogId: s.blogId, body: { title: `p${i}`, content: `<p>${i}</p>` } })).id!);
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
  expect(await again.replica.sync()).toMatchObject({ pulled: 6, pushed: 0, conflicts: 0 });
  const here = await again.local.posts.list({ blogId: s.blogId, view: 'ADMIN', maxResults: 50 });
  expect(here.items!.map((p) => p.id).sort()).toEqual([...ids].sort());
  expect(here.items!.find((p) => p.id === ids[2])?.title).toBe('changed meanwhile');
  expect(await again.replica.pending()).toEqual([]);
});
