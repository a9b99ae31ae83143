/** What PostgreSQL test files share: the server's URLs (see global-setup.ts) and a fresh schema per store. */
import pg from 'pg';
import { inject } from 'vitest';

export const pgUrl = (): string => inject('pgUrl');

/** The same server through PgBouncer in transaction mode. */
export const pgBouncerUrl = (): string => inject('pgBouncerUrl');

/** What a driver needs to reach the store through a route. */
export interface RouteOptions {
  connectionString: string;
  preparedStatements?: false;
  listen?: string | false;
}

/**
 * The two ways app servers reach PostgreSQL in these tests: directly, and behind PgBouncer in transaction mode
 * (no named prepared statements, LISTEN on a direct connection), as docs/postgres.md tells deployments.
 */
export const ROUTES: ReadonlyArray<readonly [name: string, options: () => RouteOptions]> = [
  ['direct', () => ({ connectionString: pgUrl() })],
  ['behind PgBouncer', () => ({ connectionString: pgBouncerUrl(), preparedStatements: false, listen: pgUrl() })],
];

let n = 0;
const run = `${process.pid.toString(36)}${Date.now().toString(36).slice(-4)}`;

/** A schema name no other test (file, worker or run) uses: each store starts empty and stays apart. */
export function freshSchema(label: string): string {
  const name = `t_${label}_${run}_${n++}`.toLowerCase().replace(/[^a-z0-9_]/g, '_');
  made.push(name);
  return name;
}
const made: string[] = [];

/** Drops every schema this file made, so a server given by BLOGCORE_TEST_PG_URL is left as it was. */
export async function dropOwnSchemas(): Promise<void> {
  const client = new pg.Client({ connectionString: pgUrl() });
  await client.connect();
  try {
    // A few schemas per statement: one commit (one fsync) each rather than one per schema, which on a busy
    // machine kept a suite of 500 tests' schemas past the hook's 60 s; few enough to stay within the lock table.
    const all = made.splice(0);
    for (let i = 0; i < all.length; i += 20) {
      await client.query(
        `DROP SCHEMA IF EXISTS ${all
          .slice(i, i + 20)
          .map((s) => `"${s}"`)
          .join(', ')} CASCADE`,
      );
    }
  } finally {
    await client.end();
  }
}

/** Drivers a test file opened, closed after each test, and their schemas dropped after the file. */
export function tracked<D extends { close(): Promise<void> }>(make: (schema: string) => D, label: string) {
  const open: D[] = [];
  return {
    make(): D {
      const schema = freshSchema(label);
      const d = make(schema);
      open.push(d);
      return d;
    },
    async closeAll(): Promise<void> {
      await Promise.all(open.splice(0).map((d) => d.close().catch(() => undefined)));
    },
    dropAll: dropOwnSchemas,
  };
}

/** Tables a used store keeps: its catalog (what the declaration made), not what was stored. */
const CATALOG = ['collections', 'indexes', 'meta', 'migrations'];

/**
 * Empties a used store in one round trip: every table but the catalog, the sequences of those tables (a blob's
 * id starts at 1 again) and the counters in `meta` (seqBase, pruned; the marks of truncated slots go). DELETE rather than TRUNCATE: these tables
 * hold a test's few rows, and TRUNCATE gives every table and index a new file, which costs more and makes every
 * connection plan its statements again.
 */
export const emptyStore = (schema: string): string => `DO $empty$
DECLARE r record;
BEGIN
  FOR r IN SELECT tablename FROM pg_tables WHERE schemaname = ${literal(schema)}
      AND tablename <> ALL (ARRAY[${CATALOG.map(literal).join(', ')}]) LOOP
    EXECUTE format('DELETE FROM %I.%I', ${literal(schema)}, r.tablename);
  END LOOP;
  FOR r IN SELECT s.relname FROM pg_class s JOIN pg_namespace n ON n.oid = s.relnamespace
      JOIN pg_depend d ON d.objid = s.oid AND d.deptype IN ('a', 'i')
      JOIN pg_class t ON t.oid = d.refobjid
      WHERE s.relkind = 'S' AND n.nspname = ${literal(schema)} AND t.relname <> ALL (ARRAY[${CATALOG.map(literal).join(', ')}]) LOOP
    EXECUTE format('ALTER SEQUENCE %I.%I RESTART', ${literal(schema)}, r.relname);
  END LOOP;
  UPDATE ${`"${schema}"`}.meta SET value = 0 WHERE key <> 'schemaVersion';
  -- (A new store has no transient slot truncated yet: drop_transient's marks go.)
  DELETE FROM ${`"${schema}"`}.meta WHERE key LIKE 'dropped:%';
END $empty$`;
const literal = (text: string) => `'${text.replace(/'/g, "''")}'`;

/**
 * Stores for files that open one per test (the service suites on every driver): a few schemas per file, each
 * emptied after the test that used it and handed to the next, instead of a schema made and dropped per store
 * (hundreds per file cost a minute). Each schema keeps a Pool across its tests, given to the driver as a host's
 * Pool, so a test's store is not four new connections (password checks, cold caches, every statement planned
 * anew); the driver LISTENs on one of its connections. `make` gets the schema and its Pool.
 */
export function reusedStores<D extends { close(): Promise<void> }>(
  make: (at: { schema: string; pool: pg.Pool }) => D,
  label: string,
) {
  const free: string[] = [];
  const used: string[] = [];
  const open: D[] = [];
  const pools = new Map<string, pg.Pool>();
  return {
    /** A driver on an empty store. */
    make(): D {
      const schema = free.pop() ?? freshSchema(label);
      used.push(schema);
      let pool = pools.get(schema);
      if (!pool) {
        pools.set(schema, (pool = new pg.Pool({ connectionString: pgUrl(), max: POOL_MAX })));
        pool.on('error', () => {});
      }
      const d = make({ schema, pool });
      open.push(d);
      return d;
    },
    /** After each test: closes its drivers and empties their schemas for the next test. */
    async release(): Promise<void> {
      await Promise.all(open.splice(0).map((d) => d.close().catch(() => undefined)));
      const schemas = used.splice(0);
      for (const s of schemas) await pools.get(s)!.query(emptyStore(s));
      free.push(...schemas);
    },
    /** The Pool a schema's drivers are given (tests of the helper itself). */
    poolOf: (schema: string) => pools.get(schema),
    /** After the file: ends the Pools and drops the schemas. */
    async dropAll(): Promise<void> {
      await Promise.all([...pools.values()].map((p) => p.end().catch(() => undefined)));
      pools.clear();
      await dropOwnSchemas();
    },
  };
}

/** A store's driver works on up to 3 connections; the fourth is its LISTEN. */
export const POOL_MAX = 4;
