/**
 * Token search on FTS5 (the `search` table, schema.ts) and the `terms` rows. Strategy:
 * - when the query's order is the rank order (SearchQuery.rankOf), a planner's choice by how common the tokens
 *   are (`Plans`): for tokens in most records, the dense walk below (it fills a page in about a list page's cost,
 *   where FTS5's backward read over its segments grows with the store); else FTS5's matches read from the
 *   query's bound in rowid order, which is rank order (`ranks`, schema.ts), until the page is full and its last
 *   rank complete: the newest matches of a search cost a page, however many posts match. Each walk measures how
 *   common the tokens are as it reads, for the next search of the same tokens on this connection;
 * - else, by the number of matches in the scope (counted by FTS5 up to SPARSE): fewer than SPARSE, every
 *   match's keys of the index (from doc_keys.keys), sorted in JS;
 * - else (or when that reads too far: the prefixes hold few of the matches): a short walk of the ordered index
 *   checking each candidate's tokens in its `terms` row, which fills the page when matches are dense (a word in
 *   nearly every post) at the cost of a list page;
 * - else: the ordered index walked against FTS5's materialized match set, sequential reads.
 */
import {
  compareKeys,
  mergeWalks,
  suffixInBounds,
  type IndexEntry,
  type Key,
  type KeyBound,
  type SearchQuery,
} from '../../src/store/driver.js';
import { keyBytes, keyOf } from '../shared/byte-keys.js';
import { type Connection, LIMIT } from './connect.js';
import { keyColumn, sqlDirection } from './reads.js';

const SPARSE = 500;
const WALK_CHUNK = 32;
const DENSE_WALK = (limit: number) => 4 * limit + WALK_CHUNK;
const RANK_BATCH = 64;
/** Matches a rank walk reads before it gives way to the walks of the ordered index. */
const RANK_WALK = (limit: number) => 4 * limit + RANK_BATCH;

/**
 * Places per rank value (ms): records of one rank sit side by side in `search`, in any order (commit.ts
 * `placeFor`), at places from -2^52 up (ranks within ±280 years of 1970). A record without a rank, or one more
 * of a rank than it has places, sits below at UNRANKED + its record number, out of the rank walk's way.
 */
export const SLOTS = 1024;
export const RANKED_FLOOR = -(2 ** 52);
export const UNRANKED = Number.MIN_SAFE_INTEGER;

/** Whether any searchable record sits below the ranked places (commit.ts `placeFor`). */
const UNRANKED_ANY = `EXISTS (SELECT 1 FROM ranks WHERE frid < ${RANKED_FLOOR})`;

export const SEARCH_SQL = {
  scopeNo: `SELECT no FROM scopes WHERE name = ?`,
  addScope: `INSERT INTO scopes (name) VALUES (?)`,
  /** How many records match, counted no further than the cap (FTS5 reads the posting lists that far only). */
  matchCount: `SELECT count(*) FROM (SELECT 1 FROM search WHERE search MATCH ? ${LIMIT})`,
  /**
   * Every match's entries of one index as one JSON text `[[id, keys|null], ...]` (the first parameter is
   * `$."<index number>"` into doc_keys.keys): used only when the matches are few, SQLite builds it in C.
   */
  sparse: `SELECT json_group_array(json_array(d.id, k.keys -> ?)) FROM search s JOIN ranks r ON r.frid = s.rowid
   JOIN docs d ON d.rid = r.rid JOIN doc_keys k ON k.rid = r.rid WHERE search MATCH ? AND d.coll = ?`,
  /**
   * Matches in rank order from a place on (exclusive), with their keys of one index (`$."<index number>"`) and
   * whether any record sits below the ranked places (then the rank order is not the whole answer): one seek
   * of `ranks`, evaluated once per statement, in the same read as the matches.
   */
  rankDesc: `SELECT s.rowid, d.id, k.keys -> ?, ${UNRANKED_ANY} FROM search s JOIN ranks r ON r.frid = s.rowid
   JOIN docs d ON d.rid = r.rid JOIN doc_keys k ON k.rid = r.rid WHERE search MATCH ? AND s.rowid < ? ORDER BY s.rowid DESC ${LIMIT}`,
  rankAsc: `SELECT s.rowid, d.id, k.keys -> ?, ${UNRANKED_ANY} FROM search s JOIN ranks r ON r.frid = s.rowid
   JOIN docs d ON d.rid = r.rid JOIN doc_keys k ON k.rid = r.rid WHERE search MATCH ? AND s.rowid > ? ORDER BY s.rowid ASC ${LIMIT}`,
  unrankedAny: `SELECT ${UNRANKED_ANY}`,
} as const;

