/** What PostgreSQL test files share: the server's URLs (see global-setup.ts) and a fresh schema per store. */
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
  const { default: pg } = await import('pg');
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

/**
 * Stores for files that open one per test (the service suites on every driver): a few schemas per file, each
 * emptied after the test that used it and handed to the next, instead of a schema made and dropped per store
 * (hundreds per file cost a minute). Emptying keeps the catalog (collections, indexes, migrations) and clears
 * the rows and the log, so the next driver opens a store with nothing in it.
 */
export function reusedStores<D extends { close(): Promise<void> }>(make: (schema: string) => D, label: string) {
  const free: string[] = [];
  const used: string[] = [];
  const open: D[] = [];
  let client: import('pg').Client | undefined;
  return {
    make(): D {
      const schema = free.pop() ?? freshSchema(label);
      used.push(schema);
      const d = make(schema);
      open.push(d);
      return d;
    },
    /** After each test: closes its drivers and empties their schemas for the next test. */
    async release(): Promise<void> {
      await Promise.all(open.splice(0).map((d) => d.close().catch(() => undefined)));
      const schemas = used.splice(0);
      if (!schemas.length) return;
      if (!client) {
        const { default: pg } = await import('pg');
        client = new pg.Client({ connectionString: pgUrl() });
        await client.connect();
      }
      for (const s of schemas) {
        // Every table but the catalog: the collections' tables and side tables, the log, the blobs.
        const { rows } = await client.query<{ t: string }>(
          `SELECT tablename AS t FROM pg_tables WHERE schemaname = $1 AND tablename NOT IN ('collections', 'indexes', 'meta', 'migrations')`,
          [s],
        );
        if (rows.length) {
          await client.query(
            `TRUNCATE ${rows.map((r) => `"${s}"."${r.t}"`).join(', ')} RESTART IDENTITY; UPDATE "${s}".meta SET value = 0 WHERE key <> 'schemaVersion'`,
          );
        }
      }
      free.push(...schemas);
    },
    /** After the file: drops its schemas. */
    async dropAll(): Promise<void> {
      await client?.end().catch(() => undefined);
      client = undefined;
      await dropOwnSchemas();
    },
  };
}
