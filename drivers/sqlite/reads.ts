/**
 * Reads by id, by unique key and by key range: every list, count and key walk is one range seek on the
 * `entries` primary key (index number, key bytes), never OFFSET, never a scan.
 */
import type {
  IndexedDoc,
  IndexEntry,
  Key,
  KeysQuery,
  ListQuery,
  RangeQuery,
  StoredDoc,
} from '../../src/store/driver.js';
import { encodeKey, keyOf } from '../shared/byte-keys.js';
import { type CollectionInfo, type Connection, LIMIT } from './connect.js';

type Lower = '>=' | '>';
type Upper = '<=' | '<';
type Dir = 'ASC' | 'DESC';

const READ_SQL = {
  readDoc: `SELECT rid, version, doc FROM docs WHERE coll = ? AND id = ?`,
  byKey: `SELECT d.id, d.version, d.rid, d.doc FROM entries e JOIN docs d ON d.rid = e.rid WHERE e.ix = ? AND e.key = ? ORDER BY e.rid LIMIT 1`,
} as const;

/**
 * An index key as a statement selects it: as text where its bytes are plain UTF-8 (no 0x01 escape, no 0xED lead
 * byte: byte-keys.ts decodeKey's fast case, which text decodes alike), else as bytes; read with `keyOf`.
 */
export const keyColumn = (col: string) =>
  `CASE WHEN instr(${col}, x'01') OR instr(${col}, x'ed') THEN ${col} ELSE CAST(${col} AS TEXT) END`;

/** One index range walk: key bounds are bytes (drivers/shared/byte-keys.ts); ties (possible only off the core's keys) by rowid. */
export const listSql = (lower: Lower, upper: Upper, dir: Dir) =>
  `SELECT ${keyColumn('e.key')}, d.id, d.version, e.rid, d.doc FROM entries e JOIN docs d ON d.rid = e.rid
   WHERE e.ix = ? AND e.key ${lower} ? AND e.key ${upper} ? ORDER BY e.key ${dir}, e.rid ${dir} ${LIMIT}`;

export const countSql = (lower: Lower, upper: Upper) =>
  `SELECT count(*) FROM entries WHERE ix = ? AND key ${lower} ? AND key ${upper} ?`;

/** One index range walk returning keys and ids only (no document is read). */
const keysSql = (lower: Lower, upper: Upper, dir: Dir) =>
  `SELECT ${keyColumn('e.key')}, d.id, e.rid FROM entries e JOIN docs d ON d.rid = e.rid
   WHERE e.ix = ? AND e.key ${lower} ? AND e.key ${upper} ? ORDER BY e.key ${dir}, e.rid ${dir} ${LIMIT}`;

/**
 * Several prefixes' walks merged by suffix in one statement: each member walks one prefix (a seek, at most
 * `limit` keys), the suffix is the key's bytes after its prefix, GROUP BY keeps one row per suffix (the
 * lowest member number: SQLite takes bare columns from the min() row), and only the page is joined to docs.
 * Parameters per member: suffix start, index, from, to, limit; then the page limit.
 */
const mergeSql = (members: number, lower: Lower, upper: Upper, dir: Dir) =>
  `SELECT ${keyColumn('t.key')}, d.id FROM (
     SELECT s, key, rid, min(n) AS n FROM (${Array.from(
       { length: members },
       (_, n) =>
         `SELECT * FROM (SELECT substr(key, ?) AS s, key, rid, ${n} AS n FROM entries
          WHERE ix = ? AND key ${lower} ? AND key ${upper} ? ORDER BY key ${dir} ${LIMIT})`,
     ).join(' UNION ALL ')})
     GROUP BY s ORDER BY s ${dir} ${LIMIT}
   ) t JOIN docs d ON d.rid = t.rid ORDER BY t.s ${dir}`;

// Every list and count statement, built once: 2 lower × 2 upper comparisons (× 2 directions).
const LIST_SQL: Record<string, string> = {};
const KEYS_SQL: Record<string, string> = {};
const COUNT_SQL: Record<string, string> = {};
for (const lower of ['>=', '>'] as const) {
  for (const upper of ['<=', '<'] as const) {
    COUNT_SQL[`${lower}${upper}`] = countSql(lower, upper);
    for (const dir of ['ASC', 'DESC'] as const) {
      LIST_SQL[`${lower}${upper}${dir}`] = listSql(lower, upper, dir);
      KEYS_SQL[`${lower}${upper}${dir}`] = keysSql(lower, upper, dir);
    }
  }
}

