/**
 * Search on PostgreSQL: the core's tokens are stored per record (`docs.tokens`, a GIN index), so the driver
 * matches exactly the tokens the core gave, like every other driver.
 */
import type { IndexEntry, SearchQuery } from '../../src/driver.js';
import { decodeKey } from '../sqlite/keys.js';
import { fromPgText, pgText, tokenText } from './text.js';

export const searchSql = (s: string) =>
  `SELECT d.id, k.key FROM ${s}.docs d CROSS JOIN LATERAL unnest(d.eix, d.ekey) AS k(ix, key)
   WHERE d.coll = $1 AND d.scope = $2 AND d.tokens @> $3::text[] AND k.ix = $4`;

export interface SearchTarget {
  coll: number;
  ix: number;
  run(text: string, values: unknown[]): Promise<unknown[][]>;
}

export async function search(q: SearchQuery, t: SearchTarget, sql: string): Promise<IndexEntry[]> {
  if (q.tokens.length === 0) return [];
  const tokens = [...new Set(q.tokens)].map(tokenText);
  const rows = (await t.run(sql, [t.coll, pgText(q.scope), tokens, t.ix])) as Array<[string, Buffer]>;
  return rows.map(([id, key]) => ({ id: fromPgText(id), key: decodeKey(key) }));
}
