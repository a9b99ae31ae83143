/**
 * Reads by id, by unique key and by key range, each one statement on the tables of layout.ts: a list walks one
 * native index (`WHERE blog_id = $1 AND status = $2 AND (published, id) < ($3, $4) ORDER BY published DESC, id
 * DESC LIMIT $5`); several prefixes' walks are merged by the key after the prefix in SQL.
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
import { byteRange, decodeKey, encodeKey } from '../shared/byte-keys.js';
import type { Connection } from './connect.js';
import type { CollectionPlan, IndexPlan } from './layout.js';
import { fromKeyText, ident, keyText } from './text.js';

type Dir = 'ASC' | 'DESC';
export const sqlDirection = (q: { direction: 'asc' | 'desc' }): Dir => (q.direction === 'desc' ? 'DESC' : 'ASC');

/** Numbered parameters of one statement. */
export class Params {
  readonly values: unknown[] = [];
  add(value: unknown): string {
    return `$${this.values.push(value)}`;
  }
}

/** The page sizes written into statements' text (limitOf): the first few asked in this process. */
const literalLimits = new Set<number>();
const LITERAL_LIMITS = 16;
/** The largest limit written as text, a page's (maxResults + 1): a longer walk's planning is a small part of it. */
const LITERAL_MOST = 101;

/**
 * A walk's LIMIT: in the statement's text for the first few page sizes asked (an app uses one or two), else a
 * parameter, so the statements a connection prepares stay bounded. PostgreSQL costs a prepared statement's
 * generic plan for `LIMIT $n` as a tenth of the rows its index may hold, so it planned a page read again on
 * every run (a label page at 100k posts: 0.28 ms of planning for a 0.1 ms execution); with the size in the
 * text the generic plan costs what a custom one does, and is kept.
 */
export function limitOf(P: Params, limit: number): string {
  if (limit > LITERAL_MOST || (!literalLimits.has(limit) && literalLimits.size >= LITERAL_LIMITS)) return P.add(limit);
  literalLimits.add(limit);
  return String(limit);
}

/**
 * The columns a read of documents selects, after `alias.`: version, doc (as its text), the counters, then the row's
 * `xmin`. `known` (a text[] parameter: `id xmin.version` of documents the driver keeps, ParsedDocs) leaves out
 * the text of a row still as it was kept: a page read again sends only what changed (a list of 20 posts: 170
 * instead of 360 µs on this machine). A row written since has another xmin (its writing transaction's).
 */
export const docColumns = (p: CollectionPlan, alias: string, known: string): string =>
  [
    `${alias}.version`,
    `CASE WHEN (${alias}.id || ' ' || ${alias}.xmin::text || '.' || ${alias}.version) = ANY (${known}::text[]) THEN NULL ELSE ${alias}.doc::text END`,
    ...p.counters.map((c) => `${alias}.${ident(c.column)}`),
    `${alias}.xmin::text`,
  ].join(', ');

/**
 * The most rows a read names as known: a prepared statement's `= ANY` walks its array for every row it reads
 * (a page of 501 rows all known would compare 250,000 pairs), so past a few pages' worth the rest come whole.
 */
const KNOWN_MOST = 64;

/** A document a read left out as kept that is kept no longer (pushed out meanwhile): the read runs again. */
class NotKept extends Error {}

/** A stored document from `version, doc, counters…, xmin` at `at` in a row (counters are the columns' values). */
export function docOf(c: Connection, p: CollectionPlan, id: string, row: unknown[], at: number): StoredDoc {
  const text = row[at + 1] as string | null;
  const stamp = `${row[at + 2 + p.counters.length] as string}.${row[at] as number}`;
  const key = `${p.table}/${id}`;
  let doc = text === null ? c.parsed.keptAs(key, stamp) : c.parsed.parse(key, text, stamp);
  if (doc === undefined) throw new NotKept();
  if (p.counters.length) {
    doc = { ...doc };
    for (let k = 0; k < p.counters.length; k++) doc[p.counters[k]!.field] = Number(row[at + 2 + k]);
  }
  return { id, version: row[at] as number, doc };
}

