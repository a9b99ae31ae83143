/**
 * The slice of better-sqlite3 (v11+) this driver uses. Typed here so `blogcore/sqlite` neither needs
 * `@types/better-sqlite3` nor leaks it to users; a host's own `Database` object fits this shape.
 */
export interface SqliteRunResult {
  changes: number;
  lastInsertRowid: number | bigint;
}

export interface SqliteStatement {
  run(...params: unknown[]): SqliteRunResult;
  get(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
  /** Rows as arrays instead of objects (cheaper to build). */
  raw(toggle?: boolean): this;
  /** Only the first column of each row. */
  pluck(toggle?: boolean): this;
}

export interface SqliteTransaction<A extends unknown[], R> {
  (...args: A): R;
  immediate(...args: A): R;
  deferred(...args: A): R;
}

export interface SqliteDatabase {
  readonly open: boolean;
  readonly memory: boolean;
  readonly inTransaction: boolean;
  prepare(sql: string): SqliteStatement;
  exec(sql: string): unknown;
  pragma(sql: string, options?: { simple?: boolean }): unknown;
  transaction<A extends unknown[], R>(fn: (...args: A) => R): SqliteTransaction<A, R>;
  close(): unknown;
}

export type SqliteDatabaseConstructor = new (filename: string, options?: { timeout?: number }) => SqliteDatabase;
