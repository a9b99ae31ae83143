/**
 * Reads by id, by unique key and by key range, each in one read-only transaction (shared with the reads begun
 * in the same turn: connect.ts `read`): a page is one `getAllRecords` request where the browser has it
 * (IndexedDB 3.0), else a cursor walked through idb.
 */
import {
  mergeWalks,
  type IndexedDoc,
  type IndexEntry,
  type Key,
  type KeysQuery,
  type ListQuery,
  type RangeQuery,
  type StoredDoc,
} from '../../src/store/driver.js';
import type { Connection } from './connect.js';
import type { Index3 } from './native.js';
import { stored, type Rec } from './schema.js';
import { cursorDirection, isKeyed, range } from './ranges.js';

/** The code of an index kept as postings (key-postings.ts), when `index` is one: loaded on its first read. */
const asPostings = (c: Connection, collection: string, index: string) =>
  isKeyed(c.collection(collection), index) ? import('./key-postings.js') : undefined;

export async function get(c: Connection, collection: string, id: string): Promise<StoredDoc | undefined> {
  return stored(await c.readStore(collection, (store) => store.get(id)));
}

export async function getMany(
  c: Connection,
  collection: string,
  ids: readonly string[],
): Promise<Array<StoredDoc | undefined>> {
  c.collection(collection);
  if (ids.length === 0) return [];
  return (await c.readStore(collection, (store) => Promise.all(ids.map((id) => store.get(id))))).map(stored);
}

export async function getByIndex(
  c: Connection,
  collection: string,
  index: string,
  key: Key,
): Promise<StoredDoc | undefined> {
  return stored(await c.readStore(collection, (store) => store.index(index).get([...key])));
}

/** Runs `issue` on a collection's index in a read transaction (Connection.read). */
export const readIndex = <T>(c: Connection, collection: string, index: string, issue: (index: Index3) => T): T =>
  c.readStore(collection, (store) => issue(store.index(index) as unknown as Index3));

export async function list(c: Connection, q: ListQuery): Promise<IndexedDoc[]> {
  const postings = asPostings(c, q.collection, q.index);
  if (postings) return (await postings).list(c, q);
  const r = range(c, q);
  const limit = Math.floor(q.limit);
  if (!r || !(limit > 0)) return [];
  const direction = cursorDirection(q);
  const first = readIndex(c, q.collection, q.index, (index) =>
    // One request for the whole page, with the index key of each entry.
    c.hasGetAllRecords(index)
      ? { page: index.getAllRecords!<Rec>({ query: r, count: limit, direction }) }
      : { cursor: index.openCursor(r, direction) },
  );
  if (first.page) return (await first.page).map((rec) => ({ ...stored(rec.value)!, key: rec.key as string[] }));
  const out: IndexedDoc[] = [];
  for (let cursor = await first.cursor; cursor; cursor = await cursor.continue()) {
    out.push({ ...stored(cursor.value as Rec)!, key: cursor.key as string[] });
    if (out.length >= limit) break;
  }
  return out;
}

export async function count(c: Connection, q: RangeQuery): Promise<number> {
  const postings = asPostings(c, q.collection, q.index);
  if (postings) return (await postings).count(c, q);
  const r = range(c, q);
  return r ? readIndex(c, q.collection, q.index, (index) => index.count(r)) : 0;
}

/**
 * One prefix's walk in key order as index entries, at most `limit`: one `getAllRecords` request where the
 * browser has it (it reads the records too, but inside the driver), else a key cursor. Its first request is
 * placed before it returns (Connection.read).
 */
export function walk(c: Connection, index: Index3, q: KeysQuery, prefix: Key, limit: number): Promise<IndexEntry[]> {
  const r = range(c, { ...q, prefix });
  if (!r || limit <= 0) return Promise.resolve([]);
  const direction = cursorDirection(q);
  if (c.hasGetAllRecords(index)) {
    return index.getAllRecords!<Rec>({ query: r, count: limit, direction }).then((recs) =>
      recs.map((rec) => ({ id: rec.primaryKey as string, key: rec.key as string[] })),
    );
  }
  return keyCursor(index.openKeyCursor(r, direction), limit);
}

async function keyCursor(first: ReturnType<Index3['openKeyCursor']>, limit: number): Promise<IndexEntry[]> {
  const out: IndexEntry[] = [];
  for (let cursor = await first; cursor; cursor = await cursor.continue()) {
    out.push({ id: cursor.primaryKey as string, key: cursor.key as string[] });
    if (out.length >= limit) break;
  }
  return out;
}

export async function keys(c: Connection, q: KeysQuery): Promise<IndexEntry[]> {
  const limit = Math.floor(q.limit);
  if (!(limit > 0) || q.prefixes.length === 0) return [];
  const postings = asPostings(c, q.collection, q.index);
  if (postings) return (await postings).keys(c, q);
  const walks = await readIndex(c, q.collection, q.index, (index) =>
    Promise.all(q.prefixes.map((prefix) => walk(c, index, q, prefix, limit))),
  );
  return mergeWalks(walks, q.prefixes[0]!.length, q.direction, limit);
}
