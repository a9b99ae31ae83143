/** The slice of node-postgres (`pg`) the driver uses, so `pg` stays an optional peer dependency. */
export interface PgQueryConfig {
  /** A name makes it a prepared statement (parsed once per connection). */
  name?: string;
  text: string;
  values?: readonly unknown[];
  rowMode?: 'array';
}

export interface PgResult<R = unknown[]> {
  rows: R[];
  rowCount: number | null;
  /** The command tag: `COMMIT` or `ROLLBACK` for a COMMIT (a transaction a statement failed in rolls back). */
  command?: string;
}

export interface PgNotification {
  channel: string;
  payload?: string;
}

export interface PgClient {
  query<R = unknown[]>(config: PgQueryConfig): Promise<PgResult<R>>;
  query<R = unknown[]>(text: string, values?: readonly unknown[]): Promise<PgResult<R>>;
  release(error?: Error | boolean): void;
  /** True when the client sends a query without waiting for the one before (`new Pool({ pipeline })`, recent pg). */
  readonly pipeline?: boolean;
  on(event: 'notification', listener: (n: PgNotification) => void): unknown;
  on(event: 'error', listener: (e: Error) => void): unknown;
  on(event: 'end', listener: () => void): unknown;
  removeListener(event: 'error', listener: (e: Error) => void): unknown;
  removeListener(event: 'end', listener: () => void): unknown;
  removeAllListeners(event?: string): unknown;
}

/** A `pg.Pool` (or anything shaped like one). */
export interface PgPool {
  query<R = unknown[]>(config: PgQueryConfig): Promise<PgResult<R>>;
  connect(): Promise<PgClient>;
  end(): Promise<void>;
  on(event: 'error', listener: (e: Error) => void): unknown;
}

export interface PgModule {
  Pool: new (config: { connectionString: string; max?: number; pipeline?: boolean }) => PgPool;
}

/** The fields of a server error the driver reads (SQLSTATE, table, constraint, detail). */
export interface PgError extends Error {
  code?: string;
  table?: string;
  constraint?: string;
  detail?: string;
}