/**
 * Runs a read of documents whose parameter `known` (`$n`, docColumns) it fills: the stamps of the documents kept
 * among `ids`, or, where the read cannot know its ids before it runs (a walk), among those it found when it last
 * ran with these values (Connection.lastFound). Should one it left out be gone from what is kept, it runs again
 * knowing none.
 */
async function readDocs<R extends { id: string }>(
  c: Connection,
  p: CollectionPlan,
  sql: string,
  values: unknown[],
  known: string,
  ids: readonly string[] | undefined,
  out: (rows: unknown[][]) => R[],
): Promise<R[]> {
  const at = Number(known.slice(1)) - 1;
  const memo = ids ? undefined : `${sql}\0${JSON.stringify(values)}`;
  const asked = ids ?? c.lastFound.get(memo!) ?? [];
  const stamps: string[] = [];
  for (const id of asked) {
    const stamp = c.parsed.stampOf(`${p.table}/${id}`);
    if (stamp !== undefined && stamps.push(`${keyText(id)} ${stamp}`) === KNOWN_MOST) break;
  }
  values[at] = stamps;
  let found: R[];
  try {
    found = out(await c.run(sql, values));
  } catch (error) {
    if (!(error instanceof NotKept)) throw error;
    values[at] = [];
    found = out(await c.run(sql, values));
  }
  if (memo !== undefined)
    c.remember(
      memo,
      found.map((r) => r.id),
    );
  return found;
}

/** The table of an index's entries, aliased `e`, and for side tables the collection's table aliased `d`. */
export function entriesFrom(c: Connection, p: CollectionPlan, i: IndexPlan, docs: boolean): string {
  const e = `${c.s}.${ident(i.table)} e`;
  if (i.kind === 'main') return e;
  return docs ? `${e} JOIN ${c.s}.${ident(p.table)} d ON d.id = e.id` : e;
}

/** The alias holding a walk's documents. */
export const docAlias = (i: IndexPlan): string => (i.kind === 'main' ? 'e' : 'd');

/**
 * A key part's value in a walk's terms, where PostgreSQL's planner cannot see it (an InitPlan's output). A walk's
 * plan is the same for any value (its index, in order, under a LIMIT), but a prepared statement's generic plan
 * guesses a parameter's rows from the column's average (a status: half the posts, where LIVE is nearly all)
 * while the plan made for the values knows them: the generic one looked dearer, and PostgreSQL planned every
 * page read again (custom plans, about 100 µs of a 300 µs read). Unseen by both, the two cost the same and the
 * generic plan is kept (docs/postgres.md, "Plans"). An array is a multi-prefix walk's parts, one per prefix.
 */
export const unseen = (P: Params, value: string | string[]): string =>
  `(SELECT ${P.add(value)}::text${typeof value === 'string' ? ' COLLATE "C"' : '[]'})`;

/** Terms joined by AND (none: TRUE). */
export const all = (terms: readonly string[]): string => (terms.length ? terms.join(' AND ') : 'TRUE');

const rowCompare = (cols: string[], values: string[], op: string) =>
  cols.length === 1 ? `${cols[0]} ${op} ${values[0]}` : `(${cols.join(', ')}) ${op} (${values.join(', ')})`;

/**
 * The terms of a range on an index: equality on the prefix's parts, and the bounds on the parts after it as row
 * comparisons (a bound shorter than the rest of the key compares its own length: a longer key with those parts
 * sorts after it). `prefix` gives each prefix part's SQL (a parameter, or a column of the prefixes' rows).
 */
