/**
 * The storage driver contract.
 *
 * A driver is a small document store. It keeps JSON documents in named collections, keeps the index
 * entries the core computes for each document, and answers a handful of typed queries. It decides
 * nothing: every key, every token and every rule comes from the core (`src/`), so all drivers return
 * the same answers for the same calls. `test/drivers/suite.ts` is the executable form of this file.
 *
 * Keys are tuples of strings compared part by part with plain string comparison; a tuple that is a
 * prefix of a longer one sorts before it (IndexedDB's array-key order, restricted to strings).
 */

/** A JSON value as stored: what `JSON.parse(JSON.stringify(x))` gives back. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

/** One index key: a tuple of strings. The core always ends it with the record id, so it is unique. */
export type Key = readonly string[];

/** How many entries a record has in an index: exactly one, none or one, or any number (e.g. one per label). */
export type IndexEntries = 'one' | 'optional' | 'many';

export interface IndexDef {
  name: string;
  /** At most one record may hold a given key. A commit that would break this fails with `unique`. */
  unique?: boolean;
  /**
   * What each part of the index's keys is, by name (e.g. `['blogId', 'status', 'published', 'id']`; `id` is the
   * record's id), so a driver can keep key parts as columns a person reads (PostgreSQL). A part's name means one
   * value per record across the collection's `one` and `optional` indexes; in a `many` index the parts named by
   * no such index vary per entry (a label). Without it a driver keeps the keys as it likes. Drivers refuse a
   * commit that does not fit the declaration (a programming error, not a conflict).
   */
  fields?: readonly string[];
  /**
   * How many entries a record has in this index (with `fields`, default `many`). Declared `many` without
   * `fields`, it lets a driver keep the index as suits many entries a record (IndexedDB: as postings in segments,
   * as it keeps search terms); answers are the same either way.
   */
  entries?: IndexEntries;
  /**
   * A counter of the collection (`counters`): the record has its entries in this index only while that counter
   * is above 0 (a label's `live` index holds labels that LIVE posts carry). Puts and adds give the record's keys
   * as they are when the counter is positive; drivers apply the condition on every write (`heldKeys`).
   */
  positive?: string;
}

export interface CollectionDef {
  name: string;
  indexes: readonly IndexDef[];
  /** The collection takes part in `search` (its puts carry `terms`). */
  search?: boolean;
  /**
   * Top-level fields of the documents that hold whole numbers (counters such as a post's comment count), which a
   * driver may keep as columns of their own (PostgreSQL).
   */
  counters?: readonly string[];
  /** Top-level text fields of the documents a person reading the store wants to see (a title), shown as columns where a driver can (PostgreSQL 18's virtual columns). */
  columns?: readonly string[];
  /**
   * Records the core puts once (expect 0, fresh ids) and never changes or deletes: a driver with `dropsTransient`
   * drops them whole, at least `keepMs` after their commit by the store's clock, without change-log entries (the
   * core deletes them one by one elsewhere). Such a collection has no unique, many-entry or search index, and no counters.
   */
  transient?: { keepMs: number };
}

/** Declared once by the core and passed to `open`. A driver stores this shape and nothing else. */
export interface StoreSchema {
  /**
   * Bumped by the core when collections or indexes change; drivers upgrade their storage on open. An index
   * new to a store starts empty (keys are the core's): the core then rewrites the records it must.
   */
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
  /**
   * For collections with `search`: the scope (e.g. the blog id), the document's distinct tokens, and its rank:
   * a number that orders matches as searches mostly want them (the core's: the post's sort time in ms), so a
   * driver may keep its search index in that order and find the newest matches first without reading the
   * others. Results never depend on it: they are in the order of the query's index, whatever the ranks.
   */
  terms?: { scope: string; tokens: readonly string[]; rank?: number };
  /** The change-log stream of this change (the core's blog id), so one stream can be walked alone (`streamChanges`). */
  stream?: string;
}

