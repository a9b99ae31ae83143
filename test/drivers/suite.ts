/**
 * The driver conformance suite: the executable form of `src/store/driver.ts`. Every driver runs it unchanged
 * (memory, SQLite file and :memory:, IndexedDB on fake-indexeddb and in Chromium, PostgreSQL). It uses its own
 * small schema and imports nothing but the contract, so it checks the contract rather than blogcore's rules
 * (test/drivers/bounded.ts runs the service over each driver and counts what it hands out).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  compareKeys,
  DriverConflict,
  type AddOp,
  type IndexedDoc,
  type JsonObject,
  type Key,
  type PutOp,
  type StorageDriver,
  type StoreSchema,
  type WriteOp,
} from '../../src/store/driver.js';
import { runBlobSuite } from '../blobs/suite.js';

export const suiteSchema: StoreSchema = {
  version: 1,
  collections: [
    {
      name: 'items',
      search: true,
      indexes: [{ name: 'byTime' }, { name: 'byTag' }, { name: 'bySlug', unique: true }],
    },
    { name: 'notes', indexes: [{ name: 'byItem' }] },
    {
      name: 'counts',
      counters: ['n', 'm'],
      indexes: [
        { name: 'byGroup', fields: ['group', 'id'], entries: 'one' },
        { name: 'held', fields: ['group', 'id'], entries: 'one', positive: 'n' },
      ],
    },
  ],
};

export interface Item {
  id: string;
  group: string;
  status: string;
  time: string;
  tags?: string[];
  slug?: string;
  words?: string[];
  body?: JsonObject;
}

/** How the suite's "core" turns an item into index entries: every key ends with the id. */
export function itemPut(item: Item, expect = 0): PutOp {
  return {
    type: 'put',
    collection: 'items',
    id: item.id,
    expect,
    doc: item as unknown as JsonObject,
    keys: {
      byTime: [[item.group, item.status, item.time, item.id]],
      byTag: (item.tags ?? []).map((t) => [item.group, t, item.time, item.id]),
      bySlug: item.slug ? [[item.group, item.slug]] : [],
    },
    ...(item.words ? { terms: { scope: item.group, tokens: item.words } } : {}),
  };
}

const pad = (n: number) => String(n).padStart(6, '0');
const time = (n: number) => `2026-01-01T00:00:00.${String(n % 1000).padStart(3, '0')}Z#${pad(n)}`;

async function expectConflict(p: Promise<unknown>, kind: 'version' | 'unique') {
  let caught: unknown;
  try {
    await p;
  } catch (e) {
    caught = e;
  }
  expect(DriverConflict.is(caught), `expected a ${kind} DriverConflict, got ${String(caught)}`).toBe(true);
  expect((caught as DriverConflict).kind).toBe(kind);
}

const ids = (docs: IndexedDoc[]) => docs.map((d) => d.id);

export interface DriverSuiteOptions {
  /** Scale of the larger walks; lower it where every call is slow (real IndexedDB in a browser). */
  size?: number;
}

