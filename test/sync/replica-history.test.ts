/**
 * What a replica's writes keep beside the records: the losing side of a resolved conflict stays as a revision
 * of the post or page (locally, and on the server where its update replaced it), and the local `labels.list`
 * counts stay right through pulled, re-keyed and resolved posts.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { memoryDriver } from '../../drivers/memory/index.js';
import { type BlogService, createBlogService } from '../../src/index.js';
import { caught, closedAfterEach, opener, replicaOf, serverFor, SETUPS } from './replicas.js';
import { net } from './net.js';
import type { SyncServer } from './server.js';

let s: SyncServer;
const opened = closedAfterEach(() => s);

describe.each(SETUPS)('local store on $local, server on $store', ({ local: kind, store }) => {
  beforeEach(async () => {
    s = await serverFor(store);
  });
  const open = opener(opened, () => s, kind);
  const postRevisions = async (service: BlogService, postId: string) =>
    (await service.posts.revisions.list({ blogId: s.blogId, postId, maxResults: 50 })).items.map((r) => [
      r.title,
      r.content,
      r.labels,
    ]);

  /** A post the author edits offline while the admin changes it on the server: a 'changed' conflict. */
  async function conflicted() {
    const post = await s
      .as('author')
      .posts.insert({ blogId: s.blogId, body: { title: 'Base', content: 'base text', labels: ['one'] } });
    const r = open('author');
    await r.replica.sync();
    r.net.offline = true;
    await r.local.posts.patch({
      blogId: s.blogId,
      postId: post.id!,
      body: { title: 'Mine', content: 'my text', labels: ['one', 'mine'] },
    });
    await s
      .as('admin')
      .posts.patch({ blogId: s.blogId, postId: post.id!, body: { title: 'Theirs', content: 'their text' } });
    r.net.offline = false;
    expect(await r.replica.sync()).toMatchObject({ conflicts: 1 });
    return { ...r, postId: post.id! };
  }

  it('"theirs": the local edit stays as the newest revision of the post here, readable through posts.revisions', async () => {
    const { replica, local, postId } = await conflicted();
    await replica.resolve(postId, 'theirs');
    expect(await local.posts.get({ blogId: s.blogId, postId })).toMatchObject({
      title: 'Theirs',
      content: 'their text',
      labels: ['one'],
    });
    const [newest] = (await local.posts.revisions.list({ blogId: s.blogId, postId })).items;
    expect(newest).toMatchObject({ post: { id: postId }, title: 'Mine', content: 'my text', labels: ['one', 'mine'] });
    expect(await local.posts.revisions.get({ blogId: s.blogId, postId, revisionId: newest!.id })).toEqual(newest);
    // Nothing is sent, and the revision outlives the next pulls.
    expect(await replica.sync()).toMatchObject({ pushed: 0, conflicts: 0 });
    await s.as('admin').posts.patch({ blogId: s.blogId, postId, body: { content: 'their second text' } });
    await replica.sync();
    expect(await postRevisions(local, postId)).toContainEqual(['Mine', 'my text', ['one', 'mine']]);
    expect(await postRevisions(s.service, postId)).not.toContainEqual(['Mine', 'my text', ['one', 'mine']]);
    // Restored, it is an ordinary local edit: the next sync sends it.
    await local.posts.revisions.restore({ blogId: s.blogId, postId, revisionId: newest!.id });
    expect(await replica.sync()).toMatchObject({ pushed: 1, conflicts: 0 });
    expect(await s.service.posts.get({ blogId: s.blogId, postId })).toMatchObject({
      title: 'Mine',
      content: 'my text',
      labels: ['one', 'mine'],
    });
  });

  it('"mine": the server\'s version stays as a revision, on the server (its update keeps it) and here', async () => {
    const { replica, local, postId } = await conflicted();
    await replica.resolve(postId, 'mine');
    const theirs = ['Theirs', 'their text', ['one']];
    expect((await postRevisions(local, postId))[0]).toEqual(theirs);
    expect(await replica.sync()).toMatchObject({ pushed: 1, conflicts: 0 });
    expect(await s.service.posts.get({ blogId: s.blogId, postId })).toMatchObject({
      title: 'Mine',
      content: 'my text',
      labels: ['one', 'mine'],
    });
    expect((await postRevisions(s.service, postId))[0]).toEqual(theirs);
    expect(await postRevisions(local, postId)).toContainEqual(theirs);
  });

  it('"theirs" on a page: the local edit stays as a revision of the page', async () => {
    const page = await s.service.pages.insert({ blogId: s.blogId, body: { title: 'About', content: 'v1' } });
    const { replica, local, net } = open('admin');
    await replica.sync();
    net.offline = true;
    await local.pages.patch({ blogId: s.blogId, pageId: page.id!, body: { content: 'offline v2' } });
    await s.service.pages.patch({ blogId: s.blogId, pageId: page.id!, body: { content: 'online v2' } });
    net.offline = false;
    expect(await replica.sync()).toMatchObject({ conflicts: 1 });
    await replica.resolve(page.id!, 'theirs');
    expect((await local.pages.get({ blogId: s.blogId, pageId: page.id! })).content).toBe('online v2');
    const [newest] = (await local.pages.revisions.list({ blogId: s.blogId, pageId: page.id! })).items;
    expect(newest).toMatchObject({ page: { id: page.id }, title: 'About', content: 'offline v2' });
  });

  it('labels.list here counts what the server counts, through pulls, offline creates and resolved conflicts', async () => {
    const labels = async (service: BlogService) =>
      (await service.labels.list({ blogId: s.blogId, view: 'ADMIN' })).items;
    const a = await s.service.posts.insert({
      blogId: s.blogId,
      body: { title: 'A', content: 'a', labels: ['travel', 'food'] },
    });
    const b = await s.service.posts.insert({
      blogId: s.blogId,
      body: { title: 'B', content: 'b', labels: ['travel'] },
      isDraft: true,
    });
    const c = await s.service.posts.insert({ blogId: s.blogId, body: { title: 'C', content: 'c', labels: ['gone'] } });
    const { replica, local, net } = open('admin');
    await replica.sync();
    expect(await labels(local)).toEqual(await labels(s.service));
    expect((await labels(local)).map((l) => [l.name, l.livePosts, l.allPosts])).toEqual([
      ['food', 1, 1],
      ['gone', 1, 1],
      ['travel', 1, 2],
    ]);
    // Server changes pulled: labels edited, a post published, one reverted, one deleted.
    await s.service.posts.patch({ blogId: s.blogId, postId: a.id!, body: { labels: ['food', 'wine'] } });
    await s.service.posts.publish({ blogId: s.blogId, postId: b.id! });
    await s.service.posts.delete({ blogId: s.blogId, postId: c.id! });
    await replica.sync();
    expect(await labels(local)).toEqual(await labels(s.service));
    // A post made offline and re-keyed to its server id on push.
    net.offline = true;
    await local.posts.insert({ blogId: s.blogId, body: { title: 'D', content: 'd', labels: ['travel', 'new'] } });
    net.offline = false;
    expect(await replica.sync()).toMatchObject({ pushed: 1 });
    expect(await labels(local)).toEqual(await labels(s.service));
    // Conflicts: the server's labels stored over the local edit, then each choice.
    net.offline = true;
    await local.posts.patch({ blogId: s.blogId, postId: a.id!, body: { labels: ['mine-a'] } });
    await local.posts.patch({ blogId: s.blogId, postId: b.id!, body: { labels: ['mine-b'] } });
    await s.service.posts.patch({ blogId: s.blogId, postId: a.id!, body: { labels: ['theirs-a'] } });
    await s.service.posts.patch({ blogId: s.blogId, postId: b.id!, body: { labels: ['theirs-b'] } });
    net.offline = false;
    expect(await replica.sync()).toMatchObject({ conflicts: 2 });
    expect(await labels(local)).toEqual(await labels(s.service));
    await replica.resolve(a.id!, 'theirs');
    await replica.resolve(b.id!, 'mine');
    await replica.sync();
    expect(await labels(local)).toEqual(await labels(s.service));
    expect((await labels(local)).map((l) => l.name)).toEqual(['mine-b', 'new', 'theirs-a', 'travel']);
  });

  it('a post made offline keeps the revisions of its offline edits under its server id', async () => {
    const { replica, local, net } = open('author');
    await replica.sync();
    net.offline = true;
    const made = await local.posts.insert({ blogId: s.blogId, body: { title: 'First', content: 'first words' } });
    await local.posts.patch({ blogId: s.blogId, postId: made.id!, body: { title: 'Second', content: 'second words' } });
    net.offline = false;
    expect(await replica.sync()).toMatchObject({ pushed: 1 });
    const [there] = (await s.as('author').posts.list({ blogId: s.blogId, status: ['LIVE', 'DRAFT'], view: 'AUTHOR' }))
      .items;
    expect(there!.id).not.toBe(made.id);
    expect(await postRevisions(local, there!.id!)).toEqual([['First', 'first words', []]]);
  });

  /** A replica keeping 3 revisions, with the author's post `title` pulled. */
  async function keepingThree(title: string) {
    const r = replicaOf(s, 'author', createBlogService({ driver: memoryDriver(), revisionsKept: 3 }));
    opened.push(r);
    const post = await s.as('author').posts.insert({ blogId: s.blogId, body: { title, content: 'v0' } });
    await r.replica.sync();
    const edit = (content: string) => r.local.posts.patch({ blogId: s.blogId, postId: post.id!, body: { content } });
    return { ...r, postId: post.id!, edit, kept: async () => (await postRevisions(r.local, post.id!)).length };
  }

  it('"theirs" on a post edited here since the conflict: the cap on its revisions stays exact', async () => {
    const { replica, net, postId, edit, kept } = await keepingThree('One');
    net.offline = true;
    await edit('mine');
    await s.as('admin').posts.patch({ blogId: s.blogId, postId, body: { content: 'theirs' } });
    net.offline = false;
    expect(await replica.sync()).toMatchObject({ conflicts: 1 });
    await edit('mine again');
    await replica.resolve(postId, 'theirs');
    expect(await kept()).toBe(3);
    await edit('later');
    await edit('later still');
    expect(await kept()).toBe(3);
  });

  it('"mine" on a post the server deleted: it comes back with no revisions, then keeps up to the cap', async () => {
    const { replica, net, postId, edit, kept } = await keepingThree('Two');
    net.offline = true;
    await edit('v1');
    await s.service.posts.delete({ blogId: s.blogId, postId });
    net.offline = false;
    expect(await replica.sync()).toMatchObject({ conflicts: 1 });
    await replica.resolve(postId, 'mine');
    expect(await kept()).toBe(0);
    for (const content of ['v2', 'v3', 'v4', 'v5']) await edit(content);
    expect(await kept()).toBe(3);
  });

  it('a post made offline, its create answered only on a retry, edited here under its server id meanwhile: the cap stays exact', async () => {
    const n = net();
    const r = replicaOf(s, 'author', createBlogService({ driver: memoryDriver(), revisionsKept: 2 }), n);
    opened.push(r);
    await r.replica.sync();
    const made = await r.local.posts.insert({ blogId: s.blogId, body: { title: 'Made', content: 'v0' } });
    await r.local.posts.patch({ blogId: s.blogId, postId: made.id!, body: { content: 'v1' } });
    const create = `POST /blogs/${s.blogId}/posts`;
    n.lose = (line) => line.startsWith(create);
    expect(await caught(r.replica.sync())).toBeInstanceOf(Error);
    const [there] = (await s.as('author').posts.list({ blogId: s.blogId })).items;
    // The next sync pulls the post under its server id, where it is edited while the retried create is answered.
    n.lose = async (line) => {
      if (line.startsWith(create))
        await r.local.posts.patch({ blogId: s.blogId, postId: there!.id!, body: { content: 'edited here' } });
      return false;
    };
    await r.replica.sync();
    n.lose = undefined;
    expect((await postRevisions(r.local, there!.id!)).length).toBe(2);
    for (const content of ['v2', 'v3'])
      await r.local.posts.patch({ blogId: s.blogId, postId: there!.id!, body: { content } });
    expect((await postRevisions(r.local, there!.id!)).length).toBe(2);
  });

  it('a post the server deletes takes its local revisions along', async () => {
    const driver = memoryDriver();
    const r = replicaOf(s, 'author', createBlogService({ driver }));
    opened.push(r);
    const post = await s.as('author').posts.insert({ blogId: s.blogId, body: { title: 'One', content: 'v1' } });
    await r.replica.sync();
    await r.local.posts.patch({ blogId: s.blogId, postId: post.id!, body: { content: 'v2' } });
    expect(await r.replica.sync()).toMatchObject({ pushed: 1 });
    const kept = () => driver.count({ collection: 'revisions', index: 'item', prefix: [post.id!] });
    expect(await kept()).toBe(1);
    await s.service.posts.delete({ blogId: s.blogId, postId: post.id! });
    await r.replica.sync();
    await expect(r.local.posts.get({ blogId: s.blogId, postId: post.id! })).rejects.toMatchObject({ code: 404 });
    expect(await kept()).toBe(0);
  });
});
