/**
 * Connecting through node-postgres (`pg`, an optional peer loaded on first open), and the Connection every
 * read and write starts from: the pool, one statement per round trip (named prepared statements) and the
 * store's layout (layout.ts, made by schema.ts).
 */
import { createHash } from 'node:crypto';
import type { StoreSchema } from '../../src/store/driver.js';
import { commitSql, sideGroups } from './functions.js';
import type { CollectionPlan, IndexPlan } from './layout.js';
import type { PgClient, PgError, PgModule, PgPool, PgQueryConfig } from './native.js';
import { current, type ReadReplicaOptions, type Replicas } from './replicas.js';
import { ident } from './text.js';
import { ParsedDocs } from '../shared/parsed-docs.js';

interface Common extends ReadReplicaOptions {
  /** The schema holding the store's tables, created when missing. Default `blogcore`. */
  schema?: string;
  /**
   * Named prepared statements (parsed once per connection). Default true. Set false behind a pooler in
   * transaction mode that cannot keep them (PgBouncer before 1.21, or without `max_prepared_statements`); a
   * driver that meets such a pooler anyway (a statement it prepared is missing, or already there) stops naming
   * them and runs the statement again.
   */
  preparedStatements?: boolean;
  /**
   * Where the driver LISTENs for the commits of other app servers: a `postgres://` URL of a direct connection
   * (PostgreSQL itself, or a pooler in session mode) for when `connectionString` goes through a pooler in
   * transaction mode, which cannot carry LISTEN. Default: a connection of the driver's own pool. `false`: no
   * LISTEN; the change log is polled every 250 ms instead (events from other servers arrive that much later).
   */
  listen?: string | false;
  /**
   * Share `service.on` events with the other app servers on this store (LISTEN/NOTIFY and the change log).
   * Default true. A single server may turn it off: each write then skips storing its events for others.
   */
  shareEvents?: boolean;
  /** Where the progress of a long migration goes (one line per batch). Default `console.info`. */
  log?: (line: string) => void;
  /**
   * Streaming replicas of the database (`postgres://` URLs, or host-owned Pools used as given): reads go to a
   * replica far enough along, writes to the primary; each scoped service reads its own writes (docs/postgres.md).
   * The driver opens a Pool of `max` connections on each URL and ends it on `close()`.
   */
  replicas?: ReadonlyArray<string | PgPool>;
}

export interface PostgresConnectionOptions extends Common {
  /** A `postgres://` URL. The driver opens a Pool on it and ends that Pool on `close()`. */
  connectionString: string;
  /** Connections in the driver's Pool. Default 10. */
  max?: number;
}

export interface PostgresPoolOptions extends Common {
  /** A `pg.Pool` owned by the host: used as given, never ended by the driver. */
  pool: PgPool;
}

export type PostgresDriverOptions = PostgresConnectionOptions | PostgresPoolOptions;

/** Opens a Pool on the connection string. */
export async function openPool(options: { connectionString: string; max?: number | undefined }): Promise<PgPool> {
  const mod = (await import('pg').catch((error: unknown) => {
    throw new Error(`blogcore/postgres needs pg (npm install pg): ${String(error)}`);
  })) as unknown as { default?: PgModule } & PgModule;
  const pg = mod.default ?? mod;
  // Pipelined: the reads of one turn go out on one connection without waiting for each other (Connection.shared).
  const pool = new pg.Pool({ connectionString: options.connectionString, max: options.max ?? 10, pipeline: true });
  // An idle connection the server dropped must not crash the host; the next query opens a fresh one.
  pool.on('error', () => {});
  return pool;
}

/**
 * A named statement the connection does not have (26000) or already has (42P05): a pooler in transaction mode
 * handed this client another server connection. Nothing ran.
 */
const lostStatement = (error: unknown) => {
  const code = (error as PgError)?.code;
  return code === '26000' || code === '42P05';
};

/** SQLSTATEs of a connection that went away: the call failed, and whether it ran is unknown. */
const CONNECTION_LOST = /^(08|57P0)/;

export function lostConnection(error: unknown): boolean {
  const e = error as PgError;
  return (
    !!(e?.code && CONNECTION_LOST.test(e.code)) ||
    /Connection terminated|ECONNRESET|ECONNREFUSED|EPIPE/.test(String(e?.message))
  );
}

/**
 * A pooled connection for `use`, given back after it. pg's `pool.query` closes the connection on any error, so
 * a refused commit (a unique key taken, which the core retries at once) paid for a new connection and its
 * prepared statements, some 20 ms; here only a lost connection is dropped (`held.lost`), a refused statement
 * leaves it idle and usable.
 */
async function checkedOut<T>(
  pool: PgPool,
  use: (client: PgClient, held: { lost: Error | undefined }) => Promise<T>,
): Promise<T> {
  const client = await pool.connect();
  // A checked-out client's connection that dies (a killed backend, a server going down) emits 'error': the
  // query at hand fails with it, and the client is dropped (as pool.query does).
  const held: { lost: Error | undefined } = { lost: undefined };
  const onError = (error: Error) => void (held.lost ??= error);
  client.on('error', onError);
  try {
    return await use(client, held);
  } finally {
    client.removeListener('error', onError);
    client.release(held.lost);
  }
}

