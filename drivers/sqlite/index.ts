/**
 * The SQLite storage driver, on better-sqlite3: the embedded default. It stores what the core gives it
 * (documents, index keys, search tokens) and decides nothing; see src/store/driver.ts. Where each part lives:
 * connect.ts opens the file, schema.ts its layout and migrations, reads.ts reads by id and key range,
 * search.ts token search, commit.ts writes, changes.ts the change log, blobs.ts media bytes, native.ts the
 * slice of better-sqlite3 it uses; key bytes come from drivers/shared/byte-keys.ts.
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
  WriteOp,
} from '../../src/store/driver.js';
import { changesSince, logBounds, pruneChanges, streamChanges } from './changes.js';
import { commit } from './commit.js';
import { Connection, openFile, type SqliteDriverOptions } from './connect.js';
import { count, get, getByIndex, getMany, keys, list } from './reads.js';
import { declare, migrate, MIGRATIONS } from './schema.js';
import { search } from './search.js';
import { sqliteBlobs } from './blobs.js';

export type { SqliteDatabaseOptions, SqliteDriverOptions, SqliteFileOptions } from './connect.js';
export type { SqliteDatabase } from './native.js';

/** The storage-layout version this build writes (PRAGMA user_version after migrations). */
export const SQLITE_STORAGE_VERSION = MIGRATIONS.length;

class SqliteDriver implements StorageDriver {
  /** `commit` honours `CommitOptions.unchanged`. */
  readonly checksUnchanged = true;
  private conn: Connection | undefined;
  private readonly owned: boolean;
  private closed = false;
  readonly blobs: BlobStore = sqliteBlobs({
    db: () => this.connection().db,
    stmt: (sql) => this.connection().stmt(sql),
  });

  constructor(private readonly options: SqliteDriverOptions) {
    this.owned = !('database' in options);
  }

  /** The open connection, or why there is none. */
  private connection(): Connection {
    if (this.closed) throw new Error('sqlite driver is closed');
    if (!this.conn) throw new Error('sqlite driver is not open: call open(schema) first');
    return this.conn;
  }

  async open(schema: StoreSchema): Promise<void> {
    if (this.closed) throw new Error('sqlite driver is closed');
    this.conn ??=
      'database' in this.options
        ? new Connection(this.options.database)
        : new Connection(await openFile(this.options), `${this.options.filename}-shm`);
    try {
      migrate(this.conn.db);
      declare(this.conn, schema);
    } catch (error) {
      // A store this build cannot use: let go of a connection we opened rather than leak it.
      if (this.owned) {
        this.conn.db.close();
        this.conn = undefined;
      }
      throw error;
    }
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

  async commit(ops: readonly WriteOp[], options: CommitOptions = {}): Promise<CommitResult> {
    return commit(this.connection(), ops, options);
  }

  async changesSince(seq: number, limit?: number): Promise<Change[]> {
    return changesSince(this.connection(), seq, limit);
  }

  async streamChanges(stream: string, after: LogPosition, limit: number): Promise<Change[]> {
    return streamChanges(this.connection(), stream, after, limit);
  }

  async logBounds(): Promise<LogBounds> {
    return { ...logBounds(this.connection()) };
  }

  logNewestNow(): number {
    return logBounds(this.connection()).newest;
  }

  async pruneChanges(q: PruneQuery): Promise<number> {
    return pruneChanges(this.connection(), q);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.conn?.forget();
    if (this.owned && this.conn?.db.open) this.conn.db.close();
    this.conn = undefined;
  }
}

/**
 * `sqliteDriver({ filename })` opens (and on close, closes) a file or ':memory:';
 * `sqliteDriver({ database })` uses a host's open better-sqlite3 Database and leaves it open on close.
 */
export function sqliteDriver(options: SqliteDriverOptions): StorageDriver {
  if (typeof options !== 'object' || options === null) {
    throw new TypeError(
      `sqliteDriver takes an options object: sqliteDriver({ filename: ${JSON.stringify(options)} }) or sqliteDriver({ database })`,
    );
  }
  return new SqliteDriver(options);
}
