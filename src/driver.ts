/**
 * The storage driver contract.
 *
 * A driver is a small document store. It keeps JSON documents in named collections, keeps the index
 * entries the core computes for each document, and answers a handful of typed queries. It decides
 * nothing: every key, every token and every rule comes from the core (`src/`), so all drivers return
 * the same answers for the same calls. `test/driver-suite.ts` is the executable form of this file.
 *
 * Keys are tuples of strings compared part by part with plain string comparison; a tuple that is a
 * prefix of a longer one sorts before it (IndexedDB's array-key order, restricted to strings).
 */

/** A JSON value as stored: what `JSON.parse(JSON.stringify(x))` gives back. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

/** One index key: a tuple of strings. The core always ends it with the record id, so it is unique. */
export type Key = readonly string[];

export interface IndexDef {
  name: string;
  /** At most one record may hold a given key. A commit that would break this fails with `unique`. */
  unique?: boolean;
}

export interface CollectionDef {
  name: string;
  indexes: readonly IndexDef[];
  /** The collection takes part in `search` (its puts carry `terms`). */
  search?: boolean;
}

/** Declared once by the core and passed to `open`. A driver stores this shape and nothing else. */
export interface StoreSchema {
  /** Bumped by the core when collections or indexes change; drivers upgrade their storage on open. */
  version: number;
  collections: readonly CollectionDef[];
}

/** A stored document with its compare-and-set version (1 after the first put, +1 per put). */
export interface StoredDoc<T = JsonObject> {
  id: string;
  version: number;
  doc: T;
}

/** A document found through an index, with the index key that found it. */
export interface IndexedDoc<T = JsonObject> extends StoredDoc<T> {
  key: Key;
}

export interface PutOp {
  type: 'put';
  collection: string;
  id: string;
  /** The version the record must have now; 0 means it must not exist. */
  expect: number;
  doc: JsonObject;
  /** Every index entry of the document, by index name (an index may hold 0, 1 or many entries). */
  keys: Readonly<Record<string, readonly Key[]>>;
  /** For collections with `search`: the scope (e.g. the blog id) and the document's distinct tokens. */
  terms?: { scope: string; tokens: readonly string[] };
}

export interface DeleteOp {
  type: 'delete';
  collection: string;
  id: string;
  /** The version the record must have now. */
  expect: number;
}

export type WriteOp = PutOp | DeleteOp;

/** A bound on the part of the key after `prefix`. `open` excludes the bound key itself. */
export interface KeyBound {
  key: Key;
  open?: boolean;
}

export interface RangeQuery {
  collection: string;
  index: string;
  /** Equality on the leading key parts. */
  prefix: Key;
  /** Bounds compare the key parts after the prefix (so a shorter bound is a prefix of longer keys). */
  lower?: KeyBound;
  upper?: KeyBound;
}

export interface ListQuery extends RangeQuery {
  direction: 'asc' | 'desc';
  limit: number;
}

export interface SearchQuery {
  collection: string;
  scope: string;
  /** Every token must be among the document's tokens. Never empty. */
  tokens: readonly string[];
  /** The index whose entries are returned for each match (a search yields keys, not documents). */
  index: string;
}

export interface IndexEntry {
  id: string;
  key: Key;
}

export interface Change {
  seq: number;
  collection: string;
  id: string;
  type: 'put' | 'delete';
  /** The version written (for deletes, the version the record had). */
  version: number;
}

export interface CommitResult {
  /** The sequence number of this commit; strictly increasing across commits of one store. */
  seq: number;
}

export type ConflictKind = 'version' | 'unique';

/** The one error a driver throws on purpose: a commit whose preconditions did not hold. Nothing was written. */
export class DriverConflict extends Error {
  override readonly name = 'DriverConflict';
  constructor(
    readonly kind: ConflictKind,
    readonly collection: string,
    readonly id: string,
    /** For `unique`: the index whose key is taken. */
    readonly index?: string,
  ) {
    super(`${kind} conflict on ${collection}/${id}${index ? ` (index ${index})` : ''}`);
  }
  static is(error: unknown): error is DriverConflict {
    return error instanceof Error && error.name === 'DriverConflict' && 'kind' in error;
  }
}

export interface StorageDriver {
  /** Creates or upgrades storage for the schema. Called once by the core before any other call. */
  open(schema: StoreSchema): Promise<void>;
  get(collection: string, id: string): Promise<StoredDoc | undefined>;
  /** In the order of `ids`; `undefined` where a record does not exist. */
  getMany(collection: string, ids: readonly string[]): Promise<Array<StoredDoc | undefined>>;
  /** The record holding exactly `key` in a unique index. */
  getByIndex(collection: string, index: string, key: Key): Promise<StoredDoc | undefined>;
  /** Walks one index within the range, in key order (`desc`: reversed), returning at most `limit` documents. */
  list(query: ListQuery): Promise<IndexedDoc[]>;
  /** How many entries of the index lie in the range. */
  count(query: RangeQuery): Promise<number>;
  /** The entries of `index` belonging to records in `scope` whose tokens include every query token. Unordered. */
  search(query: SearchQuery): Promise<IndexEntry[]>;
  /** All or nothing: every precondition holds and every op is written, or DriverConflict and nothing changes. */
  commit(ops: readonly WriteOp[]): Promise<CommitResult>;
  /** The change log after `seq` (exclusive), oldest first, at most `limit` entries. */
  changesSince(seq: number, limit?: number): Promise<Change[]>;
  /**
   * Optional: calls `listener` soon after commits made through *other* connections to the same store (other
   * app servers), and now and then regardless; the listener reads `changesSince` itself. A driver whose
   * store only this instance writes leaves it out. Returns the function that stops the calls.
   */
  watch?(listener: () => void): () => void;
  close(): Promise<void>;
}

/** Key order, as every driver must implement it: part by part, a prefix sorts first. */
export function compareKeys(a: Key, b: Key): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a[i]!;
    const y = b[i]!;
    if (x !== y) return x < y ? -1 : 1;
  }
  return a.length - b.length;
}

/** Whether `key` (a full index key) lies inside the query's prefix and bounds. */
export function keyInRange(key: Key, query: RangeQuery): boolean {
  const { prefix } = query;
  if (key.length < prefix.length) return false;
  for (let i = 0; i < prefix.length; i++) if (key[i] !== prefix[i]) return false;
  const rest = key.slice(prefix.length);
  if (query.lower) {
    const c = compareKeys(rest, query.lower.key);
    if (c < 0 || (c === 0 && query.lower.open)) return false;
  }
  if (query.upper) {
    const c = compareKeys(rest, query.upper.key);
    if (c > 0 || (c === 0 && query.upper.open)) return false;
  }
  return true;
}
