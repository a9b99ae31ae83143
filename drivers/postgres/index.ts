/**
 * The PostgreSQL storage driver, on node-postgres (`pg`, an optional peer dependency): several app servers
 * sharing one database. It stores what the core gives it (documents, index keys, search tokens) and decides
 * nothing; see src/store/driver.ts. Where each part lives: connect.ts the pool and one statement per round
 * trip, schema.ts the layout, migrations and `commit_ops`, reads.ts reads by id and key range, search.ts
 * token search, commit.ts writes, changes.ts the change log, blobs.ts media bytes, feed.ts the change signal across app servers,
 * text.ts strings as PostgreSQL text, native.ts the slice of `pg` it uses; key bytes come from
 * drivers/shared/byte-keys.ts.
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
import { clearError, Connection, openPool, type PostgresDriverOptions } from './connect.js';
import { Feed } from './feed.js';
import { count, get, getByIndex, getMany, keys, list } from './reads.js';
import { channelOf, migrate, MIGRATIONS } from './schema.js';
import { search } from './search.js';
import { postgresBlobs } from './blobs.js';
import { ident } from './connect.js';

export type { PostgresConnectionOptions, PostgresDriverOptions, PostgresPoolOptions } from './connect.js';
export type { PgPool } from './native.js';

/** The storage-layout version this build writes (rows of `<schema>.migrations`). */
export const POSTGRES_STORAGE_VERSION = MIGRATIONS.length;

class PostgresDriver implements StorageDriver {
  private conn: Connection | undefined;
  private readonly owned: boolean;
  private closed = false;
  private readonly schema: string;
  private feed: Feed | undefined;
  readonly blobs: BlobStore;

  constructor(private readonly options: PostgresDriverOptions) {
    this.owned = !('pool' in options);
    this.schema = options.schema ?? 'blogcore';
    if (!this.schema || this.schema.length > 50) throw new Error('postgres driver: schema must be 1 to 50 characters');
    this.blobs = postgresBlobs({ s: ident(this.schema), run: (text, values, read) => this.connection().run(text, values, read) });
    if (options.shareEvents !== false) this.watch = (listener) => this.follow(listener);
  }

  /** The open connection, or why there is none. */
  private connection(): Connection {
    if (this.closed) throw new Error('postgres driver is closed');
    if (!this.conn || this.conn.byName.size === 0) throw new Error('postgres driver is not open: call open(schema) first');
    return this.conn;
  }

  async open(schema: StoreSchema): Promise<void> {
    if (this.closed) throw new Error('postgres driver is closed');
    const pool = this.conn?.pool ?? ('pool' in this.options ? this.options.pool : await openPool(this.options));
    this.conn ??= new Connection(pool, this.schema, this.options.preparedStatements !== false);
    try {
      await migrate(this.conn, schema);
    } catch (error) {
      if (this.owned) {
        await pool.end().catch(() => undefined);
        this.conn = undefined;
      }
      throw clearError(error);
    }
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
    return logBounds(this.connection());
  }

  async pruneChanges(q: PruneQuery): Promise<number> {
    return pruneChanges(this.connection(), q);
  }

  /**
   * Calls `listener` after commits of this store by any app server (LISTEN on the store's channel), and
   * now and then without a notification, so a missed one (a dropped connection) only delays it.
   * Absent with `shareEvents: false`.
   */
  readonly watch?: (listener: () => void) => () => void;

  private follow(listener: () => void): () => void {
    const { pool } = this.connection();
    this.feed ??= new Feed(pool, channelOf(this.schema));
    return this.feed.add(listener);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.feed?.stop();
    this.feed = undefined;
    if (this.owned && this.conn) await this.conn.pool.end();
    this.conn = undefined;
  }
}

/**
 * `postgresDriver({ connectionString, schema? })` opens (and on close, ends) a Pool;
 * `postgresDriver({ pool, schema? })` uses a host's Pool and never ends it.
 */
export function postgresDriver(options: PostgresDriverOptions): StorageDriver {
  return new PostgresDriver(options);
}
