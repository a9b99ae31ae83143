/**
 * Where search postings (postings.ts) live in IndexedDB, and how a commit adds to them: per searchable
 * collection, `~seg.<c>` holds segment heads under an auto-incremented id, `~post.<c>` their bodies (keys
 * [id, kind, …]), and `~dead.<c>` the version of each document whose older entries are to be dropped (a
 * document written again or deleted). A commit's searchable documents become one new segment; when eight
 * segments of one size class pile up, they are merged into one, in the same transaction.
 */
import type { IDBPTransaction } from 'idb';
import type { CollectionDef, Key, TermsItem } from '../../src/store/driver.js';
import type { Rec } from './schema.js';
import {
  buildSegment,
  level,
  mergeSegments,
  Segment,
  type Gone,
  type Lists,
  type PostingDoc,
  type SegHead,
} from './postings.js';
import { DEAD, keyed, POST, SEG, SIZE } from './ranges.js';

export type { PostingDoc } from './postings.js';

type Tx = IDBPTransaction<unknown, string[], 'readwrite' | 'versionchange'>;
type ReadTx = IDBPTransaction<unknown, string[], IDBTransactionMode>;

/** Segments of one size class that make a merge. */
const FANOUT = 8;
/** Ids written new whose version marks a commit reads directly; for more, it counts the marks first. */
const FEW = 8;

/** The key a document sorts by in postings: its key in the collection's first index (the walk's order). */
export const orderKey = (def: CollectionDef, keys: Readonly<Record<string, readonly Key[]>>): Key | undefined => {
  const first = def.indexes[0] && keys[def.indexes[0].name];
  return first?.length === 1 ? first[0] : undefined;
};

type Keys = Readonly<Record<string, readonly (readonly string[])[]>>;

/**
 * A record's entries in its collection's keyed indexes (`only`: those named), as a segment holds them: no terms,
 * no scope, the key `[index, ...key]`.
 */
export function keyedDocs(def: CollectionDef, id: string, v: number, keys: Keys, only?: ReadonlySet<string>) {
  return keyed(def)
    .filter((i) => !only || only.has(i.name))
    .flatMap((i) =>
      (keys[i.name] ?? []).map((key): PostingDoc => ({ id, v, s: '', key: [i.name, ...key], terms: [] })),
    );
}

/**
 * A written record's documents in its commit's segment: its search terms (a searchable collection's, under its
 * key in the first index) and its keyed indexes' entries, side by side, so one commit writes one segment.
 */
export const docsOf = (
  def: CollectionDef,
  id: string,
  v: number,
  keys: Keys,
  terms?: { scope: string; tokens: readonly string[] },
): PostingDoc[] => [
  ...(def.search && terms ? [searchDoc(def, id, v, keys, terms)] : []),
  ...keyedDocs(def, id, v, keys),
];

/** A record's search document: its terms under its key in the first index. */
const searchDoc = (
  def: CollectionDef,
  id: string,
  v: number,
  keys: Keys,
  terms: { scope: string; tokens: readonly string[] },
): PostingDoc => ({ id, v, s: terms.scope, key: orderKey(def, keys) ?? [], terms: terms.tokens });

/**
 * StorageDriver.addTerms: in one transaction, the records still at the version named, and stored without terms,
 * get their search documents at that version in one new segment; the records are not written (a record stored
 * with terms has its scope, `s`). Asked twice for one version, a document is added twice: searches and merges
 * keep one (postings.ts `same`). A record written or deleted since has a `~dead` mark past that version, so
 * documents of it would never be current; here they are not even added.
 */
