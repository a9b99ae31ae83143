/**
 * `live()`: while online, a server write reaches the replica through the long poll, a local write reaches
 * the server without a call to sync(); after the stop function nothing more is sent. Pages made offline by an
 * admin go up like posts.
 */
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import type { SyncResult } from '../../src/sync/index.js';
import { makePng } from '../media/pictures.js';
import { localStore, replicaOf, type TestReplica } from './replicas.js';
import { startSyncServer, type SyncServer } from './server.js';

let s: SyncServer;
let r: TestReplica;
const rounds: SyncResult[] = [];
beforeEach(async () => {
  s = await startSyncServer();
  r = replicaOf(s, 'admin', localStore('memory').open(), undefined, { wait: 10, onSync: (x) => rounds.push(x) });
});
afterEach(async () => {
  await r.replica.close();
  await r.local.close();
  await s.close();
  rounds.length = 0;
});

const until = (check: () => Promise<void>) => vi.waitFor(check, { timeout: 10_000, interval: 25 });

it('live(): server writes arrive by long poll, local writes are sent as they happen, stop() ends both', async () => {
  const stop = r.replica.live();
  const there = await s
    .as('author')
    .posts.insert({ blogId: s.blogId, body: { title: 'From the server', content: 'x' } });
  await until(async () =>
    expect((await r.local.posts.list({ blogId: s.blogId })).items.map((p) => p.title)).toEqual(['From the server']),
  );
  await r.local.posts.patch({ blogId: s.blogId, postId: there.id!, body: { content: 'edited in the replica' } });
  await until(async () =>
    expect((await s.service.posts.get({ blogId: s.blogId, postId: there.id! })).content).toBe('edited in the replica'),
  );
  await until(async () => expect(rounds.some((x) => x.pulled > 0) && rounds.some((x) => x.pushed > 0)).toBe(true));
  stop();
  await r.replica.close();
  r.net.log.length = 0;
  await r.local.posts.patch({ blogId: s.blogId, postId: there.id!, body: { content: 'after stop' } });
  await new Promise((done) => setTimeout(done, 300));
  expect(r.net.log).toEqual([]);
  expect((await s.service.posts.get({ blogId: s.blogId, postId: there.id! })).content).toBe('edited in the replica');
});

it('live(): a picture added here on its own goes up at once, not at the next long poll', async () => {
  const stop = r.replica.live();
  // Once the replica waits on the long poll (up to 10 s), the upload's event wakes it well before that.
  await until(async () => expect(r.net.log.some((l) => l.includes('wait=10'))).toBe(true));
  const picture = await r.local.media.upload({ blogId: s.blogId, body: makePng(8, 8, 3), filename: 'lone.png' });
  await vi.waitFor(
    async () =>
      expect((await s.service.media.get({ blogId: s.blogId, mediaId: picture.id })).filename).toBe('lone.png'),
    {
      timeout: 3_000,
      interval: 25,
    },
  );
  stop();
});

it('pages made and edited offline by an admin are created, published and trashed on the server', async () => {
  await r.replica.sync();
  r.net.offline = true;
  const about = await r.local.pages.insert({
    blogId: s.blogId,
    body: { title: 'About', content: 'me' },
    isDraft: true,
  });
  const old = await r.local.pages.insert({ blogId: s.blogId, body: { title: 'Old', content: 'x' } });
  await r.local.pages.publish({ blogId: s.blogId, pageId: about.id! });
  r.net.offline = false;
  expect(await r.replica.sync()).toMatchObject({ pushed: 2, conflicts: 0 });
  r.net.offline = true;
  const oldHere = (await r.local.pages.list({ blogId: s.blogId })).items.find((p) => p.title === 'Old')!;
  expect(oldHere.id).not.toBe(old.id);
  await r.local.pages.delete({ blogId: s.blogId, pageId: oldHere.id, useTrash: true });
  r.net.offline = false;
  expect(await r.replica.sync()).toMatchObject({ pushed: 1, conflicts: 0 });
  const there = (await s.service.pages.list({ blogId: s.blogId, status: ['LIVE', 'DRAFT', 'SOFT_TRASHED'] })).items;
  expect(there.map((p) => [p.title, p.content, p.status]).sort()).toEqual([
    ['About', 'me', 'LIVE'],
    ['Old', 'x', 'SOFT_TRASHED'],
  ]);
  expect(await r.replica.pending()).toEqual([]);
});
