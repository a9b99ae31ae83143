/** What the SQLite driver promises beyond the shared suite: durability, migrations, upgrades, exact key order. */
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  compareKeys,
  DriverConflict,
  type Key,
  type StorageDriver,
  type StoreSchema,
} from '../../../src/store/driver.js';
import { sqliteDriver, SQLITE_STORAGE_VERSION } from '../../../drivers/sqlite/index.js';
import { decodeKey, encodeKey } from '../../../drivers/shared/byte-keys.js';
import { countSql, listSql } from '../../../drivers/sqlite/reads.js';
import { MIGRATIONS } from '../../../drivers/sqlite/schema.js';
import { itemPut, suiteSchema } from '../suite.js';
import { counting } from './counting-db.js';
import { checkStore } from './invariants.js';

const dir = mkdtempSync(join(tmpdir(), 'blogcore-sqlite-storage-'));
let n = 0;
const file = () => join(dir, `s${n++}.db`);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function opened(filename: string, schema: StoreSchema = suiteSchema): Promise<StorageDriver> {
  const d = sqliteDriver({ filename });
  await d.open(schema);
  return d;
}

describe('sqlite driver: durability', () => {
  it('keeps documents, index entries, search tokens and the change log across close and reopen', async () => {
    const f = file();
    const a = await opened(f);
    await a.commit([
      itemPut({
        id: 'x',
        group: 'g',
        status: 'LIVE',
        time: 't1',
        tags: ['a', 'b'],
        slug: 'hello',
        words: ['red', 'apple'],
      }),
      itemPut({ id: 'y', group: 'g', status: 'LIVE', time: 't2', words: ['red'] }),
    ]);
    const last = await a.commit([{ type: 'delete', collection: 'items', id: 'y', expect: 1 }]);
    await a.close();

    const b = await opened(f);
    expect(await b.get('items', 'x')).toMatchObject({ version: 1, doc: { tags: ['a', 'b'] } });
    expect(await b.get('items', 'y')).toBeUndefined();
    expect((await b.getByIndex('items', 'bySlug', ['g', 'hello']))?.id).toBe('x');
    expect(
      (await b.list({ collection: 'items', index: 'byTag', prefix: ['g'], direction: 'asc', limit: 10 })).map(
        (e) => e.key,
      ),
    ).toEqual([
      ['g', 'a', 't1', 'x'],
      ['g', 'b', 't1', 'x'],
    ]);
    expect(
      (
        await b.search({
          collection: 'items',
          scope: 'g',
          tokens: ['red'],
          index: 'byTime',
          prefixes: [['g', 'LIVE']],
          direction: 'asc',
          limit: 10,
        })
      ).map((e) => e.id),
    ).toEqual(['x']);
    expect((await b.changesSince(0)).map((c) => [c.id, c.type])).toEqual([
      ['x', 'put'],
      ['y', 'put'],
      ['y', 'delete'],
    ]);
    // The sequence goes on from where the file left it.
    const next = await b.commit([itemPut({ id: 'z', group: 'g', status: 'LIVE', time: 't3' })]);
    expect(next.seq).toBeGreaterThan(last.seq);
    await b.close();
    expect(checkStore(f)).toMatchObject({ integrity: 'ok', problems: [] });
  });

  it('gives empty commits their own sequence numbers too, across reopen', async () => {
    const f = file();
    const a = await opened(f);
    const s1 = await a.commit([]);
    const s2 = await a.commit([itemPut({ id: 'a', group: 'g', status: 'LIVE', time: 't' })]);
    const s3 = await a.commit([]);
    await a.close();
    const b = await opened(f);
    const s4 = await b.commit([]);
    const s5 = await b.commit([{ type: 'delete', collection: 'items', id: 'a', expect: 1 }]);
    expect([s1, s2, s3, s4, s5].map((r) => r.seq)).toEqual([1, 2, 3, 4, 5]);
    expect((await b.changesSince(0)).map((c) => c.seq)).toEqual([2, 5]);
    await b.close();
  });

  it('refuses calls after close', async () => {
    const d = await opened(':memory:');
    await d.close();
    await expect(d.get('items', 'x')).rejects.toThrow(/closed/);
  });
});

