/**
 * Posts by label in IndexedDB layout 5: the label indexes (declared `entries: 'many'`) are postings in
 * segments, not IndexedDB index entries, and answer `list`, `keys`, `count` and searches on them as the memory
 * driver does, through writes over, deletes, ids written again and merges.
 */
import 'fake-indexeddb/auto';
import { IDBFactory } from 'fake-indexeddb';
import { expect, it } from 'vitest';
import { idbDriver } from '../../../drivers/idb/index.js';
import { memoryDriver } from '../../../drivers/memory/index.js';
import type { KeyBound, StorageDriver, StoreSchema, WriteOp } from '../../../src/store/driver.js';
import { put, type PostRecord } from '../../../src/store/records.js';
import { STORE_SCHEMA } from '../../../src/store/schema.js';
import { rng } from '../sqlite/bench-data.js';

const request = <T>(r: IDBRequest<T>) =>
  new Promise<T>((resolve, reject) => {
    r.onsuccess = () => resolve(r.result);
    r.onerror = () => reject(r.error);
  });

const pad = (n: number) => String(n).padStart(4, '0');
const LABELS = ['a', 'b', 'c', 'd', 'e'];
const post = (i: number, more: Partial<PostRecord> = {}): PostRecord => ({
  id: `p${pad(i)}`,
  blogId: 'b1',
  authorId: 'u1',
  title: `Post ${i}`,
  content: `<p>every post ${i % 2 ? 'odd' : 'even'}</p>`,
  published: new Date(Date.UTC(2025, 0, 1, 0, 0, i)).toISOString(),
  updated: new Date(Date.UTC(2025, 0, 1, 0, 0, i)).toISOString(),
  path: `/p${i}.html`,
  rev: 1,
  status: 'LIVE',
  labels: [],
  readerComments: 'ALLOW',
  liveComments: 0,
  allComments: 0,
  ...more,
});

/** Every IndexedDB index entry of the posts store. */
async function indexEntries(factory: IDBFactory, name: string): Promise<number> {
  const db = await request(factory.open(name));
  const store = db.transaction('posts').objectStore('posts');
  const counts = await Promise.all([...store.indexNames].map((i) => request(store.index(i).count())));
  db.close();
  return counts.reduce((a, b) => a + b, 0);
}

it('keeps a post with two labels in 3 IndexedDB index entries (7 with the labels as IndexedDB indexes)', async () => {
  const asIndexes: StoreSchema = {
    ...STORE_SCHEMA,
    collections: STORE_SCHEMA.collections.map((c) => ({
      ...c,
      indexes: c.indexes.map(({ entries: _, ...i }) => i),
    })),
  };
  const entries = async (schema: StoreSchema) => {
    const factory = new IDBFactory();
    const d = idbDriver({ name: 'count', indexedDB: factory });
    await d.open(schema);
    await d.commit([put('posts', post(1, { labels: ['news', 'travel'] }), 0)]);
    await d.close();
    return indexEntries(factory, 'count');
  };
  expect(await entries(STORE_SCHEMA)).toBe(3);
  expect(await entries(asIndexes)).toBe(7);
});

it('answers label lists, keys, counts and searches (by label and by date) as the memory driver does, through rewrites, deletes and merges', async () => {
  const idb = idbDriver({ name: 'labels', indexedDB: new IDBFactory() });
  const mem = memoryDriver();
  const both = [idb, mem];
  for (const d of both) await d.open(STORE_SCHEMA);
  const commit = (ops: WriteOp[]) => Promise.all(both.map((d) => d.commit(ops)));
  const r = rng(7);
  const pick = () => LABELS.filter(() => r() < 0.4);
  const versions = new Map<number, number>();
  const record = (i: number): PostRecord =>
    post(i, {
      labels: pick(),
      status: r() < 0.2 ? 'DRAFT' : 'LIVE',
      updated: new Date(Date.UTC(2025, 1, 1, 0, 0, Math.floor(r() * 5000))).toISOString(),
    });
  // 120 commits of one to six writes: new posts, posts written over, deleted, and written again under their id.
  for (let n = 0; n < 120; n++) {
    const ops: WriteOp[] = [];
    const touched = new Set<number>();
    for (let k = 1 + Math.floor(r() * 6); k > 0; k--) {
      const i = Math.floor(r() * 150);
      if (touched.has(i)) continue;
      touched.add(i);
      const v = versions.get(i) ?? 0;
      if (v > 0 && r() < 0.25) {
        ops.push({ type: 'delete', collection: 'posts', id: post(i).id, expect: v });
        versions.set(i, 0);
      } else {
        ops.push(put('posts', record(i), v ? { version: v, doc: undefined } : 0));
        versions.set(i, v + 1);
      }
    }
    await commit(ops);
  }
  const same = async <T>(ask: (d: StorageDriver) => Promise<T>) => {
    const [a, b] = await Promise.all(both.map(ask));
    expect(a).toEqual(b);
    return a as T;
  };
  let seen = 0;
  for (const index of ['labelPublished', 'labelUpdated']) {
    for (const label of LABELS) {
      for (const status of ['LIVE', 'DRAFT']) {
        const prefix = ['b1', label, status];
        const all = await same((d) => d.list({ collection: 'posts', index, prefix, direction: 'asc', limit: 1000 }));
        seen += all.length;
        await same((d) => d.count({ collection: 'posts', index, prefix }));
        // Pages of 7 from each end, by keyset.
        for (const direction of ['asc', 'desc'] as const) {
          let bound: KeyBound | undefined;
          for (;;) {
            const page = await same((d) =>
              d.list({
                collection: 'posts',
                index,
                prefix,
                direction,
                limit: 7,
                ...(bound ? (direction === 'asc' ? { lower: bound } : { upper: bound }) : {}),
              }),
            );
            if (page.length < 7) break;
            bound = { key: page[6]!.key.slice(3), open: true };
          }
        }
        const middle = all[Math.floor(all.length / 2)]?.key.slice(3);
        if (middle)
          await same((d) =>
            d.count({ collection: 'posts', index, prefix, lower: { key: middle }, upper: { key: [middle[0]!, '~'] } }),
          );
      }
    }
    // Two labels at once, with and without documents, and a search among a label's posts.
    const prefixes = [
      ['b1', 'a', 'LIVE'],
      ['b1', 'c', 'LIVE'],
    ];
    for (const direction of ['asc', 'desc'] as const) {
      await same((d) => d.keys({ collection: 'posts', index, prefixes, direction, limit: 9 }));
      await same((d) =>
        d
          .keys({ collection: 'posts', index, prefixes, direction, limit: 9, docs: true })
          .then((es) => es.map(({ id, key }) => ({ id, key }))),
      );
      await same((d) =>
        d.search({ collection: 'posts', index, prefixes, direction, limit: 3, scope: 'b1', tokens: ['every'] }),
      );
      await same((d) =>
        d.search({ collection: 'posts', index, prefixes, direction, limit: 3, scope: 'b1', tokens: ['odd'] }),
      );
    }
  }
  // Searches by the first index, whose documents share the segments with the labels' entries.
  for (const direction of ['asc', 'desc'] as const)
    for (const tokens of [['every'], ['odd'], ['every', 'even']])
      for (const prefix of [
        ['b1', 'LIVE'],
        ['b1', 'DRAFT'],
      ])
        await same((d) =>
          d.search({
            collection: 'posts',
            index: 'published',
            prefixes: [prefix],
            direction,
            limit: 9,
            scope: 'b1',
            tokens,
          }),
        );
  expect(seen).toBeGreaterThan(100);
  for (const d of both) await d.close();
});