export async function addTerms(
  c: {
    collection(name: string): CollectionDef;
    transaction(stores: string[], mode: 'readwrite'): Tx;
    KeyRange: typeof IDBKeyRange;
  },
  collection: string,
  items: readonly TermsItem[],
): Promise<void> {
  const def = c.collection(collection);
  if (!def.search) throw new Error(`collection ${collection} is not searchable`);
  const tx = c.transaction([collection, SEG(collection), POST(collection), DEAD(collection)], 'readwrite');
  const store = tx.objectStore(collection);
  const recs = (await Promise.all(items.map((item) => store.get(item.id)))) as Array<Rec | undefined>;
  const docs: PostingDoc[] = [];
  items.forEach(({ terms }, i) => {
    const rec = recs[i];
    if (rec && rec.v === items[i]!.version && rec.s === undefined)
      docs.push(searchDoc(def, rec.id, rec.v, rec.k, terms));
  });
  await Promise.all([docs.length && addPostings(tx, c.KeyRange, collection, docs, new Map()), tx.done]);
}

/** Body records kept in memory per database, most recently used last: about 16–20 KB each, so some 5 MB. */
const KEPT = 256;
const kept = new WeakMap<object, Map<string, unknown>>();

/** Segment heads searches read, per database and collection: a head never changes once written either. */
const heads = new WeakMap<object, Map<string, Map<number, SegHead>>>();

/**
 * Every segment of a collection, its bodies read through `tx` when a read needs them. Heads and bodies come
 * from memory when a read took them before: a segment's records never change once
 * written (a merge writes a new segment; ids are never reused), so a repeated search reads the segment ids and
 * the page, not the same heads and 16 KB bodies again, and decodes none of them.
 */
export function segmentsOf(tx: ReadTx, collection: string, keep: { KeyRange: typeof IDBKeyRange }): Promise<Segment[]> {
  // (The heads' requests are placed before this returns: a read transaction's first request, Connection.read.)
  const store = tx.objectStore(SEG(collection));
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
    // (In one transaction, the keys above `newest` are those of `fresh`, in the same order.)
    for (const head of withIds((ids as number[]).slice(ids.length - fresh.length), fresh)) memo.set(head.id, head);
    const now = new Set(ids as number[]);
    const top = Math.max(-1, ...now);
    // Merged away (those above `top` may be a later transaction's, read by a search running beside this one).
    for (const id of memo.keys()) if (!now.has(id) && id < top) memo.delete(id);
    const missing = [...now].filter((id) => !memo.has(id));
    // (None unless ids came out of order; then read them.)
    const got = await Promise.all(missing.map((id) => store.get(id)));
    missing.forEach((id, i) => {
      if (got[i]) memo.set(id, { ...(got[i] as SegHead), id });
    });
    return withBodies(
      tx,
      collection,
      [...now].flatMap((id) => memo.get(id) ?? []),
      true,
    );
  });
}

/**
 * Heads with their ids: a head is stored without one (layout 5; layouts 3 and 4 stored it inside), so that a
 * commit writes it with one `add` whose key is the id.
 */
const withIds = (ids: readonly number[], heads: readonly unknown[]): SegHead[] =>
  heads.map((head, i) => ({ ...(head as SegHead), id: ids[i]! }));

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

/**
 * Adds a segment of `docs`: its head under the key generator's next id (the id is not stored in it), at once,
 * and its bodies, if any, once the id is known. Resolves to the id when the head is added, and `written`
 * once the bodies are.
 */
