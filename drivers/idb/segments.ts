/**
 * Where search postings (postings.ts) live in IndexedDB, and how a commit adds to them: per searchable
 * collection, `~seg.<c>` holds segment heads under an auto-incremented id, `~post.<c>` their bodies (keys
 * [id, kind, …]), and `~dead.<c>` the version of each document whose older entries are to be dropped (a
 * document written again or deleted). A commit's searchable documents become one new segment; when eight
 * segments of one size class pile up, they are merged into one, in the same transaction.
 */
import type { IDBPTransaction } from 'idb';
import type { CollectionDef, Key } from '../../src/store/driver.js';
import { buildSegment, level, mergeDocs, Segment, type Gone, type PostingDoc, type SegHead } from './postings.js';
import { DEAD, POST, SEG } from './ranges.js';

export type { PostingDoc } from './postings.js';

type Tx = IDBPTransaction<unknown, string[], 'readwrite' | 'versionchange'>;
type ReadTx = IDBPTransaction<unknown, string[], IDBTransactionMode>;

/** Segments of one size class that make a merge. */
const FANOUT = 8;

/** The key a document sorts by in postings: its key in the collection's first index (the walk's order). */
export const orderKey = (def: CollectionDef, keys: Readonly<Record<string, readonly Key[]>>): Key | undefined => {
  const first = def.indexes[0] && keys[def.indexes[0].name];
  return first?.length === 1 ? first[0] : undefined;
};

/** Body records kept in memory per database, most recently used last: about 16–20 KB each, so some 5 MB. */
const KEPT = 256;
const kept = new WeakMap<object, Map<string, unknown>>();

/** Segment heads searches read, per database and collection: a head never changes once written either. */
const heads = new WeakMap<object, Map<string, Map<number, SegHead>>>();

/**
 * Every segment of a collection, its bodies read through `tx` when a search needs them. With `keep` (searches),
 * heads and bodies come from memory when a search read them before: a segment's records never change once
 * written (a merge writes a new segment; ids are never reused), so a repeated search reads the segment ids and
 * the page, not the same heads and 16 KB bodies again, and decodes none of them.
 */
export function segmentsOf(
  tx: ReadTx,
  collection: string,
  keep?: { KeyRange: typeof IDBKeyRange },
): Promise<Segment[]> {
  // (The heads' requests are placed before this returns: a read transaction's first request, Connection.read.)
  const store = tx.objectStore(SEG(collection));
  if (!keep) return store.getAll().then((all) => withBodies(tx, collection, all as SegHead[], false));
  let byDb = heads.get(tx.db);
  if (!byDb) heads.set(tx.db, (byDb = new Map()));
  let known = byDb.get(collection);
  if (!known) byDb.set(collection, (known = new Map()));
  const memo = known;
  // A new segment (a commit's or a merge's) takes a higher id than any before it: the ids, and the heads
  // newer than the newest known, in one round trip.
  const newest = Math.max(-1, ...memo.keys());
  const ids = store.getAllKeys();
  const fresh = store.getAll(newest < 0 ? null : keep.KeyRange.lowerBound(newest, true));
  return Promise.all([ids, fresh]).then(async ([ids, fresh]) => {
    for (const head of fresh as SegHead[]) memo.set(head.id, head);
    const now = new Set(ids as number[]);
    const top = Math.max(-1, ...now);
    // Merged away (those above `top` may be a later transaction's, read by a search running beside this one).
    for (const id of memo.keys()) if (!now.has(id) && id < top) memo.delete(id);
    const missing = [...now].filter((id) => !memo.has(id));
    // (None unless ids came out of order; then read them.)
    for (const head of (await Promise.all(missing.map((id) => store.get(id)))) as SegHead[])
      if (head) memo.set(head.id, head);
    return withBodies(
      tx,
      collection,
      [...now].flatMap((id) => memo.get(id) ?? []),
      true,
    );
  });
}

function withBodies(tx: ReadTx, collection: string, heads: SegHead[], keep: boolean): Segment[] {
  const bodies = tx.objectStore(POST(collection));
  let memo = keep ? kept.get(tx.db) : undefined;
  if (keep && !memo) kept.set(tx.db, (memo = new Map()));
  const get = (key: IDBValidKey): Promise<unknown> => {
    if (!memo) return bodies.get(key);
    const k = `${collection}\0${(key as Array<string | number>).join('\0')}`;
    const hit = memo.get(k);
    if (hit !== undefined) {
      memo.delete(k);
      memo.set(k, hit);
      return Promise.resolve(hit);
    }
    return bodies.get(key).then((value: unknown) => {
      if (value !== undefined) {
        memo.set(k, value);
        if (memo.size > KEPT) memo.delete(memo.keys().next().value!);
      }
      return value;
    });
  };
  return heads.map((head) => new Segment(head, { get }));
}

/** Writes a segment of `docs` (its id from the store's key generator, or `added` there already), then its bodies. */
async function writeSegment(
  tx: Tx,
  collection: string,
  docs: readonly PostingDoc[],
  added?: Promise<number>,
): Promise<void> {
  const heads = tx.objectStore(SEG(collection));
  const id = await (added ?? (heads.add({}) as Promise<number>));
  const { head, body } = buildSegment(id, docs);
  const bodies = tx.objectStore(POST(collection));
  await Promise.all([heads.put(head, id), ...body.map(([key, value]) => bodies.put(value, key))]);
}

/** `~dead`'s key for the segment bound of a deleted record (its version is under the id itself). */
const boundKey = (id: string) => ['b', id];