/** A record's search terms, for the version it is stored at (`StorageDriver.addTerms`). */
export interface TermsItem {
  id: string;
  version: number;
  terms: NonNullable<PutOp['terms']>;
}

export interface DeleteOp {
  type: 'delete';
  collection: string;
  id: string;
  /** The version the record must have now. */
  expect: number;
  /** As on `PutOp`: the change-log stream of this change. */
  stream?: string;
}

/**
 * Adds to counters of a record (`CollectionDef.counters`) without reading it first: concurrent adds to one record
 * all count, whatever their order, and never conflict with each other. The record's version goes up by one, as
 * for a put. A missing record is created from `create` first (its counters as given, then added to); without
 * `create` a missing record refuses the commit (`version`).
 */
export interface AddOp {
  type: 'add';
  collection: string;
  id: string;
  /** What to add to each counter (negative subtracts): whole numbers. */
  add: Readonly<Record<string, number>>;
  /** The record's index keys, as a put of it gives them (they do not change with its counters). */
  keys: Readonly<Record<string, readonly Key[]>>;
  /** The document to create when the record does not exist. */
  create?: JsonObject;
  /** As on `PutOp`: the change-log stream of this change. */
  stream?: string;
}

export type WriteOp = PutOp | DeleteOp | AddOp;

/** The longest message `tell` passes on (PostgreSQL's NOTIFY payload is under 8000 bytes). */
export const MESSAGE_CHARS = 7_000;

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

/**
 * A merged walk over one index under one or more prefixes, returning index entries without documents.
 * All prefixes have the same length; the part of a key after its prefix is its *suffix* (the core's
 * suffixes end with the record id, so two entries of one record under two prefixes have equal suffixes).
 */
export interface KeysQuery {
  collection: string;
  index: string;
  /** One to 64 prefixes, all of the same length (e.g. one per label × status). */
  prefixes: readonly Key[];
  /** Bounds on the suffix, as in `RangeQuery`. */
  lower?: KeyBound;
  upper?: KeyBound;
  direction: 'asc' | 'desc';
  limit: number;
  /**
   * The caller reads the page's documents next: a driver may return each entry's document and version with it
   * (`IndexEntry.doc`, `.version`), read in the same statement as the entry, so as current as the entry itself.
   * Entries without them the caller reads with `getMany`. Without `docs`, entries carry no documents.
   */
  docs?: boolean;
}

/** `keys` restricted to the records of `scope` whose tokens include every query token. */
export interface SearchQuery extends KeysQuery {
  scope: string;
  /** Every token must be among the document's tokens. Never empty, at most 64. */
  tokens: readonly string[];
  /**
   * Present when the query's order is the rank order (`PutOp.terms.rank`): a suffix sorts like its record's
   * rank, ties by what follows. It answers the rank a suffix stands for, so a driver keeping its search index
   * in rank order can start at a bound and stop after a page.
   */
  rankOf?: (suffix: Key) => number;
}

export interface IndexEntry {
  id: string;
  key: Key;
  /** With `KeysQuery.docs`, when the driver read it with the entry: the record's version (with `doc`). */
  version?: number;
  /** With `KeysQuery.docs`, when the driver read it with the entry: the record's document (with `version`). */
  doc?: JsonObject;
}

export interface Change {
  seq: number;
  /** The op's position in its commit (0, 1, …): `(seq, pos)` orders the log. */
  pos: number;
  collection: string;
  id: string;
  /** An add is logged as the put it amounts to. */
  type: 'put' | 'delete';
  /** The version written (for deletes, the version the record had). */
  version: number;
  /** The op's `stream`, when it had one. */
  stream?: string;
  /** The commit time given to `commit` (ms since the epoch). */
  time: number;
}

