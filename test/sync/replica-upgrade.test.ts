/**
 * A replica made before 0.3.0 kept each record's base with one-letter fields (`v`, `s`, `h`, `g`, `p`) and no
 * `layout` in its state. Opened by this version, it renames them once: nothing is taken for a local edit,
 * an edit made before the upgrade is still sent, and a clean record's fingerprint is taken again.
 */
import { beforeEach, expect, it } from 'vitest';
import { internalsOf } from '../../src/service/internals.js';
import type { JsonObject } from '../../src/service/store.js';
import { closedAfterEach, localStore, replicaOf, serverFor } from './replicas.js';
import type { SyncServer } from './server.js';

let s: SyncServer;
const opened = closedAfterEach(() => s);

beforeEach(async () => {
  s = await serverFor('sqlite');
});

const LETTERS: Record<string, string> = { version: 'v', status: 's', fingerprint: 'h', gen: 'g', postId: 'p' };

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
    const store = localStore(kind);
    const first = replicaOf(s, 'admin', store.open());
    opened.push(first);
    expect(await first.replica.sync()).toMatchObject({ pulled: 4, pushed: 0 });
    // An edit here, not sent yet, then the store is put back as 0.2 wrote it.
    await first.local.posts.patch({ blogId: s.blogId, postId: posts[1]!, body: { title: 'edited here' } });
    await first.replica.close();
    const { driver } = internalsOf(first.local)!.core;
    const ids = [...posts.map((id) => `sync:${s.blogId}:posts:${id}`), `sync:${s.blogId}:comments:${comment.id}`];
    const found = await driver.getMany('settings', ids);
    const state = (await driver.get('settings', `sync:${s.blogId}`))!;
    const { layout, ...oldState } = state.doc as JsonObject;
    expect(layout).toBe(2);
    await driver.commit([
      ...found.map((b) => {
        const lettered: JsonObject = {};
        for (const [k, v] of Object.entries(b!.doc as JsonObject)) lettered[LETTERS[k] ?? k] = v;
        // What a fingerprint covered in an older version: taken again for a clean record.
        lettered.h = 'older';
        return {
          type: 'put' as const,
          collection: 'settings' as const,
          id: b!.id,
          expect: b!.version,
          doc: lettered,
          keys: {},
        };
      }),
      { type: 'put', collection: 'settings', id: state.id, expect: state.version, doc: oldState, keys: {} },
    ]);

    const again = replicaOf(s, 'admin', first.local);
    opened.push(again);
    expect(await again.replica.pending()).toEqual([
      { kind: 'post', id: posts[1], action: 'update', title: 'edited here' },
    ]);
    expect(await again.replica.sync()).toMatchObject({ pulled: 0, pushed: 1, conflicts: 0 });
    expect((await admin.posts.get({ blogId: s.blogId, postId: posts[1]! })).title).toBe('edited here');
    expect(again.net.log.filter((l) => !l.startsWith('GET '))).toHaveLength(1);
    expect(await again.replica.pending()).toEqual([]);

    const bases = (await driver.getMany('settings', ids)).map((b) => b!.doc as JsonObject);
    for (const base of bases) {
      expect(Object.keys(base).filter((k) => k.length === 1)).toEqual([]);
      expect(base).toMatchObject({ version: expect.any(Number), status: 'LIVE', gen: expect.any(Number) });
      expect(base.fingerprint).not.toBe('older');
    }
    expect(bases[3]!.postId).toBe(posts[0]);
    expect((await driver.get('settings', `sync:${s.blogId}`))!.doc).toMatchObject({ layout: 2 });
    // The untouched records take the server's edits again (under the old fields every record looked edited here).
    await admin.posts.patch({ blogId: s.blogId, postId: posts[2]!, body: { title: 'edited there' } });
    expect(await again.replica.sync()).toMatchObject({ pulled: 2, pushed: 0, conflicts: 0 });
    expect((await again.local.posts.get({ blogId: s.blogId, postId: posts[2]! })).title).toBe('edited there');
  },
);
