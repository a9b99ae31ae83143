/**
 * Token search on PostgreSQL, an ordered page in one or two statements. The core's tokens are stored per record
 * in the collection's `tokens` column (GIN), each prefixed by a code of the collection and scope (so one GIN
 * index serves every blog without reading other blogs' postings). Two shapes, picked per query as the raw baseline showed
 * the planner cannot pick them:
 * - few matches (a GIN count capped at SPARSE finds fewer): every match's entries of the index within the
 *   prefixes and bounds, merged, `limit` kept — work O(SPARSE);
 * - many matches: per prefix, walk the ordered index and check each candidate's tokens, at most WALK × limit
 *   candidates; a prefix whose walk used that budget without filling the page (matches common in the blog but
 *   rare in this range) falls back to the first shape.
 */
import { createHash } from 'node:crypto';
import { mergeWalks, type IndexEntry, type SearchQuery } from '../../src/store/driver.js';
import type { Connection } from './connect.js';
import {
  all,
  entriesFrom,
  keyOf,
  orderBy,
  Params,
  prefixRows,
  sqlDirection,
  suffixOf,
  terms,
  walkColumns,
} from './reads.js';
import { fromKeyText, fromPgText, ident, pgText, textArray } from './text.js';

const SPARSE = 500;
const WALK = 24;

/**
 * A core token as stored (layout 6): an 8-character code of its collection and scope, then the token. The code
 * keeps one GIN index serving every blog without reading other blogs' postings, at a fraction of the bytes of
 * the scope itself (layout 5 wrote `coll:length:scope:` before every token: longer GIN keys and four times the
 * bytes per insert, the largest part of a post insert's cost in PostgreSQL). Two scopes sharing a code only
 * make a search count more matches before its join with the scope's index keeps the right ones.
 */
export function storedToken(coll: number, scope: string, token: string): string {
  return storedTokens(coll, scope, [token])[0]!;
}

/**
 * `storedToken` of each of `tokens`, the scope's code and the room for a short token worked out once, and one
 * test for all of them of what `pgText` escapes (the code neither starts with U+0001 or U+0002 nor holds U+0000
 * or a surrogate, so only a token's own characters can call for it).
 */
export function storedTokens(coll: number, scope: string, tokens: readonly string[]): string[] {
  const code = scopeCode(coll, scope);
  const room = shortRoom(coll, scope);
  const plain = !/[\0\uD800-\uDFFF]/.test(tokens.join(''));
  return tokens.map((token) =>
    token.length > room ? longToken(coll, scope, token) : plain ? code + token : pgText(code + token),
  );
}

/**
 * `storedTokens` as a text[] literal (text.ts `textArray`), made with one join of the tokens as given when none
 * is long or holds a character `pgText` or the literal escapes.
 */
