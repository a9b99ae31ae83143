/** Reads by id, by unique key and by key range: a binary search into an index's sorted entries, then a walk. */
import {
  compareKeys,
  mergeWalks,
  type IndexedDoc,
  type IndexEntry,
  type JsonObject,
  type Key,
  type KeysQuery,
  type ListQuery,
  type RangeQuery,
  type StoredDoc,
} from '../../src/store/driver.js';
import { uniqueKey, type Collection, type Entry, type Store } from './schema.js';

/** First position whose entry is not before `probe` (or, with `after`, strictly after it). */
function seek(entries: readonly Entry[], probe: Key, after: boolean): number {
  let lo = 0;
  let hi = entries.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const c = compareKeys(entries[mid]!.key, probe);
    if (c < 0 || (after && c === 0)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function hasPrefix(key: Key, prefix: Key): boolean {
  if (key.length < prefix.length) return false;
  for (let i = 0; i < prefix.length; i++) if (key[i] !== prefix[i]) return false;
  return true;
}

/** A range query's start (inclusive) and end (exclusive) positions in a sorted entry array. */
export function range(entries: readonly Entry[], q: Pick<RangeQuery, 'prefix' | 'lower' | 'upper'>): [number, number] {
  const start = q.lower ? seek(entries, [...q.prefix, ...q.lower.key], !!q.lower.open) : seek(entries, q.prefix, false);
  let end: number;
  if (q.upper) {
    end = seek(entries, [...q.prefix, ...q.upper.key], !q.upper.open);
  } else {
    // Keys with the prefix are contiguous from `start`: find where they stop.
    let lo = start;
    let hi = entries.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (hasPrefix(entries[mid]!.key, q.prefix)) lo = mid + 1;
      else hi = mid;
    }
    end = lo;
  }
  return [start, Math.max(start, end)];
}

const read = (c: Collection, id: string): StoredDoc | undefined => {
  const slot = c.slots.get(id);
  return slot && { id, version: slot.version, doc: slot.doc as JsonObject };
};

export function get(store: Store, collection: string, id: string): StoredDoc | undefined {
  return read(store.collection(collection), id);
}

export function getMany(store: Store, collection: string, ids: readonly string[]): Array<StoredDoc | undefined> {
  const c = store.collection(collection);
  return ids.map((id) => read(c, id));
}

export function getByIndex(store: Store, collection: string, index: string, key: Key): StoredDoc | undefined {
  const c = store.collection(collection);
  const map = c.unique.get(index);
  if (!map) throw new Error(`index ${index} is not unique`);
  const id = map.get(uniqueKey(key));
  return id === undefined ? undefined : read(c, id);
}

const hit = (c: Collection, e: Entry): IndexedDoc => {
  const slot = c.slots.get(e.id)!;
  return { id: e.id, key: e.key, version: slot.version, doc: slot.doc as JsonObject };
};

export function list(store: Store, q: ListQuery): IndexedDoc[] {
  const c = store.collection(q.collection);
  const entries = store.index(c, q.index);
  const [start, end] = range(entries, q);
  const out: IndexedDoc[] = [];
  const limit = Math.max(0, q.limit);
  if (q.direction === 'asc') {
    for (let i = start; i < end && out.length < limit; i++) out.push(hit(c, entries[i]!));
  } else {
    for (let i = end - 1; i >= start && out.length < limit; i--) out.push(hit(c, entries[i]!));
  }
  return out;
}

export function count(store: Store, q: RangeQuery): number {
  const [start, end] = range(store.index(store.collection(q.collection), q.index), q);
  return end - start;
}

export function keys(store: Store, q: KeysQuery): IndexEntry[] {
  const entries = store.index(store.collection(q.collection), q.index);
  const limit = Math.max(0, Math.floor(q.limit));
  const walks = q.prefixes.map((prefix) => {
    const [start, end] = range(entries, { ...q, prefix });
    return q.direction === 'asc'
      ? entries.slice(start, Math.min(end, start + limit))
      : entries.slice(Math.max(start, end - limit), end).reverse();
  });
  return mergeWalks(walks, q.prefixes[0]?.length ?? 0, q.direction, limit).map((e) => ({ id: e.id, key: e.key }));
}
