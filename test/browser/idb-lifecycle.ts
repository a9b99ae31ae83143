/**
 * What the IndexedDB driver promises beyond the shared suite: persistence, schema upgrades, other tabs.
 * Runs in Node on fake-indexeddb (test/drivers/idb/lifecycle.test.ts) and in Chromium (test/drivers/idb/lifecycle.browser.test.ts).
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { StoreSchema } from '../../src/store/driver.js';
import { IdbBlockedError, idbDriver, type IdbDriverOptions } from '../../drivers/idb/index.js';
import { itemPut, suiteSchema } from '../drivers/suite.js';

export interface LifecycleEnv {
  /** A factory and a database name nobody has used yet. */
  fresh(): { factory: IDBFactory; name: string };
}

const v2: StoreSchema = {
  version: 2,
  collections: [
    ...suiteSchema.collections.map((c) =>
      c.name === 'items' ? { ...c, indexes: [...c.indexes, { name: 'byStatus' }] } : c,
    ),
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

const request = <T>(r: IDBRequest<T>) =>
  new Promise<T>((resolve, reject) => {
    r.onsuccess = () => resolve(r.result);
    r.onerror = () => reject(r.error);
  });

export function runIdbLifecycle(label: string, env: LifecycleEnv): void {
  describe(`idb driver lifecycle: ${label}`, () => {
    let used: Array<{ factory: IDBFactory; name: string }> = [];
    /** One database shared by several drivers ("tabs") in a test. */
    const database = () => {
      const db = env.fresh();
      used.push(db);
      return { ...db, driver: (o: IdbDriverOptions = {}) => idbDriver({ name: db.name, indexedDB: db.factory, ...o }) };
    };
    afterEach(async () => {
      for (const { factory, name } of used) await request(factory.deleteDatabase(name));
      used = [];
    });

    it('keeps documents, indexes, search terms and the change log across close and reopen', async () => {
      const db = database();
      const a = db.driver();
      await a.open(suiteSchema);
      const first = await a.commit([
        itemPut({ id: 'x', group: 'g', status: 'LIVE', time: 't1', slug: 's', words: ['hello'] }),
      ]);
      await a.close();
      await expect(a.get('items', 'x')).rejects.toThrow(/closed/);

      const b = db.driver();
      await b.open(suiteSchema);
      expect((await b.get('items', 'x'))?.version).toBe(1);
      expect((await b.getByIndex('items', 'bySlug', ['g', 's']))?.id).toBe('x');
      expect(
        await b.search({
          collection: 'items',
          scope: 'g',
          tokens: ['hello'],
          index: 'byTime',
          prefixes: [['g', 'LIVE']],
          direction: 'asc',
          limit: 10,
        }),
      ).toEqual([{ id: 'x', key: ['g', 'LIVE', 't1', 'x'] }]);
      const second = await b.commit([itemPut({ id: 'y', group: 'g', status: 'LIVE', time: 't2' })]);
      expect(second.seq).toBeGreaterThan(first.seq);
      expect((await b.changesSince(0)).map((c) => c.id)).toEqual(['x', 'y']);
      await b.close();
    });

    it('upgrades to a newer schema version, keeping the data and adding stores and indexes', async () => {
      const db = database();
      const old = db.driver();
      await old.open(suiteSchema);
      await old.commit([itemPut({ id: 'x', group: 'g', status: 'LIVE', time: 't1', slug: 's' })]);
      await old.close();

      const d = db.driver();
      await d.open(v2);
      expect((await d.get('items', 'x'))?.doc.status).toBe('LIVE');
      expect((await d.getByIndex('items', 'bySlug', ['g', 's']))?.id).toBe('x');
      // The new index fills as the core rewrites records with their new keys.
      const put = itemPut({ id: 'x', group: 'g', status: 'LIVE', time: 't1', slug: 's' }, 1);
      await d.commit([{ ...put, keys: { ...put.keys, byStatus: [['LIVE', 'x']] } }]);
      expect(await d.count({ collection: 'items', index: 'byStatus', prefix: ['LIVE'] })).toBe(1);
      await d.commit([
        { type: 'put', collection: 'extra', id: 'e', expect: 0, doc: { id: 'e' }, keys: { byName: [['n']] } },
      ]);
      expect((await d.getByIndex('extra', 'byName', ['n']))?.id).toBe('e');
      await d.close();
    });

    it('refuses to open a database written by a newer version of the app, with a clear error', async () => {
      const db = database();
      const newer = db.driver();
      await newer.open(v2);
      await newer.close();
      expect((await rejection(db.driver().open(suiteSchema))).message).toMatch(/newer version of this app/);
    });

    it('refuses a schema whose collections changed without a version bump', async () => {
      const db = database();
      const d = db.driver();
      await d.open(suiteSchema);
      await d.close();
      expect((await rejection(db.driver().open({ ...v2, version: 1 }))).message).toMatch(
        /lacks .*extra.*bump the schema version/,
      );
    });

    it('steps aside when another tab upgrades: the old connection closes and its calls fail clearly', async () => {
      const db = database();
      const tab1 = db.driver();
      await tab1.open(suiteSchema);
      await tab1.commit([itemPut({ id: 'x', group: 'g', status: 'LIVE', time: 't1' })]);
      const tab2 = db.driver();
      await tab2.open(v2); // does not wait for tab1: it closed itself on versionchange
      expect((await tab2.get('items', 'x'))?.id).toBe('x');
      expect((await rejection(tab1.get('items', 'x'))).message).toMatch(/upgraded by another tab.*reload/);
      await tab1.close();
      await tab2.close();
    });

    it('fails instead of hanging when a connection that ignores versionchange blocks the upgrade', async () => {
      const db = database();
      const d = db.driver();
      await d.open(suiteSchema);
      await d.close();
      // Someone else's connection (no versionchange handler) keeps the database open.
      const stubborn = await request(db.factory.open(db.name));
      const error = await rejection(db.driver({ blockedTimeoutMs: 50 }).open(v2));
      expect(error).toBeInstanceOf(IdbBlockedError);
      expect(error.message).toMatch(/another tab .* Close or reload the other tabs/);
      // Once the other connection goes, a new attempt upgrades.
      stubborn.close();
      const retry = db.driver();
      await retry.open(v2);
      expect(await retry.count({ collection: 'items', index: 'byTime', prefix: [] })).toBe(0);
      await retry.close();
    });

    it('reports a deleted database to the connection that had it open', async () => {
      const db = database();
      const d = db.driver();
      await d.open(suiteSchema);
      await request(db.factory.deleteDatabase(db.name));
      expect((await rejection(d.get('items', 'x'))).message).toMatch(/deleted by another tab/);
    });

    it('refuses a batch of inserts that collide with stored records or with each other, writing nothing', async () => {
      // Batches of pure inserts take the driver's no-read path: IndexedDB itself refuses the collision.
      const d = database().driver();
      await d.open(suiteSchema);
      await d.commit([itemPut({ id: 'a', group: 'g', status: 'LIVE', time: 't', slug: 's', words: ['w'] })]);
      const attempts: Array<[string, ReturnType<typeof itemPut>[], 'version' | 'unique', string, string | undefined]> =
        [
          [
            'existing id',
            [
              itemPut({ id: 'b', group: 'g', status: 'LIVE', time: 't', words: ['w'] }),
              itemPut({ id: 'a', group: 'g', status: 'X', time: 't' }),
            ],
            'version',
            'a',
            undefined,
          ],
          [
            'stored unique key',
            [
              itemPut({ id: 'b', group: 'g', status: 'LIVE', time: 't', words: ['w'] }),
              itemPut({ id: 'c', group: 'g', status: 'LIVE', time: 't', slug: 's' }),
            ],
            'unique',
            'c',
            'bySlug',
          ],
          [
            'unique key within the batch',
            [
              itemPut({ id: 'b', group: 'g', status: 'LIVE', time: 't', slug: 'n' }),
              itemPut({ id: 'c', group: 'g', status: 'LIVE', time: 't', slug: 'n' }),
            ],
            'unique',
            'c',
            'bySlug',
          ],
        ];
      for (const [what, ops, kind, id, index] of attempts) {
        const e = await rejection(d.commit(ops));
        expect(e, what).toMatchObject({
          name: 'DriverConflict',
          kind,
          collection: 'items',
          id,
          ...(index ? { index } : {}),
        });
        expect(await d.getMany('items', ['b', 'c']), what).toEqual([undefined, undefined]);
        expect(
          await d.search({
            collection: 'items',
            scope: 'g',
            tokens: ['w'],
            index: 'byTime',
            prefixes: [['g', 'LIVE']],
            direction: 'asc',
            limit: 10,
          }),
          what,
        ).toHaveLength(1);
        expect(await d.count({ collection: 'items', index: 'byTime', prefix: ['g'] }), what).toBe(1);
      }
      expect(await d.changesSince(0)).toHaveLength(1);
      const ok = await d.commit([itemPut({ id: 'b', group: 'g', status: 'LIVE', time: 't', slug: 'n' })]);
      expect((await d.changesSince(ok.seq - 1)).map((c) => [c.seq, c.id])).toEqual([[ok.seq, 'b']]);
      await d.close();
    });

    it('keeps search scopes apart even when their short token-key hashes collide', async () => {
      // The driver keys tokens by a 32-bit hash of the scope; these two blog ids share one (FNV-1a).
      const d = database().driver();
      await d.open(suiteSchema);
      await d.commit([
        itemPut({ id: 'a', group: 'blog512789', status: 'LIVE', time: 't', words: ['same'] }),
        itemPut({ id: 'b', group: 'blog749192', status: 'LIVE', time: 't', words: ['same'] }),
      ]);
      for (const [scope, id] of [
        ['blog512789', 'a'],
        ['blog749192', 'b'],
      ] as const) {
        expect(
          await d.search({
            collection: 'items',
            scope,
            tokens: ['same'],
            index: 'byTime',
            prefixes: [[scope, 'LIVE']],
            direction: 'asc',
            limit: 10,
          }),
        ).toEqual([{ id, key: [scope, 'LIVE', 't', id] }]);
      }
      await d.close();
    });

    it("never holds back another tab's commit with a chain of reads, each begun as the one before answered", async () => {
      const db = database();
      const [a, b] = [db.driver(), db.driver()];
      await a.open(suiteSchema);
      await b.open(suiteSchema);
      const item = { id: 'x', group: 'g', status: 'LIVE', time: 't' };
      await a.commit([itemPut(item)]);
      // (Reads begun together share a transaction; one begun later must not keep it, and the commit behind it, waiting.)
      let reads = 0;
      let written = false;
      const chain = (async () => {
        while (!written && reads < 2000) {
          await a.get('items', 'x');
          reads++;
        }
      })();
      await b.commit([itemPut({ ...item, time: 't2' }, 1)]);
      written = true;
      const readsBefore = reads;
      await chain;
      expect(readsBefore).toBeLessThan(1000);
      expect((await a.get('items', 'x'))?.version).toBe(2);
      await a.close();
      await b.close();
    });

    it('answers reads begun while an earlier one is under way, in the same turn or a later one', async () => {
      const d = database().driver();
      await d.open(suiteSchema);
      await d.commit(
        Array.from({ length: 50 }, (_, i) => itemPut({ id: `i${i}`, group: 'g', status: 'LIVE', time: `t${i}` })),
      );
      const ids = Array.from({ length: 50 }, (_, i) => `i${i}`);
      const first = d.getMany('items', ids);
      const together = d.list({
        collection: 'items',
        index: 'byTime',
        prefix: ['g', 'LIVE'],
        direction: 'desc',
        limit: 3,
      });
      // A later task: the transaction the first two opened takes no more requests there.
      await new Promise((resolve) => setTimeout(resolve, 0));
      const later = d.get('items', 'i7');
      const [many, page, one] = await Promise.all([first, together, later]);
      expect(many.map((r) => r?.id)).toEqual(ids);
      expect(page.map((r) => r.id)).toEqual(['i9', 'i8', 'i7']);
      expect(one?.id).toBe('i7');
      await d.close();
    });

    it('names the unique index on a conflict and rejects unknown collections and indexes', async () => {
      const d = database().driver();
      await d.open(suiteSchema);
      await d.commit([itemPut({ id: 'a', group: 'g', status: 'LIVE', time: 't', slug: 's' })]);
      const e = await rejection(d.commit([itemPut({ id: 'b', group: 'g', status: 'LIVE', time: 't', slug: 's' })]));
      expect(e).toMatchObject({
        name: 'DriverConflict',
        kind: 'unique',
        collection: 'items',
        id: 'b',
        index: 'bySlug',
      });
      await expect(d.get('nope', 'x')).rejects.toThrow(/unknown collection/);
      await expect(
        d.commit([{ type: 'put', collection: 'notes', id: 'n', expect: 0, doc: {}, keys: { missing: [['x']] } }]),
      ).rejects.toThrow(/unknown index/);
      expect(await d.changesSince(0)).toHaveLength(1);
      await d.close();
    });
  });
}
