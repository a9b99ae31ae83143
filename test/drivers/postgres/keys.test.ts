/**
 * PostgreSQL stores keys as bytes and ids/tokens as text: key order must equal `compareKeys` (JavaScript's
 * UTF-16 code-unit order, where U+FFFF sorts after an astral character's surrogates, unlike UTF-8), and
 * strings PostgreSQL text cannot hold (U+0000, lone surrogates) must come back exactly.
 */
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { postgresDriver } from '../../../drivers/postgres/index.js';
import { legacyToken, storedToken } from '../../../drivers/postgres/search.js';
import { compareKeys, type Key, type StoreSchema } from '../../../src/store/driver.js';
import { freshSchema, pgUrl, tracked } from './env.js';

const stores = tracked(
  (schema) => postgresDriver({ connectionString: pgUrl(), schema, max: 2, shareEvents: false }),
  'keys',
);
afterAll(async () => {
  await stores.closeAll();
  await stores.dropAll();
  await admin.end();
});
const admin = new pg.Pool({ connectionString: pgUrl(), max: 1 });

const schema: StoreSchema = {
  version: 1,
  collections: [{ name: 'c', search: true, indexes: [{ name: 'k' }, { name: 'u', unique: true }] }],
};

const PARTS = [
  '',
  'a',
  'a\0',
  'a\x01',
  'a\x02',
  'ab',
  'é',
  '\ud7ff',
  '\ue000',
  '\uffff',
  '\u{10000}',
  '\u{1F642}',
  '\ud800',
  '\udfff',
  'z\ud83d',
  '\0',
  '\x01',
];

// (With quotes, a backslash, braces, a comma, a space and NULL: the array literals the driver makes, text.ts `textArray`.)
const ODD = ['a\0b', '\ud800', '\x01x', '\x02y', 'é\u{1F642}', 'x'.repeat(5000), 'q"u\\o,{t} e', 'NULL'];
const hitsOf = (d: ReturnType<typeof stores.make>, scope: string, token: string) =>
  d
    .search({ collection: 'c', index: 'k', scope, tokens: [token], prefixes: [['s']], direction: 'asc', limit: 10 })
    .then((hits) => hits.map((h) => h.id));

describe('postgres keys, ids and tokens', () => {
  it('walks keys in compareKeys order, astral characters, U+0000 and lone surrogates included', async () => {
    const d = stores.make();
    await d.open(schema);
    const keys: Key[] = [];
    for (const [i, a] of PARTS.entries()) for (const [j, b] of PARTS.entries()) keys.push(['g', a, b, `id${i}-${j}`]);
    await d.commit(
      keys.map((k) => ({ type: 'put', collection: 'c', id: k[3]!, expect: 0, doc: { k: [...k] }, keys: { k: [k] } })),
    );
    const sorted = [...keys].sort(compareKeys);
    const asc = await d.list({ collection: 'c', index: 'k', prefix: ['g'], direction: 'asc', limit: 1000 });
    expect(asc.map((e) => e.key)).toEqual(sorted);
    const desc = await d.keys({ collection: 'c', index: 'k', prefixes: [['g']], direction: 'desc', limit: 1000 });
    expect(desc.map((e) => e.key)).toEqual([...sorted].reverse());
    // Bounds in the middle of the astral/BMP boundary.
    const after = await d.list({
      collection: 'c',
      index: 'k',
      prefix: ['g'],
      lower: { key: ['\uffff'], open: false },
      direction: 'asc',
      limit: 1000,
    });
    expect(after.map((e) => e.key)).toEqual(sorted.filter((k) => compareKeys(k.slice(1), ['\uffff']) >= 0));
  });

  it('answers a walk of every size alike, the sizes written into its statement and those bound as a parameter', async () => {
    const d = stores.make();
    await d.open(schema);
    const keys: Key[] = Array.from({ length: 130 }, (_, i) => ['w', String(i).padStart(3, '0'), `w${i}`]);
    await d.commit(
      keys.map((k) => ({ type: 'put', collection: 'c', id: k[2]!, expect: 0, doc: { n: k[1]! }, keys: { k: [k] } })),
    );
    // More sizes than the driver writes as text (16, and none past 101): the later ones go as parameters.
    for (const limit of [...Array.from({ length: 40 }, (_, i) => i + 1), 102, 120, 129]) {
      const desc = await d.list({ collection: 'c', index: 'k', prefix: ['w'], direction: 'desc', limit });
      expect(desc.map((e) => e.id)).toEqual(
        keys
          .slice(-limit)
          .reverse()
          .map((k) => k[2]),
      );
      expect(desc.map((e) => (e.doc as { n: string }).n)).toEqual(
        keys
          .slice(-limit)
          .reverse()
          .map((k) => k[1]),
      );
      const asc = await d.keys({ collection: 'c', index: 'k', prefixes: [['w']], direction: 'asc', limit, docs: true });
      expect(asc.map((e) => e.id)).toEqual(keys.slice(0, limit).map((k) => k[2]));
    }
  });

  it('keeps ids, unique keys and search tokens PostgreSQL text cannot hold exactly', async () => {
    const d = stores.make();
    await d.open(schema);
    const odd = ODD;
    await d.commit(
      odd.map((id, i) => ({
        type: 'put' as const,
        collection: 'c',
        id,
        expect: 0,
        doc: { id, text: `${id}\0` },
        keys: { k: [['s', id]], u: [[id]] },
        terms: { scope: 's\0', tokens: [id, `t${i}`] },
      })),
    );
    for (const id of odd) {
      expect((await d.get('c', id))?.doc).toEqual({ id, text: `${id}\0` });
      expect((await d.getByIndex('c', 'u', [id]))?.id).toBe(id);
      const hits = await d.search({
        collection: 'c',
        index: 'k',
        scope: 's\0',
        tokens: [id],
        prefixes: [['s']],
        direction: 'asc',
        limit: 10,
      });
      expect(hits.map((h) => h.id)).toEqual([id]);
    }
    expect((await d.getMany('c', [...odd].reverse())).map((x) => x?.id)).toEqual([...odd].reverse());
    expect((await d.changesSince(0)).map((c) => c.id)).toEqual(odd);
    expect(await d.get('c', '\ud801')).toBeUndefined();
  });
});

