/**
 * The PostgreSQL storage driver, on node-postgres (`pg`, an optional peer dependency): several app servers
 * sharing one database. It stores what the core gives it (documents, index keys, search tokens) and decides
 * nothing; see src/store/driver.ts. Where each part lives: connect.ts the pool and one statement per round
 * trip, layout.ts the tables a declaration makes, schema.ts the catalog, layouts and their changes, migrate.ts the
 * copy from layout 4 (legacy.ts), reads.ts reads by id and key range, search.ts token search, commit.ts writes,
 * changes.ts the change log, blobs.ts media bytes, functions.ts the SQL functions of commits and of the log's
 * end, feed.ts the change signal across app servers, replicas.ts where reads go when there are read replicas,
 * text.ts strings as PostgreSQL text, native.ts the slice of `pg` it uses; byte keys (indexes declared without
 * fields) come from drivers/shared/byte-keys.ts.
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
  ReadSession,
  SearchQuery,
  StorageDriver,
  StoredDoc,
  StoreSchema,
  WriteOp,
} from '../../src/store/driver.js';
import { changesSince, logBounds, pruneChanges, streamChanges } from './changes.js';
import { groupCommit } from './group-commit.js';
import { clearError, Connection, openPool, type PostgresDriverOptions } from './connect.js';
import { Feed, Notifier } from './feed.js';
import type { PgPool } from './native.js';
import { current, formatLsn, parseLsn, Replicas, Session } from './replicas.js';
import { count, get, getByIndex, getMany, keys, list } from './reads.js';
import { channelOf, LAYOUT, migrate } from './schema.js';
import { search } from './search.js';
import { withColumns } from './columns.js';
import { SLOTS } from './layout.js';
import { postgresBlobs } from './blobs.js';
import { ident } from './text.js';

export type { PostgresConnectionOptions, PostgresDriverOptions, PostgresPoolOptions } from './connect.js';

export type { PgPool } from './native.js';
export type { ReadReplicaOptions } from './replicas.js';

/** The PostgreSQL driver: a StorageDriver, and where its reads went (with replicas). */
export interface PostgresDriver extends StorageDriver {
  /** Reads answered by the primary and by replicas since the driver opened (both 0 without replicas). */
  readsServed(): { primary: number; replicas: number };
}

/** The storage-layout version this build writes (rows of `<schema>.migrations`). */
export const POSTGRES_STORAGE_VERSION = LAYOUT;

class Driver implements PostgresDriver {
  /** `commit` honours `CommitOptions.unchanged`. */
  readonly checksUnchanged = true;
  readonly dropsTransient = true;
  private conn: Connection | undefined;
  private readonly owned: boolean;
  private closed = false;
  private readonly schema: string;
  private feed: Feed | undefined;
  readonly blobs: BlobStore;
  private notifier: Notifier | undefined;
  /** When to next try truncating a transient collection's due slot (ms, this process's clock). */
  private nextDrop = 0;
  /** Replica pools this driver opened (and ends on close). */
  private ownedReplicas: PgPool[] = [];
  /** The pool of the direct LISTEN connection (`listen`), once opened. */
  private listenPool: Promise<PgPool> | undefined;
  /** This driver's name on the store's channel: the payload of its notifications. */
  private readonly instance = `n${Math.random().toString(36).slice(2, 12)}`;

  constructor(private readonly options: PostgresDriverOptions) {
    this.owned = !('pool' in options);
    this.schema = options.schema ?? 'blogcore';
    if (!this.schema || this.schema.length > 50) throw new Error('postgres driver: schema must be 1 to 50 characters');
    // Media bytes go to and come from the primary: a replica may not have a picture's bytes yet, and the blob
    // store has no read session to wait for them.
    this.blobs = postgresBlobs({
      s: ident(this.schema),
      run: (text, values) => this.connection().run(text, values, false),
    });
    if (options.shareEvents !== false) {
      this.watch = (listener) => this.follow(listener);
      this.tell = (message) => this.notifier?.tell(message);
      this.hear = (listener) => this.feedOf().hear(listener);
    }
    if (options.replicas?.length) this.session = () => this.sessionOf(new Session());
  }

  /** The open connection, or why there is none. */
  private connection(): Connection {
    if (this.closed) throw new Error('postgres driver is closed');
    if (!this.conn || this.conn.plans.length === 0)
      throw new Error('postgres driver is not open: call open(schema) first');
    return this.conn;
  }

  async open(given: StoreSchema): Promise<void> {
    if (this.closed) throw new Error('postgres driver is closed');
    // The store's own collections as tables with named columns (columns.ts).
    const schema = withColumns(given);
    const pool = this.conn?.pool ?? ('pool' in this.options ? this.options.pool : await openPool(this.options));
    this.conn ??= new Connection(pool, this.schema, this.options.preparedStatements !== false);
    try {
      await migrate(this.conn, schema, this.options.log ?? ((line) => console.info(line)));
    } catch (error) {
      if (this.owned) {
        await pool.end().catch(() => undefined);
        this.conn = undefined;
      }
      throw clearError(error);
    }
    // Every server NOTIFYs after its commits while another listens, with or without shared events of its own;
    // whether one does is known before the first commit (a single server sends none).
    if (!this.notifier) {
      this.notifier = new Notifier(pool, channelOf(this.schema), this.instance);
      await this.notifier.asked();
    }
    if (this.options.replicas?.length && !this.conn.replicas) {
      const max = 'max' in this.options ? this.options.max : undefined;
      const pools: PgPool[] = [];
      for (const r of this.options.replicas) {
        if (typeof r !== 'string') pools.push(r);
        else this.ownedReplicas.push(pools[pools.push(await openPool({ connectionString: r, max })) - 1]!);
      }
      this.conn.replicas = new Replicas(pool, pools, this.options);
      await this.conn.replicas.start();
    }
  }

