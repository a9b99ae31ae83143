/**
 * The IndexedDB driver, on the raw IndexedDB API: blogcore in the browser, offline.
 *
 * Layout (one database per `name`):
 * - one object store per collection, records `{ id, v, doc, k }` where `k` holds the core's index keys by
 *   index name; each declared index is an IDB index on key path `k.<name>` with `multiEntry`, so an array of
 *   array-keys gives one index entry per key (unique indexes are IDB-unique as well);
 * - for collections with `search`, a side store `~terms.<collection>` of records `{ id, t }` whose multiEntry
 *   index `t` holds one short flat string per (scope, token): every token is an index entry, and Chromium's
 *   cost per entry grows with its size. Kept apart from the documents so that gets and lists never read
 *   token lists. A search intersects the ids of its tokens (keys only), then either sorts the few matches'
 *   entries or, when matches are many, walks the ordered index and keeps the ids in the intersection;
 * - `~log`: one record `{ t }` per commit under an auto-incremented key, which is the commit's sequence
 *   number (so no counter has to be read and written per commit); pruning keeps the newest;
 * - `~changes` (layout 2), the change log: one record per op under the key [seq, pos], with an index
 *   `stream` on [s, q, p] (stream, seq, pos) that walks one stream's changes alone; `~meta` holds
 *   `pruned`, the highest seq pruning removed;
 * - `~blobs` (layout 3): media bytes as Blobs by key (blobs.ts).
 *
 * Every call runs in one IndexedDB transaction. `commit` reads what it must check, then writes, inside one
 * readwrite transaction over every store it touches, with no await of anything but IndexedDB requests in
 * between (a foreign await would let the transaction auto-commit half way).
 */
import { shortHash } from '../../src/util/ids.js';
import {
  compareKeys,
  DriverConflict,
  mergeWalks,
  suffixInBounds,
  type Change,
  type CollectionDef,
  type CommitOptions,
  type CommitResult,
  type LogBounds,
  type LogPosition,
  type PruneQuery,
  type IndexedDoc,
  type IndexEntry,
  type JsonObject,
  type Key,
  type KeysQuery,
  type ListQuery,
  type RangeQuery,
  type SearchQuery,
  type StorageDriver,
  type StoredDoc,
  type StoreSchema,
  type WriteOp,
  type BlobStore,
} from '../../src/store/driver.js';

export interface IdbDriverOptions {
  /** The IndexedDB database name. Default `blogcore`. */
  name?: string;
  /**
   * The IDBFactory to use. Default: the global `indexedDB`. In Node tests pass a fake-indexeddb factory
   * (and its `IDBKeyRange`), or `import 'fake-indexeddb/auto'` first to install both as globals.
   */
  indexedDB?: IDBFactory;
  /** The IDBKeyRange class belonging to that factory. Default: the global `IDBKeyRange`. */
  IDBKeyRange?: typeof IDBKeyRange;
  /**
   * How long `open` waits when another connection (usually another tab on an older version of the app)
   * holds the database open and does not close it for the upgrade. Then `open` fails with
   * `IdbBlockedError` instead of hanging. Default 3000 ms.
   */
  blockedTimeoutMs?: number;
}

/** `open` could not upgrade the database because another connection keeps an older version open. */
export class IdbBlockedError extends Error {
  override readonly name = 'IdbBlockedError';
}

/** Bumped when this driver's own storage layout changes; combined with the core's schema version. */
const LAYOUT_VERSION = 3;
const LOG = '~log';
/** Media bytes by key (blobs.ts). */
const BLOBS = '~blobs';
const CHANGES = '~changes';
const META = '~meta';
const STREAM_INDEX = 'stream';
const TERMS = (collection: string) => `~terms.${collection}`;
const TOKEN_INDEX = 't';
/** Ids per request when a search walks an index keeping its matches. */
const ID_CHUNK = 256;
/** A key part that sorts after every string: `[...prefix, MAX]` bounds "everything with the prefix". */
const MAX: [] = [];
const NAME = /^[A-Za-z_$][\w$]*$/;
/** The IndexedDB version of a schema version, and back: room for driver layout changes under each. */
const idbVersion = (schemaVersion: number) => schemaVersion * 1000 + LAYOUT_VERSION;
const schemaVersion = (version: number) => Math.floor(version / 1000);

