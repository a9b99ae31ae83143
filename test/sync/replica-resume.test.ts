/**
 * What survives a reload or a crash: a replica on IndexedDB (fake-indexeddb) reopened on the same database
 * resumes a pull where it stopped and resends a create whose answer was lost with the same Idempotency-Key;
 * a server restarted mid-push creates one post; a checkpoint older than the server's log (410) pulls afresh
 * and keeps the edits that wait to be sent.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import type { Post } from '../../src/index.js';
import { caught, closedAfterEach, localStore, replicaOf, serverFor, type TestReplica } from './replicas.js';
import { DAY, startSyncServer, STORES, type SyncServer } from './server.js';

let s: SyncServer;
const opened = closedAfterEach(() => s);

describe.each(STORES)('server on %s', (kind) => {
  beforeEach(async () => {
    s = await serverFor(kind, { retentionDays: 1 });
  });

  function open(store: ReturnType<typeof localStore>, maxResults?: number) {
    const r = replicaOf(s, 'author', store.open(), undefined, maxResults ? { maxResults } : {});
    opened.push(r);
    return r;
  }

  async function reload(r: TestReplica): Promise<void> {
    opened.splice(opened.indexOf(r), 1);
    await r.replica.close();
    await r.local.close();
  }

  it('a tab reloaded mid-pull resumes from the page it stopped at, and ends with every post once', async () => {
    for (let i = 0; i < 30; i++)
      await s.as('admin').posts.insert({ blogId: s.blogId, body: { title: `p${i}`, content: 'x' } });
    const store = localStore('idb');
    const first = open(store, 5);
    let pages = 0;
    first.net.lose = (line) => line.includes('/changes') && ++pages === 4;
    expect(await caught(first.replica.sync())).toMatchObject({ status: 0 });
    await reload(first);

    const second = open(store, 5);
    const result = await second.replica.sync();
    expect(result.pulled).toBe(15);
    const pulls = second.net.log.filter((l) => l.includes('/changes'));
    // The first request after the reload is the page whose answer was lost.
    expect(pulls[0]).toBe(first.net.log.filter((l) => l.includes('/changes'))[3]);
    expect(pulls[0]).toContain('pageToken=');
    const titles = (await second.local.posts.list({ blogId: s.blogId, maxResults: 50 })).items.map((p) => p.title);
    expect(titles.sort()).toEqual(Array.from({ length: 30 }, (_, i) => `p${i}`).sort());
  });

  it('the server restarted mid-push, the tab reloaded: the create is resent with its key and makes one post', async () => {
    const store = localStore('idb');
    const first = open(store);
    await first.replica.sync();
    first.net.offline = true;
    await first.local.posts.insert({ blogId: s.blogId, body: { title: 'Only once', content: 'x' } });
    first.net.offline = false;
    // The server stores the post, then goes down before its answer arrives.
    first.net.lose = async (line) => {
      if (!line.startsWith('POST ')) return false;
      await s.close(true);
      return true;
    };
    expect(await caught(first.replica.sync())).toMatchObject({ status: 0 });
    expect(first.net.log.filter((l) => l.startsWith('POST '))).toHaveLength(1);
    await reload(first);
    s = await startSyncServer({ restart: s });

    const second = open(store);
    second.net.target = s.api;
    expect(await second.replica.sync()).toMatchObject({ pushed: 1, conflicts: 0 });
    expect(second.net.log.filter((l) => l.startsWith('POST '))).toHaveLength(1);
    const there = (await s.service.posts.list({ blogId: s.blogId })).items;
    expect(there.map((p) => p.title)).toEqual(['Only once']);
    const here = (await second.local.posts.list({ blogId: s.blogId })).items;
    expect(here.map((p) => [p.id, p.title])).toEqual([[there[0]!.id, 'Only once']]);
    expect(await second.replica.pending()).toEqual([]);
  });

  it('an edit made while a create was on its way (its answer lost) is kept and sent after the create', async () => {
    const r = open(localStore('idb'));
    await r.replica.sync();
    r.net.offline = true;
    const made = await r.local.posts.insert({ blogId: s.blogId, body: { title: 'First words', content: 'one' } });
    r.net.offline = false;
    r.net.lose = (line) => line.startsWith('POST ');
    expect(await caught(r.replica.sync())).toMatchObject({ status: 0 });
    r.net.lose = undefined;
    // Still under its local id here; edited again before the create is answered.
    await r.local.posts.patch({ blogId: s.blogId, postId: made.id!, body: { content: 'two', labels: ['later'] } });
    await r.replica.sync();
    await r.replica.sync();
    const there = (await s.service.posts.list({ blogId: s.blogId })).items;
    expect(there.map((p) => [p.title, p.content, p.labels])).toEqual([['First words', 'two', ['later']]]);
    const here = (await r.local.posts.list({ blogId: s.blogId })).items;
    expect(here.map((p) => [p.id, p.content, p.etag])).toEqual([[there[0]!.id, 'two', there[0]!.etag]]);
    expect(await r.replica.pending()).toEqual([]);
  });

  it('edits made while their updates were on the way stay here and go with the next sync', async () => {
    const made: Post[] = [];
    for (const title of ['A', 'B', 'C', 'D', 'E'])
      made.push(await s.as('author').posts.insert({ blogId: s.blogId, body: { title, content: 'server' } }));
    const r = open(localStore('idb'));
    await r.replica.sync();
    for (const p of made)
      await r.local.posts.patch({ blogId: s.blogId, postId: p.id!, body: { content: `first ${p.title}` } });
    // B and D are written again here after the server took their first edit, before the replica hears back.
    const again = new Set([made[1]!, made[3]!].map((p) => p.id!));
    r.net.lose = async (line) => {
      const id = /^PATCH .*\/posts\/([^/?]+)/.exec(line)?.[1];
      if (id && again.delete(id))
        await r.local.posts.patch({ blogId: s.blogId, postId: id, body: { content: 'second' } });
      return false;
    };
    expect(await r.replica.sync()).toMatchObject({ pushed: 5, conflicts: 0 });
    const contents = async () => {
      const there = await Promise.all(made.map((p) => s.service.posts.get({ blogId: s.blogId, postId: p.id! })));
      const here = await Promise.all(made.map((p) => r.local.posts.get({ blogId: s.blogId, postId: p.id! })));
      return [there.map((p) => p.content), here.map((p) => p.content)];
    };
    expect(await contents()).toEqual([
      ['first A', 'first B', 'first C', 'first D', 'first E'],
      ['first A', 'second', 'first C', 'second', 'first E'],
    ]);
    // Updates go out several at a time, so B's and D's second edits happen in either order: compare as a set.
    const pending = (await r.replica.pending()).map((c) => [c.id, c.action]);
    expect(pending.sort()).toEqual([
      [made[1]!.id, 'update'],
      [made[3]!.id, 'update'],
    ]);
    expect(await r.replica.sync()).toMatchObject({ pushed: 2, conflicts: 0 });
    const second = ['first A', 'second', 'first C', 'second', 'first E'];
    expect(await contents()).toEqual([second, second]);
    expect(await r.replica.pending()).toEqual([]);
  });

  it('410: a checkpoint older than the log pulls afresh, drops what the server lost and keeps local edits', async () => {
    const ids: string[] = [];
    for (const title of ['keep', 'gone', 'changed'])
      ids.push((await s.as('author').posts.insert({ blogId: s.blogId, body: { title, content: 'v1' } })).id!);
    const store = localStore('idb');
    const r = open(store);
    await r.replica.sync();
    r.net.offline = true;
    await r.local.posts.patch({ blogId: s.blogId, postId: ids[0]!, body: { content: 'edited offline' } });
    await s.as('admin').posts.delete({ blogId: s.blogId, postId: ids[1]! });
    await s.as('admin').posts.patch({ blogId: s.blogId, postId: ids[2]!, body: { content: 'v2' } });
    s.clock.advance(2 * DAY);
    await s.as('admin').posts.insert({ blogId: s.blogId, body: { title: 'new', content: 'v1' } });
    r.net.offline = false;
    r.net.log.length = 0;
    expect(await r.replica.sync()).toMatchObject({ pushed: 1, conflicts: 0 });
    const pulls = r.net.log.filter((l) => l.includes('/changes'));
    expect(pulls[0]).toContain('since=');
    expect(pulls[1]).not.toContain('since=');
    const here = (await r.local.posts.list({ blogId: s.blogId })).items;
    expect(here.map((p) => `${p.title}:${p.content}`).sort()).toEqual(['changed:v2', 'keep:edited offline', 'new:v1']);
    expect((await s.service.posts.get({ blogId: s.blogId, postId: ids[0]! })).content).toBe('edited offline');
  });
});
