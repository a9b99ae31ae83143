/** What the IndexedDB driver adds to the shared suite: persistence, schema upgrades and other tabs. */
import 'fake-indexeddb/auto';
import { IDBFactory } from 'fake-indexeddb';
import { describe, expect, it } from 'vitest';
import type { StoreSchema } from '../src/driver.js';
import { IdbBlockedError, idbDriver } from '../drivers/idb/index.js';
import { itemPut, suiteSchema } from './driver-suite.js';

const v2: StoreSchema = {
  version: 2,
  collections: [
    ...suiteSchema.collections.map((c) => (c.name === 'items' ? { ...c, indexes: [...c.indexes, { name: 'byStatus' }] } : c)),
    { name: 'extra', indexes: [{ name: 'byName', unique: true }] },
  ],
};

const rejection = async (p: Promise<unknown>): Promise<Error> => {
  try {
    await p;
  } catch (e) {
    return e as Error;
  }
  throw new Error('expected a rejection');
};

describe('idb driver lifecycle', () => {
  it('keeps documents, indexes, search terms and the change log across close and reopen', async () => {
    const factory = new IDBFactory();
    const a = idbDriver({ name: 'blog', indexedDB: factory });
    await a.open(suiteSchema);
    const first = await a.commit([itemPut({ id: 'x', group: 'g', status: 'LIVE', time: 't1', slug: 's', words: ['hello'] })]);
    await a.close();
    await expect(a.get('items', 'x')).rejects.toThrow(/closed/);

    const b = idbDriver({ name: 'blog', indexedDB: factory });
    await b.open(suiteSchema);
    expect((await b.get('items', 'x'))?.version).toBe(1);
    expect((await b.getByIndex('items', 'bySlug', ['g', 's']))?.id).toBe('x');
    expect(await b.search({ collection: 'items', scope: 'g', tokens: ['hello'], index: 'byTime' })).toEqual([
      { id: 'x', key: ['g', 'LIVE', 't1', 'x'] },
    ]);
    const second = await b.commit([itemPut({ id: 'y', group: 'g', status: 'LIVE', time: 't2' })]);
    expect(second.seq).toBeGreaterThan(first.seq);
    expect((await b.changesSince(0)).map((c) => c.id)).toEqual(['x', 'y']);
    await b.close();
  });

  it('upgrades to a newer schema version, keeping the data and adding stores and indexes', async () => {
    const factory = new IDBFactory();
    const old = idbDriver({ name: 'blog', indexedDB: factory });
    await old.open(suiteSchema);
    await old.commit([itemPut({ id: 'x', group: 'g', status: 'LIVE', time: 't1', slug: 's' })]);
    await old.close();

    const d = idbDriver({ name: 'blog', indexedDB: factory });
    await d.open(v2);
    expect((await d.get('items', 'x'))?.doc.status).toBe('LIVE');
    expect((await d.getByIndex('items', 'bySlug', ['g', 's']))?.id).toBe('x');
    // The new index fills as the core rewrites records with its keys.
    await d.commit([{ ...itemPut({ id: 'x', group: 'g', status: 'LIVE', time: 't1', slug: 's' }, 1), keys: { ...itemPut({ id: 'x', group: 'g', status: 'LIVE', time: 't1' }).keys, byStatus: [['LIVE', 'x']] } }]);
    expect(await d.count({ collection: 'items', index: 'byStatus', prefix: ['LIVE'] })).toBe(1);
    await d.commit([{ type: 'put', collection: 'extra', id: 'e', expect: 0, doc: { id: 'e' }, keys: { byName: [['n']] } }]);
    expect((await d.getByIndex('extra', 'byName', ['n']))?.id).toBe('e');
    await d.close();
  });

  it('refuses to open a database written by a newer version of the app, with a clear error', async () => {
    const factory = new IDBFactory();
    const newer = idbDriver({ name: 'blog', indexedDB: factory });
    await newer.open(v2);
    await newer.close();
    const older = idbDriver({ name: 'blog', indexedDB: factory });
    expect((await rejection(older.open(suiteSchema))).message).toMatch(/newer version of this app/);
  });

  it('refuses a schema whose collections changed without a version bump', async () => {
    const factory = new IDBFactory();
    const d = idbDriver({ name: 'blog', indexedDB: factory });
    await d.open(suiteSchema);
    await d.close();
    const changed = idbDriver({ name: 'blog', indexedDB: factory });
    expect((await rejection(changed.open({ ...v2, version: 1 }))).message).toMatch(/lacks .*extra.*bump the schema version/);
  });

  it('steps aside when another tab upgrades: the old connection closes and its calls fail clearly', async () => {
    const factory = new IDBFactory();
    const tab1 = idbDriver({ name: 'blog', indexedDB: factory });
    await tab1.open(suiteSchema);
    await tab1.commit([itemPut({ id: 'x', group: 'g', status: 'LIVE', time: 't1' })]);
    const tab2 = idbDriver({ name: 'blog', indexedDB: factory });
    await tab2.open(v2); // does not wait for tab1: it closed itself on versionchange
    expect((await tab2.get('items', 'x'))?.id).toBe('x');
    expect((await rejection(tab1.get('items', 'x'))).message).toMatch(/upgraded by another tab.*reload/);
    await tab1.close();
    await tab2.close();
  });

  it('fails instead of hanging when a connection that ignores versionchange blocks the upgrade', async () => {
    const factory = new IDBFactory();
    const d = idbDriver({ name: 'blog', indexedDB: factory });
    await d.open(suiteSchema);
    await d.close();
    // Someone else's connection (no versionchange handler) keeps the database open.
    const stubborn = await new Promise<IDBDatabase>((resolve, reject) => {
      const r = factory.open('blog');
      r.onsuccess = () => resolve(r.result);
      r.onerror = () => reject(r.error);
    });
    const blocked = idbDriver({ name: 'blog', indexedDB: factory, blockedTimeoutMs: 50 });
    const error = await rejection(blocked.open(v2));
    expect(error).toBeInstanceOf(IdbBlockedError);
    expect(error.message).toMatch(/another tab .* Close or reload the other tabs/);
    // Once the other connection goes, a new attempt upgrades.
    stubborn.close();
    const retry = idbDriver({ name: 'blog', indexedDB: factory });
    await retry.open(v2);
    expect(await retry.count({ collection: 'items', index: 'byTime', prefix: [] })).toBe(0);
    await retry.close();
  });

  it('reports a deleted database to the connection that had it open', async () => {
    const factory = new IDBFactory();
    const d = idbDriver({ name: 'blog', indexedDB: factory });
    await d.open(suiteSchema);
    await new Promise<void>((resolve, reject) => {
      const r = factory.deleteDatabase('blog');
      r.onsuccess = () => resolve();
      r.onerror = () => reject(r.error);
    });
    expect((await rejection(d.get('items', 'x'))).message).toMatch(/deleted by another tab/);
  });

  it('names the unique index on a conflict and rejects unknown collections and indexes', async () => {
    const d = idbDriver({ indexedDB: new IDBFactory() });
    await d.open(suiteSchema);
    await d.commit([itemPut({ id: 'a', group: 'g', status: 'LIVE', time: 't', slug: 's' })]);
    const e = await rejection(d.commit([itemPut({ id: 'b', group: 'g', status: 'LIVE', time: 't', slug: 's' })]));
    expect(e).toMatchObject({ name: 'DriverConflict', kind: 'unique', collection: 'items', id: 'b', index: 'bySlug' });
    await expect(d.get('nope', 'x')).rejects.toThrow(/unknown collection/);
    await expect(
      d.commit([{ type: 'put', collection: 'notes', id: 'n', expect: 0, doc: {}, keys: { missing: [['x']] } }]),
    ).rejects.toThrow(/unknown index/);
    expect(await d.changesSince(0)).toHaveLength(1);
    await d.close();
  });
});
