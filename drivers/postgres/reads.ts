/**
 * Reads by id, by unique key and by key range, each one statement: lists and counts are one range walk of
 * the `entries` primary key; several prefixes' walks are merged by suffix in SQL.
 */
import type {
  IndexedDoc,
  IndexEntry,
  JsonObject,
  Key,
  KeysQuery,
  ListQuery,
  RangeQuery,
  StoredDoc,
} from '../../src/store/driver.js';
import { decodeKey, encodeKey } from '../shared/byte-keys.js';
import type { Connection } from './connect.js';
import { fromPgText, pgText } from './text.js';

type Lower = '>=' | '>';
type Upper = '<=' | '<';
type Dir = 'ASC' | 'DESC';

const readSql = (s: string) => ({
  get: `SELECT version, doc FROM ${s}.docs WHERE coll = $1 AND id = $2`,
  getMany: `SELECT id, version, doc FROM ${s}.docs WHERE coll = $1 AND id = ANY ($2::text[])`,
  byKey: `SELECT d.id, d.version, d.doc FROM ${s}.entries e JOIN ${s}.docs d ON d.rid = e.rid
      WHERE e.ix = $1 AND e.key = $2 ORDER BY e.rid LIMIT 1`,
});

/** One index range walk on the entries' primary key; ties (possible only off the core's keys) by rid. */
const listSql = (s: string, lower: Lower, upper: Upper, dir: Dir) =>
  `SELECT e.key, d.id, d.version, d.doc FROM ${s}.entries e JOIN ${s}.docs d ON d.rid = e.rid
   WHERE e.ix = $1 AND e.key ${lower} $2 AND e.key ${upper} $3 ORDER BY e.key ${dir}, e.rid ${dir} LIMIT $4`;

const countSql = (s: string, lower: Lower, upper: Upper) =>
  `SELECT count(*)::int FROM ${s}.entries WHERE ix = $1 AND key ${lower} $2 AND key ${upper} $3`;

/** The per-prefix bounds: lower bytes, upper bytes and where the suffix starts (1-based, for substr). */
export const PREFIXES = `unnest($2::bytea[], $3::bytea[], $4::int[]) WITH ORDINALITY AS p(lo, hi, w, n)`;

/**
 * Per prefix, a range walk of the entries' primary key of at most `limit` entries; merged by suffix (DISTINCT
 * ON the suffix bytes drops a record's repeats under other prefixes), then `limit` kept.
 */
const keysSql = (s: string, lower: Lower, upper: Upper, dir: Dir) =>
  `SELECT m.key, d.id FROM (
     SELECT DISTINCT ON (sfx) k.key, k.rid, substr(k.key, p.w) AS sfx FROM ${PREFIXES}
     CROSS JOIN LATERAL (SELECT e.key, e.rid FROM ${s}.entries e WHERE e.ix = $1 AND e.key ${lower} p.lo AND e.key ${upper} p.hi
                         ORDER BY e.key ${dir}, e.rid ${dir} LIMIT $5) k
     ORDER BY sfx, p.n
   ) m JOIN ${s}.docs d ON d.rid = m.rid ORDER BY m.sfx ${dir} LIMIT $5`;

export const sqlDirection = (q: { direction: 'asc' | 'desc' }): Dir => (q.direction === 'desc' ? 'DESC' : 'ASC');

export async function get(c: Connection, collection: string, id: string): Promise<StoredDoc | undefined> {
  const coll = c.collection(collection);
  const row = (await c.run(c.sql(readSql).get, [coll.no, pgText(id)]))[0] as [number, string] | undefined;
  return row && { id, version: row[0], doc: JSON.parse(row[1]) as JsonObject };
}

export async function getMany(
  c: Connection,
  collection: string,
  ids: readonly string[],
): Promise<Array<StoredDoc | undefined>> {
  const coll = c.collection(collection);
  if (ids.length === 0) return [];
  if (ids.length === 1) return [await get(c, collection, ids[0]!)];
  const rows = (await c.run(c.sql(readSql).getMany, [coll.no, ids.map(pgText)])) as Array<[string, number, string]>;
  const found = new Map(rows.map(([id, version, doc]) => [fromPgText(id), { version, doc }]));
  return ids.map((id) => {
    const f = found.get(id);
    // Each record gets its own parse, so a caller changing one answer never changes another.
    return f && { id, version: f.version, doc: JSON.parse(f.doc) as JsonObject };
  });
}

export async function getByIndex(
  c: Connection,
  collection: string,
  index: string,
  key: Key,
): Promise<StoredDoc | undefined> {
  const i = c.index(c.collection(collection), index);
  if (!i.unique) throw new Error(`index ${index} is not unique`);
  const row = (await c.run(c.sql(readSql).byKey, [i.no, encodeKey(key)]))[0] as [string, number, string] | undefined;
  return row && { id: fromPgText(row[0]), version: row[1], doc: JSON.parse(row[2]) as JsonObject };
}

export async function list(c: Connection, q: ListQuery): Promise<IndexedDoc[]> {
  const limit = Math.max(0, Math.floor(q.limit));
  const r = c.range(q);
  if (limit === 0) return [];
  const rows = (await c.run(listSql(c.s, r.lower, r.upper, sqlDirection(q)), [r.ix, r.from, r.to, limit])) as Array<
    [Buffer, string, number, string]
  >;
  return rows.map(([key, id, version, doc]) => ({
    id: fromPgText(id),
    key: decodeKey(key),
    version,
    doc: JSON.parse(doc) as JsonObject,
  }));
}

export async function count(c: Connection, q: RangeQuery): Promise<number> {
  const r = c.range(q);
  return Number((await c.run(countSql(c.s, r.lower, r.upper), [r.ix, r.from, r.to]))[0]![0]);
}

/** The per-prefix byte ranges of a merged walk, as the array parameters of PREFIXES. */
export function ranges(c: Connection, q: KeysQuery) {
  let ix = 0;
  let lower: Lower = '>=';
  let upper: Upper = '<';
  const lo: Buffer[] = [];
  const hi: Buffer[] = [];
  const w: number[] = [];
  for (const prefix of q.prefixes) {
    const r = c.range({ ...q, prefix });
    ({ ix, lower, upper } = r);
    lo.push(r.from);
    hi.push(r.to);
    w.push(encodeKey(prefix).length + 1);
  }
  return { ix, lower, upper, lo, hi, w, dir: sqlDirection(q) };
}

export async function keys(c: Connection, q: KeysQuery): Promise<IndexEntry[]> {
  const limit = Math.max(0, Math.floor(q.limit));
  if (limit === 0 || q.prefixes.length === 0) return [];
  const r = ranges(c, q);
  const rows = (await c.run(keysSql(c.s, r.lower, r.upper, r.dir), [r.ix, r.lo, r.hi, r.w, limit])) as Array<
    [Buffer, string]
  >;
  return rows.map(([key, id]) => ({ id: fromPgText(id), key: decodeKey(key) }));
}
