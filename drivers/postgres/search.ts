/**
 * Merged key walks and ordered search pages on PostgreSQL, each one statement (one round trip).
 *
 * `keys`: per prefix, a range walk of the entries' primary key of at most `limit` entries; merged by suffix
 * in SQL (DISTINCT ON the suffix bytes drops a record's repeats under other prefixes), then `limit` kept.
 *
 * `search`: the core's tokens are stored per record as `docs.tokens`, each prefixed by the collection and
 * scope (so one GIN index serves every blog without reading other blogs' postings). Two shapes, picked per
 * query as the raw baseline showed the planner cannot pick them:
 * - few matches (a GIN count capped at SPARSE finds fewer): every match's entries of the index (from
 *   docs.eix/ekey, no entries join), sorted, `limit` kept — work O(SPARSE);
 * - many matches: per prefix, walk the ordered index and check each candidate's tokens, at most
 *   WALK × limit candidates; a prefix whose walk used that budget without filling the page (matches
 *   common in the blog but rare in this range) falls back to the first shape.
 */
import { createHash } from 'node:crypto';
import { decodeKey } from '../shared/byte-keys.js';
import { pgText } from './text.js';

export const SPARSE = 500;
export const WALK = 24;

type Lower = '>=' | '>';
type Upper = '<=' | '<';
type Dir = 'ASC' | 'DESC';

/** A core token as stored: prefixed by collection and scope (length-prefixed, so the split is unambiguous). */
export function storedToken(coll: number, scope: string, token: string): string {
  const t = `${coll}:${scope.length}:${scope}:${token}`;
  // A GIN entry holds at most ~2.7 KB: a long token is stored as its hash, the same on write and on search.
  return t.length > 240 ? `\x02${createHash('sha256').update(t, 'utf16le').digest('base64')}` : pgText(t);
}

/** The per-prefix bounds: lower bytes, upper bytes and where the suffix starts (1-based, for substr). */
const PREFIXES = `unnest($2::bytea[], $3::bytea[], $4::int[]) WITH ORDINALITY AS p(lo, hi, w, n)`;

export const keysSql = (s: string, lower: Lower, upper: Upper, dir: Dir) =>
  `SELECT m.key, d.id FROM (
     SELECT DISTINCT ON (sfx) k.key, k.rid, substr(k.key, p.w) AS sfx FROM ${PREFIXES}
     CROSS JOIN LATERAL (SELECT e.key, e.rid FROM ${s}.entries e WHERE e.ix = $1 AND e.key ${lower} p.lo AND e.key ${upper} p.hi
                         ORDER BY e.key ${dir}, e.rid ${dir} LIMIT $5) k
     ORDER BY sfx, p.n
   ) m JOIN ${s}.docs d ON d.rid = m.rid ORDER BY m.sfx ${dir} LIMIT $5`;

export const matchCountSql = (s: string) => `SELECT count(*)::int FROM (SELECT 1 FROM ${s}.docs WHERE tokens @> $1::text[] LIMIT $2) x`;

/** Every match's entries within the prefixes and bounds, merged; `$6` the tokens. */
export const sparseSql = (s: string, lower: Lower, upper: Upper, dir: Dir) =>
  `SELECT m.key, m.id FROM (
     SELECT DISTINCT ON (sfx) k.key, d.id, substr(k.key, p.w) AS sfx
     FROM ${s}.docs d CROSS JOIN LATERAL unnest(d.eix, d.ekey) AS k(ix, key)
     JOIN ${PREFIXES} ON k.key ${lower} p.lo AND k.key ${upper} p.hi
     WHERE d.tokens @> $6::text[] AND k.ix = $1
     ORDER BY sfx, p.n
   ) m ORDER BY m.sfx ${dir} LIMIT $5`;

/** Per prefix, the first matches among at most `$7` candidates of the ordered index; `n` says which prefix. */
export const walkSql = (s: string, lower: Lower, upper: Upper, dir: Dir) =>
  `SELECT k.key, k.id, p.n::int, substr(k.key, p.w) AS sfx FROM ${PREFIXES}
   CROSS JOIN LATERAL (
     SELECT c.key, x.id FROM (SELECT e.key, e.rid FROM ${s}.entries e WHERE e.ix = $1 AND e.key ${lower} p.lo AND e.key ${upper} p.hi
                              ORDER BY e.key ${dir}, e.rid ${dir} LIMIT $7) c
     JOIN ${s}.docs x ON x.rid = c.rid WHERE x.tokens @> $6::text[]
     ORDER BY c.key ${dir}, c.rid ${dir} LIMIT $5) k`;

/** How many entries a prefix's range holds, counted no further than the cap. */
export const rangeCountSql = (s: string, lower: Lower, upper: Upper) =>
  `SELECT count(*)::int FROM (SELECT 1 FROM ${s}.entries e WHERE e.ix = $1 AND e.key ${lower} $2 AND e.key ${upper} $3 LIMIT $4) x`;

export interface Row {
  key: Buffer;
  id: string;
}

/** Merges per-prefix walks (already in order) by suffix, first prefix wins a repeat, `limit` kept. */
export function mergeRows(rows: Array<[Buffer, string, number, Buffer]>, dir: Dir, limit: number): Row[] {
  const sign = dir === 'ASC' ? 1 : -1;
  rows.sort((a, b) => sign * Buffer.compare(a[3], b[3]) || a[2] - b[2]);
  const out: Row[] = [];
  for (let i = 0; i < rows.length && out.length < limit; i++) {
    if (i > 0 && rows[i]![3].equals(rows[i - 1]![3])) continue;
    out.push({ key: rows[i]![0], id: rows[i]![1] });
  }
  return out;
}

export const decode = (rows: Row[]) => rows.map((r) => ({ id: r.id, key: decodeKey(r.key) }));
