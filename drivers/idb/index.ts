/**
 * The IndexedDB driver, on IndexedDB through `idb`'s promise wrappers: blogcore in the browser, offline. It
 * stores what the core gives it (documents, index keys, search tokens) and decides nothing; see
 * src/store/driver.ts. Where each part lives: connect.ts opens the database, schema.ts its layout and
 * upgrades, reads.ts reads by id and key range, search.ts token search, commit.ts writes (segments.ts their search postings, and terms added later), changes.ts the
 * change log, blobs.ts media bytes, native.ts the IndexedDB 3.0 requests idb does not type yet. Every call runs in one IndexedDB
 * transaction; reads begun together share one (connect.ts `read`).
 */
import type {
  BlobStore,
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
  TermsItem,
  WriteOp,
} from '../../src/store/driver.js';
import { changesSince, logBounds, pruneChanges, streamChanges } from './changes.js';
import { commit } from './commit.js';
import { Connection, openDatabase, settings, type IdbDriverOptions, type OpenOptions } from './connect.js';
import { loadedPostings, loadPostings } from './lazy-postings.js';
import { count, get, getByIndex, getMany, keys, list } from './reads.js';
import { BLOBS, checkNames } from './schema.js';
import { lazy } from '../../src/util/lazy.js';

export { IdbBlockedError, type IdbDriverOptions } from './connect.js';

class IdbDriver implements StorageDriver {
  private readonly settings: OpenOptions;
  private readonly KeyRange: typeof IDBKeyRange;
  private conn: Connection | undefined;
  /** Why the connection is gone (closed by us, upgraded or deleted elsewhere, or dropped by the browser). */
  private lost: string | undefined = 'idb driver is not open: call open(schema) first';
  /** Media bytes (blobs.ts, loaded on first use: most page loads never touch a picture's bytes). */
  readonly blobs: BlobStore = lazy(
    async () => (await import('./blobs.js')).idbBlobs(() => this.connection().db, BLOBS),
    ['put', 'read', 'delete', 'sweep'],
  );

  constructor(options: IdbDriverOptions) {
    const { KeyRange, ...open } = settings(options);
    this.KeyRange = KeyRange;
    this.settings = {
      ...open,
      lost: (reason) => {
        this.lost = reason;
      },
    };
  }

  /** The open connection, or why there is none. */
  private connection(): Connection {
    if (this.lost !== undefined || !this.conn) throw new Error(this.lost ?? 'idb driver is closed');
    return this.conn;
  }

  async open(schema: StoreSchema): Promise<void> {
    checkNames(schema);
    if (this.conn) await this.close();
    const db = await openDatabase(this.settings, schema);
    this.conn = new Connection(
      db,
      new Map(schema.collections.map((c) => [c.name, c])),
      this.settings.factory,
      this.KeyRange,
    );
    this.lost = undefined;
  }

  async get(collection: string, id: string): Promise<StoredDoc | undefined> {
    return get(this.connection(), collection, id);
  }

  async getMany(collection: string, ids: readonly string[]): Promise<Array<StoredDoc | undefined>> {
    return getMany(this.connection(), collection, ids);
  }

  async getByIndex(collection: string, index: string, key: Key): Promise<StoredDoc | undefined> {
    return getByIndex(this.connection(), collection, index, key);
  }

  async list(q: ListQuery): Promise<IndexedDoc[]> {
    return list(this.connection(), q);
  }

  async count(q: RangeQuery): Promise<number> {
    return count(this.connection(), q);
  }

  async keys(q: KeysQuery): Promise<IndexEntry[]> {
    return keys(this.connection(), q);
  }

  async search(q: SearchQuery): Promise<IndexEntry[]> {
    // Search code (with the postings it walks) loads on the first search: most page loads never search.
    const { search } = await import('./search.js');
    return search(this.connection(), q);
  }

  async addTerms(collection: string, items: readonly TermsItem[]): Promise<void> {
    return (loadedPostings() ?? (await loadPostings())).addTerms(this.connection(), collection, items);
  }

  async commit(ops: readonly WriteOp[], options: CommitOptions = {}): Promise<CommitResult> {
    return commit(this.connection(), ops, Math.floor(options.time ?? Date.now()));
  }

  async changesSince(seq: number, limit?: number): Promise<Change[]> {
    return changesSince(this.connection(), seq, limit);
  }

  async streamChanges(stream: string, after: LogPosition, limit: number): Promise<Change[]> {
    return streamChanges(this.connection(), stream, after, limit);
  }

  async logBounds(): Promise<LogBounds> {
    return logBounds(this.connection());
  }

  async pruneChanges(q: PruneQuery): Promise<number> {
    return pruneChanges(this.connection(), q);
  }

  async close(): Promise<void> {
    this.conn?.db.close();
    this.conn = undefined;
    this.lost = 'idb driver is closed';
  }
}

/** An IndexedDB-backed driver for browsers (and Node with fake-indexeddb). */
export function idbDriver(options: IdbDriverOptions = {}): StorageDriver {
  return new IdbDriver(options);
}