export interface CommitOptions {
  /** The commit time (ms since the epoch), from the core's clock; logged with every change. Default: `Date.now()`. */
  time?: number;
  /**
   * With `checksUnchanged`: refuse the commit (a `stale` DriverConflict naming the stream, nothing written) when
   * the log holds an entry of `stream` after seq `after`, or was pruned past it. The core's cache of users and blogs is read without a
   * look at the log where that look costs a round trip, and checked here instead (docs/design.md §15).
   */
  unchanged?: { readonly stream: string; readonly after: number };
}

/** A place in the change log: after `(seq, pos)`. `{ seq, pos: -1 }` is before the whole of commit `seq`. */
export interface LogPosition {
  seq: number;
  pos: number;
}

export interface LogBounds {
  /** The newest commit's sequence number (0 before the first commit). */
  newest: number;
  /** The highest sequence number `pruneChanges` removed entries of (0 if none): changes up to it may be gone. */
  pruned: number;
}

/**
 * Which old entries `pruneChanges` removes: from the oldest, in log order, each entry whose time is before
 * `before` or whose seq is at most `through`; it stops at the first entry that is neither, or after `limit`.
 */
export interface PruneQuery {
  before?: number;
  through?: number;
  /** The most entries one call removes (pruning runs in bounded batches). */
  limit: number;
}

export interface CommitResult {
  /**
   * The sequence number of this commit: larger than that of every commit that returned before this one began.
   * Commits running at the same time may share one when the driver joins them into one transaction (PostgreSQL
   * does), their ops one after the other in the log.
   */
  seq: number;
  /**
   * The newest seq of the log below this commit, when the driver knows it for final (no commit below `seq` was
   * still to land): drivers whose seqs have gaps say so (PostgreSQL's are transaction ids). Absent: `seq - 1`.
   */
  previous?: number;
}

/** `stale`: the log moved past `CommitOptions.unchanged` (its `id` names the stream). */
export type ConflictKind = 'version' | 'unique' | 'stale';

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

/** A byte range of a blob: `length` bytes from `offset` (both within the blob). */
export interface BlobRange {
  offset: number;
  length: number;
}

/**
 * Where media bytes live (docs/design.md §19): by default the driver's own store (`StorageDriver.blobs`), or one of
 * blogcore/blobs (`fsBlobs`, `s3Blobs`). Keys are the core's (`<blogId>/<upload id>`, each written once); a store
 * keeps bytes under them and decides nothing. `test/blobs/suite.ts` runs unchanged against every store.
 */
export interface BlobStore {
  /**
   * Stores what `source` yields under `key`, replacing what the key held, and answers the number of bytes.
   * The new bytes are readable only once all of them are stored: never half a blob under its key. If `source`
   * throws (or the store fails), `put` rejects with that error, keeps nothing of the new bytes, and the key
   * still holds what it held. The store pulls `source` at its own pace (back-pressure reaches the sender).
   */
  put(key: string, source: AsyncIterable<Uint8Array>): Promise<number>;
  /** The bytes of `key` (or of `range`) as a stream, read as it is consumed; undefined when the key holds none. */
  read(key: string, range?: BlobRange): Promise<ReadableStream<Uint8Array> | undefined>;
  /** Removes the key's bytes; a key that holds none is no error. */
  delete(key: string): Promise<void>;
  /**
   * Removes what puts that never finished (their process died) left staged, if they started before `before`
   * (ms since the epoch), at most `limit` of them; answers how many it removed. Committed blobs are never touched.
   */
  sweep(before: number, limit: number): Promise<number>;
}