/** One statement on a pooled connection (`checkedOut`); `seen` is shown the connection first. */
function pooled(pool: PgPool, config: PgQueryConfig, seen?: (client: PgClient) => void): Promise<unknown[][]> {
  return checkedOut(pool, async (client, held) => {
    seen?.(client);
    try {
      return (await client.query<unknown[]>(config)).rows;
    } catch (error) {
      if (lostConnection(error)) held.lost ??= error as Error;
      throw error;
    }
  });
}

/** The connection the reads of one turn share (Connection.shared), and how many of them are not answered yet. */
interface Turn {
  client: Promise<PgClient>;
  open: number;
  ended: boolean;
  lost: Error | undefined;
  release?: () => void;
}

/** A lost connection, said plainly: the statement may or may not have run. */
export function clearError(error: unknown): unknown {
  const e = error as PgError;
  if (!lostConnection(error)) return error;
  return new Error(
    `blogcore/postgres: the database connection was lost (${e.message}); the call may not have completed, retry it`,
    {
      cause: error,
    },
  );
}

/** Walks whose last answer is remembered (their statement and values: some 1 KB each). */
const LAST_FOUND = 1024;

/** A pool on one store's schema, and what the driver learned of the store: its layout (layout.ts). */
export class Connection {
  /** The schema name as a quoted identifier, for statements. */
  readonly s: string;
  /** The declared collections' plans, in declaration order. */
  plans: CollectionPlan[] = [];
  /** Documents parsed from their text, by table and id (drivers/shared/parsed-docs.ts). */
  readonly parsed = new ParsedDocs<string>();
  /** The ids each walk found when it last ran, by statement and values (reads.ts `readDocs`), at most LAST_FOUND. */
  readonly lastFound = new Map<string, readonly string[]>();
  /** The declared collections by name. */
  byName = new Map<string, CollectionPlan>();
  /** Every collection ever declared, by number (the change log names them by number). */
  namesByNo = new Map<number, string>();
  /** The statement calling commit_ops as the layout has it. */
  commitSql = '';
  /** The commit statements made for commit shapes (statement.ts), by shape, for the layout at hand. */
  #shapes = new Map<string, string>();
  #constraints = new Map<string, { collection: string; index: string }>();
  /**
   * Statement names come from their text (which names the schema): every driver on a Pool, on one store or
   * several, at once or one after another, gives a statement the same name, so a connection that already has it
   * prepared runs it as it is, and never meets a name it holds for another statement.
   */
  readonly #names = new Map<string, string>();
  readonly #statements = new Map<(s: string) => unknown, unknown>();
  /** Where reads go when the store has replicas (replicas.ts). */
  replicas: Replicas | undefined;
  /** The connection the reads of this turn share (`shared`), and whether the pool's connections pipeline. */
  #turn: Turn | undefined;
  #pipelined: boolean | undefined;

  constructor(
    readonly pool: PgPool,
    readonly schema: string,
    private prepared: boolean,
  ) {
    this.s = ident(schema);
  }

  /** Notes the ids a walk found (`read`: its statement and values), for its next run. */
  remember(read: string, ids: readonly string[]): void {
    if (this.lastFound.size >= LAST_FOUND && !this.lastFound.has(read)) this.lastFound.clear();
    this.lastFound.set(read, ids);
  }