it('keeps key parts and search tokens with quotes, backslashes, braces, commas and NULL (text arrays), and drops them again', async () => {
  const d = stores.make();
  await d.open({
    version: 1,
    collections: [{ name: 't', search: true, indexes: [{ name: 'tag', fields: ['tag', 'id'], entries: 'many' }] }],
  });
  const tags = ['q"u\\o,{t} e', 'NULL', '', 'plain'];
  const tagged = (id: string, of: string[], expect: number) =>
    d.commit([
      {
        type: 'put',
        collection: 't',
        id,
        expect,
        doc: {},
        keys: { tag: of.map((t) => [t, id]) },
        terms: { scope: 's', tokens: of.filter((t) => t) },
      },
    ]);
  const holders = async (tag: string) =>
    (await d.list({ collection: 't', index: 'tag', prefix: [tag], direction: 'asc', limit: 10 })).map((h) => h.id);
  const found = async (token: string) =>
    (
      await d.search({
        collection: 't',
        index: 'tag',
        scope: 's',
        tokens: [token],
        prefixes: [['plain']],
        direction: 'asc',
        limit: 10,
      })
    ).map((h) => h.id);
  await tagged('p', tags, 0);
  for (const tag of tags) expect(await holders(tag)).toEqual(['p']);
  for (const tag of tags.filter((t) => t)) expect(await found(tag)).toEqual(['p']);
  await tagged('p', ['plain'], 1);
  for (const tag of tags) expect(await holders(tag)).toEqual(tag === 'plain' ? ['p'] : []);
  for (const tag of tags.filter((t) => t)) expect(await found(tag)).toEqual(tag === 'plain' ? ['p'] : []);
});

it('a refused commit (a unique key taken) keeps its pooled connection: no new connection per refusal', async () => {
  const { default: pg } = await import('pg');
  const pool = new pg.Pool({ connectionString: pgUrl(), max: 2 });
  let connects = 0;
  pool.on('connect', () => void connects++);
  const d = postgresDriver({ pool, schema: freshSchema('refused'), shareEvents: false });
  try {
    await d.open(schema);
    await d.commit([{ type: 'put', collection: 'c', id: 'a', expect: 0, doc: {}, keys: { u: [['taken']] } }]);
    for (let i = 0; i < 20; i++) {
      await expect(
        d.commit([{ type: 'put', collection: 'c', id: `b${i}`, expect: 0, doc: {}, keys: { u: [['taken']] } }]),
      ).rejects.toMatchObject({
        kind: 'unique',
      });
    }
    expect((await d.getByIndex('c', 'u', ['taken']))?.id).toBe('a');
    expect(connects).toBeLessThanOrEqual(2);
  } finally {
    await d.close();
    await pool.end();
  }
});

it('rewrites a layout-5 store\u2019s search tokens on open (layout 6), and search finds what it found', async () => {
  const schemaName = freshSchema('tokens');
  const make = () => postgresDriver({ connectionString: pgUrl(), schema: schemaName, max: 2, shareEvents: false });
  const first = make();
  await first.open(schema);
  const scopes = ['s\0', 'other'];
  await first.commit(
    ODD.flatMap((id, i) =>
      scopes.map((scope) => ({
        type: 'put' as const,
        collection: 'c',
        id: `${scope}/${id}`,
        expect: 0,
        doc: {},
        keys: { k: [['s', `${scope}/${id}`]] },
        terms: { scope, tokens: [id, `t${i}`] },
      })),
    ),
  );
  await first.close();
  // The tokens as layout 5 wrote them (`coll:length:scope:token`), the store marked layout 5 again.
  const s = `"${schemaName}"`;
  const no = (await admin.query(`SELECT no FROM ${s}.collections WHERE name = 'c'`)).rows[0].no as number;
  const back = new Map<string, string>();
  for (const scope of scopes)
    for (const [i, id] of ODD.entries())
      for (const t of [id, `t${i}`]) back.set(storedToken(no, scope, t), legacyToken(no, scope, t));
  const before = (await admin.query(`SELECT id, tokens FROM ${s}.c ORDER BY id`)).rows;
  for (const r of before)
    await admin.query(`UPDATE ${s}.c SET tokens = $2 WHERE id = $1`, [r.id, r.tokens.map((t: string) => back.get(t))]);
  expect((await admin.query(`SELECT tokens FROM ${s}.c ORDER BY id`)).rows).not.toEqual(
    before.map((r) => ({ tokens: r.tokens })),
  );
  await admin.query(`DELETE FROM ${s}.migrations WHERE version = 6`);

  const d = make();
  await d.open(schema);
  expect((await admin.query(`SELECT max(version) AS v FROM ${s}.migrations`)).rows[0].v).toBe(6);
  expect((await admin.query(`SELECT id, tokens FROM ${s}.c ORDER BY id`)).rows).toEqual(before);
  for (const scope of scopes)
    for (const [i, id] of ODD.entries()) {
      expect(await hitsOf(d, scope, id)).toEqual([`${scope}/${id}`]);
      expect(await hitsOf(d, scope, `t${i}`)).toEqual([`${scope}/${id}`]);
    }
  await d.close();
});