function writeSegment(tx: Tx, collection: string, docs: readonly PostingDoc[], merged?: Lists) {
  const { head, body } = buildSegment(0, docs, merged);
  const { id: _, ...stored } = head;
  const added = tx.objectStore(SEG(collection)).add(stored) as Promise<number>;
  const bodies = tx.objectStore(POST(collection));
  const written = added.then((id) =>
    Promise.all(body.map(([key, value]) => bodies.put(value, [id, ...(key as unknown[]).slice(1)] as IDBValidKey))),
  );
  return { added, written };
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
  // Every request a commit of a few records needs goes out at once, in one round trip: the replaced versions,
  // the version marks an id written new may have left from an earlier record (read directly for a few ids,
  // after a count for many: a page of new records in a store with no marks reads none), the segment's head,
  // and the heads a merge decides on (placed after it, so they include it).
  const deadStore = tx.objectStore(DEAD(collection));
  const writes: Array<Promise<unknown>> = [...dead].map(([id, v]) => deadStore.put(v, id));
  const few = inserted.size <= FEW;
  const marked = few ? Promise.resolve(inserted.size) : deadStore.count();
  const direct = few ? [...inserted].map((id) => deadStore.get(id)) : undefined;
  const segment = docs.length ? writeSegment(tx, collection, docs) : undefined;
  const filling = segment && classCount(tx, KeyRange, collection, level(docs.length));
  // This commit's segment takes the next id, so every segment before it is older; without one, the newest is read.
  const heads = tx.objectStore(SEG(collection));
  const newest = segment
    ? segment.added.then((id) => id - 1)
    : deleted.size || inserted.size
      ? heads.openKeyCursor(null, 'prev').then((cursor) => (cursor?.key as number | undefined) ?? 0)
      : Promise.resolve(0);
  // (Awaited one after the other below: should the transaction fail, its own failure is what the commit reports.)
  for (const p of [marked, newest, filling, ...(direct ?? [])]) p?.catch(() => {});
  if (segment) writes.push(segment.written);
  writes.push(
    (async () => {
      const b = await newest;
      const ids = (await marked) ? [...inserted] : [];
      const versions = await Promise.all(direct ?? ids.map((id) => deadStore.get(id)));
      const again = ids.filter((_, i) => versions[i] !== undefined);
      await Promise.all([
        ...[...deleted, ...again].map((id) => deadStore.put(b, boundKey(id))),
        ...again.map((id) => deadStore.delete(id)),
      ]);
    })(),
  );
  await Promise.all(writes);
  if (filling) await mergeFull(tx, KeyRange, collection, level(docs.length), filling);
}

/** Size class `l`'s range of `n`: 1–7 documents, 8–63, … (`level`). */
const sizeRange = (KeyRange: typeof IDBKeyRange, l: number) =>
  KeyRange.bound(l ? FANOUT ** l : 1, FANOUT ** (l + 1), false, true);

/** How many segments size class `l` holds (the index of heads by size: no head is read). */
const classCount = (tx: Tx, KeyRange: typeof IDBKeyRange, collection: string, l: number) =>
  tx.objectStore(SEG(collection)).index(SIZE).count(sizeRange(KeyRange, l));

/**
 * Merges size class `l` when it holds FANOUT segments (`count`, placed after the commit's segment), then the
 * class of the merged segment, until one is not full. Every other class has fewer (each commit and merge leaves
 * them so), so only the heads of a full class are read: a commit reads none.
 */
async function mergeFull(
  tx: Tx,
  KeyRange: typeof IDBKeyRange,
  collection: string,
  l: number,
  count: Promise<number>,
): Promise<void> {
  const heads = tx.objectStore(SEG(collection));
  const bodies = tx.objectStore(POST(collection));
  const deadStore = tx.objectStore(DEAD(collection));
  while ((await count) >= FANOUT) {
    const bySize = heads.index(SIZE);
    const [ids, found, all, gone] = await Promise.all([
      bySize.getAllKeys(sizeRange(KeyRange, l)),
      bySize.getAll(sizeRange(KeyRange, l)),
      heads.count(),
      allGone(deadStore),
    ]);
    const group = withBodies(tx, collection, withIds(ids as number[], found), false);
    // Merging every segment there is leaves no older entry anywhere: the dead versions are spent.
    const everything = group.length === all;
    const { docs, lists } = await mergeSegments(group, gone);
    const removed = group.flatMap((s) => [
      heads.delete(s.head.id),
      bodies.delete(KeyRange.bound([s.head.id], [s.head.id, []])),
    ]);
    if (everything) removed.push(deadStore.clear());
    if (!docs.length) return void (await Promise.all(removed));
    const merged = writeSegment(tx, collection, docs, lists);
    l = level(docs.length);
    count = classCount(tx, KeyRange, collection, l);
    await Promise.all([...removed, merged.written]);
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
