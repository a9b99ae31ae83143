/**
 * Replicas of older layouts, opened by this version (src/sync/upgrade.ts):
 * - layout 2 kept every record's base in `settings`: its first operation moves them into the records as their
 *   notes (docs/design.md §26), and every edit, status move and delete queued before reaches the server with the
 *   If-Match of its base;
 * - made before 0.3.0, with one-letter base fields and no `layout`: renamed too, nothing taken for a local edit,
 *   an edit made before the upgrade still sent, a clean record's fingerprint taken again.
 */
import { beforeEach, expect, it } from 'vitest';
import { internalsOf } from '../../src/service/internals.js';
import type { JsonObject } from '../../src/service/store.js';
import { net } from './net.js';
import { asOlderLayout } from './older-layouts.js';
import { closedAfterEach, localStore, replicaOf, serverFor } from './replicas.js';
import type { SyncServer } from './server.js';

let s: SyncServer;
const opened = closedAfterEach(() => s);

beforeEach(async () => {
  s = await serverFor('sqlite');
});

const baseOf = (collection: string, id: string) => `sync:${s.blogId}:${collection}:${id}`;

it.each(['memory', 'idb'] as const)(
  'a replica on %s of layout 2 moves its bases into its records; each queued edit and delete goes with its If-Match',
  async (kind) => {
    const admin = s.as('admin');
    const posts: string[] = [];
    for (let i = 0; i < 4; i++)
      posts.push(
        (await admin.posts.insert({ blogId: s.blogId, body: { title: `p${i}`, content: `<p>${i}</p>` } })).id!,
      );
    const comment = await admin.comments.insert({ blogId: s.blogId, postId: posts[0]!, body: { content: 'hello' } });
    const first = replicaOf(s, 'admin', localStore(kind).open());
    opened.push(first);
    expect(await first.replica.sync()).toMatchObject({ pulled: 5, pushed: 0 });
    const etags = await Promise.all(
      posts.map(async (postId) => (await admin.posts.get({ blogId: s.blogId, postId })).etag),
    );
    const local = first.local.posts;
    await local.patch({ blogId: s.blogId, postId: posts[1]!, body: { title: 'edited here' } });
    await local.revert({ blogId: s.blogId, postId: posts[2]! });
    await local.delete({ blogId: s.blogId, postId: posts[3]! });
    await first.replica.close();
    const { core } = internalsOf(first.local)!;
    // The delete left the post's note in `settings`.
    expect((await core.driver.get('settings', baseOf('posts', posts[3]!)))!.doc).toMatchObject({ etag: etags[3] });
    await asOlderLayout(core, s.blogId);
    expect((await core.driver.get('posts', posts[0]!))!.doc.replica).toBeUndefined();
    expect((await core.driver.get('settings', baseOf('posts', posts[0]!)))!.doc).toMatchObject({ etag: etags[0] });

    const sent: string[] = [];
    const n = net();
    const send = n.fetch;
    n.fetch = (input, init) => {
      const ifMatch = new Headers(init?.headers).get('if-match');
      if (init?.method && init.method !== 'GET')
        sent.push(`${init.method} ${new URL(String(input)).pathname} ${ifMatch}`);
      return send(input, init);
    };
    const again = replicaOf(s, 'admin', first.local, n);
    opened.push(again);
    expect((await again.replica.pending()).map((p) => `${p.id} ${p.action}`).sort()).toEqual(
      [`${posts[1]} update`, `${posts[2]} update`, `${posts[3]} delete`].sort(),
    );
    expect(await again.replica.sync()).toMatchObject({ pushed: 3, conflicts: 0 });
    const path = (id: string) => `/v3/blogs/${s.blogId}/posts/${id}`;
    expect(sent.sort()).toEqual(
      [
        `PATCH ${path(posts[1]!)} ${etags[1]}`,
        `POST ${path(posts[2]!)}/revert ${etags[2]}`,
        `DELETE ${path(posts[3]!)} ${etags[3]}`,
      ].sort(),
    );
    const there = await admin.posts.list({ blogId: s.blogId, status: ['LIVE', 'DRAFT'], view: 'ADMIN' });
    expect(there.items.map((p) => [p.id, p.title, p.status]).sort()).toEqual(
      [
        [posts[0], 'p0', 'LIVE'],
        [posts[1], 'edited here', 'LIVE'],
        [posts[2], 'p2', 'DRAFT'],
      ].sort(),
    );
    expect(await again.replica.pending()).toEqual([]);

    // The bases are the records' notes now, none left in `settings`.
    expect((await core.driver.get('settings', `sync:${s.blogId}`))!.doc).toMatchObject({ layout: 3 });
    for (const [collection, id] of [
      ['posts', posts[0]!],
      ['posts', posts[1]!],
      ['posts', posts[2]!],
      ['comments', comment.id!],
    ] as const) {
      expect(await core.driver.get('settings', baseOf(collection, id))).toBeUndefined();
      expect((await core.driver.get(collection, id))!.doc.replica).toMatchObject({ id: baseOf(collection, id) });
    }
    expect(await core.driver.get('settings', baseOf('posts', posts[3]!))).toBeUndefined();
    // Untouched records take the server's edits, and nothing goes back.
    await admin.posts.patch({ blogId: s.blogId, postId: posts[0]!, body: { title: 'edited there' } });
    sent.length = 0;
    expect(await again.replica.sync()).toMatchObject({ pushed: 0, conflicts: 0 });
    expect((await again.local.posts.get({ blogId: s.blogId, postId: posts[0]! })).title).toBe('edited there');
    expect(sent).toEqual([]);
  },
);