interface Rec {
  id: string;
  v: number;
  doc: JsonObject;
  k: Record<string, Key[]>;
  /** The search scope, for records with terms. */
  s?: string;
}

interface TermsRec {
  id: string;
  t: string[];
}

/** One change (key: [seq, pos]). */
interface LogChange {
  q: number;
  p: number;
  c: string;
  id: string;
  op: 'put' | 'delete';
  v: number;
  t: number;
  s?: string;
}
const toChange = (r: LogChange): Change => ({
  seq: r.q,
  pos: r.p,
  collection: r.c,
  id: r.id,
  type: r.op,
  version: r.v,
  time: r.t,
  ...(r.s !== undefined ? { stream: r.s } : {}),
});

/** `getAllRecords` (IndexedDB 3.0, Chromium 141+, fake-indexeddb 6): one request for a page in either direction. */
interface IdbRecord<V> {
  key: IDBValidKey;
  primaryKey: IDBValidKey;
  value: V;
}
/** IndexedDB 3.0's options form of `getAllRecords` and `getAllKeys` (not in TypeScript's DOM types yet). */
type GetAllOptions = { query: IDBKeyRange; count: number; direction: IDBCursorDirection };
type Index3 = IDBIndex & {
  getAllRecords?: (options: GetAllOptions) => IDBRequest<IdbRecord<Rec>[]>;
  getAllKeys(options: GetAllOptions): IDBRequest<string[]>;
};

/** A request's result as a promise. It settles in the request's own event, so awaiting it keeps the transaction active. */
function ask<T>(request: IDBRequest<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
}

/** Resolves when a transaction commits; rejects with why it aborted. */
function done(tx: IDBTransaction): Promise<void> {
  return new Promise((resolve, reject) => {
    tx.oncomplete = () => resolve();
    // The error is null only after our own abort(), which no caller awaits.
    tx.onabort = () => reject(tx.error);
  });
}

/** Steps a cursor through its range while `step` returns true. */
function walkCursor<C extends IDBCursor>(request: IDBRequest<C | null>, step: (cursor: C) => boolean): Promise<void> {
  return new Promise((resolve, reject) => {
    request.onsuccess = () => {
      const cursor = request.result;
      if (cursor && step(cursor)) cursor.continue();
      else resolve();
    };
    request.onerror = () => reject(request.error);
  });
}

const refOf = (collection: string, id: string) => `${collection}\0${id}`;
const uniqueRef = (collection: string, index: string, key: Key) => `${collection}\0${index}\0${JSON.stringify(key)}`;
/**
 * The token index entries of one scope: a short hash of the scope (FNV-1a), then the token. Every token of
 * every post is an index entry, and Chromium's write cost grows with key length (a 26-character blog id in
 * front of each token cost a third more per insert). A hash collision only widens what the index returns:
 * `search` keeps the records whose stored scope is the one asked for.
 */
const termKeys = (scope: string, tokens: Iterable<string>) => {
  const h = shortHash(scope);
  return [...new Set(tokens)].map((token) => `${h}:${token}`);
};
const stored = (rec: Rec | undefined): StoredDoc | undefined => rec && { id: rec.id, version: rec.v, doc: rec.doc };
const cursorDirection = (q: { direction: 'asc' | 'desc' }): IDBCursorDirection => (q.direction === 'asc' ? 'next' : 'prev');
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
/** A change-log read's limit: a whole number, at least 0. */
const atLeast0 = (limit: number) => Math.max(0, Math.floor(limit));

