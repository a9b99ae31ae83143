/**
 * Opening a SQLite file through better-sqlite3 (an optional peer, loaded on first open), and the open
 * Connection every read and write starts from: prepared statements, the collection catalog
 * (drivers/shared/catalog.ts, filled by schema.ts) and the search scopes known so far.
 */
import { closeSync, openSync, readSync } from 'node:fs';
import type { CommitOptions, CommitResult, LogBounds, StoredDoc, WriteOp } from '../../src/store/driver.js';
import { Catalog, type CollectionInfo as Collection, type IndexInfo as Index } from '../shared/catalog.js';
import type { SqliteDatabase, SqliteDatabaseConstructor, SqliteStatement, SqliteTransaction } from './native.js';
import { Plans } from './plans.js';
import { ParsedDocs } from '../shared/parsed-docs.js';

/**
 * A bound LIMIT, written `LIMIT +?`: SQLite (3.53, as better-sqlite3 12 bundles it) plans a bare `LIMIT ?` for the
 * value bound and marks the statement to be prepared again whenever that parameter is bound again, which
 * better-sqlite3 does on every run. Each read then parsed and planned its statement anew (the dense search walk at
 * 100k posts: 90 against 68 µs a run, warm), with the parser's and planner's code cold after other work. The unary
 * plus hides the parameter from that check; the plan is the same.
 */
export const LIMIT = 'LIMIT +?';

export interface SqliteFileOptions {
  /** A file path, or ':memory:'. The driver opens the file and closes it on `close()`. */
  filename: string;
  /** How long a write waits for another connection's lock, in ms (PRAGMA busy_timeout). Default 5000. */
  busyTimeoutMs?: number;
  /**
   * SQLite's page cache for this connection, in KiB (PRAGMA cache_size). Default 65536 (64 MiB), taken as
   * pages are read: list pages and searches touch rows spread over the file, and the 2 MiB SQLite default
   * turns each of those into a read from the OS.
   */
  cacheSizeKb?: number;
  /**
   * The file is this process's alone (PRAGMA locking_mode=EXCLUSIVE): the connection holds its lock from the
   * first read to `close()`, so any other connection, in this process or another, gets SQLITE_BUSY. Reads skip
   * their shared-memory locks and the look for other connections' commits. Default false: several processes
   * may share the file.
   */
  exclusive?: boolean;
}

export interface SqliteDatabaseOptions {
  /** An open better-sqlite3 Database owned by the host: used as configured, never closed by the driver. */
  database: SqliteDatabase;
}

export type SqliteDriverOptions = SqliteFileOptions | SqliteDatabaseOptions;

/** Opens the file: WAL, so readers never wait for the writer and a commit costs no fsync. */
export async function openFile(options: SqliteFileOptions): Promise<SqliteDatabase> {
  const mod = (await import('better-sqlite3').catch((error: unknown) => {
    throw loadError(error);
  })) as unknown as { default: SqliteDatabaseConstructor };
  let db: SqliteDatabase;
  try {
    db = new mod.default(options.filename);
  } catch (error) {
    throw NATIVE_LOAD.test(String(error)) ? loadError(error) : error;
  }
  // Before WAL is entered: an exclusive connection keeps WAL's index in its own memory instead of a shared file.
  if (options.exclusive) db.pragma('locking_mode = EXCLUSIVE');
  // synchronous=NORMAL: every write is one transaction either way, so a killed process leaves whole commits only.
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  db.pragma(`busy_timeout = ${Math.max(0, Math.floor(options.busyTimeoutMs ?? 5000))}`);
  db.pragma(`cache_size = ${-Math.max(64, Math.floor(options.cacheSizeKb ?? 65536))}`);
  return db;
}

/** better-sqlite3's native addon could not be found or loaded (typically: bundled into a server build). */
const NATIVE_LOAD = /bindings file|better_sqlite3\.node|NODE_MODULE_VERSION|did not self-register|ERR_DLOPEN_FAILED/;

function loadError(error: unknown): Error {
  const missing =
    (error as { code?: string }).code === 'ERR_MODULE_NOT_FOUND' ||
    /Cannot find (module|package) 'better-sqlite3'/.test(String(error));
  return new Error(
    missing
      ? `blogcore/sqlite needs better-sqlite3: npm install better-sqlite3 (${String(error)})`
      : 'blogcore/sqlite could not load better-sqlite3 and its native addon. If you bundle your server, keep better-sqlite3 out of the bundle: ' +
          "esbuild --external:better-sqlite3 (or external: ['better-sqlite3']), webpack externals: { 'better-sqlite3': 'commonjs better-sqlite3' }, " +
          `Vite ssr.external: ['better-sqlite3'] — and install it beside the bundle. (${String(error)})`,
    { cause: error },
  );
}

