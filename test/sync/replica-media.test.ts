/**
 * A replica's pictures: media records come through the feed, their bytes follow in the background for the
 * pictures the local posts use; a picture added offline waits in `pending()` and is uploaded before the posts
 * that use it, under the same id and url; a picture the server refuses is a conflict that names it.
 * Local stores on memory and IndexedDB (fake-indexeddb), the server on SQLite behind the HTTP helper.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import type { BlogService } from '../../src/index.js';
import { makePng, sha256Hex } from '../media/pictures.js';
import {
  caught,
  closedAfterEach,
  localStore,
  replicaOf,
  serverFor,
  type LocalKind,
  type TestReplica,
} from './replicas.js';
import type { SyncServer } from './server.js';

let s: SyncServer;
const opened = closedAfterEach(() => s);

const bytesOf = async (service: BlogService, blogId: string, mediaId: string) =>
  new Uint8Array(await new Response((await service.media.read({ blogId, mediaId })).body).arrayBuffer());

describe.each(['memory', 'idb'] as const)('pictures, local store on %s', (kind: LocalKind) => {
  beforeEach(async () => {
    s = await serverFor('sqlite', { maxMediaBytes: 64 * 1024 });
  });
  /** A replica as the blog's admin whose local media urls start where the server's do. */
  const open = (store = localStore(kind, { apiBaseUrl: new URL(s.api).origin }), extra = {}) => {
    const r = replicaOf(s, 'admin', store.open(), undefined, extra);
    opened.push(r);
    return { ...r, store };
  };
  const upload = (seed: number, filename: string, size = 8) =>
    s.as('admin').media.upload({ blogId: s.blogId, body: makePng(size, size, seed), filename, alt: `picture ${seed}` });
  const img = (url: string, alt = '') => `<p><img src="${url}" alt="${alt}"></p>`;

  it('pulls media records, then fetches the bytes of the pictures the posts use, checked against their ids', async () => {
    const used = await upload(1, 'used.png');
    const spare = await upload(2, 'spare.png');
    const post = await s
      .as('admin')
      .posts.insert({ blogId: s.blogId, body: { title: 'With a picture', content: img(used.url, 'one') } });
    const { replica, local, net } = open();
    expect(await replica.sync()).toMatchObject({ pulled: 3, pushed: 0 });
    expect(await replica.downloads()).toEqual({ fetched: 1, waiting: 0 });
    expect(await bytesOf(local, s.blogId, used.id)).toEqual(makePng(8, 8, 1));
    // The records are all here, with the server's ids, urls and etags.
    const here = await local.media.list({ blogId: s.blogId });
    expect(here.items.map((m) => [m.id, m.url, m.etag, m.alt])).toEqual([
      [spare.id, spare.url, spare.etag, 'picture 2'],
      [used.id, used.url, used.etag, 'picture 1'],
    ]);
    // No post uses the other one: its bytes stay on the server until one does.
    expect(await caught(bytesOf(local, s.blogId, spare.id))).toMatchObject({ code: 404 });
    expect(net.log.filter((l) => l.startsWith('GET /media/'))).toEqual([`GET /media/${s.blogId}/${used.id}/used.png`]);
    await s
      .as('admin')
      .posts.patch({ blogId: s.blogId, postId: post.id!, body: { content: img(used.url) + img(spare.url) } });
    await replica.sync();
    expect(await replica.downloads()).toEqual({ fetched: 1, waiting: 0 });
    expect(await bytesOf(local, s.blogId, spare.id)).toEqual(makePng(8, 8, 2));
    // A picture deleted on the server goes here too, bytes and all.
    await s.as('admin').posts.patch({ blogId: s.blogId, postId: post.id!, body: { content: img(used.url) } });
    await s.as('admin').media.delete({ blogId: s.blogId, mediaId: spare.id });
    await replica.sync();
    await replica.downloads();
    expect(await caught(local.media.get({ blogId: s.blogId, mediaId: spare.id }))).toMatchObject({ code: 404 });
    expect(await replica.pending()).toEqual([]);
  });

  it('a picture added offline waits in pending(), then goes up before the post that uses it, same id, same url', async () => {
    const { replica, local, net } = open();
    await replica.sync();
    net.offline = true;
    const bytes = makePng(10, 10, 7);
    const picture = await local.media.upload({
      blogId: s.blogId,
      body: bytes,
      filename: 'beach.png',
      alt: 'The beach',
    });
    expect(picture.id).toBe(await sha256Hex(bytes));
    const post = await local.posts.insert({
      blogId: s.blogId,
      body: { title: 'Holiday', content: img(picture.url, 'The beach') },
    });
    expect(await replica.pending()).toEqual([
      { kind: 'media', id: picture.id, action: 'create', title: 'beach.png' },
      { kind: 'post', id: post.id, action: 'create', title: 'Holiday' },
    ]);
    expect(await caught(replica.sync())).toMatchObject({ status: 0 });
    net.offline = false;
    net.log.length = 0;
    expect(await replica.sync()).toMatchObject({ pushed: 2, conflicts: 0 });
    const writes = net.log.filter((l) => !l.startsWith('GET '));
    expect(writes[0]).toBe(`POST /blogs/${s.blogId}/media`);
    expect(writes.indexOf(`POST /blogs/${s.blogId}/posts?isDraft=false`)).toBeGreaterThan(0);
    // The server holds the picture byte for byte, under the same id and url, with its alt text.
    const there = await s.as('admin').media.get({ blogId: s.blogId, mediaId: picture.id });
    expect([there.url, there.alt, there.filename]).toEqual([picture.url, 'The beach', 'beach.png']);
    expect(await bytesOf(s.service, s.blogId, picture.id)).toEqual(bytes);
    const [sent] = (await s.as('admin').posts.list({ blogId: s.blogId })).items;
    expect(sent!.content).toBe(img(picture.url, 'The beach'));
    expect((await s.as('admin').media.list({ blogId: s.blogId, postId: sent!.id! })).items.map((m) => m.id)).toEqual([
      picture.id,
    ]);
    // Here the picture is the server's now: nothing waits, and nothing is fetched again.
    expect(await replica.pending()).toEqual([]);
    expect((await local.media.get({ blogId: s.blogId, mediaId: picture.id })).etag).toBe(there.etag);
    expect(await replica.downloads()).toEqual({ fetched: 0, waiting: 0 });
    expect(await bytesOf(local, s.blogId, picture.id)).toEqual(bytes);
  });

  it('a post that uses a picture, edited on both sides: the picture goes up, the post is a conflict, either text keeps its pictures', async () => {
    const first = await upload(3, 'first.png');
    const post = await s
      .as('admin')
      .posts.insert({ blogId: s.blogId, body: { title: 'Garden', content: img(first.url) } });
    const { replica, local, net } = open();
    await replica.sync();
    await replica.downloads();
    net.offline = true;
    const added = await local.media.upload({ blogId: s.blogId, body: makePng(8, 8, 4), filename: 'second.png' });
    await local.posts.patch({
      blogId: s.blogId,
      postId: post.id!,
      body: { content: img(first.url) + img(added.url, 'mine') },
    });
    await s
      .as('admin')
      .posts.patch({ blogId: s.blogId, postId: post.id!, body: { content: `${img(first.url)}<p>theirs</p>` } });
    net.offline = false;
    expect(await replica.sync()).toMatchObject({ pushed: 1, conflicts: 1 });
    const [conflict] = await replica.conflicts();
    expect([conflict!.kind, conflict!.id, conflict!.reason]).toEqual(['post', post.id, 'changed']);
    // The picture is on the server already, whichever text wins.
    expect(await bytesOf(s.service, s.blogId, added.id)).toEqual(makePng(8, 8, 4));
    await replica.resolve(post.id!, 'mine');
    await replica.sync();
    const there = await s.as('admin').posts.get({ blogId: s.blogId, postId: post.id! });
    expect(there.content).toBe(img(first.url) + img(added.url, 'mine'));
    expect((await s.as('admin').media.list({ blogId: s.blogId, postId: post.id! })).items.map((m) => m.id)).toEqual([
      first.id,
      added.id,
    ]);
    expect(await bytesOf(local, s.blogId, first.id)).toEqual(makePng(8, 8, 3));
    expect(await replica.pending()).toEqual([]);
  });

  it('a resync (410) drops the pictures the server lost while the replica was away', async () => {
    await s.close();
    s = await serverFor('sqlite', { retentionDays: 1 });
    const kept = await upload(5, 'kept.png');
    const lost = await upload(6, 'lost.png');
    const post = await s
      .as('admin')
      .posts.insert({ blogId: s.blogId, body: { title: 'Two', content: img(kept.url) + img(lost.url) } });
    const { replica, local, net } = open();
    await replica.sync();
    expect(await replica.downloads()).toEqual({ fetched: 2, waiting: 0 });
    await s.as('admin').posts.patch({ blogId: s.blogId, postId: post.id!, body: { content: img(kept.url) } });
    await s.as('admin').media.delete({ blogId: s.blogId, mediaId: lost.id });
    s.clock.advance(3 * 86_400_000);
    await s.as('admin').posts.insert({ blogId: s.blogId, body: { title: 'Later', content: 'x' } });
    net.log.length = 0;
    await replica.sync();
    expect(net.log.filter((l) => l.includes('/changes')).some((l) => !l.includes('since='))).toBe(true);
    await replica.downloads();
    expect((await local.media.list({ blogId: s.blogId })).items.map((m) => m.id)).toEqual([kept.id]);
    expect(await bytesOf(local, s.blogId, kept.id)).toEqual(makePng(8, 8, 5));
    expect(await replica.pending()).toEqual([]);
  });

  it('alt text changed on both sides is a conflict on the picture; "mine" sends it over the server\'s', async () => {
    const picture = await upload(7, 'pier.png');
    const { replica, local } = open();
    await replica.sync();
    await local.media.patch({ blogId: s.blogId, mediaId: picture.id, body: { alt: 'The pier at noon' } });
    expect(await replica.pending()).toEqual([{ kind: 'media', id: picture.id, action: 'update', title: 'pier.png' }]);
    await s.as('admin').media.patch({ blogId: s.blogId, mediaId: picture.id, body: { alt: 'A pier' } });
    expect(await replica.sync()).toMatchObject({ conflicts: 1 });
    expect(await replica.conflicts()).toMatchObject([
      {
        kind: 'media',
        id: picture.id,
        reason: 'changed',
        mine: { title: 'pier.png', content: 'The pier at noon' },
        theirs: { content: 'A pier' },
      },
    ]);
    await replica.resolve(picture.id, 'mine');
    expect(await replica.sync()).toMatchObject({ pushed: 1, conflicts: 0 });
    expect((await s.as('admin').media.get({ blogId: s.blogId, mediaId: picture.id })).alt).toBe('The pier at noon');
    expect(await replica.pending()).toEqual([]);
  });

  it('a reload halfway through the downloads carries on with the pictures still missing', async () => {
    const pictures = await Promise.all([1, 2, 3, 4, 5, 6].map((n) => upload(10 + n, `p${n}.png`)));
    await s
      .as('admin')
      .posts.insert({ blogId: s.blogId, body: { title: 'Album', content: pictures.map((p) => img(p.url)).join('') } });
    const first = open(undefined, { downloads: 1 });
    let served = 0;
    // The network goes after three pictures (the tab is closed, the laptop sleeps).
    first.net.lose = (line) => line.startsWith('GET /media/') && ++served > 3;
    await first.replica.sync();
    expect(await first.replica.downloads()).toEqual({ fetched: 3, waiting: 3 });
    await first.replica.close();
    if (kind === 'idb') await first.local.close();
    const second: TestReplica = open(first.store);
    await second.replica.sync();
    expect(await second.replica.downloads()).toEqual({ fetched: 3, waiting: 0 });
    const fetchedAgain = second.net.log.filter((l) => l.startsWith('GET /media/'));
    expect(fetchedAgain).toHaveLength(3);
    for (const [i, p] of pictures.entries())
      expect(await bytesOf(second.local, s.blogId, p.id)).toEqual(makePng(8, 8, 11 + i));
    expect(fetchedAgain.every((l) => pictures.slice(3).some((p) => l.includes(p.id)))).toBe(true);
  });

  it('a picture the server refuses is a conflict that names it; "theirs" lets it go, the post is sent all the same', async () => {
    const { replica, local } = open();
    await replica.sync();
    // Within the local limit (20 MiB), over the server's (64 KiB).
    const big = await local.media.upload({ blogId: s.blogId, body: makePng(160, 160, 9), filename: 'huge.png' });
    await local.posts.insert({ blogId: s.blogId, body: { title: 'Panorama', content: img(big.url) } });
    expect(await replica.sync()).toMatchObject({ pushed: 1, conflicts: 1 });
    const [conflict] = await replica.conflicts();
    expect(conflict).toMatchObject({
      kind: 'media',
      id: big.id,
      reason: 'rejected',
      mine: { title: 'huge.png' },
      theirs: null,
    });
    expect(conflict!.message).toMatch(/large|bytes/i);
    expect(await caught(s.as('admin').media.get({ blogId: s.blogId, mediaId: big.id }))).toMatchObject({ code: 404 });
    // Until a choice, the picture stays here (the post still shows it) and is not sent again.
    expect(await bytesOf(local, s.blogId, big.id)).toEqual(makePng(160, 160, 9));
    expect(await replica.sync()).toMatchObject({ pushed: 0, conflicts: 0 });
    await replica.resolve(big.id, 'theirs');
    expect(await replica.conflicts()).toEqual([]);
    expect(await caught(local.media.get({ blogId: s.blogId, mediaId: big.id }))).toMatchObject({ code: 404 });
    await replica.sync();
    await replica.downloads();
    expect(await replica.pending()).toEqual([]);
  });
});
