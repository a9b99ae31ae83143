/**
 * Token search over the postings segments (postings.ts, segments.ts). A search on the collection's first
 * index — the order the postings keep — walks, in every segment, the rarest token's postings from the keyset
 * position and checks the others, merges the segments' walks (opening a segment only when it could hold the
 * next match), and keeps a candidate unless `~dead` says a later write replaced its version: one ordered page,
 * its work following the page. A search on another index (e.g.
 * by update time) takes every match of the tokens, then either sorts the few or walks that index keeping
 * the many, as before.
 */
import {
  compareKeys,
  mergeWalks,
  suffixInBounds,
  type IndexEntry,
  type Key,
  type KeysQuery,
  type SearchQuery,
} from '../../src/store/driver.js';
import type { Connection, ReadTx } from './connect.js';
import type { Index3 } from './native.js';
import { allMatches, current, orderedMatches, type Candidate } from './postings.js';
import type { Rec } from './schema.js';
import { cursorDirection, DEAD, isKeyed, range } from './ranges.js';
import { keyedWalks } from './key-postings.js';
import { goneOf, segmentsOf } from './segments.js';

/** Ids per request when a search walks an index keeping its matches. */
const ID_CHUNK = 256;

/** Index keys in a walk's direction. */
const order =
  (q: { direction: 'asc' | 'desc' }) =>
  (a: Key, b: Key): number =>
    (q.direction === 'asc' ? 1 : -1) * compareKeys(a, b);

/** A record's keys in the query's index under `prefix` and within `bounds`, in the walk's direction. */
const keysIn = (rec: Rec | undefined, q: SearchQuery, prefix: Key, bounds: KeysQuery) =>
  (rec?.k[q.index] ?? [])
    .filter(
      (key) =>
        key.length > prefix.length &&
        compareKeys(key.slice(0, prefix.length), prefix) === 0 &&
        suffixInBounds(key.slice(prefix.length), bounds),
    )
    .sort(order(q));

type ReadStore = ReturnType<ReadTx['objectStore']>;

export async function search(c: Connection, q: SearchQuery): Promise<IndexEntry[]> {
  const def = c.collection(q.collection);
  if (!def.search) throw new Error(`collection ${q.collection} is not searchable`);
  const limit = Math.floor(q.limit);
  // Postings are by token alone: a segment's documents keep their scope, and a walk under a prefix (which
  // starts with the scope) or a check of each match keeps the scope apart.
  const terms = [...new Set(q.tokens)];
  if (terms.length === 0 || !(limit > 0) || q.prefixes.length === 0) return [];
  // The segment heads and the number of `~dead` entries in one round trip: a candidate is current unless a
  // later write replaced or deleted that version (~dead says so), and there are none at all in the usual case
  // between merges of a store that is mostly added to: nothing more to look up.
  const [tx, heads, deadCount] = c.read(
    (tx) =>
      [tx, segmentsOf(tx, q.collection, { KeyRange: c.KeyRange }), tx.objectStore(DEAD(q.collection)).count()] as const,
  );
  const dead = tx.objectStore(DEAD(q.collection));
  const anyDead = deadCount.then((n) => n > 0);
  // (Awaited only when a walk finds candidates; a failed transaction fails the heads' request too.)
  anyDead.catch(() => {});
  const segs = await heads;
  // (A segment with documents that have no single key in the first index cannot be walked in its order.)
  if (q.index === def.indexes[0]?.name && !segs.some((s) => s.head.u)) {
    const page = await orderedMatches(segs, terms, q.prefixes, q, q.direction === 'asc', limit, async (batch) => {
      const gone = (await anyDead) ? await Promise.all(batch.map((cand) => goneOf(dead, cand.id))) : [];
      return batch.map((cand, i) => cand.s === q.scope && current(cand, gone[i]));
    });
    return page.map(({ id, key }) => ({ id, key: [...key] }));
  }
  const matches = (await Promise.all(segs.map((s) => allMatches(s, terms)))).flat();
  // Entries of records written over or deleted (an id written again counts its versions anew) are left out first.
  const scoped = matches.filter((m) => m.s === q.scope);
  const ids = (await anyDead) ? [...new Set(scoped.map((m) => m.id))] : [];
  const marks = new Map(await Promise.all(ids.map(async (id) => [id, await goneOf(dead, id)] as const)));
  return unordered(
    c,
    tx,
    q,
    limit,
    scoped.filter((m) => current(m, marks.get(m.id))),
  );
}

