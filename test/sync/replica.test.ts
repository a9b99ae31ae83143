/**
 * Replicas (blogcore/sync) against a real server: SQLite or PostgreSQL behind the HTTP helper on node:http,
 * the replica's local service on the memory driver and on IndexedDB (fake-indexeddb). "Offline" is a fetch
 * that fails the way a browser's does without a network.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import type { BlogService, Post } from '../../src/index.js';
import { RemoteError } from '../../src/sync/index.js';
import { caught, closedAfterEach, opener, serverFor, SETUPS } from './replicas.js';
import type { SyncServer } from './server.js';

let s: SyncServer;
const opened = closedAfterEach(() => s);

describe.each(SETUPS)('local store on $local, server on $store', ({ local: kind, store }) => {
  beforeEach(async () => {
    s = await serverFor(store);
  });
  const open = opener(opened, () => s, kind);
  const serverPost = (id: string) => s.service.posts.get({ blogId: s.blogId, postId: id });
  const strip = (p: Post) => ({ ...p, selfLink: '', replies: { ...p.replies, selfLink: '' } });

  it('pulls the blog as the user sees it: server ids, etags and fields; nothing it wrote goes back', async () => {
    const live = await s
      .as('admin')
      .posts.insert({ blogId: s.blogId, body: { title: 'Hello', content: '<p>hi</p>', labels: ['a', 'b'] } });
    const draft = await s
      .as('author')
      .posts.insert({ blogId: s.blogId, body: { title: 'Mine', content: 'wip' }, isDraft: true });
    await s.as('admin').comments.insert({ blogId: s.blogId, postId: live.id!, body: { content: 'first!' } });
    const { replica, local, net } = open('author');
    expect(await replica.sync()).toEqual({ pulled: 3, pushed: 0, conflicts: 0 });
    for (const id of [live.id!, draft.id!]) {
      const there = await s.as('author').posts.get({ blogId: s.blogId, postId: id });
      const here = await local.posts.get({ blogId: s.blogId, postId: id, view: 'AUTHOR' });
      expect(strip(here)).toEqual(strip(there));
    }
    const comments = await local.comments.list({ blogId: s.blogId, postId: live.id! });
    expect(comments.items.map((c) => [c.id, c.content])).toEqual([[expect.any(String), 'first!']]);
    expect(await replica.pending()).toEqual([]);
    net.log.length = 0;
    expect(await replica.sync()).toEqual({ pulled: 0, pushed: 0, conflicts: 0 });
    expect(net.log.every((l) => l.startsWith('GET '))).toBe(true);
  });

  it('offline create → edit → publish, then reconnect: one LIVE post on the server, re-keyed here to its server id', async () => {
    const { replica, local, net } = open('author');
    await replica.sync();
    net.offline = true;
    const made = await local.posts.insert({
      blogId: s.blogId,
      body: { title: 'Draft one', content: 'first words' },
      isDraft: true,
    });
    await local.posts.patch({
      blogId: s.blogId,
      postId: made.id!,
      body: { content: 'better words', labels: ['travel'] },
    });
    await local.posts.publish({ blogId: s.blogId, postId: made.id! });
    expect(await replica.pending()).toEqual([{ kind: 'post', id: made.id, action: 'create', title: 'Draft one' }]);
    const offline = await caught(replica.sync());
    expect(offline).toBeInstanceOf(RemoteError);
    expect(offline).toMatchObject({ status: 0 });
    net.offline = false;
    expect(await replica.sync()).toMatchObject({ pushed: 1, conflicts: 0 });
    const there = (await s.as('author').posts.list({ blogId: s.blogId, status: ['LIVE', 'DRAFT'], view: 'AUTHOR' }))
      .items;
    expect(there.map((p) => [p.title, p.content, p.labels, p.status, p.author.id])).toEqual([
      ['Draft one', 'better words', ['travel'], 'LIVE', s.users.author],
    ]);
    const serverId = there[0]!.id;
    expect(serverId).not.toBe(made.id);
    const here = await local.posts.get({ blogId: s.blogId, postId: serverId });
    expect([here.title, here.content, here.status, here.etag, here.url]).toEqual([
      'Draft one',
      'better words',
      'LIVE',
      there[0]!.etag,
      there[0]!.url,
    ]);
    expect(await caught(local.posts.get({ blogId: s.blogId, postId: made.id! }))).toMatchObject({ code: 404 });
    // What names the local id finds the post again: idOf answers its server id (others as they are).
    expect(await replica.idOf(made.id!)).toBe(serverId);
    expect(await replica.idOf(serverId)).toBe(serverId);
    expect(await replica.idOf('__proto__')).toBe('__proto__');
    expect(await replica.pending()).toEqual([]);
    expect((await replica.sync()).pushed).toBe(0);
  });

  it('opened for the first time with no network, it takes writes at once; the first sync sends them', async () => {
    const { replica, local, net } = open('author');
    net.offline = true;
    // Never synced: the local blog exists already, so the editor saves.
    const made = await local.posts.insert({
      blogId: s.blogId,
      body: { title: 'Written on a plane', content: 'words' },
      isDraft: true,
    });
    await local.posts.patch({ blogId: s.blogId, postId: made.id!, body: { labels: ['travel'] } });
    expect(
      (await local.posts.list({ blogId: s.blogId, status: ['DRAFT'], view: 'AUTHOR' })).items.map((p) => p.title),
    ).toEqual(['Written on a plane']);
    expect(await replica.pending()).toEqual([
      { kind: 'post', id: made.id, action: 'create', title: 'Written on a plane' },
    ]);
    expect(await caught(replica.sync())).toMatchObject({ status: 0 });
    // Still offline after a failed sync, and after another write.
    await local.posts.publish({ blogId: s.blogId, postId: made.id! });
    net.offline = false;
    expect(await replica.sync()).toMatchObject({ pushed: 1, conflicts: 0 });
    const there = (await s.as('author').posts.list({ blogId: s.blogId, status: ['LIVE', 'DRAFT'], view: 'AUTHOR' }))
      .items;
    expect(there.map((p) => [p.title, p.labels, p.status, p.author.id])).toEqual([
      ['Written on a plane', ['travel'], 'LIVE', s.users.author],
    ]);
    // The local blog is now the server's, and the post is there under its server id and url.
    const blog = await s.service.blogs.get({ blogId: s.blogId });
    expect(await local.blogs.get({ blogId: s.blogId })).toMatchObject({ name: blog.name, url: blog.url });
    expect(await local.posts.get({ blogId: s.blogId, postId: there[0]!.id })).toMatchObject({
      url: there[0]!.url,
      etag: there[0]!.etag,
    });
    expect(await replica.pending()).toEqual([]);
  });

  it('pushes edits, status moves and deletes of pulled posts with If-Match of the base etag', async () => {
    const a = await s.as('author').posts.insert({ blogId: s.blogId, body: { title: 'A', content: 'a' } });
    const b = await s.as('author').posts.insert({ blogId: s.blogId, body: { title: 'B', content: 'b' } });
    const { replica, local, net } = open('author');
    await replica.sync();
    net.offline = true;
    await local.posts.patch({ blogId: s.blogId, postId: a.id!, body: { title: 'A2', labels: ['x'] } });
    await local.posts.revert({ blogId: s.blogId, postId: a.id! });
    await local.posts.delete({ blogId: s.blogId, postId: b.id! });
    expect(new Set((await replica.pending()).map((p) => `${p.id}:${p.action}`))).toEqual(
      new Set([`${a.id}:update`, `${b.id}:delete`]),
    );
    net.offline = false;
    expect(await replica.sync()).toMatchObject({ pushed: 2, conflicts: 0 });
    const there = await serverPost(a.id!);
    expect([there.title, there.labels, there.status]).toEqual(['A2', ['x'], 'DRAFT']);
    expect(await caught(serverPost(b.id!))).toMatchObject({ code: 404 });
    expect((await local.posts.get({ blogId: s.blogId, postId: a.id! })).etag).toBe(there.etag);
    expect(await replica.pending()).toEqual([]);
  });

  it('two replicas edit one post offline: the first push wins, the second gets a conflict with both texts; "mine" sends it over', async () => {
    const post = await s
      .as('author')
      .posts.insert({ blogId: s.blogId, body: { title: 'Shared', content: 'base text', labels: ['one'] } });
    const admin = open('admin');
    const author = open('author');
    await admin.replica.sync();
    await author.replica.sync();
    admin.net.offline = author.net.offline = true;
    await admin.local.posts.patch({ blogId: s.blogId, postId: post.id!, body: { content: 'admin text' } });
    await author.local.posts.patch({
      blogId: s.blogId,
      postId: post.id!,
      body: { title: 'Shared (author)', content: 'author text' },
    });
    admin.net.offline = author.net.offline = false;
    expect(await admin.replica.sync()).toMatchObject({ pushed: 1, conflicts: 0 });
    expect(await author.replica.sync()).toMatchObject({ pushed: 0, conflicts: 1 });
    const [c, ...more] = await author.replica.conflicts();
    expect(more).toEqual([]);
    expect(c).toMatchObject({
      kind: 'post',
      id: post.id,
      reason: 'changed',
      mine: { title: 'Shared (author)', content: 'author text', labels: ['one'], status: 'LIVE' },
      theirs: { title: 'Shared', content: 'admin text', labels: ['one'], status: 'LIVE' },
      fields: ['title', 'content'],
    });
    // The server's version is the local copy now; the local edit waits in the conflict.
    expect((await author.local.posts.get({ blogId: s.blogId, postId: post.id! })).content).toBe('admin text');
    expect(await author.replica.pending()).toEqual([]);
    await author.replica.resolve(post.id!, 'mine');
    expect(await author.replica.conflicts()).toEqual([]);
    expect(await author.replica.sync()).toMatchObject({ pushed: 1, conflicts: 0 });
    expect(await serverPost(post.id!)).toMatchObject({ title: 'Shared (author)', content: 'author text' });
    await admin.replica.sync();
    expect(await admin.local.posts.get({ blogId: s.blogId, postId: post.id! })).toMatchObject({
      title: 'Shared (author)',
      content: 'author text',
    });
  });

  it('"theirs" keeps the server version and drops the local edit', async () => {
    const post = await s.as('author').posts.insert({ blogId: s.blogId, body: { title: 'T', content: 'base' } });
    const { replica, local, net } = open('author');
    await replica.sync();
    net.offline = true;
    await local.posts.patch({ blogId: s.blogId, postId: post.id!, body: { content: 'offline' } });
    await s.as('admin').posts.patch({ blogId: s.blogId, postId: post.id!, body: { content: 'online' } });
    net.offline = false;
    expect(await replica.sync()).toMatchObject({ conflicts: 1 });
    expect((await replica.conflicts())[0]).toMatchObject({
      mine: { content: 'offline' },
      theirs: { content: 'online' },
      fields: ['content'],
    });
    await replica.resolve(post.id!, 'theirs');
    expect(await replica.sync()).toMatchObject({ pushed: 0, conflicts: 0 });
    expect((await serverPost(post.id!)).content).toBe('online');
    expect((await local.posts.get({ blogId: s.blogId, postId: post.id! })).content).toBe('online');
    expect(await replica.conflicts()).toEqual([]);
  });

  it('a post deleted on the server while edited offline is a conflict: "mine" re-creates it, "theirs" drops the edit', async () => {
    const p1 = await s.as('author').posts.insert({ blogId: s.blogId, body: { title: 'Keep me', content: 'v1' } });
    const p2 = await s.as('author').posts.insert({ blogId: s.blogId, body: { title: 'Let go', content: 'v1' } });
    const { replica, local, net } = open('author');
    await replica.sync();
    net.offline = true;
    await local.posts.patch({ blogId: s.blogId, postId: p1.id!, body: { content: 'my offline words' } });
    await local.posts.patch({ blogId: s.blogId, postId: p2.id!, body: { content: 'other words' } });
    await s.as('admin').posts.delete({ blogId: s.blogId, postId: p1.id! });
    await s.as('admin').posts.delete({ blogId: s.blogId, postId: p2.id! });
    net.offline = false;
    expect(await replica.sync()).toMatchObject({ conflicts: 2 });
    const found = await replica.conflicts();
    expect(found.map((c) => [c.id, c.reason, c.mine?.content, c.theirs])).toEqual([
      [p1.id, 'deleted', 'my offline words', null],
      [p2.id, 'deleted', 'other words', null],
    ]);
    await replica.resolve(p1.id!, 'mine');
    await replica.resolve(p2.id!, 'theirs');
    expect(await replica.sync()).toMatchObject({ pushed: 1, conflicts: 0 });
    const there = (await s.as('author').posts.list({ blogId: s.blogId })).items;
    expect(there.map((p) => [p.title, p.content, p.status])).toEqual([['Keep me', 'my offline words', 'LIVE']]);
    const here = (await local.posts.list({ blogId: s.blogId })).items;
    expect(here.map((p) => [p.id, p.content])).toEqual([[there[0]!.id, 'my offline words']]);
    expect(await replica.conflicts()).toEqual([]);
  });

  it('comments on a post made offline follow its server id, replies their parent, each created once', async () => {
    const { replica, local, net } = open('author');
    await replica.sync();
    net.offline = true;
    const post = await local.posts.insert({ blogId: s.blogId, body: { title: 'Offline post', content: 'x' } });
    const first = await local.comments.insert({ blogId: s.blogId, postId: post.id!, body: { content: 'first' } });
    await local.comments.insert({
      blogId: s.blogId,
      postId: post.id!,
      body: { content: 'reply', inReplyTo: { id: first.id } },
    });
    expect((await replica.pending()).map((p) => [p.kind, p.action])).toEqual([
      ['post', 'create'],
      ['comment', 'create'],
      ['comment', 'create'],
    ]);
    net.offline = false;
    // The post is created; the first comment's answer is lost on the way back.
    net.lose = (line) => line.endsWith('/comments');
    expect(await caught(replica.sync())).toMatchObject({ status: 0 });
    const serverPostId = (await s.service.posts.list({ blogId: s.blogId })).items[0]!.id;
    expect(serverPostId).not.toBe(post.id);
    // Here the comments already sit under the post's server id, still waiting.
    expect((await local.comments.list({ blogId: s.blogId, postId: serverPostId })).items.map((c) => c.content)).toEqual(
      ['first', 'reply'],
    );
    expect((await replica.pending()).map((p) => [p.kind, p.action])).toEqual([
      ['comment', 'create'],
      ['comment', 'create'],
    ]);
    net.lose = undefined;
    expect(await replica.sync()).toMatchObject({ pushed: 2, conflicts: 0 });
    const there = (await s.service.comments.list({ blogId: s.blogId, postId: serverPostId })).items;
    expect(there.map((c) => c.content)).toEqual(['first', 'reply']);
    expect(there[1]!.inReplyTo).toEqual({ id: there[0]!.id });
    const here = (await local.comments.list({ blogId: s.blogId, postId: serverPostId })).items;
    expect(here.map((c) => [c.id, c.content, c.inReplyTo?.id])).toEqual(
      there.map((c) => [c.id, c.content, c.inReplyTo?.id]),
    );
    expect(await replica.pending()).toEqual([]);
  });

  it("a write the user's role does not allow comes back as a 'rejected' conflict; 'theirs' drops it", async () => {
    const { replica, local } = open('reader');
    await replica.sync();
    const made = await local.posts.insert({ blogId: s.blogId, body: { title: 'Not mine to write', content: 'x' } });
    expect(await replica.sync()).toMatchObject({ pushed: 0, conflicts: 1 });
    expect(await replica.conflicts()).toEqual([
      expect.objectContaining({
        kind: 'post',
        id: made.id,
        reason: 'rejected',
        message: expect.any(String),
        mine: expect.objectContaining({ title: 'Not mine to write' }),
        theirs: null,
      }),
    ]);
    expect((await s.service.posts.list({ blogId: s.blogId })).items).toEqual([]);
    await replica.resolve(made.id!, 'theirs');
    expect(await replica.conflicts()).toEqual([]);
    expect(await replica.pending()).toEqual([]);
    expect((await local.posts.list({ blogId: s.blogId })).items).toEqual([]);
  });

  it('a post deleted here goes with its comments, which are not sent one by one', async () => {
    const post = await s.as('author').posts.insert({ blogId: s.blogId, body: { title: 'Short-lived', content: 'x' } });
    await s.as('admin').comments.insert({ blogId: s.blogId, postId: post.id!, body: { content: 'nice' } });
    const { replica, local, net } = open('author');
    await replica.sync();
    await local.posts.delete({ blogId: s.blogId, postId: post.id! });
    net.log.length = 0;
    expect(await replica.sync()).toMatchObject({ conflicts: 0 });
    expect(net.log.filter((l) => !l.startsWith('GET '))).toEqual([`DELETE /blogs/${s.blogId}/posts/${post.id}`]);
    expect(await caught(serverPost(post.id!))).toMatchObject({ code: 404 });
    expect(await replica.pending()).toEqual([]);
  });

  it("a reader's replica never holds a draft, and loses a post reverted to draft", async () => {
    const live = await s.as('author').posts.insert({ blogId: s.blogId, body: { title: 'Public', content: 'x' } });
    await s.as('author').posts.insert({ blogId: s.blogId, body: { title: 'Secret', content: 'x' }, isDraft: true });
    const { replica, local } = open('reader');
    await replica.sync();
    const all = (local: BlogService) =>
      local.posts.list({ blogId: s.blogId, status: ['LIVE', 'DRAFT', 'SCHEDULED', 'SOFT_TRASHED'], view: 'ADMIN' });
    expect((await all(local)).items.map((p) => p.title)).toEqual(['Public']);
    await s.as('author').posts.revert({ blogId: s.blogId, postId: live.id! });
    expect(await replica.sync()).toMatchObject({ pulled: 1 });
    expect((await all(local)).items).toEqual([]);
  });
});
