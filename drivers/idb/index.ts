/**
 * The IndexedDB driver, on IndexedDB through `idb`'s promise wrappers: blogcore in the browser, offline. It
 * stores what the core gives it (documents, index keys, search tokens) and decides nothing; see
 * src/store/driver.ts. Where each part lives: connect.ts opens the database, schema.ts its layout and
 * upgrades, reads.ts reads by id and key range, search.ts token search, commit.ts writes, changes.ts the
 * change log, native.ts the IndexedDB 3.0 requests idb does not type yet. Every call runs in one IndexedDB
 * transaction.
 */
import type {
  Change,
  CommitOptions,
  CommitResult,
  IndexedDoc,
  IndexEntry,
  Key,
  KeysQuery,
  ListQuery,
  LogBounds,
  LogPosition,
  PruneQuery,
  RangeQuery,
  SearchQuery,
  StorageDriver,
  StoredDoc,
  StoreSchema,
  WriteOp,
} from '../../src/store/driver.js';
import { changesSince, logBounds, pruneChanges, streamChanges } from './changes.js';
import { commit } from './commit.js';
import { Connection, openDatabase, type OpenOptions } from './connect.js';
import { count, get, getByIndex, getMany, keys, list } from './reads.js';
import { checkNames } from './schema.js';
import { search } from './search.js';

export { IdbBlockedError } from './connect.js';

export interface IdbDriverOptions {
  /** The IndexedDB database name. Default `blogcore`. */
  name?: string;
  /**
   * The IDBFactory to use. Default: the global `indexedDB`. IndexedDB's classes must be globals either way (idb
   * checks results against them): in Node, `import 'fake-indexeddb/auto'` first, then pass a fresh
   * `new IDBFactory()` from 'fake-indexeddb' here to give a store a database world of its own.
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

class IdbDriver implements StorageDriver {
  readonly #open: OpenOptions;
  readonly #KeyRange: typeof IDBKeyRange;
  #connection: Connection | undefined;
  /** Why the connection is gone (closed by us, upgraded or deleted elsewhere, or dropped by the browser). */
  #lost: string | undefined = 'idb driver is not open: call open(schema) first';

  constructor(options: IdbDriverOptions) {
    const g = globalThis as { indexedDB?: IDBFactory; IDBKeyRange?: typeof IDBKeyRange; IDBRequest?: unknown };
    const factory = options.indexedDB ?? g.indexedDB;
    const KeyRange = options.IDBKeyRange ?? g.IDBKeyRange;
    if (!factory || !KeyRange || !g.IDBRequest) {
      throw new Error(
        "idbDriver: no IndexedDB here. In Node, add import 'fake-indexeddb/auto' (npm install -D fake-indexeddb) before creating the driver " +
          "(then { indexedDB: new IDBFactory() } from 'fake-indexeddb' gives a store a database world of its own).",
      );
    }
    this.#KeyRange = KeyRange;
    this.#open = {
      factory,
      name: options.name ?? 'blogcore',
      blockedTimeoutMs: options.blockedTimeoutMs ?? 3000,
      lost: (reason) => {
        this.#lost = reason;
      },
    };
  }

  /** The open connection, or why there is none. */
  #conn(): Connection {
    if (this.#lost !== undefined || !this.#connection) throw new Error(this.#lost ?? 'idb driver is closed');
    return this.#connection;
  }

  async open(schema: StoreSchema): Promise<void> {
    checkNames(schema);
    if (this.#connection) await this.close();
    const db = await openDatabase(this.#open, schema);
    this.#connection = new Connection(db, new Map(schema.collections.map((c) => [c.name, c])), this.#open.factory, this.#KeyRange);
    this.#lost = undefined;
  }

  async get(collection: string, id: string): Promise<StoredDoc | undefined> {
    return get(this.#conn(), collection, id);
  }

  async getMany(collection: string, ids: readonly string[]): Promise<Array<StoredDoc | undefined>> {
    return getMany(this.#conn(), collection, ids);
  }

  async getByIndex(collection: string, index: string, key: Key): Promise<StoredDoc | undefined> {
    return getByIndex(this.#conn(), collection, index, key);
  }

  async list(q: ListQuery): Promise<IndexedDoc[]> {
    return list(this.#conn(), q);
  }

  async count(q: RangeQuery): Promise<number> {
    return count(this.#conn(), q);
  }

  async keys(q: KeysQuery): Promise<IndexEntry[]> {
    return keys(this.#conn(), q);
  }

  async search(q: SearchQuery): Promise<IndexEntry[]> {
    return search(this.#conn(), q);
  }

  async commit(ops: readonly WriteOp[], options: CommitOptions = {}): Promise<CommitResult> {
    return commit(this.#conn(), ops, Math.floor(options.time ?? Date.now()));
  }

  async changesSince(seq: number, limit?: number): Promise<Change[]> {
    return changesSince(this.#conn(), seq, limit);
  }

  async streamChanges(stream: string, after: LogPosition, limit: number): Promise<Change[]> {
    return streamChanges(this.#conn(), stream, after, limit);
  }

  async logBounds(): Promise<LogBounds> {
    return logBounds(this.#conn());
  }

  async pruneChanges(q: PruneQuery): Promise<number> {
    return pruneChanges(this.#conn(), q);
  }

  async close(): Promise<void> {
    this.#connection?.db.close();
    this.#connection = undefined;
    this.#lost = 'idb driver is closed';
  }
}

/** An IndexedDB-backed driver for browsers (and Node with fake-indexeddb). */
export function idbDriver(options: IdbDriverOptions = {}): StorageDriver {
  return new IdbDriver(options);
}
