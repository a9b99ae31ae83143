/**
 * A database as layout 2 of the IndexedDB driver wrote it (search terms as one multiEntry index entry per
 * token in `~terms.<collection>`, one `~changes` record per op), built here with raw IndexedDB calls the way
 * that layout stored it, then opened by this build: search finds what it found, the change log reads on,
 * and writes go on from there. Runs on fake-indexeddb and in Chromium.
 */
import { expect, it } from 'vitest';
import { idbDriver } from '../../drivers/idb/index.js';
import { shortHash } from '../../src/util/ids.js';
import { itemPut, suiteSchema, type Item } from '../drivers/suite.js';

const request = <T>(r: IDBRequest<T>) =>
  new Promise<T>((resolve, reject) => {
    r.onsuccess = () => resolve(r.result);
    r.onerror = () => reject(r.error);
  });

const ITEMS: Item[] = Array.from({ length: 40 }, (_, i) => ({
  id: `i${String(i).padStart(3, '0')}`,
  group: i % 4 === 0 ? 'h' : 'g',
  status: i % 5 === 0 ? 'DRAFT' : 'LIVE',
  time: `2025-01-01T00:00:${String(i).padStart(2, '0')}.000Z`,
  slug: `s${i}`,
  words: ['every', i % 3 === 0 ? 'third' : 'other', ...(i % 2 ? ['odd'] : [])],
}));

/** Layout 2 of schema version 1 (IndexedDB version 1 × 1000 + 2), holding ITEMS as one commit each. */
async function layout2(factory: IDBFactory, name: string): Promise<void> {
  const open = factory.open(name, 1002);
  open.onupgradeneeded = () => {
    const db = open.result;
    const items = db.createObjectStore('items', { keyPath: 'id' });
    for (const index of suiteSchema.collections[0]!.indexes)
      items.createIndex(index.name, `k.${index.name}`, { unique: !!index.unique, multiEntry: true });
    db.createObjectStore('notes', { keyPath: 'id' }).createIndex('byItem', 'k.byItem', { multiEntry: true });
    db.createObjectStore('~terms.items', { keyPath: 'id' }).createIndex('t', 't', { multiEntry: true });
    db.createObjectStore('~log', { autoIncrement: true });
    db.createObjectStore('~meta');
    db.createObjectStore('~changes').createIndex('stream', ['s', 'q', 'p']);
  };
  const db = await request(open);
  const tx = db.transaction(['items', '~terms.items', '~log', '~changes'], 'readwrite');
  ITEMS.forEach((item, i) => {
    const op = itemPut(item);
    tx.objectStore('items').put({ id: item.id, v: 1, doc: op.doc, k: op.keys, s: item.group });
    tx.objectStore('~terms.items').put({ id: item.id, t: item.words!.map((w) => `${shortHash(item.group)}:${w}`) });
    tx.objectStore('~log').add({ t: 1000 + i });
    tx.objectStore('~changes').add(
      { q: i + 1, p: 0, c: 'items', id: item.id, op: 'put', v: 1, t: 1000 + i, s: item.group },
      [i + 1, 0],
    );
  });
  await new Promise<void>((resolve, reject) => {
    tx.oncomplete = () => resolve();
    tx.onerror = () => reject(tx.error);
  });
  db.close();
}

export function layoutUpgrade(env: { fresh(): { factory: IDBFactory; name: string } }): void {
  it('opens a database written by layout 2: its search terms, change log and records carry over', async () => {
    const { factory, name } = env.fresh();
    await layout2(factory, name);
    const d = idbDriver({ name, indexedDB: factory });
    await d.open(suiteSchema);
    const search = async (tokens: string[], scope = 'g') =>
      (
        await d.search({
          collection: 'items',
          index: 'byTime',
          scope,
          tokens,
          prefixes: [
            [scope, 'LIVE'],
            [scope, 'DRAFT'],
          ],
          direction: 'desc',
          limit: 100,
        })
      ).map((e) => e.id);
    const expected = (pred: (i: Item) => boolean, scope = 'g') =>
      ITEMS.filter((i) => i.group === scope && pred(i))
        .sort((a, b) => (a.time < b.time ? 1 : -1))
        .map((i) => i.id);
    expect(await search(['every'])).toEqual(expected(() => true));
    expect(await search(['third', 'odd'])).toEqual(
      expected((i) => i.words!.includes('third') && i.words!.includes('odd')),
    );
    expect(await search(['odd'], 'h')).toEqual(expected((i) => i.words!.includes('odd'), 'h'));
    // The log reads on, and goes on.
    expect((await d.changesSince(0, 1000)).map((c) => c.id)).toEqual(ITEMS.map((i) => i.id));
    expect((await d.streamChanges('h', { seq: 0, pos: -1 }, 100)).map((c) => c.id)).toEqual(
      ITEMS.filter((i) => i.group === 'h').map((i) => i.id),
    );
    const item = ITEMS[3]!;
    const { seq } = await d.commit([{ ...itemPut({ ...item, words: ['changed'] }, 1), stream: item.group }]);
    expect(seq).toBe(ITEMS.length + 1);
    expect(await search(['changed'])).toEqual([item.id]);
    expect(await search(['every'])).toEqual(expected((i) => i.id !== item.id));
    expect((await d.get('items', item.id))?.version).toBe(2);
    await d.close();
    await request(factory.deleteDatabase(name));
  });
}
