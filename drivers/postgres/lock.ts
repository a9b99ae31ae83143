/** One transaction of a store's migration, under its advisory lock: what schema.ts and migrate.ts run in. */
import type { Connection } from './connect.js';

/** One statement of a migration, rows as arrays. */
export type Query = (text: string, values?: unknown[]) => Promise<unknown[][]>;

/** Runs `fn` in one transaction holding the store's migration lock (released at its end). */
export async function locked<T>(c: Connection, fn: (q: Query) => Promise<T>): Promise<T> {
  const client = await c.pool.connect();
  c.met(client);
  const q: Query = (text, values) =>
    client.query<unknown[]>({ text, ...(values ? { values } : {}), rowMode: 'array' }).then((r) => r.rows);
  try {
    await q('BEGIN');
    // One migrator at a time per store, across every app server; released at COMMIT/ROLLBACK.
    await q('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [`blogcore:${c.schema}`]);
    const out = await fn(q);
    await q('COMMIT');
    client.release();
    return out;
  } catch (error) {
    await q('ROLLBACK').catch(() => undefined);
    client.release();
    throw error;
  }
}

/** The store's layout version (0: nothing there yet). */
export async function layoutOf(q: Query, s: string): Promise<number> {
  await q(
    `CREATE TABLE IF NOT EXISTS ${s}.migrations (version int PRIMARY KEY, at timestamptz NOT NULL DEFAULT now())`,
  );
  return Number((await q(`SELECT coalesce(max(version), 0)::int FROM ${s}.migrations`))[0]![0]);
}