/** A search on an index the postings do not follow: every match, then the few sorted or the many walked. */
async function unordered(
  c: Connection,
  tx: ReadTx,
  q: SearchQuery,
  limit: number,
  matches: Candidate[],
): Promise<IndexEntry[]> {
  // The newest entry of each id; an older one was replaced.
  const latest = new Map<string, number>();
  for (const m of matches) latest.set(m.id, Math.max(latest.get(m.id) ?? 0, m.v));
  if (latest.size === 0) return [];
  const width = q.prefixes[0]!.length;
  if (latest.size > 2 * limit + 16 && isKeyed(c.collection(q.collection), q.index)) {
    // Many matches on an index kept as postings: walk its entries keeping the matches' current versions.
    const { walks } = await keyedWalks(c, q, limit, (cand) => latest.get(cand.id) === cand.v, tx);
    return mergeWalks(
      walks.map((w) => w.map((cand) => ({ id: cand.id, key: cand.key.slice(1) }))),
      width,
      q.direction,
      limit,
    );
  }
  const store = tx.objectStore(q.collection) as unknown as ReadStore;
  // (The matches were of the query's scope: the record at their version is that record. Terms added after their
  // record, StorageDriver.addTerms, leave its `s` unset.)
  const isCurrent = (rec: Rec | undefined): rec is Rec => !!rec && latest.get(rec.id) === rec.v;
  const index = isKeyed(c.collection(q.collection), q.index) ? undefined : (store.index(q.index) as unknown as Index3);
  if (index && latest.size > 2 * limit + 16 && c.hasGetAllRecords(index)) {
    // Many matches: walk the ordered index and keep the matches.
    const walks = await Promise.all(q.prefixes.map((prefix) => walkIds(c, store, index, q, prefix, limit, latest)));
    return mergeWalks(walks, width, q.direction, limit);
  }
  // Few matches (or a browser without IndexedDB 3.0's page requests): their index keys live on their records;
  // sort those in range.
  const recs = (await Promise.all([...latest.keys()].map((id) => store.get(id)))) as Array<Rec | undefined>;
  const cmp = order(q);
  const walks = q.prefixes.map((prefix) =>
    recs
      .filter(isCurrent)
      .flatMap((rec) => keysIn(rec, q, prefix, q).map((key) => ({ id: rec.id, key })))
      .sort((a, b) => cmp(a.key, b.key)),
  );
  return mergeWalks(walks, width, q.direction, limit);
}

/**
 * The first `limit` records of `latest` under one prefix, in index order: ids only, ID_CHUNK at a time
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
  latest: ReadonlyMap<string, number>,
): Promise<IndexEntry[]> {
  const out: IndexEntry[] = [];
  const width = prefix.length;
  const direction = cursorDirection(q);
  let bounds: KeysQuery = q;
  for (;;) {
    const r = range(c, { ...bounds, prefix });
    if (!r) return out;
    const ids = await index.getAllKeys({ query: r, count: ID_CHUNK, direction });
    const hits = ids.filter((id) => latest.has(id));
    const last = ids[ids.length - 1];
    const recs = (await Promise.all(
      [...hits, ...(last === undefined ? [] : [last])].map((id) => store.get(id)),
    )) as Array<Rec | undefined>;
    hits.forEach((id, n) => {
      const rec = recs[n];
      if (out.length >= limit || rec?.v !== latest.get(id)) return;
      for (const key of keysIn(rec, q, prefix, bounds)) out.push({ id, key });
    });
    if (out.length >= limit || ids.length < ID_CHUNK) return out.slice(0, limit);
    // Go on after the chunk's last entry (the furthest of its record's keys in range, in the walk's direction).
    const after = keysIn(recs[recs.length - 1], q, prefix, bounds).at(-1);
    if (!after) return out; // the record changed under us: stop short rather than loop
    const edge = { key: after.slice(width), open: true };
    bounds = q.direction === 'asc' ? { ...bounds, lower: edge } : { ...bounds, upper: edge };
  }
}
