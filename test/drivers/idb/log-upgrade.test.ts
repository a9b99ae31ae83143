/**
 * The IndexedDB change log of layout 1 (one `~log` record per commit holding its ops) opened by this build
 * (layout 2, `~changes` per op): the old records go, and new commits keep counting after them.
 */
import 'fake-indexeddb/auto';
import { IDBFactory } from 'fake-indexeddb';
import { expect, it } from 'vitest';
import { idbDriver } from '../../../drivers/idb/index.js';
import { suiteSchema, itemPut } from '../suite.js';

function legacyDatabase(factory: IDBFactory, name: string): Promise<void> {
  return new Promise((resolve, reject) => {
    // Layout 1 of schema version 1: IndexedDB version 1 × 1000 + 1, with its change log.
    const request = factory.open(name, 1001);
    request.onupgradeneeded = () => {
      const log = request.result.createObjectStore('~log', { autoIncrement: true });
      log.add({ ops: [{ c: 'items', id: 'a', op: 'put', v: 1 }] });
      log.add({
        ops: [
          { c: 'items', id: 'a', op: 'put', v: 2 },
          { c: 'items', id: 'b', op: 'put', v: 1 },
        ],
      });
    };
    request.onsuccess = () => {
      request.result.close();
      resolve();
    };
    request.onerror = () => reject(request.error);
  });
}

it('drops layout 1 change-log records, and keeps the sequence going', async () => {
  const factory = new IDBFactory();
  await legacyDatabase(factory, 'legacy-log');
  const d = idbDriver({ name: 'legacy-log', indexedDB: factory });
  await d.open(suiteSchema);
  expect(await d.changesSince(0)).toEqual([]);
  const next = await d.commit([{ ...itemPut({ id: 'c', group: 'g', status: 'LIVE', time: 't' }), stream: 'g' }], {
    time: 5,
  });
  expect(next.seq).toBe(3);
  expect((await d.changesSince(0)).map((c) => [c.seq, c.id, c.stream])).toEqual([[3, 'c', 'g']]);
  expect(await d.logBounds()).toEqual({ newest: 3, pruned: 0 });
  await d.close();
});