describe('sqlite driver: migrations', () => {
  it('brings an empty file to the current layout once, tracked in user_version', async () => {
    const f = file();
    await (await opened(f)).close();
    const db = new Database(f);
    expect(db.pragma('user_version', { simple: true })).toBe(SQLITE_STORAGE_VERSION);
    expect(SQLITE_STORAGE_VERSION).toBe(MIGRATIONS.length);
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    const tables = db
      .prepare("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT GLOB 'search_[cdi]*' ORDER BY name")
      .pluck()
      .all();
    expect(tables).toEqual([
      'blob_chunks',
      'blobs',
      'changes',
      'collections',
      'doc_keys',
      'docs',
      'entries',
      'indexes',
      'meta',
      'ranks',
      'scopes',
      'search',
      'terms',
    ]);
    // Mark the file: a second open must not run the migrations again (they would fail on existing tables anyway).
    db.prepare("INSERT INTO meta (key, value) VALUES ('marker', 42)").run();
    db.close();
    const again = await opened(f);
    await again.commit([itemPut({ id: 'a', group: 'g', status: 'LIVE', time: 't' })]);
    await again.close();
    const check = new Database(f);
    expect(check.prepare("SELECT value FROM meta WHERE key = 'marker'").pluck().get()).toBe(42);
    expect(check.pragma('user_version', { simple: true })).toBe(SQLITE_STORAGE_VERSION);
    check.close();
  });

  it('refuses a file written by a newer storage layout and leaves it alone', async () => {
    const f = file();
    const db = new Database(f);
    db.pragma(`user_version = ${SQLITE_STORAGE_VERSION + 1}`);
    db.close();
    const d = sqliteDriver({ filename: f });
    await expect(d.open(suiteSchema)).rejects.toThrow(/storage version/);
    await d.close();
    const check = new Database(f);
    expect(check.prepare("SELECT count(*) FROM sqlite_schema WHERE name = 'docs'").pluck().get()).toBe(0);
    check.close();
  });

  it('upgrades to a new store schema version: new collections and indexes appear, dropped indexes go', async () => {
    const f = file();
    const v1 = await opened(f);
    await v1.commit([itemPut({ id: 'a', group: 'g', status: 'LIVE', time: 't', tags: ['x'], slug: 's' })]);
    await v1.close();
    const v2: StoreSchema = {
      version: 2,
      collections: [
        {
          name: 'items',
          search: true,
          indexes: [{ name: 'byTime' }, { name: 'bySlug', unique: true }, { name: 'byStatus' }],
        },
        { name: 'notes', indexes: [{ name: 'byItem' }] },
        { name: 'tags', indexes: [{ name: 'byName', unique: true }] },
      ],
    };
    const d = await opened(f, v2);
    // Old data and kept indexes stay; the new index starts empty until the core re-puts its records.
    expect((await d.getByIndex('items', 'bySlug', ['g', 's']))?.id).toBe('a');
    expect(await d.count({ collection: 'items', index: 'byStatus', prefix: [] })).toBe(0);
    await expect(d.count({ collection: 'items', index: 'byTag', prefix: [] })).rejects.toThrow(/unknown index/);
    await d.commit([
      {
        ...itemPut({ id: 'a', group: 'g', status: 'LIVE', time: 't', slug: 's' }, 1),
        keys: { byTime: [['g', 'LIVE', 't', 'a']], bySlug: [['g', 's']], byStatus: [['LIVE', 'a']] },
      },
      { type: 'put', collection: 'tags', id: 't1', expect: 0, doc: { name: 'x' }, keys: { byName: [['x']] } },
    ]);
    expect(
      (await d.list({ collection: 'items', index: 'byStatus', prefix: ['LIVE'], direction: 'asc', limit: 5 })).map(
        (e) => e.id,
      ),
    ).toEqual(['a']);
    expect((await d.getByIndex('tags', 'byName', ['x']))?.id).toBe('t1');
    await d.close();
    expect(checkStore(f)).toMatchObject({ integrity: 'ok', problems: [] });
    // An older core must not write to a store it no longer understands.
    await expect(opened(f, suiteSchema)).rejects.toThrow(/newer/);
  });
});