export function storedTokenArray(coll: number, scope: string, tokens: readonly string[]): string {
  const room = shortRoom(coll, scope);
  for (const token of tokens)
    if (token.length > room || /[\0"\\\uD800-\uDFFF]/.test(token)) return textArray(storedTokens(coll, scope, tokens));
  if (tokens.length === 0) return '{}';
  const code = scopeCode(coll, scope);
  return `{"${code}${tokens.join(`","${code}`)}"}`;
}

const codes = new Map<string, string>();

/** The 8-character code of a collection and scope (base64url of 48 bits of their SHA-256), kept for reuse. */
function scopeCode(coll: number, scope: string): string {
  const key = `${coll}:${scope}`;
  let code = codes.get(key);
  if (code === undefined) {
    if (codes.size >= 1024) codes.clear();
    code = createHash('sha256').update(key, 'utf16le').digest('base64url').slice(0, 8);
    codes.set(key, code);
  }
  return code;
}

/**
 * How long a token of this collection and scope may be before its layout-5 form (`coll:length:scope:token`) is
 * too long for a GIN entry (~2.7 KB); a longer one is stored as that form's hash, in both layouts (`longToken`).
 */
const shortRoom = (coll: number, scope: string): number => 240 - (`${coll}:${scope.length}:`.length + scope.length + 1);

const longToken = (coll: number, scope: string, token: string): string =>
  `\x02${createHash('sha256').update(`${coll}:${scope.length}:${scope}:${token}`, 'utf16le').digest('base64')}`;

/** A token as layout 5 (and layout 4) stored it: the store a migration starts from (test/drivers/postgres). */
export function legacyToken(coll: number, scope: string, token: string): string {
  return token.length > shortRoom(coll, scope)
    ? longToken(coll, scope, token)
    : pgText(`${coll}:${scope.length}:${scope}:${token}`);
}

/** A layout-5 stored token in layout 6's form (a long token's hash stays as it is). */
export function fromLegacyToken(stored: string): string {
  if (stored.startsWith('\x02')) return stored;
  const t = fromPgText(stored);
  const m = /^(\d+):(\d+):/.exec(t);
  if (!m) throw new Error(`postgres driver: a stored token of an unknown form: ${JSON.stringify(stored)}`);
  const at = m[0].length + Number(m[2]);
  return storedToken(Number(m[1]), t.slice(m[0].length, at), t.slice(at + 1));
}

export async function search(c: Connection, q: SearchQuery): Promise<IndexEntry[]> {
  const p = c.collection(q.collection);
  const i = c.index(p, q.index);
  const limit = Math.max(0, Math.floor(q.limit));
  if (q.tokens.length === 0 || limit === 0 || q.prefixes.length === 0) return [];
  const table = `${c.s}.${ident(p.table)}`;
  const tokens = storedTokens(p.no, q.scope, [...new Set(q.tokens)]);
  const width = q.prefixes[0]!.length;
  const dir = sqlDirection(q);
  const nk = i.kind === 'bytes' ? 1 : i.parts.length;
  const matches = Number(
    (
      await c.run(`SELECT count(*)::int FROM (SELECT 1 FROM ${table} WHERE tokens @> $1::text[] LIMIT $2) x`, [
        tokens,
        SPARSE,
      ])
    )[0]![0],
  );
  const entry = (row: unknown[], idAt = nk): IndexEntry => ({
    id: fromKeyText(row[idAt] as string),
    key: keyOf(i, row),
  });
  if (matches >= SPARSE) {
    const budget = WALK * limit;
    const P = new Params();
    const pre = prefixRows(i, q, P);
    const sfx = suffixOf(i, width);
    const T = P.add(tokens);
    const sql = `SELECT w.*, p.n::int FROM ${pre.from}
      CROSS JOIN LATERAL (
        SELECT c.* FROM (SELECT ${walkColumns(i)} FROM ${entriesFrom(c, p, i, false)}
          WHERE ${all(pre.terms)} ORDER BY ${orderBy(i, width, dir).join(', ')} LIMIT ${P.add(budget)}) c
        JOIN ${table} x ON x.id = c.kid WHERE x.tokens @> ${T}::text[]
        ORDER BY ${sfx.map((s) => `c.${s} ${dir}`).join(', ')} LIMIT ${P.add(limit)}) w`;
    const found = await c.run(sql, P.values);
    const walks: IndexEntry[][] = q.prefixes.map(() => []);
    // Rows: the key columns (bytes: the key and its suffix), the id, the prefix's number.
    const idAt = i.kind === 'bytes' ? 2 : nk;
    for (const row of found) walks[(row[idAt + 1] as number) - 1]!.push(entry(row, idAt));
    // A prefix that came back short is complete only if its walk ran out of range before the budget did.
    let complete = true;
    for (let n = 0; n < q.prefixes.length && complete; n++) {
      if (walks[n]!.length >= limit) continue;
      const R = new Params();
      const where = terms(i, { ...q, prefix: q.prefixes[n]! }, R);
      const held = await c.run(
        `SELECT count(*)::int FROM (SELECT 1 FROM ${entriesFrom(c, p, i, false)} WHERE ${all(where)} LIMIT ${R.add(budget)}) x`,
        R.values,
      );
      complete = Number(held[0]![0]) < budget;
    }
    if (complete) return mergeWalks(walks, width, q.direction, limit);
  }
  // Every match's entries in the index: the matches first (GIN), then their entries under the prefixes.
  const P = new Params();
  const pre = prefixRows(i, q, P);
  const sfx = suffixOf(i, width);
  const sql = `WITH mt AS MATERIALIZED (SELECT id FROM ${table} WHERE tokens @> ${P.add(tokens)}::text[])
    SELECT ${Array.from({ length: nk }, (_, k) => `m.k${k + 1}`).join(', ')}, m.kid FROM (
      SELECT DISTINCT ON (${sfx.join(', ')}) w.* FROM (
        SELECT ${walkColumns(i)}, p.n FROM mt JOIN ${entriesFrom(c, p, i, false)} ON e.id = mt.id
        JOIN ${pre.from} ON ${all(pre.terms)}
      ) w ORDER BY ${sfx.join(', ')}, w.n
    ) m ORDER BY ${sfx.map((s) => `m.${s} ${dir}`).join(', ')} LIMIT ${P.add(limit)}`;
  return (await c.run(sql, P.values)).map((row) => entry(row));
}