export const sqlDirection = (q: { direction: 'asc' | 'desc' }): Dir => (q.direction === 'desc' ? 'DESC' : 'ASC');

/** A record by id, read with a collection already resolved. */
export function read(c: Connection, coll: CollectionInfo, id: string): StoredDoc | undefined {
  const row = c.stmt(READ_SQL.readDoc).raw().get(coll.no, id) as [number, number, string] | undefined;
  return row && { id, version: row[1], doc: c.parsed.parse(row[0], row[2]) };
}

export function get(c: Connection, collection: string, id: string): StoredDoc | undefined {
  return read(c, c.collection(collection), id);
}

export function getMany(c: Connection, collection: string, ids: readonly string[]): Array<StoredDoc | undefined> {
  const coll = c.collection(collection);
  if (ids.length <= 1) return ids.map((id) => read(c, coll, id));
  // One read transaction, so the records come from one snapshot even with other writers on the file.
  return (c.readTx ??= c.db.transaction((coll: CollectionInfo, ids: readonly string[]) =>
    ids.map((id) => read(c, coll, id)),
  ))(coll, ids);
}

export function getByIndex(c: Connection, collection: string, index: string, key: Key): StoredDoc | undefined {
  const i = c.index(c.collection(collection), index);
  if (!i.unique) throw new Error(`index ${index} is not unique`);
  const row = c.stmt(READ_SQL.byKey).raw().get(i.no, encodeKey(key)) as [string, number, number, string] | undefined;
  return row && { id: row[0], version: row[1], doc: c.parsed.parse(row[2], row[3]) };
}

export function list(c: Connection, q: ListQuery): IndexedDoc[] {
  const limit = Math.max(0, Math.floor(q.limit));
  const r = c.range(q);
  if (limit === 0) return [];
  const rows = c
    .stmt(LIST_SQL[`${r.lower}${r.upper}${sqlDirection(q)}`]!)
    .raw()
    .all(r.ix, r.from, r.to, limit) as Array<[string | Buffer, string, number, number, string]>;
  return rows.map(([key, id, version, rid, doc]) => ({
    id,
    key: keyOf(key),
    version,
    doc: c.parsed.parse(rid, doc),
  }));
}

export function count(c: Connection, q: RangeQuery): number {
  const r = c.range(q);
  return Number(c.stmt(COUNT_SQL[`${r.lower}${r.upper}`]!).pluck().get(r.ix, r.from, r.to));
}

/** One prefix's walk in key order, keys, ids and rowids only. */
export function walk(
  c: Connection,
  q: KeysQuery,
  prefix: Key,
  limit: number,
): Array<[string | Buffer, string, number]> {
  const r = c.range({ ...q, prefix });
  return c
    .stmt(KEYS_SQL[`${r.lower}${r.upper}${sqlDirection(q)}`]!)
    .raw()
    .all(r.ix, r.from, r.to, limit) as Array<[string | Buffer, string, number]>;
}

export function keys(c: Connection, q: KeysQuery): IndexEntry[] {
  const limit = Math.max(0, Math.floor(q.limit));
  if (limit === 0 || q.prefixes.length === 0) return [];
  if (q.prefixes.length === 1) return walk(c, q, q.prefixes[0]!, limit).map(([key, id]) => ({ id, key: keyOf(key) }));
  const params: Array<number | Buffer> = [];
  const ranges = q.prefixes.map((prefix) => {
    const r = c.range({ ...q, prefix });
    params.push((prefix.length ? encodeKey(prefix).length : 0) + 1, r.ix, r.from, r.to, limit);
    return r;
  });
  // The comparisons depend on the bounds only, so every member uses the same ones.
  const sql = mergeSql(q.prefixes.length, ranges[0]!.lower, ranges[0]!.upper, sqlDirection(q));
  const rows = c
    .stmt(sql)
    .raw()
    .all(...params, limit) as Array<[string | Buffer, string]>;
  return rows.map(([key, id]) => ({ id, key: keyOf(key) }));
}
