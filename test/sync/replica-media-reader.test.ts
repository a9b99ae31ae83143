/**
 * The pictures of a replica whose user may not see the blog's media (a READER, or nobody signed in): the feed
 * gives it no media records, so it takes the pictures its posts and pages use by their urls, byte for byte,
 * and nothing of a picture only a draft uses; a post that leaves its sight lets go of the pictures nothing
 * else here uses. Local stores on memory and IndexedDB (fake-indexeddb), the server on SQLite behind the HTTP
 * helper.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import type { BlogService, Media } from '../../src/index.js';
import { internalsOf } from '../../src/service/internals.js';
import { makePng } from '../media/pictures.js';
import { caught, closedAfterEach, LOCALS, localStore, replicaOf, serverFor, type TestReplica } from './replicas.js';
import type { SyncServer } from './server.js';

let s: SyncServer;
const opened = closedAfterEach(() => s);

const bytesOf = async (service: BlogService, blogId: string, mediaId: string) =>
  new Uint8Array(await new Response((await service.media.read({ blogId, mediaId })).body).arrayBuffer());
const img = (url: string, alt = '') => `<p><img src="${url}" alt="${alt}"></p>`;

describe.each(LOCALS)("a reader's pictures, local store on %s", (kind) => {
  beforeEach(async () => {
    s = await serverFor('sqlite');
  });
  const open = (
    who: 'reader' | 'anonymous',
    store = localStore(kind, { apiBaseUrl: new URL(s.api).origin }),
    extra = {},
  ) => {
    const r = replicaOf(s, who, store.open(), undefined, extra);
    opened.push(r);
    return { ...r, store };
  };
  const upload = (seed: number, filename: string) =>
    s
      .as('admin')
      .media.upload({ blogId: s.blogId, body: makePng(8, 8, seed), filename, alt: `only authors see this (${seed})` });
  /** Whether the local blob store still holds the bytes a pulled picture had. */
  const held = async (local: BlogService, p: Media) => {
    const body = await internalsOf(local)!.core.blobs.read(`${s.blogId}/replica-${p.id}`);
    await body?.cancel();
    return !!body;
  };

  it('holds the bytes of the pictures its posts and pages use, nothing of a draft’s; a post reverted to draft lets its own go', async () => {
    const shared = await upload(1, 'shared.png');
    const solo = await upload(2, 'solo.png');
    const onPage = await upload(3, 'page.png');
    const secret = await upload(4, 'secret.png');
    const admin = s.as('admin');
    await admin.posts.insert({ blogId: s.blogId, body: { title: 'A', content: img(shared.url, 'Harbour') } });
    const b = await admin.posts.insert({
      blogId: s.blogId,
      body: { title: 'B', content: img(shared.url) + img(solo.url) },
    });
    const page = await admin.pages.insert({ blogId: s.blogId, body: { title: 'About', content: img(onPage.url) } });
    await admin.posts.insert({
      blogId: s.blogId,
      body: { title: 'Soon', content: img(secret.url) + img(shared.url) },
      isDraft: true,
    });

    const { replica, local, net } = open('reader');
    await replica.sync();
    expect(await replica.downloads()).toEqual({ fetched: 3, waiting: 0 });
    expect(await bytesOf(local, s.blogId, shared.id)).toEqual(makePng(8, 8, 1));
    expect(await bytesOf(local, s.blogId, solo.id)).toEqual(makePng(8, 8, 2));
    expect(await bytesOf(local, s.blogId, onPage.id)).toEqual(makePng(8, 8, 3));
    // Of the draft's picture nothing: no record, no bytes, not a request that names it.
    expect(await caught(local.media.get({ blogId: s.blogId, mediaId: secret.id }))).toMatchObject({ code: 404 });
    expect(await held(local, secret)).toBe(false);
    expect(net.log.filter((l) => l.includes(secret.id))).toEqual([]);
    // The bytes by their public urls, and no media records asked for (a reader may not see them).
    expect(net.log.filter((l) => l.includes('/media')).sort()).toEqual(
      [shared, solo, onPage].map((p) => `GET /media/${s.blogId}/${p.id}/${p.filename}`).sort(),
    );
    // The local records say what the bytes say, and nothing of what only authors see.
    expect(await local.media.get({ blogId: s.blogId, mediaId: solo.id })).toMatchObject({
      id: solo.id,
      url: solo.url,
      contentType: 'image/png',
      bytes: solo.bytes,
      width: 8,
      height: 8,
      filename: 'solo.png',
      alt: '',
      author: { id: '' },
    });
    expect(await replica.pending()).toEqual([]);

    // B goes back to draft: the picture only B used goes with it, record and bytes; the one A uses stays.
    await admin.posts.revert({ blogId: s.blogId, postId: b.id! });
    await replica.sync();
    expect(await caught(local.media.get({ blogId: s.blogId, mediaId: solo.id }))).toMatchObject({ code: 404 });
    expect(await replica.downloads()).toEqual({ fetched: 0, waiting: 0 });
    expect(await held(local, solo)).toBe(false);
    expect(await bytesOf(local, s.blogId, shared.id)).toEqual(makePng(8, 8, 1));
    // The page deleted: its picture goes too.
    await admin.pages.delete({ blogId: s.blogId, pageId: page.id! });
    await replica.sync();
    await replica.downloads();
    expect(await caught(local.media.get({ blogId: s.blogId, mediaId: onPage.id }))).toMatchObject({ code: 404 });
    expect(await held(local, onPage)).toBe(false);
    // B published again: its picture comes back, fetched once more.
    net.log.length = 0;
    await admin.posts.publish({ blogId: s.blogId, postId: b.id! });
    await replica.sync();
    expect(await replica.downloads()).toEqual({ fetched: 1, waiting: 0 });
    expect(await bytesOf(local, s.blogId, solo.id)).toEqual(makePng(8, 8, 2));
    expect(net.log.filter((l) => l.startsWith('GET /media/'))).toEqual([`GET /media/${s.blogId}/${solo.id}/solo.png`]);
    expect((await local.media.list({ blogId: s.blogId })).items.map((m) => m.id).sort()).toEqual(
      [shared.id, solo.id].sort(),
    );
    expect(await replica.pending()).toEqual([]);
  });

  it('signed out, the downloads are resumable: a reload halfway fetches only what is missing', async () => {
    const pictures = [];
    for (const n of [1, 2, 3, 4]) pictures.push(await upload(10 + n, `p${n}.png`));
    await s
      .as('admin')
      .posts.insert({ blogId: s.blogId, body: { title: 'Album', content: pictures.map((p) => img(p.url)).join('') } });
    const first = open('anonymous', undefined, { downloads: 1 });
    let served = 0;
    first.net.lose = (line) => line.startsWith('GET /media/') && ++served > 2;
    await first.replica.sync();
    expect(await first.replica.downloads()).toEqual({ fetched: 2, waiting: 2 });
    await first.replica.close();
    if (kind === 'idb') await first.local.close();
    const second: TestReplica = open('anonymous', first.store);
    await second.replica.sync();
    expect(await second.replica.downloads()).toEqual({ fetched: 2, waiting: 0 });
    const fetchedAgain = second.net.log.filter((l) => l.startsWith('GET /media/'));
    expect(fetchedAgain.sort()).toEqual(pictures.slice(2).map((p) => `GET /media/${s.blogId}/${p.id}/${p.filename}`));
    for (const [i, p] of pictures.entries())
      expect(await bytesOf(second.local, s.blogId, p.id)).toEqual(makePng(8, 8, 11 + i));
  });

  it('a resync (410) keeps the pictures the posts still use, without fetching them again', async () => {
    await s.close();
    s = await serverFor('sqlite', { retentionDays: 1 });
    const kept = await upload(31, 'kept.png');
    const lost = await upload(32, 'lost.png');
    const post = await s
      .as('admin')
      .posts.insert({ blogId: s.blogId, body: { title: 'Two', content: img(kept.url) + img(lost.url) } });
    const { replica, local, net } = open('reader');
    await replica.sync();
    expect(await replica.downloads()).toEqual({ fetched: 2, waiting: 0 });
    await s.as('admin').posts.patch({ blogId: s.blogId, postId: post.id!, body: { content: img(kept.url) } });
    s.clock.advance(3 * 86_400_000);
    await s.as('admin').posts.insert({ blogId: s.blogId, body: { title: 'Later', content: 'x' } });
    net.log.length = 0;
    await replica.sync();
    expect(net.log.filter((l) => l.includes('/changes')).some((l) => !l.includes('since='))).toBe(true);
    expect(await replica.downloads()).toEqual({ fetched: 0, waiting: 0 });
    expect(net.log.filter((l) => l.startsWith('GET /media/'))).toEqual([]);
    expect((await local.media.list({ blogId: s.blogId })).items.map((m) => m.id)).toEqual([kept.id]);
    expect(await bytesOf(local, s.blogId, kept.id)).toEqual(makePng(8, 8, 31));
    expect(await held(local, lost)).toBe(false);
  });

  it('a reader made author gets the media records; made reader again, keeps only what its posts use, by url', async () => {
    const used = await upload(21, 'used.png');
    const secret = await upload(22, 'secret.png');
    await s.as('admin').posts.insert({ blogId: s.blogId, body: { title: 'Out', content: img(used.url) } });
    await s
      .as('admin')
      .posts.insert({ blogId: s.blogId, body: { title: 'Draft', content: img(secret.url) }, isDraft: true });
    const { replica, local } = open('reader');
    await replica.sync();
    await replica.downloads();
    const setRole = (role: 'AUTHOR' | 'READER') =>
      s.service.members.set({ blogId: s.blogId, userId: s.users.reader, role });
    await setRole('AUTHOR');
    await replica.sync();
    await replica.downloads();
    expect((await local.media.get({ blogId: s.blogId, mediaId: used.id })).alt).toBe(used.alt);
    expect(await bytesOf(local, s.blogId, secret.id)).toEqual(makePng(8, 8, 22));
    await setRole('READER');
    await replica.sync();
    await replica.downloads();
    expect(await caught(local.media.get({ blogId: s.blogId, mediaId: secret.id }))).toMatchObject({ code: 404 });
    expect(await held(local, secret)).toBe(false);
    expect(await local.media.get({ blogId: s.blogId, mediaId: used.id })).toMatchObject({
      alt: '',
      author: { id: '' },
    });
    expect(await bytesOf(local, s.blogId, used.id)).toEqual(makePng(8, 8, 21));
    expect(await replica.pending()).toEqual([]);
  });
});