export function rangeTerms(
  i: IndexPlan,
  prefix: readonly string[],
  q: Pick<RangeQuery, 'lower' | 'upper'>,
  P: Params,
): string[] {
  const col = (c: string) => `e.${ident(c)}`;
  if (i.kind === 'bytes') throw new Error('byte-key ranges are built by bytesTerms');
  const n = i.parts.length;
  if (prefix.length > n) return ['FALSE'];
  const terms = [...i.where.map((w) => `e.${w}`), ...prefix.map((v, k) => `${col(i.parts[k]!)} = ${v}`)];
  const rest = i.parts.slice(prefix.length).map(col);
  const m = rest.length;
  const vals = (key: Key, k: number) => key.slice(0, k).map((part) => unseen(P, keyText(part)));
  if (q.lower) {
    const { key, open } = q.lower;
    const l = key.length;
    if (l === 0) {
      if (open && m === 0) terms.push('FALSE');
    } else if (l <= m) terms.push(rowCompare(rest.slice(0, l), vals(key, l), open && l === m ? '>' : '>='));
    else terms.push(m === 0 ? 'FALSE' : rowCompare(rest, vals(key, m), '>'));
  }
  if (q.upper) {
    const { key, open } = q.upper;
    const l = key.length;
    if (l === 0) {
      if (open || m > 0) terms.push('FALSE');
    } else if (l <= m) terms.push(rowCompare(rest.slice(0, l), vals(key, l), !open && l === m ? '<=' : '<'));
    else if (m > 0) terms.push(rowCompare(rest, vals(key, m), '<='));
  }
  return terms;
}

/** The order of a walk after the prefix: the remaining parts, then the id for ties. */
export function orderBy(i: IndexPlan, prefixLength: number, dir: Dir, alias = 'e'): string[] {
  if (i.kind === 'bytes') return [`${alias}.key ${dir}`, `${alias}.id ${dir}`];
  const cols = i.parts.slice(prefixLength).map((c) => `${alias}.${ident(c)} ${dir}`);
  if (i.tie || !cols.length) cols.push(`${alias}.id ${dir}`);
  return cols;
}

/** The key columns a walk selects (bytes: the key), and the key of a row from them. */
export const keyColumns = (i: IndexPlan, alias = 'e'): string[] =>
  i.kind === 'bytes' ? [`${alias}.key`] : i.parts.map((c) => `${alias}.${ident(c)}`);

export const keyOf = (i: IndexPlan, row: unknown[], at = 0): Key =>
  i.kind === 'bytes' ? decodeKey(row[at] as Buffer) : i.parts.map((_, k) => fromKeyText(row[at + k] as string));

/** The terms of one prefix's range on a byte-key index. */
function bytesTerms(q: Pick<RangeQuery, 'prefix' | 'lower' | 'upper'>, P: Params): string[] {
  const r = byteRange(q);
  return [`e.key ${r.lower} ${P.add(r.from)}`, `e.key ${r.upper} ${P.add(r.to)}`];
}

/** The terms of a range query (one prefix). */
export function terms(i: IndexPlan, q: RangeQuery, P: Params): string[] {
  if (i.kind === 'bytes') return bytesTerms(q, P);
  return rangeTerms(
    i,
    q.prefix.map((part) => unseen(P, keyText(part))),
    q,
    P,
  );
}

export async function get(c: Connection, collection: string, id: string): Promise<StoredDoc | undefined> {
  const p = c.collection(collection);
  const sql = `SELECT ${docColumns(p, 't', '$2')} FROM ${c.s}.${ident(p.table)} t WHERE t.id = $1`;
  const [found] = await readDocs(c, p, sql, [keyText(id), []], '$2', [id], (rows) =>
    rows.map((row) => docOf(c, p, id, row, 0)),
  );
  return found;
}

