/**
 * The memory driver: in-process, fast, and gone when the process ends. It stores what the core gives it
 * (documents, index keys, search tokens) and decides nothing; see src/store/driver.ts. Where each part lives:
 * schema.ts the in-memory layout and the Store, reads.ts reads by id and key range, search.ts token search,
 * commit.ts writes, changes.ts the change log, blobs.ts media bytes.
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
import { addTerms, commit } from './commit.js';
import { count, get, getByIndex, getMany, keys, list } from './reads.js';
import { Store } from './schema.js';
import { search } from './search.js';
import { memoryBlobs } from './blobs.js';

export interface MemoryDriverOptions {
  /** Keep at most this many change-log entries (oldest dropped first). Default: unbounded. */
  maxChanges?: number;
}

class MemoryDriver implements StorageDriver {
  /** `commit` honours `CommitOptions.unchanged`. */
  readonly checksUnchanged = true;
  private readonly store: Store;
  readonly blobs: BlobStore = memoryBlobs(() => void this.connection());

  constructor(options: MemoryDriverOptions) {
    this.store = new Store(options.maxChanges);
  }

  /** The store, or why there is none. */
  private connection(): Store {
    if (this.store.closed) throw new Error('memory driver is closed');
    return this.store;
  }

  async open(schema: StoreSchema): Promise<void> {
    this.store.declare(schema);
  }

  async get(collection: string, id: string): Promise<StoredDoc | undefined> {
    return get(this.connection(), collection, id);
  }

  getNow(collection: string, id: string): StoredDoc | undefined {
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
    return search(this.connection(), q);
  }

  async addTerms(collection: string, items: readonly TermsItem[]): Promise<void> {
    addTerms(this.connection(), collection, items);
  }

  async commit(ops: readonly WriteOp[], options: CommitOptions = {}): Promise<CommitResult> {
    return commit(this.connection(), ops, options);
  }

  async changesSince(seq: number, limit?: number): Promise<Change[]> {
    return this.connection().log.since(seq, limit);
  }

  async streamChanges(stream: string, after: LogPosition, limit: number): Promise<Change[]> {
    return this.connection().log.stream(stream, after, limit);
  }

  async logBounds(): Promise<LogBounds> {
    return this.connection().log.bounds();
  }

  logNewestNow(): number {
    return this.connection().log.seq;
  }

  async pruneChanges(q: PruneQuery): Promise<number> {
    return this.connection().log.prune(q);
  }

  /** Passes a message to every service on this store, itself included, soon after; stores it nowhere. */
  tell(message: string): void {
    for (const hear of [...this.connection().hearers]) queueMicrotask(() => hear(message));
  }

  hear(listener: (message: string) => void): () => void {
    const { hearers } = this.connection();
    hearers.add(listener);
    return () => void hearers.delete(listener);
  }

  async close(): Promise<void> {
    this.store.closed = true;
    this.store.hearers.clear();
  }
}

/** An in-process driver: fast, and gone when the process ends. Good for tests, previews and caches. */
export function memoryDriver(options: MemoryDriverOptions = {}): StorageDriver {
  return new MemoryDriver(options);
}
