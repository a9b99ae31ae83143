/**
 * Replicas (blogcore/sync) against a real server: SQLite behind the HTTP helper on node:http, the replica's
 * local service on the memory driver. "Offline" is a fetch that fails like a browser's without a network.
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import { memoryDriver } from '../../drivers/memory/index.js';
import { createBlogService, type BlogService } from '../../src/index.js';
import { createReplica, RemoteError, type Replica } from '../../src/sync/index.js';
import { net, type Net } from './net.js';
import { startSyncServer, type SyncServer } from './server.js';

let s: SyncServer;
const opened: Array<{ replica: Replica; local: BlogService }> = [];
beforeEach(async () => {
  s = await startSyncServer();
});
afterEach(async () => {
  for (const { replica, local } of opened.splice(0)) {
    await replica.close();
    await local.close();
  }
  await s.close();
});

function replicaOf(who: 'admin' | 'author' | 'reader', local = createBlogService({ driver: memoryDriver() }), n: Net = net()) {
  const replica = createReplica({ local, remote: { baseUrl: s.api, headers: { authorization: `Bearer ${who}` }, fetch: n.fetch }, blogId: s.blogId });
  opened.push({ replica, local });
  return { replica, local, net: n };
}

const caught = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (e: unknown) => e,
  );

it('pulls the blog as the user sees it: server ids, etags and fields', async () => {
  const live = await s.as('admin').posts.insert({ blogId: s.blogId, body: { title: 'Hello', content: '<p>hi</p>', labels: ['a', 'b'] } });
  const draft = await s.as('author').posts.insert({ blogId: s.blogId, body: { title: 'Mine', content: 'wip' }, isDraft: true });
  await s.as('admin').comments.insert({ blogId: s.blogId, postId: live.id!, body: { content: 'first!' } });
  const { replica, local } = replicaOf('author');
  const result = await replica.sync();
  expect(result).toEqual({ pulled: 3, pushed: 0, conflicts: 0 });
  for (const id of [live.id!, draft.id!]) {
    const there = await s.as('author').posts.get({ blogId: s.blogId, postId: id });
    const here = await local.posts.get({ blogId: s.blogId, postId: id, view: 'AUTHOR' });
    expect({ ...here, selfLink: '', replies: { ...here.replies, selfLink: '' } }).toEqual({
      ...there,
      selfLink: '',
      replies: { ...there.replies, selfLink: '' },
    });
  }
  const comments = await local.comments.list({ blogId: s.blogId, postId: live.id! });
  expect(comments.items.map((c) => c.content)).toEqual(['first!']);
  expect(await replica.pending()).toEqual([]);
  // Nothing the replica wrote itself is sent back.
  expect((await replica.sync()).pushed).toBe(0);
});

it('offline create → edit → publish, then reconnect: one LIVE post on the server under its server id', async () => {
  const { replica, local, net } = replicaOf('author');
  await replica.sync();
  net.offline = true;
  const made = await local.posts.insert({ blogId: s.blogId, body: { title: 'Draft one', content: 'first words' }, isDraft: true });
  await local.posts.patch({ blogId: s.blogId, postId: made.id!, body: { content: 'better words', labels: ['travel'] } });
  await local.posts.publish({ blogId: s.blogId, postId: made.id! });
  expect(await replica.pending()).toEqual([{ kind: 'post', id: made.id, action: 'create', title: 'Draft one' }]);
  expect(await caught(replica.sync())).toMatchObject({ name: 'RemoteError', status: 0 });
  net.offline = false;
  const result = await replica.sync();
  expect(result.pushed).toBe(1);
  const there = (await s.as('author').posts.list({ blogId: s.blogId, status: ['LIVE', 'DRAFT'], view: 'AUTHOR' })).items;
  expect(there.map((p) => [p.title, p.content, p.labels, p.status, p.author.id])).toEqual([['Draft one', 'better words', ['travel'], 'LIVE', s.users.author]]);
  const serverId = there[0]!.id;
  expect(serverId).not.toBe(made.id);
  const here = await local.posts.get({ blogId: s.blogId, postId: serverId });
  expect([here.title, here.content, here.status, here.etag]).toEqual(['Draft one', 'better words', 'LIVE', there[0]!.etag]);
  expect(await caught(local.posts.get({ blogId: s.blogId, postId: made.id! }))).toMatchObject({ code: 404 });
  expect(await replica.pending()).toEqual([]);
  expect((await replica.sync()).pushed).toBe(0);
});

it('rejects with a RemoteError of status 0 while offline and keeps the edits', async () => {
  const { replica, net } = replicaOf('author');
  net.offline = true;
  const error = await caught(replica.sync());
  expect(error).toBeInstanceOf(RemoteError);
});
