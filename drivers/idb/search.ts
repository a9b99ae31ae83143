/**
 * Token search. Each searchable record's tokens live in the `~terms.<collection>` store (schema.ts) as one
 * multiEntry index entry per token. A search intersects the ids of its tokens (keys only), then either sorts
 * the few matches' entries or, when matches are many, walks the ordered index and keeps the ids in the
 * intersection.
 */
import { shortHash } from '../../src/util/ids.js';
import { compareKeys, mergeWalks, suffixInBounds, type IndexEntry, type Key, type KeysQuery, type SearchQuery } from '../../src/store/driver.js';
import type { Connection } from './connect.js';
import type { Index3 } from './native.js';
import { cursorDirection, range, walk } from './reads.js';
import { TERMS, TOKEN_INDEX, type Rec } from './schema.js';

/** Ids per request when a search walks an index keeping its matches. */
const ID_CHUNK = 256;

/**
 * The token index entries of one scope: a short hash of the scope (FNV-1a), then the token. Every token of
 * every post is an index entry, and Chromium's write cost grows with key length (a 26-character blog id in
 * front of each token cost a third more per insert). A hash collision only widens what the index returns:
 * `search` keeps the records whose stored scope is the one asked for.
 */
export const termKeys = (scope: string, tokens: Iterable<string>) => {
  const h = shortHash(scope);
  return [...new Set(tokens)].map((token) => `${h}:${token}`);
};

/** Index keys in a walk's direction. */
const order =
  (q: { direction: 'asc' | 'desc' }) =>
  (a: Key, b: Key): number =>
    (q.direction === 'asc' ? 1 : -1) * compareKeys(a, b);

/** A record's keys in the query's index under `prefix` and within `bounds`, in the walk's direction. */
const keysIn = (rec: Rec | undefined, q: SearchQuery, prefix: Key, bounds: KeysQuery) =>
  (rec?.k[q.index] ?? [])
    .filter((key) => key.length > prefix.length && compareKeys(key.slice(0, prefix.length), prefix) === 0 && suffixInBounds(key.slice(prefix.length), bounds))
    .sort(order(q));

type ReadStore = ReturnType<Connection['store']>;

export async function search(c: Connection, q: SearchQuery): Promise<IndexEntry[]> {
  const def = c.collection(q.collection);
  if (!def.search) throw new Error(`collection ${q.collection} is not searchable`);
  const limit = Math.floor(q.limit);
  const keys = termKeys(q.scope, q.tokens);
  if (keys.length === 0 || !(limit > 0) || q.prefixes.length === 0) return [];
  const tx = c.transaction([TERMS(q.collection), q.collection]);
  const byToken = tx.objectStore(TERMS(q.collection)).index(TOKEN_INDEX);
  // Ids per token (keys only: no record is read), intersected from the smallest set.
  const lists = ((await Promise.all(keys.map((key) => byToken.getAllKeys(key)))) as string[][]).sort((a, b) => a.length - b.length);
  let ids = lists[0]!;
  for (const other of lists.slice(1)) {
    if (ids.length === 0) break;
    const set = new Set(other);
    ids = ids.filter((id) => set.has(id));
  }
  if (ids.length === 0) return [];
  const width = q.prefixes[0]!.length;
  const store = tx.objectStore(q.collection);
  if (ids.length > 2 * limit + 16) {
    // Many matches: walk the ordered index and keep the matches. (An id of another scope sharing the hash
    // could pass only under a prefix that holds it; the core's prefixes start with the scope.)
    const set = new Set(ids);
    const index = store.index(q.index) as unknown as Index3;
    const walks = await Promise.all(
      q.prefixes.map((prefix) =>
        c.hasGetAllRecords(index) ? walkIds(c, store, index, q, prefix, limit, set) : walk(c, index, q, prefix, limit, (id) => set.has(id)),
      ),
    );
    return mergeWalks(walks, width, q.direction, limit);
  }
  // Few matches: their index keys live on their records; sort those in range.
  const recs = (await Promise.all(ids.map((id) => store.get(id)))) as Array<Rec | undefined>;
  const cmp = order(q);
  const walks = q.prefixes.map((prefix) =>
    recs
      // Not gone meanwhile, and not of another scope with the same hash.
      .flatMap((rec) => (rec?.s === q.scope ? keysIn(rec, q, prefix, q).map((key) => ({ id: rec.id, key })) : []))
      .sort((a, b) => cmp(a.key, b.key)),
  );
  return mergeWalks(walks, width, q.direction, limit);
}

/**
 * The first `limit` records of `set` under one prefix, in index order: ids only, ID_CHUNK at a time
 * (`getAllKeys` with a direction, IndexedDB 3.0: one request per chunk instead of one per step); the
 * records of the matches, and of each chunk's last id (to go on after its key), give the index keys.
 */
async function walkIds(
  c: Connection,
  store: ReadStore,
  index: Index3,
  q: SearchQuery,
  prefix: Key,
  limit: number,
  set: ReadonlySet<string>,
): Promise<IndexEntry[]> {
  const out: IndexEntry[] = [];
  const width = prefix.length;
  const direction = cursorDirection(q);
  let bounds: KeysQuery = q;
  for (;;) {
    const r = range(c, { ...bounds, prefix });
    if (!r) return out;
    const ids = await index.getAllKeys({ query: r, count: ID_CHUNK, direction });
    const hits = ids.filter((id) => set.has(id)).slice(0, limit - out.length);
    const last = ids[ids.length - 1];
    const recs = (await Promise.all([...hits, ...(last === undefined ? [] : [last])].map((id) => store.get(id)))) as Array<Rec | undefined>;
    hits.forEach((id, n) => {
      for (const key of keysIn(recs[n], q, prefix, bounds)) out.push({ id, key });
    });
    if (out.length >= limit || ids.length < ID_CHUNK) return out.slice(0, limit);
    // Go on after the chunk's last entry (the furthest of its record's keys in range, in the walk's direction).
    const after = keysIn(recs[recs.length - 1], q, prefix, bounds).at(-1);
    if (!after) return out; // the record changed under us: stop short rather than loop
    const edge = { key: after.slice(width), open: true };
    bounds = q.direction === 'asc' ? { ...bounds, lower: edge } : { ...bounds, upper: edge };
  }
}