export interface StorageDriver {
  /** Creates or upgrades storage for the schema. Called once by the core before any other call. */
  open(schema: StoreSchema): Promise<void>;
  get(collection: string, id: string): Promise<StoredDoc | undefined>;
  /** In the order of `ids`; `undefined` where a record does not exist. */
  getMany(collection: string, ids: readonly string[]): Promise<Array<StoredDoc | undefined>>;
  /** The record holding exactly `key` in a unique index. */
  getByIndex(collection: string, index: string, key: Key): Promise<StoredDoc | undefined>;
  /** Walks one index prefix within the range, in key order (`desc`: reversed), returning at most `limit` documents. */
  list(query: ListQuery): Promise<IndexedDoc[]>;
  /** How many entries of the index lie in the range. */
  count(query: RangeQuery): Promise<number>;
  /**
   * One ordered page of index entries (no documents) over several prefixes: the entries whose key starts
   * with one of `prefixes` and whose suffix lies within the bounds, ordered by suffix (`desc`: reversed),
   * at most `limit` of them. Entries with equal suffixes are one record: only the first (in `prefixes`
   * order) is returned, and the repeats do not count against `limit`. The driver hands out nothing else;
   * its own work is at most `prefixes.length × limit` index entries (a merge of per-prefix range walks).
   * The core fetches the page's documents with `getMany`; with `docs`, a driver may hand out each entry's
   * document and version read in the same statement instead (one round trip; never from a cache of earlier
   * reads, which another app server's write that has returned may have made stale), and the core reads only
   * the rest.
   */
  keys(query: KeysQuery): Promise<IndexEntry[]>;
  /**
   * `keys`, counting only the records of `scope` whose tokens include every query token: one ordered page
   * of matches from a keyset position, never all matches. A driver may walk the rarest token's postings in
   * index order and check the others, walk the index and check each candidate's tokens, sort the matches
   * when they are few, or use an engine's native equivalent (FTS5 matches joined to the ordered index under
   * a LIMIT); whichever it picks, it hands out at most `limit` entries and no documents.
   */
  search(query: SearchQuery): Promise<IndexEntry[]>;
  /** All or nothing: every precondition holds and every op is written, or DriverConflict and nothing changes. */
  commit(ops: readonly WriteOp[], options?: CommitOptions): Promise<CommitResult>;
  /** The change log after `seq` (exclusive), oldest first, at most `limit` entries. */
  changesSince(seq: number, limit?: number): Promise<Change[]>;
  /**
   * The changes of one `stream` after `after` (exclusive), in log order, at most `limit`: a walk of that
   * stream alone (an index on stream, seq, pos), never reading other streams' entries.
   */
  streamChanges(stream: string, after: LogPosition, limit: number): Promise<Change[]>;
  /** The newest sequence number and how far the log has been pruned. */
  logBounds(): Promise<LogBounds>;
  /**
   * Optional: `logBounds().newest`, answered at once by a driver that can look without waiting (SQLite, memory).
   * A read that nothing changed since then costs no promise (the HTTP helper's kept responses, the core's record
   * cache); a driver without it is asked `logBounds`.
   */
  logNewestNow?(): number;
  /**
   * Optional: `get`, answered at once by a driver that reads without waiting (SQLite): a read the core can answer
   * in one synchronous step takes no promise (src/resources/post-now.ts). A driver without it is asked `get`.
   */
  getNow?(collection: string, id: string): StoredDoc | undefined;
  /**
   * Optional: true when `commit` honours `CommitOptions.unchanged` (the server drivers: SQLite, memory, PostgreSQL).
   * Where the look at the log costs a round trip (no `logNewestNow`: PostgreSQL), the core then lets a write's look
   * ride in its commit. A driver with it gets `posts.get` from src/resources/post-now.ts (loaded on the first get).
   */
  readonly checksUnchanged?: boolean;
  /**
   * Optional: search terms for records stored without them (a put with no `terms` in a collection with `search`).
   * Each item's record gets `terms` as if its put had carried them, but only while it is still at `version`: it
   * is not written again (its version stays) and no change is logged; an item whose record moved or went, or was
   * put with terms, changes nothing. The core gives a version the same terms each time, and asked twice for one,
   * searches find the record once. Lets a replica's first pull store posts at once and their terms right after
   * (src/core/later-terms.ts); the core's searches of the blog wait for them.
   */
  addTerms?(collection: string, items: readonly TermsItem[]): Promise<void>;
  /** Optional: true when the driver drops the records of `transient` collections itself (PostgreSQL: a table per time slab, truncated in turn). */
  readonly dropsTransient?: boolean;
  /** Removes old log entries (see `PruneQuery`), at most `limit`; answers how many it removed. */
  pruneChanges(query: PruneQuery): Promise<number>;
  /**
   * Optional: calls `listener` soon after commits made through *other* connections to the same store (other
   * app servers), and now and then regardless; the listener reads `changesSince` itself. A driver whose
   * store only this instance writes leaves it out. Returns the function that stops the calls.
   */
  watch?(listener: () => void): () => void;
  /**
   * Optional, beside `watch`: passes a short text (at most 7,000 characters) to every app server on this store,
   * this one included, and stores it nowhere: what is not heard at once is gone (PostgreSQL: NOTIFY).
   */
  tell?(message: string): void;
  /** Optional, with `tell`: calls `listener` with each message told on this store; answers the function that stops it. */
  hear?(listener: (message: string) => void): () => void;
  /** The bytes of media, kept in the same store as the records (so a backup of the store holds the pictures). */
  readonly blobs: BlobStore;
  /**
   * Optional (a driver reading from replicas, e.g. PostgreSQL with `replicas`): a new session, whose driver
   * reads only where the session's own writes, and any position it was shown, are visible.
   */
  session?(): ReadSession;
  close(): Promise<void>;
}