/**
 * One prefix's walk keeping the keys whose record matches: FTS5 gives the match set once (materialized),
 * the walk reads index keys in order until the page is full (the shape raw SQL uses for an ordered search).
 */
const matchWalkSql = (lower: '>=' | '>', upper: '<=' | '<', dir: 'ASC' | 'DESC') =>
  `SELECT ${keyColumn('e.key')}, d.id FROM entries e JOIN docs d ON d.rid = e.rid
   WHERE e.ix = ? AND e.key ${lower} ? AND e.key ${upper} ?
     AND e.rid IN (SELECT r.rid FROM search s JOIN ranks r ON r.frid = s.rowid WHERE search MATCH ?)
   ORDER BY e.key ${dir}, e.rid ${dir} ${LIMIT}`;

/** Entries of one index range, counted no further than the cap. */
const passedSql = (lower: '>=' | '>', upper: '<=' | '<') =>
  `SELECT count(*) FROM (SELECT 1 FROM entries WHERE ix = ? AND key ${lower} ? AND key ${upper} ? ${LIMIT})`;

/**
 * One chunk of the ordered index with, per entry, whether its record's `terms` row holds every token. No `docs`
 * row is read: a key ends with its record's id (driver.ts `Key`), and the walk touches two b-trees, not three.
 */
const checkedSql = (lower: '>=' | '>', upper: '<=' | '<', dir: 'ASC' | 'DESC', tokens: number) =>
  `SELECT ${keyColumn('e.key')}, ${Array.from({ length: tokens }, () => 'instr(t.t, ?)').join(' AND ')}
   FROM entries e LEFT JOIN terms t ON t.rid = e.rid
   WHERE e.ix = ? AND e.key ${lower} ? AND e.key ${upper} ? ORDER BY e.key ${dir}, e.rid ${dir} ${LIMIT}`;

/** Tokens FTS5's 'ascii' tokenizer keeps byte for byte: a-z, 0-9 and non-ASCII (lone surrogates excluded). */
const PLAIN = /^[a-z0-9\u0080-\ud7ff\ue000-\uffff]+$/;

/** A core token as one FTS5 term, prefixed by collection and scope numbers; distinct tokens stay distinct. */
export function ftsToken(prefix: string, token: string): string {
  if (PLAIN.test(token)) return `${prefix}p${token}`;
  // UTF-8 cannot carry lone surrogates, so such a token is spelled by its UTF-16 code units.
  if (/[\ud800-\udfff]/.test(token)) return `${prefix}u${Buffer.from(token, 'utf16le').toString('hex')}`;
  return `${prefix}x${Buffer.from(token, 'utf8').toString('hex')}`;
}

/**
 * The number of a search scope; with `create`, assigned on first use (inside the commit transaction).
 * A committed number never changes, so it is cached; one given inside a commit is not (the commit may
 * still roll back) until a later call finds it, nor one read inside a transaction the host opened.
 */
export function scopeNo(c: Connection, name: string, create: boolean, cacheable: boolean): number | undefined {
  const known = c.scopes.get(name);
  if (known !== undefined) return known;
  const no = c.stmt(SEARCH_SQL.scopeNo).pluck().get(name) as number | undefined;
  if (no !== undefined) {
    if (cacheable) c.scopes.set(name, no);
    return no;
  }
  return create ? Number(c.stmt(SEARCH_SQL.addScope).run(name).lastInsertRowid) : undefined;
}