it.each(['memory', 'idb'] as const)(
  'a replica on %s made before 0.3.0 sends only its own edit after the upgrade, and takes the server ones',
  async (kind) => {
    const admin = s.as('admin');
    const posts: string[] = [];
    for (let i = 0; i < 3; i++)
      posts.push(
        (await admin.posts.insert({ blogId: s.blogId, body: { title: `p${i}`, content: `<p>${i}</p>` } })).id!,
      );
    const comment = await admin.comments.insert({ blogId: s.blogId, postId: posts[0]!, body: { content: 'hello' } });
    const first = replicaOf(s, 'admin', localStore(kind).open());
    opened.push(first);
    expect(await first.replica.sync()).toMatchObject({ pulled: 4, pushed: 0 });
    // An edit here, not sent yet, then the store is put back as 0.2 wrote it.
    await first.local.posts.patch({ blogId: s.blogId, postId: posts[1]!, body: { title: 'edited here' } });
    await first.replica.close();
    const { driver } = internalsOf(first.local)!.core;
    await asOlderLayout(internalsOf(first.local)!.core, s.blogId, true);
    const ids = [...posts.map((id) => baseOf('posts', id)), baseOf('comments', comment.id!)];
    expect((await driver.get('settings', ids[0]!))!.doc).toMatchObject({ v: expect.any(Number), h: 'older' });

    const again = replicaOf(s, 'admin', first.local);
    opened.push(again);
    expect(await again.replica.pending()).toEqual([
      { kind: 'post', id: posts[1], action: 'update', title: 'edited here' },
    ]);
    expect(await again.replica.sync()).toMatchObject({ pulled: 0, pushed: 1, conflicts: 0 });
    expect((await admin.posts.get({ blogId: s.blogId, postId: posts[1]! })).title).toBe('edited here');
    expect(again.net.log.filter((l) => !l.startsWith('GET '))).toHaveLength(1);
    expect(await again.replica.pending()).toEqual([]);

    const recordOf = async (id: string) =>
      (await driver.get(id === ids[3] ? 'comments' : 'posts', id.split(':').pop()!))!.doc;
    for (const id of ids) {
      expect(await driver.get('settings', id)).toBeUndefined();
      const base = (await recordOf(id)).replica as JsonObject;
      expect(Object.keys(base).filter((k) => k.length === 1)).toEqual([]);
      expect(base).toMatchObject({ version: expect.any(Number), status: 'LIVE', gen: expect.any(Number) });
      expect(base.fingerprint).not.toBe('older');
    }
    expect(((await recordOf(ids[3]!)).replica as JsonObject).postId).toBe(posts[0]);
    expect((await driver.get('settings', `sync:${s.blogId}`))!.doc).toMatchObject({ layout: 3 });
    // The untouched records take the server's edits again (under the old fields every record looked edited here).
    await admin.posts.patch({ blogId: s.blogId, postId: posts[2]!, body: { title: 'edited there' } });
    expect(await again.replica.sync()).toMatchObject({ pulled: 2, pushed: 0, conflicts: 0 });
    expect((await again.local.posts.get({ blogId: s.blogId, postId: posts[2]! })).title).toBe('edited there');
  },
);
