/**
 * Indexes kept as postings (layout 5): an index declared with many entries per record (`entries: 'many'`, not
 * unique: posts by label) is no IndexedDB index, whose cost is one entry per key, but entries in the collection's
 * segments, beside its search terms (segments.ts, postings.ts): a commit's keys in those indexes go into the
 * commit's one segment, each entry a "document" with no terms and no scope whose key is `[index, ...key]`, so
 * they sort apart from the search documents (keyed by the first index). `list`, `keys` and `count` walk the
 * segments from the keyset position, merged in key order, and keep an entry unless `~dead` says a later write
 * replaced its record's version: a page's work follows the page.
 */
import {
  mergeWalks,
  type IndexedDoc,
  type IndexEntry,
  type KeyBound,
  type KeysQuery,
  type ListQuery,
  type RangeQuery,
} from '../../src/store/driver.js';
import type { Connection, ReadTx } from './connect.js';
import { current, orderedMatches, type Candidate } from './postings.js';
import { DEAD } from './ranges.js';
import type { Rec } from './schema.js';
import { goneOf, segmentsOf } from './segments.js';

interface Walk {
  collection: string;
  index: string;
  prefixes: readonly (readonly string[])[];
  lower?: KeyBound | undefined;
  upper?: KeyBound | undefined;
  direction: 'asc' | 'desc';
}

/**
 * One ordered walk of at most `limit` current entries under each prefix, in one read transaction (`tx`, when the
 * caller has one). `keep` leaves out entries before they count (a search keeping its matches).
 */
export async function keyedWalks(
  c: Connection,
  q: Walk,
  limit: number,
  keep: (cand: Candidate) => boolean = () => true,
  given?: ReadTx,
): Promise<{ tx: ReadTx; walks: Candidate[][] }> {
  const name = q.collection;
  const open = (tx: ReadTx) =>
    [tx, segmentsOf(tx, name, { KeyRange: c.KeyRange }), tx.objectStore(DEAD(name)).count()] as const;
  const [tx, heads, deadCount] = given ? open(given) : c.read(open);
  const dead = tx.objectStore(DEAD(name));
  const segs = await heads;
  // Between merges of a store mostly added to, nothing is marked: no entry to look up.
  const anyDead = (await deadCount) > 0;
  const verify = async (batch: readonly Candidate[]) => {
    const gone = anyDead ? await Promise.all(batch.map((cand) => goneOf(dead, cand.id))) : [];
    return batch.map((cand, i) => !cand.s && keep(cand) && current(cand, gone[i]));
  };
  const walks = await Promise.all(
    q.prefixes.map((prefix) =>
      orderedMatches(segs, [], [[q.index, ...prefix]], q, q.direction === 'asc', limit, verify),
    ),
  );
  return { tx, walks };
}

const entry = (cand: Candidate): IndexEntry => ({ id: cand.id, key: cand.key.slice(1) });

export async function list(c: Connection, q: ListQuery): Promise<IndexedDoc[]> {
  const { tx, walks } = await keyedWalks(c, { ...q, prefixes: [q.prefix] }, Math.floor(q.limit));
  const store = tx.objectStore(q.collection);
  const recs = (await Promise.all(walks[0]!.map((cand) => store.get(cand.id)))) as Array<Rec | undefined>;
  return walks[0]!.flatMap((cand, i) => {
    const rec = recs[i];
    return rec ? [{ id: rec.id, version: rec.v, doc: rec.doc, key: cand.key.slice(1) }] : [];
  });
}

export async function keys(c: Connection, q: KeysQuery): Promise<IndexEntry[]> {
  const limit = Math.floor(q.limit);
  const { tx, walks } = await keyedWalks(c, q, limit);
  const page = mergeWalks(
    walks.map((w) => w.map(entry)),
    q.prefixes[0]!.length,
    q.direction,
    limit,
  );
  if (!q.docs) return page;
  // The page's records, read in the same transaction as its entries (KeysQuery.docs).
  const store = tx.objectStore(q.collection);
  const recs = (await Promise.all(page.map((e) => store.get(e.id)))) as Array<Rec | undefined>;
  return page.map((e, i) => (recs[i] ? { ...e, version: recs[i].v, doc: recs[i].doc } : e));
}

export async function count(c: Connection, q: RangeQuery): Promise<number> {
  const { walks } = await keyedWalks(c, { ...q, prefixes: [q.prefix], direction: 'asc' }, Number.POSITIVE_INFINITY);
  return walks[0]!.length;
}