export function search(c: Connection, q: SearchQuery): IndexEntry[] {
  const coll = c.collection(q.collection);
  const i = c.index(coll, q.index);
  const limit = Math.max(0, Math.floor(q.limit));
  if (q.tokens.length === 0 || limit === 0 || q.prefixes.length === 0) return [];
  const scope = scopeNo(c, q.scope, false, !c.db.inTransaction);
  if (scope === undefined) return [];
  const prefix = `${coll.no}s${scope}`;
  const match = [...new Set(q.tokens)].map((t) => `"${ftsToken(prefix, t)}"`).join(' ');
  const width = q.prefixes[0]!.length;
  if (q.rankOf) {
    const plan = `${i.no} ${match}`;
    const dense = c.plans.dense(plan);
    if (dense) {
      const tally = { checked: 0, found: 0 };
      const walks = q.prefixes.map((p) => walkMatches(c, q, p, limit, tally));
      const full = walks.every((w) => w !== undefined);
      // Too sparse for the dense walk (it gave up, or half its reads missed): the rank walk from now on.
      if (!full || 2 * tally.found < tally.checked) c.plans.found(plan, false);
      if (full) return mergeWalks(walks, width, q.direction, limit);
    }
    // In rank order the newest matches come first, however many there are: no count needed to choose.
    const ranked = rankWalk(c, q, q.rankOf, i.path, match, limit);
    if (dense === undefined) c.plans.found(plan, ranked !== undefined && denseRange(c, q, ranked));
    if (ranked) return mergeWalks(ranked, width, q.direction, limit);
  }
  if (Number(c.stmt(SEARCH_SQL.matchCount).pluck().get(match, SPARSE)) >= SPARSE) {
    const walks = q.prefixes.map((p) => walkMatches(c, q, p, limit) ?? walkMatchSet(c, q, p, match, limit));
    return mergeWalks(walks, width, q.direction, limit);
  }
  // Few matches: all of them, keys only, sorted here.
  const rows = JSON.parse(c.stmt(SEARCH_SQL.sparse).pluck().get(i.path, match, coll.no) as string) as Array<
    [string, Key[] | null]
  >;
  const prefixOf = prefixFinder(q);
  const walks: IndexEntry[][] = q.prefixes.map(() => []);
  for (const [id, keys] of rows) {
    for (const key of keys ?? []) {
      const n = prefixOf(key);
      if (n !== undefined && suffixInBounds(key.slice(width), q)) walks[n]!.push({ id, key });
    }
  }
  return mergeWalks(sorted(walks, q), width, q.direction, limit);
}

/** Which of the query's prefixes a key lies under (its number), if any, with a suffix after it. */
function prefixFinder(q: SearchQuery): (key: Key) => number | undefined {
  const width = q.prefixes[0]!.length;
  if (q.prefixes.length === 1) {
    const only = q.prefixes[0]!;
    return (key) => (key.length > width && only.every((part, i) => key[i] === part) ? 0 : undefined);
  }
  // (JSON text names a tuple of strings exactly.)
  const byPrefix = new Map(q.prefixes.map((p, n) => [JSON.stringify(p), n]));
  return (key) => (key.length > width ? byPrefix.get(JSON.stringify(key.slice(0, width))) : undefined);
}

function sorted(walks: IndexEntry[][], q: SearchQuery): IndexEntry[][] {
  const sign = q.direction === 'asc' ? 1 : -1;
  for (const w of walks) w.sort((a, b) => sign * compareKeys(a.key, b.key));
  return walks;
}

/**
 * Whether the matches of the rank walk's fullest prefix are at least half of that prefix's index entries from the
 * query's bound to the last of them: what a dense walk would have passed over (a count capped at twice the matches).
 */
function denseRange(c: Connection, q: SearchQuery, walks: IndexEntry[][]): boolean {
  const found = walks.reduce((a, b) => (b.length > a.length ? b : a));
  if (found.length === 0) return false;
  const width = q.prefixes[0]!.length;
  const last = { key: found[found.length - 1]!.key.slice(width), open: false };
  const prefix = q.prefixes[walks.indexOf(found)]!;
  const r = c.range({ ...q, prefix, ...(q.direction === 'desc' ? { lower: last } : { upper: last }) });
  const cap = 2 * found.length;
  const passed = c
    .stmt(passedSql(r.lower, r.upper))
    .pluck()
    .get(r.ix, r.from, r.to, cap + 1);
  return Number(passed) <= cap;
}

/**
 * Each prefix's matches read in rank order from the query's bound: the records of one rank come in any order,
 * so the walk stops only after the rank of the page's last record is read whole. Undefined when it reads
 * RANK_WALK matches first, or when a match has no rank place (or, defensively, a key off its place's rank): the
 * other walks answer then.
 */