class IdbDriver implements StorageDriver {
  readonly #name: string;
  readonly #factory: IDBFactory;
  readonly #KeyRange: typeof IDBKeyRange;
  readonly #blockedTimeoutMs: number;
  #db: IDBDatabase | undefined;
  #defs = new Map<string, CollectionDef>();
  /** Why the connection is gone (closed by us, upgraded or deleted elsewhere, or dropped by the browser). */
  #lost: string | undefined = 'idb driver is not open: call open(schema) first';
  /** Whether indexes have `getAllRecords`; found out on the first list. */
  #hasGetAllRecords: boolean | undefined;
  /** Media bytes (blobs.ts, loaded on first use: most page loads never touch a picture's bytes). */
  readonly blobs: BlobStore = lazyBlobs(async () => (await import('./blobs.js')).idbBlobs(() => this.#conn()));

  constructor(options: IdbDriverOptions) {
    const g = globalThis as { indexedDB?: IDBFactory; IDBKeyRange?: typeof IDBKeyRange };
    const factory = options.indexedDB ?? g.indexedDB;
    const KeyRange = options.IDBKeyRange ?? g.IDBKeyRange;
    if (!factory || !KeyRange) {
      throw new Error(
        "idbDriver: no IndexedDB here. In Node, add import 'fake-indexeddb/auto' (npm install -D fake-indexeddb) before creating the driver, " +
          "or pass it { indexedDB, IDBKeyRange } from 'fake-indexeddb'.",
      );
    }
    this.#name = options.name ?? 'blogcore';
    this.#factory = factory;
    this.#KeyRange = KeyRange;
    this.#blockedTimeoutMs = options.blockedTimeoutMs ?? 3000;
  }

  async open(schema: StoreSchema): Promise<void> {
    if (!Number.isInteger(schema.version) || schema.version < 1) throw new Error(`idb driver: bad schema version ${schema.version}`);
    for (const c of schema.collections) {
      if (!NAME.test(c.name)) throw new Error(`idb driver: collection name ${JSON.stringify(c.name)} must be an identifier`);
      for (const i of c.indexes) {
        if (!NAME.test(i.name)) throw new Error(`idb driver: index name ${JSON.stringify(i.name)} must be an identifier (it is a key path)`);
      }
    }
    if (this.#db) await this.close();
    const db = await this.#connect(schema);
    this.#checkLayout(db, schema);
    this.#defs = new Map(schema.collections.map((c) => [c.name, c]));
    this.#db = db;
    this.#lost = undefined;
  }

  /** Opens (and if needed upgrades) the database; never waits forever on another tab. */
  #connect(schema: StoreSchema): Promise<IDBDatabase> {
    const name = this.#name;
    const database = `IndexedDB database "${name}"`;
    return new Promise<IDBDatabase>((resolve, reject) => {
      let settled = false;
      let timer: ReturnType<typeof setTimeout> | undefined;
      /** Settles once: later outcomes (a late success after we gave up, a late error) are ignored. */
      const settle = () => {
        clearTimeout(timer);
        return !settled && (settled = true);
      };
      const fail = (error: Error) => settle() && reject(error);
      // (If open throws, so does this executor: the promise rejects with its error.)
      const request = this.#factory.open(name, idbVersion(schema.version));
      request.onupgradeneeded = () => {
        try {
          upgrade(request.result, schema, request.transaction!);
        } catch (e) {
          request.transaction?.abort();
          fail(new Error(`idb driver: upgrading ${name} to schema version ${schema.version} failed: ${(e as Error).message}`));
        }
      };
      request.onblocked = (event) => {
        timer ??= setTimeout(
          () =>
            fail(
              new IdbBlockedError(
                `${database} is open at schema version ${schemaVersion(event.oldVersion)} in another tab or window ` +
                  `that does not close it, so it cannot be upgraded to ${schema.version}. Close or reload the other tabs of this app and try again.`,
              ),
            ),
          this.#blockedTimeoutMs,
        );
      };
      request.onerror = (event) => {
        event.preventDefault();
        const e = request.error;
        fail(
          new Error(
            e?.name === 'VersionError'
              ? `${database} was written by a newer version of this app (this one has schema version ${schema.version}); update or reload the app`
              : `idb driver: cannot open ${database}: ${e?.name ?? 'Error'}: ${e?.message ?? 'unknown error'}`,
          ),
        );
      };
      request.onsuccess = () => {
        const db = request.result;
        // If we already gave up (blocked) and the other tab closed later, do not keep a connection nobody uses.
        if (!settle()) return db.close();
        // Another tab wants a newer version (or deletes the database): let it, and fail our calls clearly.
        db.onversionchange = (event) => {
          db.close();
          this.#lost =
            event.newVersion === null
              ? `${database} was deleted by another tab or window`
              : `${database} was upgraded by another tab or window (to schema version ${schemaVersion(event.newVersion)}); reload this page`;
        };
        // The browser dropped the connection (storage cleared, disk error).
        db.onclose = () => {
          this.#lost = `${database} was closed by the browser (storage cleared or failed)`;
        };
        resolve(db);
      };
    });
  }

  /** Refuses a database whose stores do not match the schema (a schema changed without a version bump). */
  #checkLayout(db: IDBDatabase, schema: StoreSchema): void {
    const missing: string[] = [];
    for (const c of schema.collections) {
      if (!db.objectStoreNames.contains(c.name)) missing.push(`store ${c.name}`);
      if (c.search && !db.objectStoreNames.contains(TERMS(c.name))) missing.push(`store ${TERMS(c.name)}`);
    }
    if (missing.length === 0) {
      const tx = db.transaction(schema.collections.map((c) => c.name));
      for (const c of schema.collections) {
        const indexNames = tx.objectStore(c.name).indexNames;
        for (const i of c.indexes) if (!indexNames.contains(i.name)) missing.push(`index ${c.name}.${i.name}`);
      }
    }
    if (missing.length > 0) {
      db.close();
      throw new Error(
        `idb driver: database "${this.#name}" lacks ${missing.join(', ')} at schema version ${schema.version}; bump the schema version when changing collections`,
      );
    }
  }

  #conn(): IDBDatabase {
    if (this.#lost !== undefined || !this.#db) throw new Error(this.#lost ?? 'idb driver is closed');
    return this.#db;
  }

  #def(collection: string): CollectionDef {
    const def = this.#defs.get(collection);
    if (!def) throw new Error(`unknown collection ${collection}`);
    return def;
  }