export interface IndexInfo extends Index {
  /** JSON path of this index's keys inside doc_keys.keys. */
  path: string;
}

export type CollectionInfo = Collection<IndexInfo>;

/**
 * Commits and prunes through every connection of this process: a turn that looked for other connections' commits
 * looks again after one, so two services on one file in one process see each other's writes at once.
 */
export const PROCESS_WRITES = { n: 0 };

/** The open `-shm` file, its headers as read before the last `data_version` and that answer. */
interface WalIndex {
  fd: number;
  seen: Buffer;
  now: Buffer;
  version: number;
}

/** An open database and what the driver learned of it. */
export class Connection extends Catalog<IndexInfo> {
  /** Search scope numbers committed so far (search.ts `scopeNo`). */
  readonly scopes = new Map<string, number>();
  /** How common searched tokens were found (plans.ts). */
  readonly plans = new Plans();
  /** Documents parsed from the text they are stored as, kept while it stays the same (reads.ts). */
  readonly parsed = new ParsedDocs();
  readTx: SqliteTransaction<[CollectionInfo, readonly string[]], Array<StoredDoc | undefined>> | undefined;
  commitTx:
    | SqliteTransaction<[readonly WriteOp[], CollectionInfo[], number, CommitOptions['unchanged']], CommitResult>
    | undefined;
  /** True while a commit runs inside a transaction the host opened on its own Database. */
  hostTransaction = false;
  /** Commits and prunes through this connection (changes.ts `logBounds` answers again only after one). */
  writes = 0;
  /** The log's bounds as last read, and the state they were read in (changes.ts `logBounds`). */
  bounds: { version: number; writes: number; value: LogBounds } | undefined;
  /**
   * `PROCESS_WRITES.n` when this event-loop turn last looked for other connections' commits (changes.ts
   * `logBounds`); undefined once the turn is over, or when the file is this connection's alone (`exclusive`).
   */
  lookedThisTurn: number | undefined;
  /** Ends `lookedThisTurn` (one function for the connection's life: a busy server looks every turn). */
  readonly turnOver = (): void => void (this.lookedThisTurn = undefined);
  readonly #statements = new Map<string, SqliteStatement>();

  /** No other connection can see the file (in memory, or locking_mode=EXCLUSIVE): no commits of others to look for. */
  readonly exclusive: boolean;
  #index: WalIndex | undefined;

  /** `walIndex`: the `-shm` file of a file the driver opened in WAL mode itself (see `dataVersion`). */
  constructor(
    readonly db: SqliteDatabase,
    private walIndex?: string,
  ) {
    super();
    this.exclusive = db.memory || String(db.pragma('locking_mode', { simple: true })).toLowerCase() === 'exclusive';
  }

  /**
   * PRAGMA data_version (it moves when another connection commits), asked only when the WAL index's two headers
   * (the first 96 bytes of `-shm`, which every commit rewrites) changed since it was last asked: one read of 96
   * bytes instead of a read transaction with its file locks. The headers are read before the pragma, so a commit
   * landing between the two is asked about again next time. Only for files the driver opened in WAL mode: while
   * this connection is open no other can leave WAL mode, so the `-shm` file stays the one in use.
   */
  dataVersion(): number {
    const index = this.#index ?? this.openIndex();
    if (index) {
      if (readSync(index.fd, index.now, 0, 96, 0) === 96 && index.now.equals(index.seen)) return index.version;
      index.now.copy(index.seen);
    }
    const version = this.stmt('PRAGMA data_version').pluck().get() as number;
    if (index) index.version = version;
    return version;
  }

  /** Opened at the first look, once WAL mode has made the file; a file that cannot be opened leaves the pragma alone. */
  private openIndex(): WalIndex | undefined {
    const path = this.walIndex;
    this.walIndex = undefined;
    if (!path) return undefined;
    try {
      return (this.#index = { fd: openSync(path, 'r'), seen: Buffer.alloc(96), now: Buffer.alloc(96), version: 0 });
    } catch {
      return undefined;
    }
  }

  /** Counts a commit or prune through this connection (for this connection's and this process's `logBounds`). */
  wrote(): void {
    this.writes++;
    PROCESS_WRITES.n++;
  }

  /** Prepared statements, kept for the life of the connection. */
  stmt(sql: string): SqliteStatement {
    let s = this.#statements.get(sql);
    if (!s) {
      s = this.db.prepare(sql);
      this.#statements.set(sql, s);
    }
    return s;
  }

  /** Forgets the prepared statements (they belong to the database going away). */
  forget(): void {
    this.#statements.clear();
    this.scopes.clear();
    this.plans.clear();
    this.parsed.clear();
    this.commitTx = this.readTx = undefined;
    this.bounds = undefined;
    if (this.#index) closeSync(this.#index.fd);
    this.#index = undefined;
  }
}
