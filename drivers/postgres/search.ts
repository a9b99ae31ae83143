/**
 * Token search on PostgreSQL, an ordered page in one or two statements. The core's tokens are stored per record as `docs.tokens`, each prefixed by the collection and
 * scope (so one GIN index serves every blog without reading other blogs' postings). Two shapes, picked per
 * query as the raw baseline showed the planner cannot pick them:
 * - few matches (a GIN count capped at SPARSE finds fewer): every match's entries of the index (from
 *   docs.eix/ekey, no entries join), sorted, `limit` kept — work O(SPARSE);
 * - many matches: per prefix, walk the ordered index and check each candidate's tokens, at most
 *   WALK × limit candidates; a prefix whose walk used that budget without filling the page (matches
 *   common in the blog but rare in this range) falls back to the first shape.
 */
import { createHash } from 'node:crypto';
import type { IndexEntry, SearchQuery } from '../../src/store/driver.js';
import { decodeKey } from '../shared/byte-keys.js';
import type { Connection } from './connect.js';
import { PREFIXES, ranges } from './reads.js';
import { fromPgText, pgText } from './text.js';

const SPARSE = 500;
const WALK = 24;

type Lower = '>=' | '>';
type Upper = '<=' | '<';
type Dir = 'ASC' | 'DESC';

/** A core token as stored: prefixed by collection and scope (length-prefixed, so the split is unambiguous). */
export function storedToken(coll: number, scope: string, token: string): string {
  const t = `${coll}:${scope.length}:${scope}:${token}`;
  // A GIN entry holds at most ~2.7 KB: a long token is stored as its hash, the same on write and on search.
  return t.length > 240 ? `\x02${createHash('sha256').update(t, 'utf16le').digest('base64')}` : pgText(t);
}

const matchCountSql = (s: string) =>
  `SELECT count(*)::int FROM (SELECT 1 FROM ${s}.docs WHERE tokens @> $1::text[] LIMIT $2) x`;

/** Every match's entries within the prefixes and bounds, merged; `$6` the tokens. */
const sparseSql = (s: string, lower: Lower, upper: Upper, dir: Dir) =>
  `SELECT m.key, m.id FROM (
     SELECT DISTINCT ON (sfx) k.key, d.id, substr(k.key, p.w) AS sfx
     FROM ${s}.docs d CROSS JOIN LATERAL unnest(d.eix, d.ekey) AS k(ix, key)
     JOIN ${PREFIXES} ON k.key ${lower} p.lo AND k.key ${upper} p.hi
     WHERE d.tokens @> $6::text[] AND k.ix = $1
     ORDER BY sfx, p.n
   ) m ORDER BY m.sfx ${dir} LIMIT $5`;

/** Per prefix, the first matches among at most `$7` candidates of the ordered index; `n` says which prefix. */
const walkSql = (s: string, lower: Lower, upper: Upper, dir: Dir) =>
  `SELECT k.key, k.id, p.n::int, substr(k.key, p.w) AS sfx FROM ${PREFIXES}
   CROSS JOIN LATERAL (
     SELECT c.key, x.id FROM (SELECT e.key, e.rid FROM ${s}.entries e WHERE e.ix = $1 AND e.key ${lower} p.lo AND e.key ${upper} p.hi
                              ORDER BY e.key ${dir}, e.rid ${dir} LIMIT $7) c
     JOIN ${s}.docs x ON x.rid = c.rid WHERE x.tokens @> $6::text[]
     ORDER BY c.key ${dir}, c.rid ${dir} LIMIT $5) k`;

/** How many entries a prefix's range holds, counted no further than the cap. */
const rangeCountSql = (s: string, lower: Lower, upper: Upper) =>
  `SELECT count(*)::int FROM (SELECT 1 FROM ${s}.entries e WHERE e.ix = $1 AND e.key ${lower} $2 AND e.key ${upper} $3 LIMIT $4) x`;

interface Row {
  key: Buffer;
  id: string;
}

/** Merges per-prefix walks (already in order) by suffix, first prefix wins a repeat, `limit` kept. */
function mergeRows(rows: Array<[Buffer, string, number, Buffer]>, dir: Dir, limit: number): Row[] {
  const sign = dir === 'ASC' ? 1 : -1;
  rows.sort((a, b) => sign * Buffer.compare(a[3], b[3]) || a[2] - b[2]);
  const out: Row[] = [];
  for (let i = 0; i < rows.length && out.length < limit; i++) {
    if (i > 0 && rows[i]![3].equals(rows[i - 1]![3])) continue;
    out.push({ key: rows[i]![0], id: rows[i]![1] });
  }
  return out;
}

export async function search(c: Connection, q: SearchQuery): Promise<IndexEntry[]> {
  const coll = c.collection(q.collection);
  const limit = Math.max(0, Math.floor(q.limit));
  if (q.tokens.length === 0 || limit === 0 || q.prefixes.length === 0) return [];
  const r = ranges(c, q);
  const tokens = [...new Set(q.tokens)].map((t) => storedToken(coll.no, q.scope, t));
  const params = [r.ix, r.lo, r.hi, r.w, limit, tokens];
  const matches = Number((await c.run(matchCountSql(c.s), [tokens, SPARSE]))[0]![0]);
  let rows: Row[] | undefined;
  if (matches >= SPARSE) {
    const budget = WALK * limit;
    const found = (await c.run(walkSql(c.s, r.lower, r.upper, r.dir), [...params, budget])) as Array<
      [Buffer, string, number, Buffer]
    >;
    const per = new Map<number, number>();
    for (const row of found) per.set(row[2], (per.get(row[2]) ?? 0) + 1);
    // A prefix that came back short is complete only if its walk ran out of range before the budget did.
    let complete = true;
    for (let n = 1; n <= q.prefixes.length && complete; n++) {
      if ((per.get(n) ?? 0) >= limit) continue;
      const held = Number(
        (await c.run(rangeCountSql(c.s, r.lower, r.upper), [r.ix, r.lo[n - 1], r.hi[n - 1], budget]))[0]![0],
      );
      complete = held < budget;
    }
    if (complete) rows = mergeRows(found, r.dir, limit);
  }
  rows ??= ((await c.run(sparseSql(c.s, r.lower, r.upper, r.dir), params)) as Array<[Buffer, string]>).map(
    ([key, id]) => ({ key, id }),
  );
  return rows.map((e) => ({ id: fromPgText(e.id), key: decodeKey(e.key) }));
}