  /** A read session: its driver reads only where its position is visible, its commits move it (replicas.ts). */
  readonly session?: () => ReadSession;

  private sessionOf(s: Session): ReadSession {
    const within =
      <A extends unknown[], R>(fn: (...args: A) => Promise<R>) =>
      (...args: A) =>
        current.run(s, () => fn.apply(this, args));
    const driver: StorageDriver = {
      open: (schema) => this.open(schema),
      get: within(this.get),
      getMany: within(this.getMany),
      getByIndex: within(this.getByIndex),
      list: within(this.list),
      count: within(this.count),
      keys: within(this.keys),
      search: within(this.search),
      commit: within(this.commit),
      changesSince: within(this.changesSince),
      streamChanges: within(this.streamChanges),
      logBounds: within(this.logBounds),
      checksUnchanged: true,
      dropsTransient: true,
      pruneChanges: within(this.pruneChanges),
      blobs: this.blobs,
      ...(this.watch ? { watch: this.watch } : {}),
      ...(this.tell && this.hear ? { tell: this.tell, hear: this.hear } : {}),
      session: () => this.sessionOf(new Session()),
      close: () => this.close(),
    };
    return {
      driver,
      token: () => (s.position === undefined ? undefined : formatLsn(s.position)),
      see: (token) => {
        const lsn = parseLsn(token);
        if (lsn !== undefined) s.saw(lsn);
      },
      child: () => this.sessionOf(new Session(s)),
    };
  }

  readsServed(): { primary: number; replicas: number } {
    const served = this.conn?.replicas?.served;
    return { primary: served?.primary ?? 0, replicas: served?.replica ?? 0 };
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
    const c = this.connection();
    const result = await groupCommit(c, ops, options);
    this.notifier?.committed();
    this.dropDue(c, ops);
    // With replicas: the primary's position now is at or past this commit; the session reads from there on.
    const session = current.getStore();
    if (c.replicas && session) session.wrote(await c.replicas.position());
    return result;
  }

  /**
   * After a commit that put transient records (the events other app servers read): the slot due to go is
   * truncated (functions.ts `drop_transient`), off the commit's path. Tried again a second later while a reader
   * holds it, else at the next slab.
   */
  private dropDue(c: Connection, ops: readonly WriteOp[]): void {
    const now = Date.now();
    if (now < this.nextDrop) return;
    const due = c.plans.filter((p) => p.slab !== undefined && ops.some((op) => op.collection === p.name));
    if (!due.length) return;
    this.nextDrop = now + 1_000;
    for (const p of due)
      c.run(`SELECT ${c.s}.drop_transient($1, $2, $3)`, [p.table, p.slab, SLOTS], false).then(
        (rows) => {
          if (Number(rows[0]?.[0] ?? -1) >= 0)
            this.nextDrop = Math.max(this.nextDrop, (Math.floor(now / p.slab!) + 1) * p.slab!);
        },
        () => {},
      );
  }

  async changesSince(seq: number, limit?: number): Promise<Change[]> {
    return changesSince(this.connection(), seq, limit);
  }

  async streamChanges(stream: string, after: LogPosition, limit: number): Promise<Change[]> {
    return streamChanges(this.connection(), stream, after, limit);
  }

  /**
   * The log's bounds, read every time: a NOTIFY goes out after its commit, so a call that begins after another
   * app server's write returned may not have heard of it yet, and bounds kept until a notification would answer
   * the old log (a read after that write would miss it: test/service/blog-admin.test.ts "two pools").
   */
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
  /** Passes a message to every app server on this store (NOTIFY with a payload): stored nowhere. */
  readonly tell?: (message: string) => void;
  readonly hear?: (listener: (message: string) => void) => () => void;

  private follow(listener: () => void): () => void {
    return this.feedOf().add(listener);
  }

  private feedOf(): Feed {
    const { pool } = this.connection();
    // The LISTEN connection: on `listen`'s URL, else beside the driver's own pool (not one of its connections),
    // else (a host's Pool) one of the host's.
    const listen =
      this.options.listen ?? ('connectionString' in this.options ? this.options.connectionString : undefined);
    const source =
      listen === false
        ? undefined
        : listen !== undefined
          ? () => (this.listenPool ??= openPool({ connectionString: listen, max: 1 }))
          : async () => pool;
    return (this.feed ??= new Feed(source, channelOf(this.schema), this.instance));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.feed?.stop();
    this.feed = undefined;
    if (this.listenPool) await (await this.listenPool.catch(() => undefined))?.end().catch(() => undefined);
    await this.notifier?.close();
    this.conn?.replicas?.stop();
    for (const pool of this.ownedReplicas.splice(0)) await pool.end().catch(() => undefined);
    if (this.owned && this.conn) await this.conn.pool.end();
    this.conn = undefined;
  }
}

/**
 * `postgresDriver({ connectionString, schema? })` opens (and on close, ends) a Pool;
 * `postgresDriver({ pool, schema? })` uses a host's Pool and never ends it;
 * `replicas: [connectionString | pool, …]` sends reads to streaming replicas (docs/postgres.md).
 */
export function postgresDriver(options: PostgresDriverOptions): PostgresDriver {
  return new Driver(options);
}
