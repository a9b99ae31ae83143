/**
 * The service suites' PostgreSQL stores are used schemas handed on (env.ts `reusedStores`): a store handed to the
 * next test must hold what a store never used holds — no rows, sequences and counters at their start, an empty
 * change log, and no connection of its Pool still LISTENing.
 */
import { afterAll, describe, expect, it } from 'vitest';
import type pg from 'pg';
import { postgresDriver } from '../../../drivers/postgres/index.js';
import { STORE_SCHEMA } from '../../../src/store/schema.js';
import { makeComment, makePost, world } from '../../service/helpers.js';
import { POOL_MAX, reusedStores } from './env.js';

let last = '';
const stores = reusedStores(({ schema, pool }) => {
  last = schema;
  return postgresDriver({ pool, schema });
}, 'reuse');
afterAll(() => stores.dropAll());

/** Everything a store holds outside its catalog: rows per table, where each sequence stands, the meta counters. */
async function contents(pool: pg.Pool, schema: string) {
  const tables = (
    await pool.query<{ t: string }>(`SELECT tablename AS t FROM pg_tables WHERE schemaname = $1 ORDER BY 1`, [schema])
  ).rows.map((r) => r.t);
  const rows: Record<string, number> = {};
  for (const t of tables)
    if (!['collections', 'indexes', 'migrations'].includes(t))
      rows[t] = (await pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM "${schema}"."${t}"`)).rows[0]!.n;
  const sequences = (
    await pool.query(`SELECT sequencename, last_value FROM pg_sequences WHERE schemaname = $1 ORDER BY 1`, [schema])
  ).rows;
  const meta = (await pool.query(`SELECT key, value FROM "${schema}".meta ORDER BY key`)).rows;
  return { rows, sequences, meta };
}

/** The channels the Pool's connections LISTEN on (all of them checked out at once: none may be in use). */
async function listening(pool: pg.Pool): Promise<string[]> {
  const clients = await Promise.all(Array.from({ length: POOL_MAX }, () => pool.connect()));
  try {
    const each = await Promise.all(clients.map((c) => c.query<{ c: string }>('SELECT pg_listening_channels() AS c')));
    return each.flatMap((r) => r.rows.map((x) => x.c));
  } finally {
    for (const c of clients) c.release();
  }
}

describe('a PostgreSQL store handed on to the next test', () => {
  it('is as empty as a new one: tables, sequences, counters, change log, LISTEN', async () => {
    const first = stores.make();
    await first.open(STORE_SCHEMA);
    const schema = last;
    const pool = stores.poolOf(schema)!;
    const unused = await contents(pool, schema);

    // Use it: records, comments, the change log (and a prune of it), a blob, a LISTEN on the store's channel.
    const w = await world(first);
    const post = await makePost(w, 'LIVE');
    await makeComment(w, post.id as string, 'LIVE');
    await first.blobs!.put(
      'picture',
      (async function* () {
        yield new Uint8Array([1, 2, 3]);
      })(),
    );
    const { newest } = await first.logBounds();
    expect(await first.pruneChanges({ through: newest - 1, limit: 5 })).toBeGreaterThan(0);
    // Heard once its LISTEN stands (the feed tells its listeners then); it holds one of the Pool's connections.
    await new Promise<void>((resolve) => first.watch!(resolve));
    const used = await contents(pool, schema);
    expect(used).not.toEqual(unused);
    expect(used.sequences.some((s) => s.last_value !== null)).toBe(true);

    await stores.release();
    const next = stores.make();
    expect(last).toBe(schema);
    expect(await contents(pool, schema)).toEqual(unused);
    expect(await listening(pool)).toEqual([]);
    await next.open(STORE_SCHEMA);
    expect(await next.logBounds()).toEqual({ newest: 0, pruned: 0 });
    expect(await next.changesSince(0)).toEqual([]);
    const again = await world(next);
    expect((await again.admin.posts.list({ blogId: again.blogId })).items ?? []).toEqual([]);
    await stores.release();
  });
});