export async function getMany(
  c: Connection,
  collection: string,
  ids: readonly string[],
): Promise<Array<StoredDoc | undefined>> {
  const p = c.collection(collection);
  if (ids.length === 0) return [];
  if (ids.length === 1) return [await get(c, collection, ids[0]!)];
  const sql = `SELECT t.id, ${docColumns(p, 't', '$2')} FROM ${c.s}.${ident(p.table)} t WHERE t.id = ANY ($1::text[])`;
  const docs = await readDocs(c, p, sql, [ids.map(keyText), []], '$2', ids, (rows) =>
    rows.map((row) => docOf(c, p, fromKeyText(row[0] as string), row, 1)),
  );
  const found = new Map(docs.map((d) => [d.id, d]));
  // Each answer is its own object (pg parses each row's json; an id asked twice is copied), so a caller changing
  // one answer never changes another.
  const given = new Set<string>();
  return ids.map((id) => {
    const d = found.get(id);
    if (!d) return undefined;
    if (given.has(id)) return structuredClone(d);
    given.add(id);
    return d;
  });
}

export async function getByIndex(
  c: Connection,
  collection: string,
  index: string,
  key: Key,
): Promise<StoredDoc | undefined> {
  const p = c.collection(collection);
  const i = c.index(p, index);
  if (!i.unique) throw new Error(`index ${index} is not unique`);
  const P = new Params();
  const where =
    i.kind === 'bytes'
      ? [`e.key = ${P.add(encodeKey(key))}`]
      : key.length !== i.parts.length
        ? ['FALSE']
        : rangeTerms(
            i,
            key.map((part) => P.add(keyText(part))),
            {},
            P,
          );
  const d = docAlias(i);
  const K = P.add([]);
  const sql = `SELECT ${d}.id, ${docColumns(p, d, K)} FROM ${entriesFrom(c, p, i, true)} WHERE ${all(where)} LIMIT 1`;
  const [found] = await readDocs(c, p, sql, P.values, K, undefined, (rows) =>
    rows.map((row) => docOf(c, p, fromKeyText(row[0] as string), row, 1)),
  );
  return found;
}

export async function list(c: Connection, q: ListQuery): Promise<IndexedDoc[]> {
  const limit = Math.max(0, Math.floor(q.limit));
  const p = c.collection(q.collection);
  const i = c.index(p, q.index);
  if (limit === 0) return [];
  const P = new Params();
  const where = terms(i, q, P);
  const d = docAlias(i);
  const keys = keyColumns(i);
  const K = P.add([]);
  const sql = `SELECT ${keys.join(', ')}, ${d}.id, ${docColumns(p, d, K)} FROM ${entriesFrom(c, p, i, true)}
    WHERE ${all(where)} ORDER BY ${orderBy(i, q.prefix.length, sqlDirection(q)).join(', ')} LIMIT ${limitOf(P, limit)}`;
  return readDocs(c, p, sql, P.values, K, undefined, (rows) =>
    rows.map((row) => {
      const id = fromKeyText(row[keys.length] as string);
      return { ...docOf(c, p, id, row, keys.length + 1), key: keyOf(i, row) };
    }),
  );
}

export async function count(c: Connection, q: RangeQuery): Promise<number> {
  const p = c.collection(q.collection);
  const i = c.index(p, q.index);
  const P = new Params();
  const where = terms(i, q, P);
  const rows = await c.run(`SELECT count(*)::int FROM ${entriesFrom(c, p, i, false)} WHERE ${all(where)}`, P.values);
  return Number(rows[0]![0]);
}

/**
 * The prefixes of a merged walk as rows `p(a1, …, n)` (one array parameter per prefix part; byte keys: each
 * prefix's range as `p(lo, hi, n)`), and each prefix's range terms inside a walk.
 */
