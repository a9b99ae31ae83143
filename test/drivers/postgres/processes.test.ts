/**
 * Several app server processes on one PostgreSQL store: read-modify-write races with ifMatch (nothing lost,
 * every listener hears every write once), migrations raced by processes starting together, and a process
 * killed with SIGKILL mid-commit leaving only whole commits.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { POSTGRES_STORAGE_VERSION, postgresDriver } from '../../../drivers/postgres/index.js';
import { createBlogService } from '../../../src/index.js';
import { BATCH } from './crash.js';
import { dropOwnSchemas, freshSchema, pgUrl } from './env.js';

const PROCESSES = 4;
/** Successful writes per process: 4 × 500 = 2,000 updates, each heard once by every process (BLOGCORE_PG_RMW scales it). */
const WRITES = Number(process.env.BLOGCORE_PG_RMW ?? 500);

const admin = new pg.Pool({ connectionString: pgUrl(), max: 2 });
afterAll(async () => {
  await admin.end();
  await dropOwnSchemas();
});

interface Child {
  proc: ChildProcessWithoutNullStreams;
  lines: string[];
  next(): Promise<string>;
}

function child(args: string[]): Child {
  const proc = spawn(process.execPath, ['--import', 'tsx', 'test/drivers/postgres/child.ts', ...args], {
    cwd: process.cwd(),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  const waiting: Array<(l: string) => void> = [];
  let stderr = '';
  let buf = '';
  proc.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
  proc.stdout.on('data', (b: Buffer) => {
    buf += b.toString();
    let i: number;
    while ((i = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, i);
      buf = buf.slice(i + 1);
      const w = waiting.shift();
      if (w) w(line);
      else lines.push(line);
    }
  });
  const exited = new Promise<string>((_, reject) =>
    proc.on('exit', (code, signal) => reject(new Error(`child exited (${code ?? signal}): ${stderr}`))),
  );
  exited.catch(() => undefined);
  return {
    proc,
    lines,
    next: () =>
      lines.length
        ? Promise.resolve(lines.shift()!)
        : Promise.race([new Promise<string>((r) => waiting.push(r)), exited]),
  };
}

describe('postgres: several app server processes', () => {
  it(`${PROCESSES} processes × ${WRITES} ifMatch read-modify-writes of one post: the counter equals the successful writes, and every process hears every write once`, async () => {
    const schema = freshSchema('rmw');
    const setup = createBlogService({ driver: postgresDriver({ connectionString: pgUrl(), schema }) });
    const owner = await setup.users.insert({ body: { displayName: 'Owner' } });
    const blog = await setup.blogs.insert({ body: { name: 'Race', url: 'https://race.example/' }, ownerId: owner.id });
    const post = await setup.posts.insert({ blogId: blog.id!, body: { title: 'count 0', content: '<p>counter</p>' } });
    const total = PROCESSES * WRITES;
    const kids = Array.from({ length: PROCESSES }, () =>
      child(['rmw', pgUrl(), schema, blog.id!, post.id!, String(WRITES), String(total)]),
    );
    for (const k of kids) expect(await k.next()).toBe('ready');
    for (const k of kids) k.proc.stdin.write('go\n');
    const results = await Promise.all(
      kids.map(
        async (k) =>
          JSON.parse(await k.next()) as { successes: number; refused: number; seen: Array<[string, number]> },
      ),
    );
    const final = await setup.posts.get({ blogId: blog.id!, postId: post.id! });
    await setup.close();
    expect(results.map((r) => r.successes)).toEqual(kids.map(() => WRITES));
    expect(final.title).toBe(`count ${total}`);
    const every = Array.from({ length: total }, (_, i) => `count ${i + 1}`).sort();
    for (const r of results) {
      expect(r.seen.map(([t]) => t).sort()).toEqual(every);
      expect(
        r.seen.every(([, n]) => n === 1),
        'a post.updated heard twice',
      ).toBe(true);
    }
    expect(
      results.some((r) => r.refused > 0),
      'the processes never raced',
    ).toBe(true);
  }, 120_000);

  it('runs the migrations once when 4 processes open a new store at the same moment', async () => {
    const schema = freshSchema('mig');
    const kids = Array.from({ length: PROCESSES }, () => child(['open', pgUrl(), schema]));
    for (const k of kids) expect(await k.next()).toBe('ready');
    for (const k of kids) k.proc.stdin.write('go\n');
    const users = await Promise.all(kids.map(async (k) => (JSON.parse(await k.next()) as { user: string }).user));
    expect(new Set(users).size).toBe(PROCESSES);
    const { rows } = await admin.query(`SELECT version FROM "${schema}".migrations ORDER BY version`);
    expect(rows.map((r) => r.version)).toEqual(Array.from({ length: POSTGRES_STORAGE_VERSION }, (_, i) => i + 1));
    const cat = await admin.query(
      `SELECT name, count(*)::int AS n FROM "${schema}".collections GROUP BY name HAVING count(*) > 1`,
    );
    expect(cat.rows).toEqual([]);
    const check = createBlogService({ driver: postgresDriver({ connectionString: pgUrl(), schema }) });
    for (const id of users) expect((await check.users.get({ userId: id })).id).toBe(id);
    await check.close();
  }, 60_000);

  it('a process killed with SIGKILL mid-commit leaves whole commits only', async () => {
    const schema = freshSchema('crash');
    for (let round = 0; round < 3; round++) {
      const k = child(['crash', pgUrl(), schema]);
      expect(await k.next()).toBe('ready');
      // Let it commit a few batches, then kill it while it is in the middle of sending the next.
      for (let i = 0; i < 3 + round; i++) await k.next();
      k.proc.kill('SIGKILL');
      await new Promise((r) => k.proc.once('exit', r));
    }
    // The server rolls back what the killed connection had not committed; wait until it noticed.
    for (let i = 0; i < 100; i++) {
      const busy = await admin.query(
        `SELECT count(*)::int AS n FROM pg_stat_activity WHERE state = 'active' AND query LIKE $1 AND pid <> pg_backend_pid()`,
        [`%${schema}%commit_%`], // commit_ops, or a shaped commit calling commit_begin
      );
      if (busy.rows[0].n === 0) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const s = `"${schema}"`;
    const q = async (sql: string) => (await admin.query(sql)).rows;
    const groups = await q(`SELECT "group" AS g, count(*)::int AS n FROM ${s}.items GROUP BY 1`);
    expect(groups.length).toBeGreaterThanOrEqual(9);
    expect(groups.filter((g) => g.n !== BATCH)).toEqual([]);
    // Every record has all its side rows, every side row its record, every commit its change rows.
    expect(
      await q(
        `SELECT count(*)::int AS n FROM ${s}.items_tag t LEFT JOIN ${s}.items i ON i.id = t.id WHERE i.id IS NULL`,
      ),
    ).toEqual([{ n: 0 }]);
    expect(
      await q(
        `SELECT count(*)::int AS n FROM ${s}.items i WHERE (SELECT count(*) FROM ${s}.items_tag t WHERE t.id = i.id) <> 5`,
      ),
    ).toEqual([{ n: 0 }]);
    expect(await q(`SELECT count(*)::int AS n FROM ${s}.items_tag`)).toEqual([{ n: groups.length * BATCH * 5 }]);
    expect(await q(`SELECT count(*)::int AS n FROM ${s}.changes`)).toEqual([{ n: groups.length * BATCH }]);
    expect(
      await q(
        `SELECT count(*)::int AS n FROM (SELECT seq FROM ${s}.changes GROUP BY seq HAVING count(*) <> ${BATCH}) x`,
      ),
    ).toEqual([{ n: 0 }]);
  }, 60_000);
});