  /** What schema.ts `declare` made of the declaration. */
  setPlans(plans: CollectionPlan[], namesByNo: Map<number, string>, _schema: StoreSchema): void {
    this.plans = plans;
    this.byName = new Map(plans.map((p) => [p.name, p]));
    this.namesByNo = namesByNo;
    this.#constraints = new Map(
      plans.flatMap((p) => [...p.indexes.values()].map((i) => [i.pg, { collection: p.name, index: i.name }] as const)),
    );
    this.#shapes.clear();
    const groups = sideGroups(plans);
    this.commitSql = commitSql(
      this.s,
      groups.length,
      groups.map((g) => g.bytes),
    );
  }

  /** The commit statement of a shape, made once (a bounded number of shapes kept). */
  shaped(shape: string, make: () => string): string {
    let text = this.#shapes.get(shape);
    if (text === undefined) {
      if (this.#shapes.size >= 256) this.#shapes.clear();
      this.#shapes.set(shape, (text = make()));
    }
    return text;
  }

  collection(name: string): CollectionPlan {
    const c = this.byName.get(name);
    if (!c) throw new Error(`unknown collection ${name}`);
    return c;
  }

  index(c: CollectionPlan, name: string): IndexPlan {
    const i = c.indexes.get(name);
    if (!i) throw new Error(`unknown index ${name}`);
    return i;
  }

  /** The index a unique constraint (or unique index) stands for. */
  byConstraint(name: string): { collection: string; index: string } | undefined {
    return this.#constraints.get(name);
  }

  /** The statements `build` writes for this store's schema, built once per connection. */
  sql<T>(build: (s: string) => T): T {
    let built = this.#statements.get(build) as T | undefined;
    if (built === undefined) this.#statements.set(build, (built = build(this.s)));
    return built;
  }

  /**
   * A read on the connection the reads of this turn share. A call's look at the log and its read go out together
   * (core/record-cache.ts, resources/post-now.ts): on one pipelined connection they wake one backend, where two
   * connections side by side wake two, and on this kind of machine the socket writes and wake-ups are the larger
   * part of a read's CPU (docs/design.md §15). The turn ends on the tick queue, as SQLite's look does
   * (drivers/sqlite/changes.ts); its connection goes back once its reads are answered. Only prepared statements
   * (never behind a transaction-mode pooler) and a pool that pipelines (the driver's own: a host's reads as before).
   */
  private async shared(config: PgQueryConfig): Promise<unknown[][]> {
    let t = this.#turn;
    if (!t) {
      const turn: Turn = (t = this.#turn = { client: this.pool.connect(), open: 0, ended: false, lost: undefined });
      const onError = (error: Error) => void (turn.lost ??= error);
      turn.client.then((c) => c.on('error', onError)).catch(() => {});
      turn.release = () =>
        void turn.client.then(
          (c) => {
            c.removeListener('error', onError);
            c.release(turn.lost);
          },
          () => {},
        );
      process.nextTick(() => {
        turn.ended = true;
        if (this.#turn === turn) this.#turn = undefined;
        if (turn.open === 0) turn.release!();
      });
    }
    t.open++;
    try {
      const client = await t.client;
      this.met(client);
      return (await client.query<unknown[]>(config)).rows;
    } catch (error) {
      if (lostConnection(error)) t.lost ??= error as Error;
      throw error;
    } finally {
      if (--t.open === 0 && t.ended) t.release!();
    }
  }

  /** A statement's query config: rows as arrays, named (prepared) unless the driver stopped naming them. */
  private config(text: string, values: readonly unknown[]): PgQueryConfig {
    const config: PgQueryConfig = { text, values, rowMode: 'array' };
    if (this.prepared) {
      let name = this.#names.get(text);
      if (!name)
        this.#names.set(text, (name = `bc${createHash('sha256').update(text).digest('base64url').slice(0, 24)}`));
      config.name = name;
    }
    return config;
  }

  /** Whether the pool's connections pipeline (known after the first statement; group-commit.ts waits for it). */
  get pipelines(): boolean {
    return this.#pipelined === true;
  }

  /** Notes whether the pool's connections pipeline, from one of them (every statement's, and the migration's). */
  readonly met = (client: PgClient): void => void (this.#pipelined ??= client.pipeline === true);

  /**
   * Statements in one transaction on one pipelined connection: BEGIN, each statement, COMMIT, written together
   * (group-commit.ts). Each statement's rows or error; `committed`: COMMIT answered COMMIT (else the transaction
   * rolled back, or whether it committed is unknown: then `lost` says why).
   */
  async transaction(statements: ReadonlyArray<{ text: string; values: readonly unknown[] }>): Promise<{
    results: Array<PromiseSettledResult<unknown[][] | undefined>>;
    committed: boolean;
    lost: Error | undefined;
  }> {
    return checkedOut(this.pool, async (client, held) => {
      const begin = client.query('BEGIN').then(() => []);
      const sent = statements.map((s) => client.query<unknown[]>(this.config(s.text, s.values)).then((r) => r.rows));
      const end = client.query('COMMIT').then((r) => (r.command === 'COMMIT' ? [] : undefined));
      const results = await Promise.allSettled([begin, ...sent, end]);
      for (const r of results) if (r.status === 'rejected' && lostConnection(r.reason)) held.lost ??= r.reason as Error;
      const last = results.pop()!;
      const committed = last.status === 'fulfilled' && last.value !== undefined;
      return { results: results.slice(1), committed, lost: held.lost };
    });
  }

  /**
   * One statement on any pooled connection, rows as arrays. A read whose connection was lost (a restarted
   * server, a killed backend) is tried once more on a fresh one; a commit is not (it may have happened). With
   * replicas a read goes where the driver call's session may read (replicas.ts), and one whose replica went
   * away is answered by the primary.
   */
  async run(text: string, values: readonly unknown[], read = true): Promise<unknown[][]> {
    const config = this.config(text, values);
    const pool = read && this.replicas ? await this.replicas.pick(current.getStore()?.position) : this.pool;
    try {
      return await (read && config.name && pool === this.pool && this.#pipelined !== false
        ? this.shared(config)
        : pooled(pool, config, pool === this.pool ? this.met : undefined));
    } catch (error) {
      if (config.name && lostStatement(error)) {
        // Behind a transaction-mode pooler: statements go unnamed from now on (one parse per statement).
        this.prepared = false;
        return this.run(text, values, read);
      }
      if (read && lostConnection(error)) {
        try {
          return await pooled(pool !== this.pool && this.replicas!.failed(pool) ? this.pool : pool, config);
        } catch (again) {
          throw clearError(again);
        }
      }
      throw clearError(error);
    }
  }
}