describe('sqlite driver: search tokens', () => {
  it('matches exactly the core tokens: FTS5 splits, folds and parses none of them', async () => {
    const d = await opened(':memory:');
    const tokens = [
      'red',
      'Red',
      'RED',
      'a-b',
      'a',
      'b',
      '"',
      'x41',
      'A',
      'NOT',
      'and',
      'OR',
      'café',
      'cafe',
      '日本',
      '🙂',
      '\ud800',
      '\udc00',
      '\ufffd',
      'x\ud800',
      'a*',
      'near',
    ];
    await d.commit(tokens.map((t, i) => itemPut({ id: `t${i}`, group: 'g', status: 'LIVE', time: 't', words: [t] })));
    for (const [i, t] of tokens.entries()) {
      const found = await d.search({
        collection: 'items',
        scope: 'g',
        tokens: [t],
        index: 'byTime',
        prefixes: [['g', 'LIVE']],
        direction: 'asc',
        limit: 10,
      });
      expect(
        found.map((e) => e.id),
        JSON.stringify(t),
      ).toEqual([`t${i}`]);
    }
    await d.close();
  });

  it('answers a search with the current entries of the asked index as records change', async () => {
    const f = file();
    const d = await opened(f);
    const tagsOf = async () =>
      (
        await Promise.all(
          ['v', 'w', 'x', 'y', 'z'].map((tag) =>
            d.search({
              collection: 'items',
              scope: 'g',
              tokens: ['pie'],
              index: 'byTag',
              prefixes: [['g', tag]],
              direction: 'asc',
              limit: 10,
            }),
          ),
        )
      )
        .flat()
        .map((e) => e.key[1]);
    await d.commit([itemPut({ id: 'a', group: 'g', status: 'LIVE', time: 't1', tags: ['x', 'y'], words: ['pie'] })]);
    expect(await tagsOf()).toEqual(['x', 'y']);
    await d.commit([
      itemPut({ id: 'a', group: 'g', status: 'LIVE', time: 't2', tags: ['z'], words: ['pie', 'tart'] }, 1),
    ]);
    expect(await tagsOf()).toEqual(['z']);
    expect(
      (
        await d.search({
          collection: 'items',
          scope: 'g',
          tokens: ['pie'],
          index: 'byTime',
          prefixes: [['g', 'LIVE']],
          direction: 'asc',
          limit: 10,
        })
      ).map((e) => e.key),
    ).toEqual([['g', 'LIVE', 't2', 'a']]);
    await d.commit([itemPut({ id: 'a', group: 'g', status: 'LIVE', time: 't2', words: ['pie'] }, 2)]); // no tags left
    expect(await tagsOf()).toEqual([]);
    await d.commit([itemPut({ id: 'a', group: 'g', status: 'LIVE', time: 't2', tags: ['w'] }, 3)]); // no words left
    expect(
      await d.search({
        collection: 'items',
        scope: 'g',
        tokens: ['pie'],
        index: 'byTime',
        prefixes: [['g', 'LIVE']],
        direction: 'asc',
        limit: 10,
      }),
    ).toEqual([]);
    await d.commit([itemPut({ id: 'a', group: 'g', status: 'LIVE', time: 't3', tags: ['v'], words: ['pie'] }, 4)]);
    expect(await tagsOf()).toEqual(['v']);
    await d.close();
    expect(checkStore(f)).toMatchObject({ integrity: 'ok', problems: [] });
  });

  it('answers ranked searches with many matches in index order: ties, bounds, both directions, unranked records', async () => {
    const f = file();
    const d = await opened(f);
    // 1,200 matches (past the sparse case), three records per millisecond, ranks as the core gives them.
    const items = Array.from({ length: 1200 }, (_, i) => {
      const time = new Date(Date.UTC(2026, 0, 1) + Math.floor(i / 3)).toISOString();
      const item = {
        id: `r${String((i * 7919) % 1200).padStart(4, '0')}`,
        group: 'g',
        status: i % 5 ? 'LIVE' : 'DRAFT',
        time,
      };
      const words = i % 4 === 3 ? ['pie'] : ['pie', 'tart'];
      const put = itemPut({ ...item, tags: i % 2 ? ['odd'] : ['even'], words });
      return { ...put, terms: { scope: 'g', tokens: words, rank: Date.parse(time) } };
    });
    for (let i = 0; i < items.length; i += 400) await d.commit(items.slice(i, i + 400));
    const rankOf = (suffix: Key) => Date.parse(suffix[0] as string);
    const expected = (
      prefixes: Key[],
      tokens: string[],
      q: { direction: 'asc' | 'desc'; lower?: Key; upper?: Key },
    ) => {
      const sign = q.direction === 'asc' ? 1 : -1;
      const hits = items
        .filter((p) => tokens.every((t) => p.terms.tokens.includes(t)))
        .flatMap((p) => [...p.keys.byTime!, ...p.keys.byTag!].map((key) => ({ id: p.id, key })))
        .filter(({ key }) => prefixes.some((x) => compareKeys(key.slice(0, 2), x) === 0))
        .filter(
          ({ key }) =>
            (!q.lower || compareKeys(key.slice(2), q.lower) > 0) &&
            (!q.upper || compareKeys(key.slice(2), q.upper) < 0),
        );
      return hits.sort((a, b) => sign * compareKeys(a.key.slice(2), b.key.slice(2))).slice(0, 20);
    };
    const mid = items[601]!.keys.byTime![0]!.slice(2);
    const cases = [
      { prefixes: [['g', 'LIVE']], tokens: ['pie', 'tart'], direction: 'desc' as const },
      { prefixes: [['g', 'LIVE']], tokens: ['pie'], direction: 'asc' as const },
      { prefixes: [['g', 'LIVE']], tokens: ['tart', 'pie'], direction: 'desc' as const, upper: mid },
      { prefixes: [['g', 'LIVE']], tokens: ['pie'], direction: 'asc' as const, lower: mid },
      { prefixes: [['g', 'LIVE']], tokens: ['pie'], direction: 'desc' as const, lower: mid },
      {
        prefixes: [
          ['g', 'odd'],
          ['g', 'even'],
        ],
        tokens: ['pie', 'tart'],
        direction: 'desc' as const,
        upper: mid,
      },
      { prefixes: [['g', 'DRAFT']], tokens: ['pie', 'tart'], direction: 'asc' as const },
    ];
    const run = () =>
      Promise.all(
        cases.map(async ({ prefixes, tokens, direction, lower, upper }) => {
          const index = prefixes[0]![1] === 'odd' ? 'byTag' : 'byTime';
          const got = await d.search({
            collection: 'items',
            scope: 'g',
            tokens,
            index,
            prefixes,
            direction,
            limit: 20,
            rankOf,
            ...(lower ? { lower: { key: lower, open: true } } : {}),
            ...(upper ? { upper: { key: upper, open: true } } : {}),
          });
          expect(got, JSON.stringify({ prefixes, tokens, direction })).toEqual(
            expected(prefixes, tokens, { direction, lower, upper }),
          );
        }),
      );
    await run();
    // Records written without a rank, and so sitting off the rank order, change no answer.
    const unranked = items.filter((_, i) => i % 97 === 0);
    await d.commit(unranked.map((p) => ({ ...p, expect: 1, terms: { scope: 'g', tokens: p.terms.tokens } })));
    await run();
    await d.close();
    expect(checkStore(f)).toMatchObject({ integrity: 'ok', problems: [] });
  });

  it('walks the ordered index for a word in most records: no FTS5 read, a bounded page, the pages of the rank walk', async () => {
    const f = file();
    const counted = counting(f, /./);
    const d = sqliteDriver({ database: counted.db });
    await d.open(suiteSchema);
    const at = (ms: number) => new Date(Date.UTC(2026, 0, 1) + ms).toISOString();
    const ranked = (i: number, words: string[], group = 'g', ms = 0) => {
      const time = at(i * 1000 + ms);
      const put = itemPut({ id: `${group}${String(i).padStart(4, '0')}-${ms}`, group, status: 'LIVE', time, words });
      return { ...put, terms: { scope: group, tokens: words, rank: Date.parse(time) } };
    };
    // 'pie' in every record, 'tart' in one of ten; another scope's records in between, twice as many.
    const items = Array.from({ length: 600 }, (_, i) => ranked(i, i % 10 ? ['pie'] : ['pie', 'tart']));
    const others = items.flatMap((_, i) => [ranked(i, ['pie'], 'h', 300), ranked(i, ['cake'], 'h', 600)]);
    for (let i = 0; i < items.length; i += 200)
      await d.commit([...items.slice(i, i + 200), ...others.slice(2 * i, 2 * i + 400)]);
    const rankOf = (suffix: Key) => Date.parse(suffix[0] as string);
    const M = 10;
    const query = (tokens: string[], upper?: Key) => ({
      collection: 'items',
      scope: 'g',
      tokens,
      index: 'byTime',
      prefixes: [['g', 'LIVE']],
      direction: 'desc' as const,
      limit: M,
      rankOf,
      ...(upper ? { upper: { key: upper, open: true } } : {}),
    });
    /** The page as the rank walk reads it: a new connection knows nothing of the tokens, so it reads FTS5. */
    const rankWalked = async (tokens: string[], upper?: Key) => {
      const fresh = counting(f, /MATCH/);
      const other = sqliteDriver({ database: fresh.db });
      await other.open(suiteSchema);
      const page = await other.search(query(tokens, upper));
      expect(fresh.runs()).toBeGreaterThan(0);
      await other.close();
      fresh.db.close();
      return page;
    };
    /** One search on the long-lived connection: its page, the SQL it ran and the rows the statements handed out. */
    const searched = async (tokens: string[], upper?: Key) => {
      const [from, rows] = [counted.ran.length, counted.rows()];
      const page = await d.search(query(tokens, upper));
      return { page, ran: counted.ran.slice(from), rows: counted.rows() - rows };
    };
    const fts = (sql: string) => /MATCH/.test(sql);
    const terms = (sql: string) => /JOIN terms/.test(sql);

    // The first search of 'pie' reads FTS5 and finds it in every record; from then on, every page is a walk of the
    // index that reads about a page of rows and no FTS5, and is the rank walk's page.
    expect((await searched(['pie'])).ran.some(fts)).toBe(true);
    let upper: Key | undefined;
    for (let n = 0; n < 6; n++) {
      const expected = await rankWalked(['pie'], upper);
      const got = await searched(['pie'], upper);
      expect(got.page).toEqual(expected);
      expect(got.page.map((e) => e.id)).toEqual(
        items
          .slice(590 - 10 * n, 600 - 10 * n)
          .map((p) => p.id)
          .reverse(),
      );
      expect(got.ran.some(fts)).toBe(false);
      // About a page of index entries, and no `docs` row: the ids are the keys' last parts.
      expect(got.rows).toBeLessThanOrEqual(M + 4);
      expect(got.ran.some((sql) => /JOIN docs/.test(sql))).toBe(false);
      upper = got.page.at(-1)!.key.slice(2);
    }
    // A rarer word keeps the rank walk: no record's terms are read for it.
    await searched(['pie', 'tart']);
    const rare = await searched(['pie', 'tart']);
    expect(rare.page).toEqual(await rankWalked(['pie', 'tart']));
    expect(rare.ran.some(fts)).toBe(true);
    expect(rare.ran.some(terms)).toBe(false);

    // Newer records without 'pie': the walk of the index gives up after a bounded read, the rank walk answers,
    // and the next search goes to the rank walk at once.
    await d.commit(Array.from({ length: 300 }, (_, i) => ranked(600 + i, ['cake'])));
    const changed = await searched(['pie']);
    expect(changed.page).toEqual(await rankWalked(['pie']));
    expect(changed.page.map((e) => e.id)).toEqual(
      items
        .slice(590)
        .map((p) => p.id)
        .reverse(),
    );
    expect(changed.ran.some(terms) && changed.ran.some(fts)).toBe(true);
    expect(changed.rows).toBeLessThanOrEqual(2 * (4 * (M + 1) + 32));
    const after = await searched(['pie']);
    expect(after.page).toEqual(changed.page);
    expect(after.ran.some(terms)).toBe(false);
    await d.close();
    counted.db.close();
  });

  it('binds every LIMIT as `LIMIT +?`, which SQLite does not prepare again each time it is bound', async () => {
    const f = file();
    const counted = counting(f, /./);
    const d = sqliteDriver({ database: counted.db });
    await d.open(suiteSchema);
    const at = (i: number) => new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString();
    const items = Array.from({ length: 40 }, (_, i) => {
      const put = itemPut({ id: `i${i}`, group: 'g', status: 'LIVE', time: at(i), words: ['pie'] });
      return { ...put, terms: { scope: 'g', tokens: ['pie'], rank: Date.parse(at(i)) } };
    });
    await d.commit(items);
    const page = { collection: 'items', index: 'byTime', direction: 'desc' as const, limit: 5 };
    expect((await d.list({ ...page, prefix: ['g', 'LIVE'] })).length).toBe(5);
    expect(
      (
        await d.keys({
          ...page,
          prefixes: [
            ['g', 'LIVE'],
            ['g', 'DRAFT'],
          ],
        })
      ).length,
    ).toBe(5);
    const search = { ...page, scope: 'g', tokens: ['pie'], prefixes: [['g', 'LIVE']] };
    const rankOf = (suffix: Key) => Date.parse(suffix[0] as string);
    for (let i = 0; i < 3; i++) expect((await d.search({ ...search, rankOf })).length).toBe(5);
    expect((await d.search(search)).length).toBe(5);
    expect((await d.changesSince(0, 3)).length).toBe(3);
    const limited = [...new Set(counted.ran)].filter((sql) => /\bLIMIT\b/i.test(sql));
    expect(limited.filter((sql) => /\bMATCH\b/.test(sql)).length).toBeGreaterThan(0);
    expect(limited.filter((sql) => /JOIN terms/.test(sql)).length).toBeGreaterThan(0);
    expect(limited.filter((sql) => !/\bLIMIT (\+\?|\d+)/i.test(sql))).toEqual([]);
    await d.close();
    counted.db.close();
  });

  it('keeps scopes apart', async () => {
    const d = await opened(':memory:');
    await d.commit([itemPut({ id: 't0', group: 'g', status: 'LIVE', time: 't', words: ['red'] })]);
    // Scopes are kept apart, including one that is a prefix of another.
    await d.commit([itemPut({ id: 'other', group: 'g2', status: 'LIVE', time: 't', words: ['red'] })]);
    expect(
      (
        await d.search({
          collection: 'items',
          scope: 'g2',
          tokens: ['red'],
          index: 'byTime',
          prefixes: [['g2', 'LIVE']],
          direction: 'asc',
          limit: 10,
        })
      ).map((e) => e.id),
    ).toEqual(['other']);
    expect(
      (
        await d.search({
          collection: 'items',
          scope: 'g',
          tokens: ['red'],
          index: 'byTime',
          prefixes: [['g', 'LIVE']],
          direction: 'asc',
          limit: 10,
        })
      ).map((e) => e.id),
    ).toEqual(['t0']);
    await d.close();
  });
});