export function prefixRows(i: IndexPlan, q: KeysQuery, P: Params): { from: string; terms: string[] } {
  const width = q.prefixes[0]?.length ?? 0;
  if (i.kind === 'bytes') {
    const lo: Buffer[] = [];
    const hi: Buffer[] = [];
    const w: number[] = [];
    let lower = '>=';
    let upper = '<';
    for (const prefix of q.prefixes) {
      const r = byteRange({ ...q, prefix });
      lo.push(r.from);
      hi.push(r.to);
      w.push(prefix.length ? encodeKey(prefix).length : 0);
      ({ lower, upper } = r);
    }
    return {
      from: `unnest(${P.add(lo)}::bytea[], ${P.add(hi)}::bytea[], ${P.add(w)}::int[]) WITH ORDINALITY AS p(lo, hi, w, n)`,
      terms: [`e.key ${lower} p.lo`, `e.key ${upper} p.hi`],
    };
  }
  const cols = Array.from({ length: width }, (_, k) => `a${k + 1}`);
  const arrays = cols.map((_, k) =>
    unseen(
      P,
      q.prefixes.map((pr) => keyText(pr[k]!)),
    ),
  );
  return {
    from: width
      ? `unnest(${arrays.join(', ')}) WITH ORDINALITY AS p(${cols.join(', ')}, n)`
      : `(SELECT 1::bigint AS n) p`,
    terms: rangeTerms(
      i,
      cols.map((a) => `p.${a}`),
      q,
      P,
    ),
  };
}

/** The suffix columns of a merged walk's rows (aliased k1…), by which entries of several prefixes are merged. */
export function suffixOf(i: IndexPlan, width: number): string[] {
  if (i.kind === 'bytes') return ['sfx'];
  const cols = i.parts.slice(width).map((_, k) => `k${width + k + 1}`);
  if (i.tie || !cols.length) cols.push('kid');
  return cols;
}

/** The selected key columns of a walk, named k1…kn and kid (bytes: key, sfx — the bytes after the prefix). */
export function walkColumns(i: IndexPlan): string {
  if (i.kind === 'bytes') return `e.key AS k1, substr(e.key, p.w + 1) AS sfx, e.id AS kid`;
  return [...i.parts.map((c, k) => `e.${ident(c)} AS k${k + 1}`), 'e.id AS kid'].join(', ');
}

/**
 * `keys`; with `q.docs`, each entry's document and version are read in the same statement (a join on the page's
 * ids) and returned on the entry, so the core reads no documents after it.
 */
export async function keys(c: Connection, q: KeysQuery): Promise<IndexEntry[]> {
  const limit = Math.max(0, Math.floor(q.limit));
  if (limit === 0 || q.prefixes.length === 0) return [];
  const p = c.collection(q.collection);
  const i = c.index(p, q.index);
  const P = new Params();
  const dir = sqlDirection(q);
  const width = q.prefixes[0]!.length;
  const pre = prefixRows(i, q, P);
  const L = limitOf(P, limit);
  const sfx = suffixOf(i, width);
  const nk = i.kind === 'bytes' ? 1 : i.parts.length;
  const found = q.docs === true;
  const K = found ? P.add([]) : '';
  const docs = found ? `, ${docColumns(p, 'd', K)}` : '';
  const sql = `SELECT ${Array.from({ length: nk }, (_, k) => `m.k${k + 1}`).join(', ')}, m.kid${docs} FROM (
      SELECT DISTINCT ON (${sfx.join(', ')}) w.* FROM ${pre.from}
      CROSS JOIN LATERAL (SELECT ${walkColumns(i)} FROM ${entriesFrom(c, p, i, false)}
        WHERE ${all(pre.terms)} ORDER BY ${orderBy(i, width, dir).join(', ')} LIMIT ${L}) w
      ORDER BY ${sfx.join(', ')}, p.n
    ) m${found ? ` LEFT JOIN ${c.s}.${ident(p.table)} d ON d.id = m.kid` : ''}
    ORDER BY ${sfx.map((x) => `m.${x} ${dir}`).join(', ')} LIMIT ${L}`;
  const entries = (rows: unknown[][]): IndexEntry[] =>
    rows.map((row) => {
      const id = fromKeyText(row[nk] as string);
      const key = keyOf(i, row);
      return found && row[nk + 1] !== null ? { ...docOf(c, p, id, row, nk + 1), key } : { id, key };
    });
  return found ? readDocs(c, p, sql, P.values, K, undefined, entries) : entries(await c.run(sql, P.values));
}