export function runDriverSuite(
  name: string,
  create: () => StorageDriver | Promise<StorageDriver>,
  options: DriverSuiteOptions = {},
): void {
  const size = options.size ?? 300;

  // The driver's own blob store (media bytes beside the records) meets the blob-store contract too.
  runBlobSuite(name, async () => {
    const d = await create();
    await d.open(suiteSchema);
    return { blobs: d.blobs, close: () => d.close() };
  });

  describe(`driver conformance: ${name}`, () => {
    let d: StorageDriver;
    beforeEach(async () => {
      d = await create();
      await d.open(suiteSchema);
    });
    afterEach(async () => {
      await d.close();
    });

    describe('documents and versions', () => {
      it('stores a document, returns it as JSON with version 1, and bumps the version per put', async () => {
        const body = { nested: { list: [1, 2.5, true, null, 'é 日本 🙂'] }, empty: {} };
        await d.commit([itemPut({ id: 'a', group: 'g', status: 'LIVE', time: time(1), body })]);
        const got = await d.get('items', 'a');
        expect(got).toEqual({ id: 'a', version: 1, doc: { id: 'a', group: 'g', status: 'LIVE', time: time(1), body } });
        await d.commit([itemPut({ id: 'a', group: 'g', status: 'DRAFT', time: time(2) }, 1)]);
        const again = await d.get('items', 'a');
        expect(again?.version).toBe(2);
        expect(again?.doc.status).toBe('DRAFT');
        expect(again?.doc.body).toBeUndefined();
      });

      it('answers undefined for unknown ids and keeps getMany in the order asked', async () => {
        await d.commit([
          itemPut({ id: 'x', group: 'g', status: 'LIVE', time: time(1) }),
          itemPut({ id: 'y', group: 'g', status: 'LIVE', time: time(2) }),
        ]);
        expect(await d.get('items', 'nope')).toBeUndefined();
        const many = await d.getMany('items', ['y', 'nope', 'x']);
        expect(many.map((m) => m?.id)).toEqual(['y', undefined, 'x']);
        expect(await d.getMany('items', [])).toEqual([]);
      });

      it('getNow, where the driver offers it, answers at once what get answers', async () => {
        if (!d.getNow) return;
        await d.commit([itemPut({ id: 'a', group: 'g', status: 'LIVE', time: time(1), tags: ['t'] })]);
        expect(d.getNow('items', 'a')).toEqual(await d.get('items', 'a'));
        expect(d.getNow('items', 'nope')).toBeUndefined();
        await d.commit([itemPut({ id: 'a', group: 'g', status: 'DRAFT', time: time(2) }, 1)]);
        expect(d.getNow('items', 'a')).toEqual({
          id: 'a',
          version: 2,
          doc: { id: 'a', group: 'g', status: 'DRAFT', time: time(2) },
        });
      });

      it('keeps stored data apart from the objects passed in', async () => {
        const item: Item = { id: 'a', group: 'g', status: 'LIVE', time: time(1), tags: ['t'] };
        const op = itemPut(item);
        await d.commit([op]);
        item.status = 'CHANGED';
        item.tags!.push('u');
        const got = await d.get('items', 'a');
        expect(got?.doc.status).toBe('LIVE');
        expect(got?.doc.tags).toEqual(['t']);
      });

      it('reads a record read again and again as last written, and never as a reader changed it', async () => {
        const page = () => d.list({ collection: 'items', index: 'byTime', prefix: ['g'], direction: 'desc', limit: 5 });
        const readOften = async () => {
          for (let n = 0; n < 6; n++) await Promise.all([d.get('items', 'a'), page()]);
          return Promise.all([d.get('items', 'a'), page()]);
        };
        await d.commit([itemPut({ id: 'a', group: 'g', status: 'LIVE', time: time(1), tags: ['t'] })]);
        let [got, listed] = await readOften();
        // A caller changing what it was handed (where the object lets it) changes nothing stored.
        for (const doc of [got!.doc, listed[0]!.doc]) {
          try {
            doc.status = 'CHANGED';
            (doc.tags as string[]).push('u');
          } catch {}
        }
        [got, listed] = await readOften();
        expect(got?.doc).toEqual({ id: 'a', group: 'g', status: 'LIVE', time: time(1), tags: ['t'] });
        expect(listed.map((x) => x.doc)).toEqual([got?.doc]);
        await d.commit([itemPut({ id: 'a', group: 'g', status: 'LIVE', time: time(1), tags: ['v'] }, 1)]);
        [got, listed] = await readOften();
        expect([got?.doc.tags, listed[0]?.doc.tags, listed[0]?.version]).toEqual([['v'], ['v'], 2]);
        // Deleted and made again under the same id: the new record, though its version starts over.
        await d.commit([{ type: 'delete', collection: 'items', id: 'a', expect: 2 }]);
        await d.commit([itemPut({ id: 'a', group: 'g', status: 'LIVE', time: time(1), tags: ['w'] })]);
        [got, listed] = await readOften();
        expect([got?.doc.tags, listed[0]?.doc.tags, got?.version]).toEqual([['w'], ['w'], 1]);
      });

      it('stores hostile keys such as __proto__ as plain data', async () => {
        const doc = JSON.parse(
          '{"id":"p","group":"g","status":"LIVE","time":"t","body":{"__proto__":{"polluted":1},"constructor":"c"}}',
        );
        await d.commit([{ ...itemPut(doc), doc }]);
        const got = await d.get('items', 'p');
        expect(JSON.stringify(got?.doc.body)).toBe('{"__proto__":{"polluted":1},"constructor":"c"}');
        expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      });
    });

    describe('compare-and-set commits', () => {
      it('refuses a put whose expected version is stale, and writes nothing of the batch', async () => {
        await d.commit([itemPut({ id: 'a', group: 'g', status: 'LIVE', time: time(1) })]);
        await expectConflict(
          d.commit([
            itemPut({ id: 'b', group: 'g', status: 'LIVE', time: time(2) }),
            itemPut({ id: 'a', group: 'g', status: 'DRAFT', time: time(3) }, 7),
          ]),
          'version',
        );
        expect(await d.get('items', 'b')).toBeUndefined();
        expect((await d.get('items', 'a'))?.doc.status).toBe('LIVE');
        expect(await d.count({ collection: 'items', index: 'byTime', prefix: ['g'] })).toBe(1);
      });

      it('refuses to create a record that exists (expect 0) and to delete with a stale version', async () => {
        await d.commit([itemPut({ id: 'a', group: 'g', status: 'LIVE', time: time(1) })]);
        await expectConflict(d.commit([itemPut({ id: 'a', group: 'g', status: 'X', time: time(1) })]), 'version');
        await expectConflict(d.commit([{ type: 'delete', collection: 'items', id: 'a', expect: 2 }]), 'version');
        await expectConflict(d.commit([{ type: 'delete', collection: 'items', id: 'zz', expect: 1 }]), 'version');
        expect((await d.get('items', 'a'))?.version).toBe(1);
      });

      it('lets exactly one of two writers holding the same version win', async () => {
        await d.commit([itemPut({ id: 'a', group: 'g', status: 'LIVE', time: time(1) })]);
        const results = await Promise.allSettled([
          d.commit([itemPut({ id: 'a', group: 'g', status: 'ONE', time: time(1) }, 1)]),
          d.commit([itemPut({ id: 'a', group: 'g', status: 'TWO', time: time(1) }, 1)]),
        ]);
        expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
        const rejected = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
        expect(DriverConflict.is(rejected.reason)).toBe(true);
        const got = await d.get('items', 'a');
        expect(got?.version).toBe(2);
        expect(['ONE', 'TWO']).toContain(got?.doc.status);
      });

      it('applies a composite write (a record and its dependents) all at once or not at all', async () => {
        await d.commit([
          itemPut({ id: 'post', group: 'g', status: 'LIVE', time: time(1) }),
          ...['n1', 'n2', 'n3'].map(
            (id): WriteOp => ({
              type: 'put',
              collection: 'notes',
              id,
              expect: 0,
              doc: { id },
              keys: { byItem: [['post', id]] },
            }),
          ),
        ]);
        // One dependent moved meanwhile: the whole delete must fail.
        await d.commit([
          {
            type: 'put',
            collection: 'notes',
            id: 'n2',
            expect: 1,
            doc: { id: 'n2', edited: true },
            keys: { byItem: [['post', 'n2']] },
          },
        ]);
        const deleteAll = (v2: number): WriteOp[] => [
          { type: 'delete', collection: 'items', id: 'post', expect: 1 },
          { type: 'delete', collection: 'notes', id: 'n1', expect: 1 },
          { type: 'delete', collection: 'notes', id: 'n2', expect: v2 },
          { type: 'delete', collection: 'notes', id: 'n3', expect: 1 },
        ];
        await expectConflict(d.commit(deleteAll(1)), 'version');
        expect(await d.count({ collection: 'notes', index: 'byItem', prefix: ['post'] })).toBe(3);
        expect(await d.get('items', 'post')).toBeDefined();
        await d.commit(deleteAll(2));
        expect(await d.count({ collection: 'notes', index: 'byItem', prefix: ['post'] })).toBe(0);
        expect(await d.get('items', 'post')).toBeUndefined();
        expect(await d.getMany('notes', ['n1', 'n2', 'n3'])).toEqual([undefined, undefined, undefined]);
      });

      it('treats several ops on one record in a batch in order', async () => {
        await d.commit([
          itemPut({ id: 'a', group: 'g', status: 'LIVE', time: time(1) }),
          itemPut({ id: 'a', group: 'g', status: 'DRAFT', time: time(2) }, 1),
        ]);
        const got = await d.get('items', 'a');
        expect(got?.version).toBe(2);
        expect(got?.doc.status).toBe('DRAFT');
        const byTime = await d.list({
          collection: 'items',
          index: 'byTime',
          prefix: ['g'],
          direction: 'asc',
          limit: 10,
        });
        expect(byTime.map((e) => e.key)).toEqual([['g', 'DRAFT', time(2), 'a']]);
      });
    });

    describe('unique indexes', () => {
      it('finds a record by its unique key and refuses a second holder', async () => {
        await d.commit([itemPut({ id: 'a', group: 'g', status: 'LIVE', time: time(1), slug: 'hello' })]);
        expect((await d.getByIndex('items', 'bySlug', ['g', 'hello']))?.id).toBe('a');
        expect(await d.getByIndex('items', 'bySlug', ['g', 'other'])).toBeUndefined();
        expect(await d.getByIndex('items', 'bySlug', ['h', 'hello'])).toBeUndefined();
        await expectConflict(
          d.commit([itemPut({ id: 'b', group: 'g', status: 'LIVE', time: time(2), slug: 'hello' })]),
          'unique',
        );
        expect(await d.get('items', 'b')).toBeUndefined();
        // The same slug in another group is another key.
        await d.commit([itemPut({ id: 'c', group: 'h', status: 'LIVE', time: time(2), slug: 'hello' })]);
        expect((await d.getByIndex('items', 'bySlug', ['h', 'hello']))?.id).toBe('c');
      });

      it('frees a key when its holder changes or goes, and lets a record keep its own key', async () => {
        await d.commit([itemPut({ id: 'a', group: 'g', status: 'LIVE', time: time(1), slug: 's1' })]);
        await d.commit([itemPut({ id: 'a', group: 'g', status: 'DRAFT', time: time(1), slug: 's1' }, 1)]);
        await d.commit([itemPut({ id: 'a', group: 'g', status: 'DRAFT', time: time(1), slug: 's2' }, 2)]);
        await d.commit([itemPut({ id: 'b', group: 'g', status: 'LIVE', time: time(2), slug: 's1' })]);
        expect((await d.getByIndex('items', 'bySlug', ['g', 's1']))?.id).toBe('b');
        await d.commit([{ type: 'delete', collection: 'items', id: 'a', expect: 3 }]);
        expect(await d.getByIndex('items', 'bySlug', ['g', 's2'])).toBeUndefined();
        await d.commit([itemPut({ id: 'c', group: 'g', status: 'LIVE', time: time(3), slug: 's2' })]);
        expect((await d.getByIndex('items', 'bySlug', ['g', 's2']))?.id).toBe('c');
      });

      it('lets one batch move a key from one record to another', async () => {
        await d.commit([itemPut({ id: 'a', group: 'g', status: 'LIVE', time: time(1), slug: 'k' })]);
        await d.commit([
          itemPut({ id: 'a', group: 'g', status: 'LIVE', time: time(1) }, 1),
          itemPut({ id: 'b', group: 'g', status: 'LIVE', time: time(2), slug: 'k' }),
        ]);
        expect((await d.getByIndex('items', 'bySlug', ['g', 'k']))?.id).toBe('b');
      });
    });

    describe('index walks', () => {
      // 3 groups; in group "g": statuses LIVE/DRAFT; times with ties broken by id.
      const seed = async () => {
        const ops: WriteOp[] = [];
        for (let i = 0; i < 30; i++) {
          ops.push(
            itemPut({
              id: `id${pad(i)}`,
              group: 'g',
              status: i % 3 === 0 ? 'DRAFT' : 'LIVE',
              time: time(Math.floor(i / 2)), // pairs share a time
              tags: i % 2 ? ['odd', 'all'] : ['all'],
            }),
          );
        }
        ops.push(itemPut({ id: 'other1', group: 'g2', status: 'LIVE', time: time(5) }));
        ops.push(itemPut({ id: 'other2', group: 'g-', status: 'LIVE', time: time(5) }));
        ops.push(itemPut({ id: 'other3', group: 'gg', status: 'LIVE', time: time(5) }));
        await d.commit(ops);
        return ops.slice(0, 30).map((o) => (o as PutOp).keys.byTime![0]!);
      };

      it('walks an index prefix in key order, both directions, with a limit', async () => {
        const keys = await seed();
        const live = keys.filter((k) => k[1] === 'LIVE').sort(compareKeys);
        const asc = await d.list({
          collection: 'items',
          index: 'byTime',
          prefix: ['g', 'LIVE'],
          direction: 'asc',
          limit: 100,
        });
        expect(asc.map((e) => e.key)).toEqual(live);
        expect(asc[0]!.doc.status).toBe('LIVE');
        expect(asc[0]!.version).toBe(1);
        const desc = await d.list({
          collection: 'items',
          index: 'byTime',
          prefix: ['g', 'LIVE'],
          direction: 'desc',
          limit: 5,
        });
        expect(desc.map((e) => e.key)).toEqual([...live].reverse().slice(0, 5));
        const whole = await d.list({
          collection: 'items',
          index: 'byTime',
          prefix: ['g'],
          direction: 'asc',
          limit: 1000,
        });
        expect(whole).toHaveLength(30); // not g2, g- or gg
        expect(
          await d.list({ collection: 'items', index: 'byTime', prefix: ['g', 'LIVE'], direction: 'asc', limit: 0 }),
        ).toEqual([]);
        expect(
          await d.list({ collection: 'items', index: 'byTime', prefix: ['nothing'], direction: 'desc', limit: 5 }),
        ).toEqual([]);
      });

      it('honours lower and upper bounds, open or closed, on the key after the prefix', async () => {
        const keys = await seed();
        const live = keys.filter((k) => k[1] === 'LIVE').sort(compareKeys);
        const q = { collection: 'items', index: 'byTime', prefix: ['g', 'LIVE'] } as const;
        const walk = async (
          lower?: Key,
          lowerOpen?: boolean,
          upper?: Key,
          upperOpen?: boolean,
          direction: 'asc' | 'desc' = 'asc',
        ) =>
          (
            await d.list({
              ...q,
              ...(lower ? { lower: { key: lower, open: lowerOpen } } : {}),
              ...(upper ? { upper: { key: upper, open: upperOpen } } : {}),
              direction,
              limit: 1000,
            })
          ).map((e) => e.key);
        // A bound shorter than the key: [time] closed as lower takes every key with that time.
        expect(await walk([time(3)])).toEqual(live.filter((k) => k[2]! >= time(3)));
        // [time] open as upper excludes every key with that time; closed does too (a longer key sorts after).
        expect(await walk(undefined, false, [time(3)], true)).toEqual(live.filter((k) => k[2]! < time(3)));
        expect(await walk(undefined, false, [time(3)], false)).toEqual(live.filter((k) => k[2]! < time(3)));
        // Full keys: exactly one key excluded or included.
        const mid = live[7]!.slice(2);
        expect(await walk(mid, true)).toEqual(live.slice(8));
        expect(await walk(mid, false)).toEqual(live.slice(7));
        expect(await walk(undefined, false, mid, true, 'desc')).toEqual(live.slice(0, 7).reverse());
        expect(await walk(undefined, false, mid, false, 'desc')).toEqual(live.slice(0, 8).reverse());
        expect(await walk(live[2]!.slice(2), false, live[5]!.slice(2), true)).toEqual(live.slice(2, 5));
        // An empty range.
        expect(await walk(live[5]!.slice(2), true, live[5]!.slice(2), true)).toEqual([]);
      });

      it('merges several prefixes into one page of entries ordered by the key after the prefix, without documents', async () => {
        const keys = await seed();
        const bySuffix = (a: Key, b: Key) => compareKeys(a.slice(2), b.slice(2));
        const all = [...keys].sort(bySuffix);
        const q = {
          collection: 'items',
          index: 'byTime',
          prefixes: [
            ['g', 'LIVE'],
            ['g', 'DRAFT'],
          ],
        } as const;
        const asc = await d.keys({ ...q, direction: 'asc', limit: 100 });
        expect(asc.map((e) => e.key)).toEqual(all);
        expect(asc.map((e) => e.id)).toEqual(all.map((k) => k[3]));
        expect(Object.keys(asc[0]!).sort()).toEqual(['id', 'key']);
        const desc = await d.keys({ ...q, direction: 'desc', limit: 7 });
        expect(desc.map((e) => e.key)).toEqual([...all].reverse().slice(0, 7));
        // Bounds apply to the suffix under every prefix; a keyset walk page by page sees every entry once.
        const seen: Key[] = [];
        let after: Key | undefined;
        for (;;) {
          const pg = await d.keys({
            ...q,
            direction: 'desc',
            limit: 4,
            ...(after ? { upper: { key: after, open: true } } : {}),
          });
          seen.push(...pg.map((e) => e.key));
          if (pg.length < 4) break;
          after = pg[pg.length - 1]!.key.slice(2);
        }
        expect(seen).toEqual([...all].reverse());
        expect(await d.keys({ ...q, lower: { key: [time(10)] }, direction: 'asc', limit: 100 })).toEqual(
          asc.filter((e) => e.key[2]! >= time(10)),
        );
        expect(await d.keys({ ...q, prefixes: [['nothing', 'x']], direction: 'asc', limit: 5 })).toEqual([]);
        expect(await d.keys({ ...q, direction: 'asc', limit: 0 })).toEqual([]);
      });

      it('gives a record found under several prefixes once, under the first prefix that holds it', async () => {
        await seed();
        const q = {
          collection: 'items',
          index: 'byTag',
          prefixes: [
            ['g', 'odd'],
            ['g', 'all'],
          ],
          direction: 'asc',
        } as const;
        const page = await d.keys({ ...q, limit: 100 });
        expect(page).toHaveLength(30);
        expect(new Set(page.map((e) => e.id)).size).toBe(30);
        for (const e of page) expect(e.key[1]).toBe(Number(e.id.slice(2)) % 2 ? 'odd' : 'all');
        // Repeats do not use up the limit.
        expect((await d.keys({ ...q, limit: 10 })).map((e) => e.id)).toEqual(page.slice(0, 10).map((e) => e.id));
      });

      it('counts the entries of a range', async () => {
        const keys = await seed();
        const live = keys.filter((k) => k[1] === 'LIVE').sort(compareKeys);
        expect(await d.count({ collection: 'items', index: 'byTime', prefix: ['g', 'LIVE'] })).toBe(live.length);
        expect(await d.count({ collection: 'items', index: 'byTime', prefix: ['g'] })).toBe(30);
        expect(
          await d.count({ collection: 'items', index: 'byTime', prefix: ['g', 'LIVE'], lower: { key: [time(3)] } }),
        ).toBe(live.filter((k) => k[2]! >= time(3)).length);
        expect(await d.count({ collection: 'items', index: 'byTag', prefix: ['g', 'odd'] })).toBe(15);
        expect(await d.count({ collection: 'items', index: 'byTag', prefix: ['g', 'missing'] })).toBe(0);
      });

      it('keeps one entry per key of a multi-entry index and moves them on update', async () => {
        await seed();
        const odd = await d.list({
          collection: 'items',
          index: 'byTag',
          prefix: ['g', 'odd'],
          direction: 'asc',
          limit: 100,
        });
        expect(odd).toHaveLength(15);
        expect(odd.every((e) => Number(e.id.slice(2)) % 2 === 1)).toBe(true);
        const all = await d.list({
          collection: 'items',
          index: 'byTag',
          prefix: ['g', 'all'],
          direction: 'desc',
          limit: 100,
        });
        expect(all).toHaveLength(30);
        // id000001 loses "odd".
        const one = await d.get('items', 'id000001');
        await d.commit([itemPut({ ...(one!.doc as unknown as Item), tags: ['all', 'new'] }, 1)]);
        expect(await d.count({ collection: 'items', index: 'byTag', prefix: ['g', 'odd'] })).toBe(14);
        const fresh = await d.list({
          collection: 'items',
          index: 'byTag',
          prefix: ['g', 'new'],
          direction: 'asc',
          limit: 10,
        });
        expect(fresh.map((e) => [e.id, e.version])).toEqual([['id000001', 2]]);
      });

      it('matches non-ASCII key parts exactly', async () => {
        await d.commit([
          itemPut({ id: 'u1', group: 'g', status: 'LIVE', time: time(1), tags: ['café', '日本', 'Émoji 🙂'] }),
          itemPut({ id: 'u2', group: 'g', status: 'LIVE', time: time(2), tags: ['cafe', 'CAFÉ'] }),
        ]);
        for (const [tag, expected] of [
          ['café', ['u1']],
          ['cafe', ['u2']],
          ['CAFÉ', ['u2']],
          ['日本', ['u1']],
          ['Émoji 🙂', ['u1']],
        ] as const) {
          const got = await d.list({
            collection: 'items',
            index: 'byTag',
            prefix: ['g', tag],
            direction: 'asc',
            limit: 10,
          });
          expect(ids(got), tag).toEqual(expected);
        }
      });

      it('pages by keyset without skips or repeats while records come and go between pages', async () => {
        const ops: WriteOp[] = [];
        for (let i = 0; i < size; i++)
          ops.push(itemPut({ id: `k${pad(i)}`, group: 'g', status: 'LIVE', time: time(i % 97) }));
        await d.commit(ops);
        const present = new Set(ops.map((o) => o.id));
        const seen: string[] = [];
        let after: Key | undefined;
        let extra = 0;
        let removed = 0;
        for (let page = 0; page < 1000; page++) {
          const got = await d.list({
            collection: 'items',
            index: 'byTime',
            prefix: ['g', 'LIVE'],
            ...(after ? { upper: { key: after.slice(2), open: true } } : {}),
            direction: 'desc',
            limit: 13,
          });
          if (got.length === 0) break;
          seen.push(...ids(got));
          after = got[got.length - 1]!.key;
          // Between pages: add newer and older records, delete one already seen and one not yet seen.
          const newer = `n${pad(extra++)}`;
          await d.commit([itemPut({ id: newer, group: 'g', status: 'LIVE', time: time(999) })]);
          const gone = [...present].find((id) => !seen.includes(id) && Number(id.slice(1)) % 5 === 0);
          if (gone) {
            await d.commit([{ type: 'delete', collection: 'items', id: gone, expect: 1 }]);
            present.delete(gone);
            removed++;
          }
        }
        expect(removed).toBeGreaterThan(0);
        expect(new Set(seen).size).toBe(seen.length); // no repeats
        for (const id of present) expect(seen, `skipped ${id}`).toContain(id); // no skips
        // Seen records are never deleted here, so all are still readable; the walk was in descending key order.
        const order = (await d.getMany('items', seen)).map((x) => [x!.doc.time as string, x!.id]);
        expect(order).toEqual([...order].sort((a, b) => compareKeys(b, a)));
      });
    });

    describe('search', () => {
      beforeEach(async () => {
        await d.commit([
          itemPut({
            id: 's1',
            group: 'g',
            status: 'LIVE',
            time: time(1),
            words: ['red', 'apple', 'pie'],
            tags: ['food', 'sweet'],
          }),
          itemPut({ id: 's2', group: 'g', status: 'DRAFT', time: time(2), words: ['green', 'apple'] }),
          itemPut({ id: 's3', group: 'g', status: 'LIVE', time: time(3), words: ['red', 'car'] }),
          itemPut({ id: 's4', group: 'h', status: 'LIVE', time: time(4), words: ['red', 'apple'] }),
          itemPut({ id: 's5', group: 'g', status: 'LIVE', time: time(5) }),
          itemPut({ id: 's6', group: 'g', status: 'LIVE', time: time(6), words: ['apple', 'tart'], tags: ['food'] }),
        ]);
      });
      const statuses = [
        ['g', 'LIVE'],
        ['g', 'DRAFT'],
      ];
      const search = async (
        tokens: string[],
        scope = 'g',
        prefixes: Key[] = statuses,
        more: { limit?: number; direction?: 'asc' | 'desc'; lower?: Key } = {},
      ) =>
        (
          await d.search({
            collection: 'items',
            index: 'byTime',
            scope,
            tokens,
            prefixes: prefixes.map((p) => (p[0] === 'g' ? [scope, ...p.slice(1)] : p)),
            direction: more.direction ?? 'desc',
            limit: more.limit ?? 100,
            ...(more.lower ? { lower: { key: more.lower } } : {}),
          })
        ).map((e) => `${e.id}:${e.key.join('|')}`);
      /** A search on the label index (not the first index: found another way) under `tags`, as ids. */
      const byTag = async (tokens: string[], tags: string[]) =>
        (
          await d.search({
            collection: 'items',
            index: 'byTag',
            scope: 'g',
            tokens,
            prefixes: tags.map((t) => ['g', t]),
            direction: 'desc',
            limit: 10,
          })
        ).map((e) => e.id);

      it('returns one ordered page of the entries of records holding every token, within the scope and prefixes', async () => {
        expect(await search(['apple'])).toEqual([
          `s6:g|LIVE|${time(6)}|s6`,
          `s2:g|DRAFT|${time(2)}|s2`,
          `s1:g|LIVE|${time(1)}|s1`,
        ]);
        expect(await search(['apple'], 'g', [['g', 'LIVE']], { direction: 'asc' })).toEqual([
          `s1:g|LIVE|${time(1)}|s1`,
          `s6:g|LIVE|${time(6)}|s6`,
        ]);
        expect(await search(['apple'], 'g', statuses, { limit: 2 })).toEqual([
          `s6:g|LIVE|${time(6)}|s6`,
          `s2:g|DRAFT|${time(2)}|s2`,
        ]);
        expect(await search(['apple'], 'g', statuses, { lower: [time(2)] })).toEqual([
          `s6:g|LIVE|${time(6)}|s6`,
          `s2:g|DRAFT|${time(2)}|s2`,
        ]);
        expect(await search(['red', 'apple'])).toEqual([`s1:g|LIVE|${time(1)}|s1`]);
        expect(await search(['apple', 'red'], 'h', [['h', 'LIVE']])).toEqual([`s4:h|LIVE|${time(4)}|s4`]);
        expect(await search(['red', 'boat'])).toEqual([]);
        expect(await search(['nothing'])).toEqual([]);
        expect(await search(['apple'], 'zz')).toEqual([]);
      });

      it('gives a match found under several prefixes of a multi-entry index once', async () => {
        const page = await d.search({
          collection: 'items',
          index: 'byTag',
          scope: 'g',
          tokens: ['apple'],
          prefixes: [
            ['g', 'sweet'],
            ['g', 'food'],
          ],
          direction: 'desc',
          limit: 10,
        });
        expect(page.map((e) => `${e.id}:${e.key[1]}`)).toEqual(['s6:food', 's1:sweet']);
      });

      it('follows updates and deletes', async () => {
        await d.commit([
          itemPut({ id: 's1', group: 'g', status: 'LIVE', time: time(1), words: ['blue', 'pie'] }, 1),
          { type: 'delete', collection: 'items', id: 's2', expect: 1 },
        ]);
        expect(await search(['apple'])).toEqual([`s6:g|LIVE|${time(6)}|s6`]);
        expect(await search(['blue'])).toEqual([`s1:g|LIVE|${time(1)}|s1`]);
        await d.commit([itemPut({ id: 's1', group: 'g', status: 'LIVE', time: time(1) }, 2)]);
        expect(await search(['blue'])).toEqual([]);
      });

      it('adds terms to records stored without them at the version named only (addTerms, where the driver offers it)', async () => {
        if (!d.addTerms) return;
        const e = (id: string, n: number, status = 'LIVE') => `${id}:g|${status}|${time(n)}|${id}`;
        // s5 was stored without terms, and s9 (tagged); s7 too, then written again (version 2); s8 too, then deleted.
        await d.commit([
          itemPut({ id: 's7', group: 'g', status: 'LIVE', time: time(7) }),
          itemPut({ id: 's8', group: 'g', status: 'LIVE', time: time(8) }),
          itemPut({ id: 's9', group: 'g', status: 'LIVE', time: time(9), tags: ['food'] }),
        ]);
        await d.commit([
          itemPut({ id: 's7', group: 'g', status: 'LIVE', time: time(7) }, 1),
          { type: 'delete', collection: 'items', id: 's8', expect: 1 },
        ]);
        const { newest } = await d.logBounds();
        const blue = (id: string, version: number, tokens = ['blue', 'apple']) => ({
          id,
          version,
          terms: { scope: 'g', tokens },
        });
        // s1 was put with terms of its own; "nope" does not exist.
        const items = [blue('s5', 1), blue('s7', 1), blue('s8', 1), blue('s9', 1), blue('s1', 1), blue('nope', 1)];
        await d.addTerms('items', items);
        // Asked again for the same versions: each record is found once. A record put with terms keeps its own.
        await d.addTerms('items', [...items, blue('s1', 1, ['other'])]);
        const added = async () => {
          expect(await search(['blue'])).toEqual([e('s9', 9), e('s5', 5)]);
          expect(await search(['apple'])).toEqual([
            e('s9', 9),
            e('s6', 6),
            e('s5', 5),
            e('s2', 2, 'DRAFT'),
            e('s1', 1),
          ]);
          expect(await search(['apple', 'blue'], 'g', [['g', 'LIVE']], { direction: 'asc' })).toEqual([
            e('s5', 5),
            e('s9', 9),
          ]);
          expect(await search(['other'])).toEqual([]);
          expect(await search(['red', 'apple'])).toEqual([e('s1', 1)]);
          expect(await byTag(['blue'], ['food'])).toEqual(['s9']);
          expect(await byTag(['apple'], ['food'])).toEqual(['s9', 's6', 's1']);
        };
        await added();
        // The records are as they were: same versions, nothing logged.
        expect((await d.get('items', 's5'))?.version).toBe(1);
        expect((await d.get('items', 's7'))?.version).toBe(2);
        expect((await d.logBounds()).newest).toBe(newest);
        // Through merges of what holds them, then written over: the put's own terms replace them.
        for (let i = 0; i < 20; i++)
          await d.commit([itemPut({ id: `m${i}`, group: 'x', status: 'LIVE', time: time(10 + i), words: ['filler'] })]);
        await added();
        await d.commit([itemPut({ id: 's5', group: 'g', status: 'LIVE', time: time(5), words: ['green'] }, 1)]);
        expect(await search(['blue'])).toEqual([e('s9', 9)]);
        expect(await search(['green'])).toEqual([e('s5', 5), e('s2', 2, 'DRAFT')]);
      });

      it('finds a record deleted and written again (its versions counted anew), on every index, after merges too', async () => {
        // s2 goes to version 3 and is deleted; s1 is deleted at version 1. Both come back at version 1.
        await d.commit([
          itemPut({ id: 's2', group: 'g', status: 'DRAFT', time: time(2), words: ['green', 'apple'] }, 1),
        ]);
        await d.commit([
          itemPut({ id: 's2', group: 'g', status: 'DRAFT', time: time(2), words: ['green', 'apple', 'pear'] }, 2),
        ]);
        await d.commit([
          { type: 'delete', collection: 'items', id: 's2', expect: 3 },
          { type: 'delete', collection: 'items', id: 's1', expect: 1 },
        ]);
        expect(await search(['apple'])).toEqual([`s6:g|LIVE|${time(6)}|s6`]);
        await d.commit([itemPut({ id: 's2', group: 'g', status: 'LIVE', time: time(2), words: ['plum'] })]);
        await d.commit([
          itemPut({ id: 's1', group: 'g', status: 'LIVE', time: time(1), words: ['apple', 'plum'], tags: ['fruit'] }),
        ]);
        const check = async () => {
          expect(await search(['plum'])).toEqual([`s2:g|LIVE|${time(2)}|s2`, `s1:g|LIVE|${time(1)}|s1`]);
          expect(await search(['apple'])).toEqual([`s6:g|LIVE|${time(6)}|s6`, `s1:g|LIVE|${time(1)}|s1`]);
          expect(await search(['pear'])).toEqual([]);
          expect(await search(['red', 'pie'])).toEqual([]);
          expect(await byTag(['apple'], ['food', 'fruit'])).toEqual(['s6', 's1']);
          expect(await byTag(['pie'], ['food', 'fruit'])).toEqual([]);
        };
        await check();
        // Enough commits for segments to merge (and the marks they leave to be spent), then once more.
        for (let i = 0; i < 20; i++)
          await d.commit([itemPut({ id: `m${i}`, group: 'g', status: 'LIVE', time: time(10 + i), words: ['filler'] })]);
        await check();
        await d.commit([{ type: 'delete', collection: 'items', id: 's1', expect: 1 }]);
        await d.commit([
          itemPut({ id: 's1', group: 'g', status: 'LIVE', time: time(1), words: ['red', 'pie'], tags: ['food'] }),
        ]);
        expect(await search(['plum'])).toEqual([`s2:g|LIVE|${time(2)}|s2`]);
        expect(await search(['red', 'pie'])).toEqual([`s1:g|LIVE|${time(1)}|s1`]);
        expect(await byTag(['pie'], ['food', 'fruit'])).toEqual(['s1']);
      });

      it('pages through dense and sparse matches in order, whatever the mix of words', async () => {
        // "every" is on every record, "some" on every 7th, "rare" on two, "late" on the older half; "left right"
        // pairs two words no record holds together. Enough records that a driver's dense-match strategies are used.
        const n = Math.max(size, 1200);
        const ops: WriteOp[] = [];
        for (let i = 0; i < n; i++) {
          const words = [
            'every',
            i % 7 === 0 ? 'some' : 'other',
            ...(i === 3 || i === n - 5 ? ['rare'] : []),
            i % 2 ? 'left' : 'right',
            ...(i >= n / 2 ? ['late'] : []),
          ];
          ops.push(
            itemPut({ id: `w${pad(i)}`, group: 'w', status: i % 5 === 0 ? 'DRAFT' : 'LIVE', time: time(n - i), words }),
          );
        }
        await d.commit(ops);
        const expected = (pred: (i: number) => boolean) =>
          ops
            .map((o, i) => ({ i, key: (o as PutOp).keys.byTime![0]! }))
            .filter((x) => pred(x.i))
            .sort((a, b) => compareKeys(b.key.slice(2), a.key.slice(2)))
            .map((x) => x.key[3]);
        const walk = async (tokens: string[]) => {
          const seen: string[] = [];
          let after: Key | undefined;
          for (;;) {
            const pg = await d.search({
              collection: 'items',
              index: 'byTime',
              scope: 'w',
              tokens,
              prefixes: [
                ['w', 'LIVE'],
                ['w', 'DRAFT'],
              ],
              direction: 'desc',
              limit: 10,
              ...(after ? { upper: { key: after, open: true } } : {}),
            });
            expect(pg.length).toBeLessThanOrEqual(10);
            seen.push(...pg.map((e) => e.id));
            if (pg.length < 10) return seen;
            after = pg[pg.length - 1]!.key.slice(2);
          }
        };
        expect(await walk(['every'])).toEqual(expected(() => true));
        expect(await walk(['every', 'some'])).toEqual(expected((i) => i % 7 === 0));
        expect(await walk(['every', 'other'])).toEqual(expected((i) => i % 7 !== 0));
        expect(await walk(['rare', 'every'])).toEqual(expected((i) => i === 3 || i === n - 5));
        expect(await walk(['late'])).toEqual(expected((i) => i >= n / 2));
        expect(await walk(['left', 'right'])).toEqual([]);
      });
    });

    describe('change log', () => {
      it('gives every commit a larger sequence number and logs each op in order', async () => {
        const a = await d.commit([itemPut({ id: 'a', group: 'g', status: 'LIVE', time: time(1) })]);
        const b = await d.commit([
          itemPut({ id: 'a', group: 'g', status: 'DRAFT', time: time(1) }, 1),
          itemPut({ id: 'b', group: 'g', status: 'LIVE', time: time(2) }),
        ]);
        const c = await d.commit([{ type: 'delete', collection: 'items', id: 'a', expect: 2 }]);
        expect(b.seq).toBeGreaterThan(a.seq);
        expect(c.seq).toBeGreaterThan(b.seq);
        const all = await d.changesSince(0);
        expect(all.map((x) => [x.seq, x.collection, x.id, x.type, x.version])).toEqual([
          [a.seq, 'items', 'a', 'put', 1],
          [b.seq, 'items', 'a', 'put', 2],
          [b.seq, 'items', 'b', 'put', 1],
          [c.seq, 'items', 'a', 'delete', 2],
        ]);
        expect((await d.changesSince(b.seq)).map((x) => x.id)).toEqual(['a']);
        expect(await d.changesSince(c.seq)).toEqual([]);
        expect(await d.changesSince(0, 2)).toHaveLength(2);
      });

      it("names the log's newest seq below a commit (`previous`, else seq - 1), final: no commit lands below it later", async () => {
        const first = await d.commit([itemPut({ id: 'a', group: 'g', status: 'LIVE', time: time(1) })]);
        const second = await d.commit([itemPut({ id: 'b', group: 'g', status: 'LIVE', time: time(2) })]);
        const side = await Promise.all(
          Array.from({ length: 8 }, (_, i) =>
            d.commit([itemPut({ id: `c${i}`, group: 'g', status: 'LIVE', time: time(3 + i) })]),
          ),
        );
        const last = await d.commit([itemPut({ id: 'z', group: 'g', status: 'LIVE', time: time(20) })]);
        const seqs = [...new Set((await d.changesSince(0)).map((c) => c.seq))];
        const newestBelow = (seq: number) => seqs.filter((s) => s < seq).at(-1) ?? 0;
        expect(second.previous ?? second.seq - 1).toBe(first.seq);
        expect(first.previous ?? first.seq - 1).toBe(newestBelow(first.seq));
        // Side by side, a commit may not know (another below it still running); what it names holds.
        for (const r of [...side, last]) if (r.previous !== undefined) expect(r.previous).toBe(newestBelow(r.seq));
        expect(last.previous ?? last.seq - 1).toBe(newestBelow(last.seq));
      });

      it('logs nothing for a refused commit', async () => {
        await d.commit([itemPut({ id: 'a', group: 'g', status: 'LIVE', time: time(1) })]);
        await expectConflict(d.commit([itemPut({ id: 'a', group: 'g', status: 'LIVE', time: time(1) })]), 'version');
        expect(await d.changesSince(0)).toHaveLength(1);
      });

      const streamed = (item: Item, expect = 0): PutOp => ({ ...itemPut(item, expect), stream: item.group });

      it('logs each change with its position, stream and commit time', async () => {
        const a = await d.commit(
          [
            streamed({ id: 'a', group: 'g', status: 'LIVE', time: time(1) }),
            itemPut({ id: 'b', group: 'h', status: 'LIVE', time: time(1) }),
          ],
          { time: 1000 },
        );
        const b = await d.commit([{ type: 'delete', collection: 'items', id: 'a', expect: 1, stream: 'g' }], {
          time: 2000,
        });
        expect(await d.changesSince(0)).toEqual([
          { seq: a.seq, pos: 0, collection: 'items', id: 'a', type: 'put', version: 1, stream: 'g', time: 1000 },
          { seq: a.seq, pos: 1, collection: 'items', id: 'b', type: 'put', version: 1, time: 1000 },
          { seq: b.seq, pos: 0, collection: 'items', id: 'a', type: 'delete', version: 1, stream: 'g', time: 2000 },
        ]);
        expect(await d.logBounds()).toEqual({ newest: b.seq, pruned: 0 });
      });

      it('answers the newest seq at once, where the driver can (logNewestNow), as logBounds does', async () => {
        // Optional: a driver without it is asked logBounds (the HTTP helper's kept answers then wait for it).
        const now = d.logNewestNow?.bind(d);
        if (!now) return;
        expect(now()).toBe((await d.logBounds()).newest);
        const a = await d.commit([itemPut({ id: 'a', group: 'g', status: 'LIVE', time: time(1) })]);
        expect(now()).toBe(a.seq);
        await d.pruneChanges({ before: Date.now() + 1, limit: 10 });
        const b = await d.commit([itemPut({ id: 'b', group: 'g', status: 'LIVE', time: time(1) })]);
        expect(now()).toBe(b.seq);
        expect(now()).toBe((await d.logBounds()).newest);
      });

      it("walks one stream's changes from a position, without the other streams'", async () => {
        const seqs: number[] = [];
        for (let i = 0; i < 6; i++) {
          const g = i % 2 ? 'odd' : 'even';
          seqs.push(
            (
              await d.commit([
                streamed({ id: `x${i}`, group: g, status: 'LIVE', time: time(i) }),
                streamed({ id: `y${i}`, group: g, status: 'LIVE', time: time(i) }),
              ])
            ).seq,
          );
        }
        const even = await d.streamChanges('even', { seq: 0, pos: -1 }, 100);
        expect(even.map((c) => c.id)).toEqual(['x0', 'y0', 'x2', 'y2', 'x4', 'y4']);
        expect(even.every((c) => c.stream === 'even')).toBe(true);
        // From the middle of a commit, and in pages.
        expect((await d.streamChanges('even', { seq: seqs[2]!, pos: 0 }, 3)).map((c) => c.id)).toEqual([
          'y2',
          'x4',
          'y4',
        ]);
        expect((await d.streamChanges('even', { seq: seqs[2]!, pos: 1 }, 1)).map((c) => c.id)).toEqual(['x4']);
        expect(await d.streamChanges('even', { seq: seqs[5]!, pos: 1 }, 10)).toEqual([]);
        expect(await d.streamChanges('none', { seq: 0, pos: -1 }, 10)).toEqual([]);
      });

      it('refuses a commit when a stream moved past `unchanged` or the log was pruned past it, writing nothing', async () => {
        // Optional (checksUnchanged): without it the core looks at the log before a write instead.
        if (!d.checksUnchanged) return;
        const put = (id: string, group: string) => streamed({ id, group, status: 'LIVE', time: time(1) });
        const first = await d.commit([put('a', 'g')]);
        await d.commit([put('b', 'h')]);
        // Another stream moved: `g` did not.
        const ok = await d.commit([put('c', 'h')], { unchanged: { stream: 'g', after: first.seq } });
        expect((await d.get('items', 'c'))?.version).toBe(1);
        await d.commit([put('d', 'g')]);
        const refused = async (ops: WriteOp[], after: number, stream = 'g') => {
          let caught: unknown;
          await d.commit(ops, { unchanged: { stream, after } }).catch((e: unknown) => void (caught = e));
          expect(DriverConflict.is(caught) && caught.kind === 'stale' && caught.id === stream).toBe(true);
          for (const op of ops) expect(await d.get('items', op.id)).toBeUndefined();
        };
        await refused([put('e', 'h')], ok.seq);
        // A commit of several ops on one collection (PostgreSQL: commit_ops).
        await refused([put('e', 'h'), put('f', 'h')], ok.seq);
        const newest = (await d.logBounds()).newest;
        await d.commit([put('e', 'h'), put('f', 'h')], { unchanged: { stream: 'g', after: newest } });
        expect((await d.get('items', 'f'))?.version).toBe(1);
        // Pruned past: what moved is no longer known.
        await d.pruneChanges({ before: Infinity, limit: 100 });
        await refused([put('x', 'h')], ok.seq, 'nothing');
        await d.commit([put('x', 'h')], { unchanged: { stream: 'nothing', after: (await d.logBounds()).newest } });
      });

      it('prunes from the oldest by time or by seq, a bounded batch at a time, and says how far', async () => {
        const seqs: number[] = [];
        for (let i = 0; i < 5; i++) {
          seqs.push(
            (
              await d.commit(
                [
                  streamed({ id: `a${i}`, group: 'g', status: 'LIVE', time: time(i) }),
                  streamed({ id: `b${i}`, group: 'g', status: 'LIVE', time: time(i) }),
                ],
                { time: 1000 * (i + 1) },
              )
            ).seq,
          );
        }
        // Older than 3500: the first three commits (six entries), at most four per call.
        expect(await d.pruneChanges({ before: 3500, limit: 4 })).toBe(4);
        expect((await d.changesSince(0)).map((c) => c.id)).toEqual(['a2', 'b2', 'a3', 'b3', 'a4', 'b4']);
        expect((await d.logBounds()).pruned).toBe(seqs[1]);
        expect(await d.pruneChanges({ before: 3500, limit: 4 })).toBe(2);
        expect(await d.pruneChanges({ before: 3500, limit: 4 })).toBe(0);
        expect((await d.streamChanges('g', { seq: 0, pos: -1 }, 100)).map((c) => c.id)).toEqual([
          'a3',
          'b3',
          'a4',
          'b4',
        ]);
        // By seq: everything through the fourth commit.
        expect(await d.pruneChanges({ through: seqs[3]!, limit: 100 })).toBe(2);
        expect(await d.logBounds()).toEqual({ newest: seqs[4], pruned: seqs[3] });
        // Pruning everything keeps the counter: the next commit still gets a larger seq.
        expect(await d.pruneChanges({ before: Infinity, limit: 100 })).toBe(2);
        expect(await d.changesSince(0)).toEqual([]);
        expect(await d.logBounds()).toEqual({ newest: seqs[4], pruned: seqs[4] });
        const next = await d.commit([streamed({ id: 'c', group: 'g', status: 'LIVE', time: time(9) })], { time: 9000 });
        expect(next.seq).toBeGreaterThan(seqs[4]!);
        expect((await d.streamChanges('g', { seq: 0, pos: -1 }, 100)).map((c) => c.id)).toEqual(['c']);
      });
    });

    describe('counters (adds)', () => {
      const keys = (id: string) => ({ byGroup: [['g', id]], held: [['g', id]] });
      const add = (id: string, by: Record<string, number>, create = true): AddOp => ({
        type: 'add',
        collection: 'counts',
        id,
        add: by,
        keys: keys(id),
        ...(create ? { create: { id, group: 'g', n: 0, m: 0, note: 'made' } } : {}),
      });
      const held = async () =>
        ids(await d.list({ collection: 'counts', index: 'held', prefix: ['g'], direction: 'asc', limit: 10 }));

      it('adds to counters without a read, creating the record from `create` when it is missing', async () => {
        await d.commit([add('c', { n: 2, m: 5 })]);
        expect(await d.get('counts', 'c')).toEqual({
          id: 'c',
          version: 1,
          doc: { id: 'c', group: 'g', n: 2, m: 5, note: 'made' },
        });
        await d.commit([add('c', { n: 3 })]);
        await d.commit([add('c', { m: -1 }, false)]);
        expect(await d.get('counts', 'c')).toEqual({
          id: 'c',
          version: 3,
          doc: { id: 'c', group: 'g', n: 5, m: 4, note: 'made' },
        });
        expect(
          ids(await d.list({ collection: 'counts', index: 'byGroup', prefix: ['g'], direction: 'asc', limit: 10 })),
        ).toEqual(['c']);
      });

      it('takes an add with nothing to add on a collection without counters: creates it once, keeps it as it is', async () => {
        // What the core's delete of a record with a replica note sends (docs/design.md §26): the note, reading nothing.
        const leave = (doc: JsonObject): AddOp => ({
          type: 'add',
          collection: 'notes',
          id: 'n1',
          add: {},
          keys: { byItem: [['post', 'n1']] },
          create: doc,
        });
        await d.commit([leave({ id: 'n1', text: 'first' })]);
        await d.commit([leave({ id: 'n1', text: 'second' })]);
        expect(await d.get('notes', 'n1')).toEqual({ id: 'n1', version: 2, doc: { id: 'n1', text: 'first' } });
      });

      it('refuses an add to a missing record without `create`, and writes nothing of the batch', async () => {
        await expectConflict(
          d.commit([itemPut({ id: 'a', group: 'g', status: 'LIVE', time: time(1) }), add('none', { n: 1 }, false)]),
          'version',
        );
        expect(await d.get('items', 'a')).toBeUndefined();
        expect(await d.get('counts', 'none')).toBeUndefined();
      });

      it('counts every one of many adds to one record committed at once, none refused', async () => {
        const results = await Promise.allSettled(
          Array.from({ length: 20 }, () => d.commit([add('hot', { n: 1, m: 2 })])),
        );
        expect(results.filter((r) => r.status === 'rejected')).toEqual([]);
        expect(await d.get('counts', 'hot')).toMatchObject({ version: 20, doc: { n: 20, m: 40 } });
      });

      it("holds an index's entries only while its positive counter is above 0, for adds and puts alike", async () => {
        await d.commit([add('p', { m: 1 })]);
        expect(await held()).toEqual([]);
        await d.commit([add('p', { n: 1 })]);
        expect(await held()).toEqual(['p']);
        await d.commit([add('p', { n: -1 })]);
        expect(await held()).toEqual([]);
        expect(await d.count({ collection: 'counts', index: 'byGroup', prefix: ['g'] })).toBe(1);
        const put = (n: number, expect: number): PutOp => ({
          type: 'put',
          collection: 'counts',
          id: 'p',
          expect,
          doc: { id: 'p', group: 'g', n, m: 0 },
          keys: keys('p'),
        });
        await d.commit([put(4, 3)]);
        expect(await held()).toEqual(['p']);
        await d.commit([put(0, 4)]);
        expect(await held()).toEqual([]);
      });

      it('applies an add after the ops before it on the record, and logs it as the put it amounts to', async () => {
        const put: PutOp = {
          type: 'put',
          collection: 'counts',
          id: 'b',
          expect: 0,
          doc: { id: 'b', group: 'g', n: 10, m: 1 },
          keys: keys('b'),
        };
        const { seq } = await d.commit([put, { ...add('b', { n: 1 }, false), stream: 's' }]);
        expect(await d.get('counts', 'b')).toEqual({ id: 'b', version: 2, doc: { id: 'b', group: 'g', n: 11, m: 1 } });
        expect(
          (await d.changesSince(seq - 1)).map((c) => [c.seq === seq, c.pos, c.id, c.type, c.version, c.stream]),
        ).toEqual([
          [true, 0, 'b', 'put', 1, undefined],
          [true, 1, 'b', 'put', 2, 's'],
        ]);
      });
    });
  });
}