  /** A collection's store in a new read-only transaction. */
  #store(collection: string): IDBObjectStore {
    this.#def(collection);
    return this.#conn().transaction(collection).objectStore(collection);
  }

  async get(collection: string, id: string): Promise<StoredDoc | undefined> {
    return stored(await ask(this.#store(collection).get(id)));
  }

  async getMany(collection: string, ids: readonly string[]): Promise<Array<StoredDoc | undefined>> {
    this.#def(collection);
    if (ids.length === 0) return [];
    const store = this.#store(collection);
    return (await Promise.all(ids.map((id) => ask(store.get(id))))).map(stored);
  }

  async getByIndex(collection: string, index: string, key: Key): Promise<StoredDoc | undefined> {
    return stored(
      await ask(
        this.#store(collection)
          .index(index)
          .get([...key]),
      ),
    );
  }

  /** The IDBKeyRange of a query, or undefined when the range is empty. */
  #range(q: RangeQuery): IDBKeyRange | undefined {
    const lower: unknown[] = [...q.prefix, ...(q.lower?.key ?? [])];
    const upper: unknown[] = [...q.prefix, ...(q.upper?.key ?? [MAX])];
    const lowerOpen = !!q.lower?.open;
    const upperOpen = !!q.upper?.open;
    const c = this.#factory.cmp(lower, upper);
    if (c > 0 || (c === 0 && (lowerOpen || upperOpen))) return undefined;
    return this.#KeyRange.bound(lower, upper, lowerOpen, upperOpen);
  }

  /** Whether the browser has `getAllRecords`, asked of the first index the driver reads. */
  #getAllRecords(index: Index3): boolean {
    return (this.#hasGetAllRecords ??= typeof index.getAllRecords === 'function');
  }

  async list(q: ListQuery): Promise<IndexedDoc[]> {
    const index = this.#store(q.collection).index(q.index) as Index3;
    const range = this.#range(q);
    const limit = Math.floor(q.limit);
    if (!range || !(limit > 0)) return [];
    const direction = cursorDirection(q);
    if (this.#getAllRecords(index)) {
      // One request for the whole page, with the index key of each entry.
      const recs = await ask(index.getAllRecords!({ query: range, count: limit, direction }));
      return recs.map((r) => ({ ...stored(r.value)!, key: r.key as string[] }));
    }
    const out: IndexedDoc[] = [];
    await walkCursor(index.openCursor(range, direction), (cursor) => {
      out.push({ ...stored(cursor.value as Rec)!, key: cursor.key as string[] });
      return out.length < limit;
    });
    return out;
  }

  async count(q: RangeQuery): Promise<number> {
    const index = this.#store(q.collection).index(q.index);
    const range = this.#range(q);
    return range ? ask(index.count(range)) : 0;
  }

  /**
   * One prefix's walk in key order as index entries, at most `limit`: one `getAllRecords` request where the
   * browser has it (it reads the records too, but inside the driver), else a key cursor.
   */
  async #walk(index: Index3, q: KeysQuery, prefix: Key, limit: number, keep?: (id: string) => boolean): Promise<IndexEntry[]> {
    const range = this.#range({ ...q, prefix });
    if (!range || limit <= 0) return [];
    const direction = cursorDirection(q);
    if (!keep && this.#getAllRecords(index)) {
      const recs = await ask(index.getAllRecords!({ query: range, count: limit, direction }));
      return recs.map((r) => ({ id: r.primaryKey as string, key: r.key as string[] }));
    }
    const out: IndexEntry[] = [];
    await walkCursor(index.openKeyCursor(range, direction), (cursor) => {
      const id = cursor.primaryKey as string;
      if (!keep || keep(id)) out.push({ id, key: cursor.key as string[] });
      return out.length < limit;
    });
    return out;
  }

  /**
   * The first `limit` records of `set` under one prefix, in index order: ids only, ID_CHUNK at a time
   * (`getAllKeys` with a direction, IndexedDB 3.0: one request per chunk instead of one per step); the
   * records of the matches, and of each chunk's last id (to go on after its key), give the index keys.
   */
  async #walkIds(store: IDBObjectStore, index: Index3, q: SearchQuery, prefix: Key, limit: number, set: ReadonlySet<string>): Promise<IndexEntry[]> {
    const out: IndexEntry[] = [];
    const width = prefix.length;
    const direction = cursorDirection(q);
    let bounds: KeysQuery = q;
    for (;;) {
      const range = this.#range({ ...bounds, prefix });
      if (!range) return out;
      const ids = await ask(index.getAllKeys({ query: range, count: ID_CHUNK, direction }));
      const hits = ids.filter((id) => set.has(id)).slice(0, limit - out.length);
      const last = ids[ids.length - 1];
      const recs = (await Promise.all([...hits, ...(last === undefined ? [] : [last])].map((id) => ask(store.get(id))))) as Array<Rec | undefined>;
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

  async keys(q: KeysQuery): Promise<IndexEntry[]> {
    const limit = Math.floor(q.limit);
    if (!(limit > 0) || q.prefixes.length === 0) return [];
    const index = this.#store(q.collection).index(q.index) as Index3;
    const walks = await Promise.all(q.prefixes.map((prefix) => this.#walk(index, q, prefix, limit)));
    return mergeWalks(walks, q.prefixes[0]!.length, q.direction, limit);
  }

  async search(q: SearchQuery): Promise<IndexEntry[]> {
    const def = this.#def(q.collection);
    if (!def.search) throw new Error(`collection ${q.collection} is not searchable`);
    const limit = Math.floor(q.limit);
    const keys = termKeys(q.scope, q.tokens);
    if (keys.length === 0 || !(limit > 0) || q.prefixes.length === 0) return [];
    const tx = this.#conn().transaction([TERMS(q.collection), q.collection]);
    const byToken = tx.objectStore(TERMS(q.collection)).index(TOKEN_INDEX);
    // Ids per token (keys only: no record is read), intersected from the smallest set.
    const lists = ((await Promise.all(keys.map((key) => ask(byToken.getAllKeys(key))))) as string[][]).sort((a, b) => a.length - b.length);
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
      const index = store.index(q.index) as Index3;
      const walks = await Promise.all(
        q.prefixes.map((prefix) =>
          this.#getAllRecords(index) ? this.#walkIds(store, index, q, prefix, limit, set) : this.#walk(index, q, prefix, limit, (id) => set.has(id)),
        ),
      );
      return mergeWalks(walks, width, q.direction, limit);
    }
    // Few matches: their index keys live on their records; sort those in range.
    const recs = (await Promise.all(ids.map((id) => ask(store.get(id))))) as Array<Rec | undefined>;
    const cmp = order(q);
    const walks = q.prefixes.map((prefix) =>
      recs
        // Not gone meanwhile, and not of another scope with the same hash.
        .flatMap((rec) => (rec?.s === q.scope ? keysIn(rec, q, prefix, q).map((key) => ({ id: rec.id, key })) : []))
        .sort((a, b) => cmp(a.key, b.key)),
    );
    return mergeWalks(walks, width, q.direction, limit);
  }

  commit(ops: readonly WriteOp[], options: CommitOptions = {}): Promise<CommitResult> {
    return this.#commit(ops, Math.floor(options.time ?? Date.now()), false);
  }

  /**
   * Pure inserts of distinct records need no read: `add` refuses an existing id and IndexedDB refuses a
   * taken unique key, so the transaction does the checking; when it refuses, the batch runs again with
   * `read`, to name the precondition that failed. Anything else reads versions first.
   */
  async #commit(ops: readonly WriteOp[], time: number, read: boolean): Promise<CommitResult> {
    const db = this.#conn();
    const stores = new Set<string>([LOG, CHANGES]);
    // (Two inserts of one id in a batch: the second `add` is refused, and the rerun names the conflict.)
    let insertsOnly = !read;
    for (const op of ops) {
      const def = this.#def(op.collection);
      stores.add(op.collection);
      if (def.search) stores.add(TERMS(op.collection));
      if (op.type === 'put') {
        for (const name of Object.keys(op.keys)) {
          if (!def.indexes.some((i) => i.name === name)) throw new Error(`unknown index ${name}`);
        }
      }
      if (op.type !== 'put' || op.expect !== 0) insertsOnly = false;
    }
    const tx = db.transaction([...stores], 'readwrite');
    const finished = done(tx);
    finished.catch(() => undefined); // awaited below; a refused commit aborts on purpose

    if (!insertsOnly) {
      const conflict = await this.#check(tx, ops);
      if (conflict) {
        abort(tx);
        throw conflict;
      }
    }

    // Write: plain requests (no promise per request); the transaction reports.
    const changes: Array<Omit<LogChange, 'q'>> = [];
    for (const op of ops) {
      const store = tx.objectStore(op.collection);
      const search = this.#def(op.collection).search;
      const terms = search ? tx.objectStore(TERMS(op.collection)) : undefined;
      if (op.type === 'put') {
        const rec: Rec = {
          id: op.id,
          v: op.expect + 1,
          doc: op.doc,
          k: op.keys as Record<string, Key[]>,
          ...(op.terms && search ? { s: op.terms.scope } : {}),
        };
        if (insertsOnly) store.add(rec);
        else store.put(rec);
        if (terms && op.terms) terms.put({ id: op.id, t: termKeys(op.terms.scope, op.terms.tokens) } satisfies TermsRec);
        else if (!insertsOnly) terms?.delete(op.id);
      } else {
        store.delete(op.id);
        terms?.delete(op.id);
      }
      const p = changes.length;
      changes.push({
        p,
        c: op.collection,
        id: op.id,
        op: op.type,
        v: op.type === 'put' ? op.expect + 1 : op.expect,
        t: time,
        ...(op.stream !== undefined ? { s: op.stream } : {}),
      });
    }
    // One log record per commit; its auto-incremented key is the commit's sequence number, which the
    // changes are filed under as soon as it is known (still inside the transaction).
    const logged = tx.objectStore(LOG).add({ t: time });
    logged.onsuccess = () => {
      const q = logged.result as number;
      const store = tx.objectStore(CHANGES);
      for (const c of changes) store.add({ q, ...c } satisfies LogChange, [q, c.p]);
    };
    try {
      await finished;
    } catch (e) {
      const error = e as Error;
      if (error?.name === 'ConstraintError') {
        if (insertsOnly) return this.#commit(ops, time, true);
        // After reads, not expected (#check saw every key this transaction claims), but never a crash.
        throw new DriverConflict('unique', ops[0]!.collection, ops[0]!.id);
      }
      throw error;
    }
    return { seq: logged.result as number };
  }

  /** Checks every precondition in batch order, as the state will be when earlier ops apply. */
  async #check(tx: IDBTransaction, ops: readonly WriteOp[]): Promise<DriverConflict | undefined> {
    // All reads at once: current records (absent: version 0, no keys), and the holders of the unique keys
    // that puts claim. (A failed read aborts the transaction.)
    const current = new Map<string, { v: number; k: Record<string, Key[]> }>();
    const holders = new Map<string, string | null>();
    const reads: Array<Promise<unknown>> = [];
    for (const op of ops) {
      const ref = refOf(op.collection, op.id);
      const store = tx.objectStore(op.collection);
      if (!current.has(ref)) {
        current.set(ref, { v: 0, k: {} });
        reads.push(ask(store.get(op.id)).then((rec?: Rec) => rec && current.set(ref, rec)));
      }
      if (op.type !== 'put') continue;
      for (const index of this.#def(op.collection).indexes) {
        for (const key of index.unique ? (op.keys[index.name] ?? []) : []) {
          const u = uniqueRef(op.collection, index.name, key);
          if (holders.has(u)) continue;
          holders.set(u, null);
          reads.push(ask(store.index(index.name).getKey([...key])).then((id) => id !== undefined && holders.set(u, id as string)));
        }
      }
    }
    await Promise.all(reads);
    for (const op of ops) {
      const ref = refOf(op.collection, op.id);
      const state = current.get(ref)!;
      if (state.v !== op.expect) return new DriverConflict('version', op.collection, op.id);
      const uniques = this.#def(op.collection).indexes.filter((i) => i.unique);
      // The record's current unique keys are released, then its new ones claimed.
      for (const index of uniques) {
        for (const key of state.k[index.name] ?? []) {
          const u = uniqueRef(op.collection, index.name, key);
          if (holders.get(u) === op.id) holders.set(u, null);
        }
      }
      if (op.type === 'put') {
        for (const index of uniques) {
          for (const key of op.keys[index.name] ?? []) {
            const u = uniqueRef(op.collection, index.name, key);
            const holder = holders.get(u);
            if (holder != null && holder !== op.id) return new DriverConflict('unique', op.collection, op.id, index.name);
            holders.set(u, op.id);
          }
        }
      }
      current.set(ref, op.type === 'put' ? { v: op.expect + 1, k: op.keys as Record<string, Key[]> } : { v: 0, k: {} });
    }
    return undefined;
  }

  async changesSince(seq: number, limit = 1000): Promise<Change[]> {
    const max = atLeast0(limit);
    if (max === 0) return [];
    const recs = (await ask(
      this.#conn()
        .transaction(CHANGES)
        .objectStore(CHANGES)
        .getAll(this.#KeyRange.lowerBound([seq, Infinity], true), max),
    )) as LogChange[];
    return recs.map(toChange);
  }

  async streamChanges(stream: string, after: LogPosition, limit: number): Promise<Change[]> {
    const max = atLeast0(limit);
    if (max === 0) return [];
    const range = this.#KeyRange.bound([stream, after.seq, after.pos], [stream, Infinity, Infinity], true, false);
    const recs = (await ask(this.#conn().transaction(CHANGES).objectStore(CHANGES).index(STREAM_INDEX).getAll(range, max))) as LogChange[];
    return recs.map(toChange);
  }

  async logBounds(): Promise<LogBounds> {
    const tx = this.#conn().transaction([LOG, META]);
    const [last, pruned] = await Promise.all([ask(tx.objectStore(LOG).openKeyCursor(null, 'prev')), ask(tx.objectStore(META).get('pruned'))]);
    return { newest: typeof last?.key === 'number' ? last.key : 0, pruned: typeof pruned === 'number' ? pruned : 0 };
  }

  async pruneChanges(q: PruneQuery): Promise<number> {
    const limit = atLeast0(q.limit);
    if (limit === 0) return 0;
    const tx = this.#conn().transaction([CHANGES, LOG, META], 'readwrite');
    const recs = (await ask(tx.objectStore(CHANGES).getAll(null, limit))) as LogChange[];
    let n = 0;
    while (n < recs.length) {
      const r = recs[n]!;
      if (!((q.before !== undefined && r.t < q.before) || (q.through !== undefined && r.q <= q.through))) break;
      n++;
    }
    if (n > 0) {
      const last = recs[n - 1]!;
      tx.objectStore(CHANGES).delete(this.#KeyRange.upperBound([last.q, last.p]));
      // Commit records before the last pruned one go too; that one stays, so the newest seq is always known.
      tx.objectStore(LOG).delete(this.#KeyRange.upperBound(last.q, true));
      tx.objectStore(META).put(last.q, 'pruned');
    }
    await done(tx);
    return n;
  }

  async close(): Promise<void> {
    this.#db?.close();
    this.#db = undefined;
    this.#lost = 'idb driver is closed';
  }
}

function abort(tx: IDBTransaction): void {
  try {
    tx.abort();
  } catch {
    // Already finished or aborting.
  }
}

/**
 * Brings the stores and indexes in line with the schema, inside the versionchange transaction.
 * Indexes are derived data and are rebuilt by IndexedDB from the stored `k` keys; collection stores are
 * never deleted (data is not dropped because a schema forgot a collection).
 */
function upgrade(db: IDBDatabase, schema: StoreSchema, tx: IDBTransaction): void {
  const has = (name: string) => db.objectStoreNames.contains(name);
  if (!has(LOG)) db.createObjectStore(LOG, { autoIncrement: true });
  if (!has(META)) db.createObjectStore(META);
  if (!has(BLOBS)) db.createObjectStore(BLOBS);
  if (!has(CHANGES)) {
    db.createObjectStore(CHANGES).createIndex(STREAM_INDEX, ['s', 'q', 'p']);
    // Layout 1 kept each commit's changes in its ~log record. They had no reader but in-process events, so
    // they go (the key generator, the seq, goes on); the bundle stays small for what every browser loads.
    tx.objectStore(LOG).clear();
  }
  for (const c of schema.collections) {
    const store = has(c.name) ? tx.objectStore(c.name) : db.createObjectStore(c.name, { keyPath: 'id' });
    const wanted = new Map(c.indexes.map((i) => [i.name, !!i.unique]));
    for (const existing of [...store.indexNames]) {
      const index = store.index(existing);
      if (wanted.get(existing) !== index.unique || index.keyPath !== `k.${existing}` || !index.multiEntry) store.deleteIndex(existing);
    }
    for (const [name, unique] of wanted) {
      if (!store.indexNames.contains(name)) store.createIndex(name, `k.${name}`, { unique, multiEntry: true });
    }
    const terms = TERMS(c.name);
    if (c.search && !has(terms)) {
      db.createObjectStore(terms, { keyPath: 'id' }).createIndex(TOKEN_INDEX, TOKEN_INDEX, { multiEntry: true });
    } else if (!c.search && has(terms)) {
      db.deleteObjectStore(terms);
    }
  }
}

/** A blob store whose code loads on its first call. */
function lazyBlobs(load: () => Promise<BlobStore>): BlobStore {
  let store: Promise<BlobStore> | undefined;
  return new Proxy({} as BlobStore, {
    get:
      (_, name: keyof BlobStore) =>
      async (...args: never[]) =>
        ((await (store ??= load()))[name] as (...a: never[]) => unknown)(...args),
  });
}

/** An IndexedDB-backed driver for browsers (and Node with fake-indexeddb). */
export function idbDriver(options: IdbDriverOptions = {}): StorageDriver {
  return new IdbDriver(options);
}