describe('sqlite driver: a host-owned Database', () => {
  it('uses the connection as given and leaves it open on close', async () => {
    const db = new Database(':memory:');
    const d = sqliteDriver({ database: db });
    await d.open(suiteSchema);
    await d.commit([itemPut({ id: 'a', group: 'g', status: 'LIVE', time: 't' })]);
    await d.close();
    expect(db.open).toBe(true);
    expect(db.prepare('SELECT count(*) FROM docs').pluck().get()).toBe(1);
    // A second driver on the same connection sees the data.
    const again = sqliteDriver({ database: db });
    await again.open(suiteSchema);
    expect((await again.get('items', 'a'))?.version).toBe(1);
    await again.close();
    db.close();
  });
});

describe('sqlite driver: two connections on one file', () => {
  it('lets exactly one of two writers holding the same version win, and loses nothing', async () => {
    const f = file();
    const a = await opened(f);
    const b = await opened(f);
    await a.commit([itemPut({ id: 'p', group: 'g', status: 'LIVE', time: 't', tags: ['old'] })]);
    // Both read version 1, then both write expecting it.
    const [ra, rb] = await Promise.all([a.get('items', 'p'), b.get('items', 'p')]);
    expect([ra?.version, rb?.version]).toEqual([1, 1]);
    const results = await Promise.allSettled([
      a.commit([itemPut({ id: 'p', group: 'g', status: 'LIVE', time: 't', tags: ['from-a'] }, 1)]),
      b.commit([itemPut({ id: 'p', group: 'g', status: 'LIVE', time: 't', tags: ['from-b'] }, 1)]),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected']);
    const loser = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    expect(DriverConflict.is(loser.reason) && loser.reason.kind).toBe('version');
    const winner = results[0]!.status === 'fulfilled' ? 'from-a' : 'from-b';
    for (const d of [a, b]) {
      expect(await d.get('items', 'p')).toMatchObject({ version: 2, doc: { tags: [winner] } });
      expect(
        (await d.list({ collection: 'items', index: 'byTag', prefix: ['g'], direction: 'asc', limit: 10 })).map(
          (e) => e.key[1],
        ),
      ).toEqual([winner]);
    }
    // The loser retries on the fresh version and both changes are kept in order.
    const fresh = await b.get('items', 'p');
    await b.commit([
      itemPut({ id: 'p', group: 'g', status: 'LIVE', time: 't', tags: [winner, 'retry'] }, fresh!.version),
    ]);
    expect((await a.get('items', 'p'))?.doc.tags).toEqual([winner, 'retry']);
    expect((await a.changesSince(0)).map((c) => c.version)).toEqual([1, 2, 3]);
    await a.close();
    await b.close();
    expect(checkStore(f)).toMatchObject({ integrity: 'ok', problems: [] });
  });
});

describe('sqlite driver: key order', () => {
  // Characters where UTF-8 byte order and JavaScript's UTF-16 order disagree, plus the escaped code units.
  const alphabet = [
    'a',
    'b',
    '\0',
    '\x01',
    '\x02',
    'é',
    '\u07ff',
    '\u0800',
    '\ud7ff',
    '\ue000',
    '\uffff',
    '🙂',
    '𝄞',
    '\ud800',
    '\udfff',
    '',
  ];
  const rand = (seed: number) => () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;

  it('encodes tuples so that byte order equals compareKeys and decodes them back', () => {
    const r = rand(7);
    const keys: Key[] = [];
    for (let i = 0; i < 2000; i++) {
      const parts = Math.floor(r() * 3) + 1;
      keys.push(
        Array.from({ length: parts }, () =>
          Array.from({ length: Math.floor(r() * 4) }, () => alphabet[Math.floor(r() * alphabet.length)]).join(''),
        ),
      );
    }
    for (const k of keys) expect(decodeKey(encodeKey(k))).toEqual(k);
    const byBytes = [...keys].sort((x, y) => Buffer.compare(encodeKey(x), encodeKey(y)));
    const byContract = [...keys].sort(compareKeys);
    expect(byBytes.map((k) => JSON.stringify(k))).toEqual(byContract.map((k) => JSON.stringify(k)));
  });

  it('walks an index in compareKeys order even for astral characters and U+E000–U+FFFF', async () => {
    const d = await opened(':memory:');
    const times = ['\ue000', '🙂', '\uffff', 'z', '\u0000x', '\u0001', 'a\u0000', 'a'];
    await d.commit(times.map((t, i) => itemPut({ id: `i${i}`, group: 'g', status: 'LIVE', time: t })));
    const got = await d.list({
      collection: 'items',
      index: 'byTime',
      prefix: ['g', 'LIVE'],
      direction: 'asc',
      limit: 20,
    });
    const expected = times.map((t, i) => ['g', 'LIVE', t, `i${i}`]).sort(compareKeys);
    expect(got.map((e) => e.key)).toEqual(expected);
    const from = await d.list({
      collection: 'items',
      index: 'byTime',
      prefix: ['g', 'LIVE'],
      lower: { key: ['\ue000'], open: false },
      direction: 'asc',
      limit: 20,
    });
    expect(from.map((e) => e.key)).toEqual(expected.filter((k) => compareKeys(k.slice(2), ['\ue000']) >= 0));
    await d.close();
  });

  it('hands out every key as stored, whether a statement reads it as text or as bytes', async () => {
    // Plain keys come out of SQLite as text, keys with an escape or a 0xED lead byte (a surrogate, Hangul) as bytes.
    const d = await opened(':memory:');
    const times = ['\ud55c', '\ufffd', '🙂', '\u0000', '\u0001x', 'plain', 'é', '\ud7ff'];
    const tags = ['한', 'tag', '🙂'];
    await d.commit(times.map((t, i) => itemPut({ id: `i${i}`, group: 'g', status: 'LIVE', time: t, tags })));
    const byTime = times.map((t, i) => ['g', 'LIVE', t, `i${i}`]).sort(compareKeys);
    const walk = { collection: 'items', index: 'byTime', direction: 'asc', limit: 20 } as const;
    expect((await d.list({ ...walk, prefix: ['g', 'LIVE'] })).map((e) => e.key)).toEqual(byTime);
    expect((await d.keys({ ...walk, prefixes: [['g', 'LIVE']] })).map((e) => e.key)).toEqual(byTime);
    const byTag = (tag: string) => times.map((t, i) => ['g', tag, t, `i${i}`]);
    const merged = await d.keys({ ...walk, index: 'byTag', prefixes: tags.map((tag) => ['g', tag]) });
    // One entry per suffix, from the first prefix that holds it.
    expect(merged.map((e) => e.key)).toEqual(byTag('한').sort(compareKeys));
    for (const tag of tags) {
      const one = await d.keys({ ...walk, index: 'byTag', prefixes: [['g', tag]], direction: 'desc' });
      expect(one.map((e) => e.key)).toEqual(byTag(tag).sort((a, b) => compareKeys(b, a)));
    }
    await d.close();
  });

  it('serves every list and count by a seek on the index, never a scan or a sort', () => {
    const db = new Database(':memory:');
    db.exec(MIGRATIONS[0]!);
    for (const lower of ['>=', '>'] as const) {
      for (const upper of ['<', '<='] as const) {
        for (const sql of [listSql(lower, upper, 'ASC'), listSql(lower, upper, 'DESC'), countSql(lower, upper)]) {
          const plan = (
            db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...Array(sql.split('?').length - 1).fill(null)) as Array<{
              detail: string;
            }>
          )
            .map((row) => row.detail)
            .join(' | ');
          expect(plan).toMatch(/SEARCH e(ntries)? USING PRIMARY KEY \(ix=\? AND key>\? AND key<\?\)/);
          expect(plan).not.toMatch(/SCAN|TEMP B-TREE/);
        }
      }
    }
    db.close();
  });
});
