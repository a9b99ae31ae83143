/**
 * Concurrent writers on one counter against writers on distinct ones (`--only=concurrency`): 100 posts.insert
 * in flight at once sharing one label vs each with its own, 100 comments on one post vs on 100 posts, 100 page
 * views of one blog. Every write must succeed (the bench fails otherwise); what it prints is the cost of
 * sharing. The raw line is raw better-sqlite3 / raw `pg` doing each write's rows and its counter increment
 * (`UPDATE … SET n = n + 1`) in one transaction, the same 100 in flight: what sharing costs the engine itself.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { postgresDriver } from '../../drivers/postgres/index.js';
import { sqliteDriver } from '../../drivers/sqlite/index.js';
import { createBlogService, type BlogService, type StorageDriver } from '../../src/index.js';
import { startPostgres } from '../drivers/postgres/server.js';
import type { BenchContext } from './harness.js';

const WRITERS = 100;

interface Raw {
  /** One write: a row and its counter moved, in one transaction. */
  write(i: number, counter: string): Promise<void>;
  close(): Promise<void>;
}

function rawSqlite(file: string): Raw {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.exec(
    'CREATE TABLE rows (id TEXT PRIMARY KEY, doc TEXT); CREATE TABLE counters (id TEXT PRIMARY KEY, n INTEGER NOT NULL)',
  );
  const row = db.prepare('INSERT INTO rows VALUES (?, ?)');
  const bump = db.prepare('INSERT INTO counters VALUES (?, 1) ON CONFLICT(id) DO UPDATE SET n = n + 1');
  let seq = 0;
  const tx = db.transaction((counter: string) => {
    row.run(`r${seq++}`, JSON.stringify({ title: 'x', labels: [counter] }));
    bump.run(counter);
  });
  return { write: async (_i, counter) => void tx(counter), close: async () => void db.close() };
}

async function rawPg(url: string, schema: string): Promise<Raw> {
  const pool = new pg.Pool({ connectionString: url, max: 10 });
  await pool.query(
    `CREATE SCHEMA ${schema}; CREATE TABLE ${schema}.rows (id text PRIMARY KEY, doc jsonb); CREATE TABLE ${schema}.counters (id text PRIMARY KEY, n int NOT NULL)`,
  );
  let seq = 0;
  return {
    async write(_i, counter) {
      const c = await pool.connect();
      try {
        await c.query('BEGIN');
        await c.query(`INSERT INTO ${schema}.rows VALUES ($1, $2)`, [`r${seq++}`, { title: 'x', labels: [counter] }]);
        await c.query(
          `INSERT INTO ${schema}.counters VALUES ($1, 1) ON CONFLICT (id) DO UPDATE SET n = ${schema}.counters.n + 1`,
          [counter],
        );
        await c.query('COMMIT');
      } finally {
        c.release();
      }
    },
    close: () => pool.end(),
  };
}

/** Runs `count` writes all at once; answers writes per second, throwing if any failed. */
async function burst(count: number, write: (i: number) => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  const results = await Promise.allSettled(Array.from({ length: count }, (_, i) => write(i)));
  const ms = performance.now() - t0;
  const failed = results.filter((r) => r.status === 'rejected');
  if (failed.length)
    throw new Error(
      `${failed.length} of ${count} writes failed: ${String((failed[0] as PromiseRejectedResult).reason)}`,
    );
  return (count / ms) * 1000;
}

async function rows(name: string, driver: () => StorageDriver, raw: Raw, rounds: number): Promise<string[]> {
  const service: BlogService = createBlogService({ driver: driver() });
  await service.users.insert({ body: { id: 'owner', displayName: 'Owner' } });
  const blog = await service.blogs.insert({ body: { name, url: `https://${name}.example.test/` }, ownerId: 'owner' });
  const blogId = blog.id;
  const hot = await service.posts.insert({ blogId, body: { title: 'Hot', content: 'x' } });
  const cold = await Promise.all(
    Array.from({ length: WRITERS }, (_, i) =>
      service.posts.insert({ blogId, body: { title: `Cold ${i}`, content: 'x' } }),
    ),
  );
  const best = async (fn: (round: number) => Promise<number>) => {
    let top = 0;
    for (let r = 0; r < rounds; r++) top = Math.max(top, await fn(r));
    return top;
  };
  const pairs: Array<[string, (r: number) => Promise<number>, (r: number) => Promise<number>]> = [
    [
      'posts.insert (label)',
      (r) =>
        burst(WRITERS, (i) =>
          service.posts.insert({ blogId, body: { title: `S${r}-${i}`, content: 'x', labels: ['news'] } }),
        ),
      (r) =>
        burst(WRITERS, (i) =>
          service.posts.insert({ blogId, body: { title: `D${r}-${i}`, content: 'x', labels: [`l${r}-${i}`] } }),
        ),
    ],
    [
      'comments.insert (post)',
      () => burst(WRITERS, (i) => service.comments.insert({ blogId, postId: hot.id, body: { content: `c${i}` } })),
      () => burst(WRITERS, (i) => service.comments.insert({ blogId, postId: cold[i]!.id, body: { content: `c${i}` } })),
    ],
    [
      'pageViews.record (day)',
      () => burst(WRITERS, () => service.pageViews.record({ blogId, postId: hot.id })),
      () => burst(WRITERS, (i) => service.pageViews.record({ blogId, postId: cold[i]!.id })),
    ],
  ];
  const rawShared = await best(() => burst(WRITERS, (i) => raw.write(i, 'shared')));
  const rawDistinct = await best((r) => burst(WRITERS, (i) => raw.write(i, `own-${r}-${i}`)));
  const out: string[] = [];
  for (const [op, shared, distinct] of pairs) {
    const one = await best(shared);
    const each = await best(distinct);
    out.push(
      `| ${name} | ${op} | ${one.toFixed(0)} | ${each.toFixed(0)} | ${(each / one).toFixed(2)}× | ${rawShared.toFixed(0)} | ${rawDistinct.toFixed(0)} |`,
    );
  }
  await service.close();
  await raw.close();
  return out;
}

export default async function concurrencyBench(ctx: BenchContext): Promise<void> {
  const rounds = ctx.quick ? 1 : 3;
  const dir = mkdtempSync(join(tmpdir(), 'blogcore-bench-conc-'));
  const server = await startPostgres({ durable: true });
  try {
    const lines = [
      `\n## Concurrent writers: ${WRITERS} writes in flight at once (best of ${rounds}; writes/s, higher is better)`,
      '',
      '| store | writes (shared counter) | one counter | distinct counters | cost of sharing | raw one counter | raw distinct |',
      '|---|---|---|---|---|---|---|',
      ...(await rows(
        'sqlite',
        () => sqliteDriver({ filename: join(dir, 'ours.db') }),
        rawSqlite(join(dir, 'raw.db')),
        rounds,
      )),
      ...(await rows(
        'postgres',
        () => postgresDriver({ connectionString: server.url, schema: 'bench_conc' }),
        await rawPg(server.url, 'raw_conc'),
        rounds,
      )),
    ];
    console.log(lines.join('\n'));
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