/** What `~dead` says of one id: two reads of `store`, issued at once. */
export function goneOf(store: { get(key: IDBValidKey): Promise<unknown> }, id: string): Promise<Gone | undefined> {
  return Promise.all([store.get(id), store.get(boundKey(id))]).then(([v, b]) =>
    v === undefined && b === undefined ? undefined : { v: v as number | undefined, b: b as number | undefined },
  );
}

/** Everything `~dead` holds, by id. */
async function allGone(store: ReturnType<Tx['objectStore']>): Promise<Map<string, Gone>> {
  const [keys, values] = await Promise.all([store.getAllKeys(), store.getAll()]);
  const out = new Map<string, Gone>();
  (keys as Array<string | [string, string]>).forEach((key, i) => {
    const id = typeof key === 'string' ? key : key[1];
    const gone = out.get(id) ?? {};
    if (typeof key === 'string') gone.v = values[i] as number;
    else gone.b = values[i] as number;
    out.set(id, gone);
  });
  return out;
}

/**
 * Adds a commit's searchable documents as a segment and notes what it replaced, then merges size classes that
 * reached FANOUT segments. `dead`: id → the version written over or deleted. `deleted`: ids deleted, whose
 * entries in the segments so far all belong to the record that goes (the same id written again starts at
 * version 1, so a version alone cannot tell its entries from the old record's); `inserted`: ids written new,
 * which leave the old record's version mark behind for that segment bound.
 */
export async function addPostings(
  tx: Tx,
  KeyRange: typeof IDBKeyRange,
  collection: string,
  docs: readonly PostingDoc[],
  dead: ReadonlyMap<string, number>,
  deleted: ReadonlySet<string> = new Set(),
  inserted: ReadonlySet<string> = new Set(),
): Promise<void> {
  const deadStore = tx.objectStore(DEAD(collection));
  // Whether anything is marked at all: only then can an id written new have its old record's version mark.
  const marked = inserted.size ? deadStore.count() : Promise.resolve(0);
  // This commit's segment takes the next id, so every segment before it is older; without one, the newest is read.
  const heads = tx.objectStore(SEG(collection));
  const added = docs.length ? (heads.add({}) as Promise<number>) : undefined;
  const newest = added
    ? added.then((id) => id - 1)
    : deleted.size || inserted.size
      ? heads.openKeyCursor(null, 'prev').then((cursor) => (cursor?.key as number | undefined) ?? 0)
      : Promise.resolve(0);
  // (Awaited one after the other below: should the transaction fail, its own failure is what the commit reports.)
  for (const p of [marked, newest]) p.catch(() => {});
  const writes: Array<Promise<unknown>> = [...dead].map(([id, v]) => deadStore.put(v, id));
  if (added) writes.push(writeSegment(tx, collection, docs, added));
  writes.push(
    (async () => {
      const b = await newest;
      const ids = (await marked) ? [...inserted] : [];
      const versions = await Promise.all(ids.map((id) => deadStore.get(id)));
      const again = ids.filter((_, i) => versions[i] !== undefined);
      await Promise.all([
        ...[...deleted, ...again].map((id) => deadStore.put(b, boundKey(id))),
        ...again.map((id) => deadStore.delete(id)),
      ]);
    })(),
  );
  await Promise.all(writes);
  if (docs.length) await mergeFull(tx, KeyRange, collection);
}

/** Merges the segments of each size class that holds FANOUT of them, smallest first, until none does. */
async function mergeFull(tx: Tx, KeyRange: typeof IDBKeyRange, collection: string): Promise<void> {
  for (;;) {
    const segs = await segmentsOf(tx, collection);
    const classes = new Map<number, Segment[]>();
    for (const s of segs) {
      const l = level(s.head.n);
      classes.set(l, [...(classes.get(l) ?? []), s]);
    }
    const full = [...classes].sort((a, b) => a[0] - b[0]).find(([, group]) => group.length >= FANOUT);
    if (!full) return;
    const group = full[1];
    // Merging every segment there is leaves no older entry anywhere: the dead versions are spent.
    const everything = group.length === segs.length;
    const deadStore = tx.objectStore(DEAD(collection));
    const docs = await mergeDocs(group, await allGone(deadStore));
    const heads = tx.objectStore(SEG(collection));
    const bodies = tx.objectStore(POST(collection));
    await Promise.all([
      ...group.flatMap((s) => [heads.delete(s.head.id), bodies.delete(KeyRange.bound([s.head.id], [s.head.id, []]))]),
      ...(everything ? [deadStore.clear()] : []),
    ]);
    if (docs.length) await writeSegment(tx, collection, docs);
  }
}

/**
 * Layout 2 kept a searchable collection's tokens as `{ id, t }` records of `~terms.<c>` (`terms`): they become
 * segments, each document with its stored version and first-index key (the upgrade then drops that store).
 */
export async function fromLayout2(
  tx: IDBPTransaction<unknown, string[], 'versionchange'>,
  def: CollectionDef,
  terms: string,
): Promise<void> {
  const [tokens, recs] = await Promise.all([tx.objectStore(terms).getAll(), tx.objectStore(def.name).getAll()]);
  const byId = new Map(
    (recs as Array<{ id: string; v: number; s?: string; k: Record<string, Key[]> }>).map((r) => [r.id, r]),
  );
  const docs: PostingDoc[] = [];
  for (const t of tokens as Array<{ id: string; t: string[] }>) {
    const rec = byId.get(t.id);
    // (Layout 2's keys were `<scope hash>:<token>`: the token is after the first colon.)
    if (rec)
      docs.push({
        id: rec.id,
        v: rec.v,
        s: rec.s ?? '',
        key: orderKey(def, rec.k) ?? [],
        terms: t.t.map((k) => k.slice(k.indexOf(':') + 1)),
      });
  }
  await addPostings(tx, IDBKeyRange, def.name, docs, new Map());
}