/**
 * Read-your-writes over read replicas. A session holds a position in the store's history (a consistency
 * token, opaque text: the driver's own, e.g. a WAL position); its driver sends a read to a replica only once
 * that replica has replayed past it (else to the primary, never waiting without bound), and its commits move
 * the position past each write.
 */
export interface ReadSession {
  /** The driver as this session reads and writes. */
  readonly driver: StorageDriver;
  /** The newest position this session has written or been shown, if any. */
  token(): string | undefined;
  /** Moves the session to `token` if that is later (a token of another session or app server); one that is not a token is ignored. */
  see(token: string): void;
  /** A session starting at this one's position whose commits move this one too (one request of a client, say). */
  child(): ReadSession;
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

/**
 * The entries a record holds: its keys, less those of indexes whose `positive` counter is not above 0 in `doc`.
 * The reference reading of `IndexDef.positive`, for drivers that keep the keys a write gives.
 */
export function heldKeys(
  def: CollectionDef,
  doc: JsonObject,
  keys: Readonly<Record<string, readonly Key[]>>,
): Readonly<Record<string, readonly Key[]>> {
  let out: Record<string, readonly Key[]> | undefined;
  for (const index of def.indexes) {
    if (index.positive === undefined || !keys[index.name]?.length) continue;
    const n = doc[index.positive];
    if (typeof n === 'number' && n > 0) continue;
    out ??= { ...keys };
    out[index.name] = [];
  }
  return out ?? keys;
}

/**
 * An add as the put it amounts to, given the record as it stands when the commit's earlier ops have applied
 * (undefined: there is none): the reference reading of `AddOp` for drivers that keep whole documents.
 */
export function addAsPut(def: CollectionDef, op: AddOp, stored: StoredDoc | undefined): PutOp {
  if (!stored && !op.create) throw new DriverConflict('version', op.collection, op.id);
  const doc: JsonObject = { ...(stored?.doc ?? op.create!) };
  for (const [field, n] of Object.entries(op.add)) {
    if (!def.counters?.includes(field)) throw new Error(`${op.collection} has no counter ${field}`);
    const was = doc[field];
    doc[field] = (typeof was === 'number' ? was : 0) + n;
  }
  return {
    type: 'put',
    collection: op.collection,
    id: op.id,
    expect: stored?.version ?? 0,
    doc,
    keys: op.keys,
    ...(op.stream !== undefined ? { stream: op.stream } : {}),
  };
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

/** Whether a suffix lies within the optional bounds of a query. */
export function suffixInBounds(
  suffix: Key,
  q: { lower?: KeyBound | undefined; upper?: KeyBound | undefined },
): boolean {
  if (q.lower) {
    const c = compareKeys(suffix, q.lower.key);
    if (c < 0 || (c === 0 && q.lower.open)) return false;
  }
  if (q.upper) {
    const c = compareKeys(suffix, q.upper.key);
    if (c > 0 || (c === 0 && q.upper.open)) return false;
  }
  return true;
}

/**
 * The reference merge of `keys`/`search`: per-prefix walks (already in key order, in the query's
 * direction) merged by suffix, repeats of a suffix dropped, at most `limit`. Drivers that walk each
 * prefix themselves use it to merge.
 */
export function mergeWalks(
  walks: ReadonlyArray<readonly IndexEntry[]>,
  width: number,
  direction: 'asc' | 'desc',
  limit: number,
): IndexEntry[] {
  if (walks.length === 1) return walks[0]!.slice(0, limit);
  const sign = direction === 'asc' ? 1 : -1;
  const tagged: Array<{ e: IndexEntry; s: Key; w: number }> = [];
  walks.forEach((walk, w) => {
    for (const e of walk) tagged.push({ e, s: e.key.slice(width), w });
  });
  tagged.sort((a, b) => sign * compareKeys(a.s, b.s) || a.w - b.w);
  const out: IndexEntry[] = [];
  for (let i = 0; i < tagged.length && out.length < limit; i++) {
    if (i > 0 && compareKeys(tagged[i]!.s, tagged[i - 1]!.s) === 0) continue;
    out.push(tagged[i]!.e);
  }
  return out;
}

/**
 * The reference chunking of blob puts: what `source` yields regrouped into chunks of exactly `size` bytes
 * (the last one shorter, none empty). Each is a fresh copy the caller may keep; with `reuse`, the same buffer
 * comes back each time (for stores that copy a chunk away before they ask for the next: less garbage).
 */
export async function* fixedChunks(
  source: AsyncIterable<Uint8Array>,
  size: number,
  reuse = false,
): AsyncGenerator<Uint8Array> {
  let buffer = new Uint8Array(size);
  let filled = 0;
  for await (const piece of source) {
    let at = 0;
    while (at < piece.byteLength) {
      const n = Math.min(size - filled, piece.byteLength - at);
      buffer.set(piece.subarray(at, at + n), filled);
      filled += n;
      at += n;
      if (filled === size) {
        yield buffer;
        if (!reuse) buffer = new Uint8Array(size);
        filled = 0;
      }
    }
  }
  if (filled > 0) yield buffer.subarray(0, filled);
}

/**
 * A stream of the bytes `range` covers in a blob kept as fixed-size chunks (all `size` bytes but the last),
 * reading one chunk per pull with `chunk(n)`: the reference reader of stores that keep chunks.
 */
export function chunkStream(
  total: number,
  size: number,
  range: BlobRange | undefined,
  chunk: (n: number) => Promise<Uint8Array | undefined>,
): ReadableStream<Uint8Array> {
  const start = range ? range.offset : 0;
  const end = range ? Math.min(total, range.offset + range.length) : total;
  let at = start;
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        if (at >= end) return controller.close();
        const n = Math.floor(at / size);
        const bytes = await chunk(n);
        if (!bytes) return controller.error(new Error('blob changed while it was read'));
        const from = at - n * size;
        const to = Math.min(bytes.byteLength, end - n * size);
        controller.enqueue(from === 0 && to === bytes.byteLength ? bytes : bytes.subarray(from, to));
        at = n * size + to;
        if (at >= end) controller.close();
      },
    },
    { highWaterMark: 0 },
  );
}