function rankWalk(
  c: Connection,
  q: SearchQuery,
  rankOf: (suffix: Key) => number,
  path: string,
  match: string,
  limit: number,
): IndexEntry[][] | undefined {
  const desc = q.direction === 'desc';
  const rankAt = (bound: KeyBound | undefined) => (bound ? Math.floor(rankOf(bound.key)) : undefined);
  const [start, stop] = desc ? [rankAt(q.upper), rankAt(q.lower)] : [rankAt(q.lower), rankAt(q.upper)];
  let cursor =
    start === undefined
      ? desc
        ? Number.MAX_SAFE_INTEGER
        : RANKED_FLOOR - 1
      : desc
        ? (start + 1) * SLOTS
        : start * SLOTS - 1;
  if (!Number.isSafeInteger(cursor)) return undefined;
  const statement = c.stmt(desc ? SEARCH_SQL.rankDesc : SEARCH_SQL.rankAsc).raw();
  const width = q.prefixes[0]!.length;
  const prefixOf = prefixFinder(q);
  const walks: IndexEntry[][] = q.prefixes.map(() => []);
  let found = 0;
  let last: number | undefined;
  // The first read asks for about a page (FTS5's backward walk costs by the row), later ones for more.
  let batch = Math.min(RANK_BATCH, limit + 4);
  for (let seen = 0; seen < RANK_WALK(limit); batch = RANK_BATCH) {
    const rows = statement.all(path, match, cursor, batch) as Array<[number, string, string | null, number]>;
    // Records below the ranked places may match anywhere in the index's order: the other walks answer then.
    if (seen === 0 && (rows.length ? rows[0]![3] : c.stmt(SEARCH_SQL.unrankedAny).pluck().get())) return undefined;
    for (const [place, id, keys] of rows) {
      const rank = Math.floor(place / SLOTS);
      if ((last !== undefined && rank !== last) || (stop !== undefined && (desc ? rank < stop : rank > stop)))
        return sorted(walks, q);
      seen++;
      let hit = false;
      for (const key of keys === null ? [] : (JSON.parse(keys) as Key[])) {
        const n = prefixOf(key);
        if (n === undefined) continue;
        const suffix = key.slice(width);
        if (rankOf(suffix) !== rank) return undefined;
        if (suffixInBounds(suffix, q)) {
          walks[n]!.push({ id, key });
          hit = true;
        }
      }
      if (hit && ++found === limit) last = rank;
    }
    if (rows.length < batch) return sorted(walks, q);
    cursor = rows[rows.length - 1]![0];
  }
  return undefined;
}

/** The first `limit` matches of one prefix: the ordered index walked against FTS5's match set. */
function walkMatchSet(c: Connection, q: SearchQuery, prefix: Key, match: string, limit: number): IndexEntry[] {
  const r = c.range({ ...q, prefix });
  const rows = c
    .stmt(matchWalkSql(r.lower, r.upper, sqlDirection(q)))
    .raw()
    .all(r.ix, r.from, r.to, match, limit) as Array<[string | Buffer, string]>;
  return rows.map(([key, id]) => ({ id, key: keyOf(key) }));
}

/**
 * The first `limit` matches of one prefix in index order, or undefined when too few turn up in a short walk:
 * chunks of the ordered index, each entry checked against its record's `terms` row inside SQLite (`instr`, no
 * row copied out); `tally` adds up the records checked and the matches found.
 */
function walkMatches(
  c: Connection,
  q: SearchQuery,
  prefix: Key,
  limit: number,
  tally = { checked: 0, found: 0 },
): IndexEntry[] | undefined {
  const wanted = [...new Set(q.tokens)].map((t) => ` ${ftsToken('', t)} `);
  const r = c.range({ ...q, prefix });
  const out: IndexEntry[] = [];
  let { lower, from, upper, to } = r;
  // The first chunk asks for about a page (a dense word fills it), later ones for more.
  let size = Math.min(WALK_CHUNK, limit + 4);
  for (let checked = 0; checked < DENSE_WALK(limit); size = WALK_CHUNK) {
    const chunk = c
      .stmt(checkedSql(lower, upper, sqlDirection(q), wanted.length))
      .raw()
      .all(...wanted, r.ix, from, to, size) as Array<[string | Buffer, number | null]>;
    for (const [column, hit] of chunk) {
      checked++;
      tally.checked++;
      if (hit) {
        const key = keyOf(column);
        out.push({ id: key[key.length - 1]!, key });
        tally.found++;
      }
      if (out.length >= limit) return out;
    }
    if (chunk.length < size) return out;
    const after = keyBytes(chunk[chunk.length - 1]![0]);
    if (q.direction === 'asc') [lower, from] = ['>', after];
    else [upper, to] = ['<', after];
  }
  return undefined;
}
