/**
 * Events across app servers are as durable as the writes they report: a write and its event commit together
 * (writer processes killed with SIGKILL mid-stream, many times: every committed write is heard once by every
 * other server, no write that did not commit is heard), and a listener hears every write committed after its
 * `on()` returned, on every instance, once (a fresh instance each round, in a loop). Directly and behind
 * PgBouncer (env.ts ROUTES).
 */
import { spawn } from 'node:child_process';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { postgresDriver } from '../../../drivers/postgres/index.js';
import { createBlogService, type BlogService } from '../../../src/index.js';
import { dropOwnSchemas, freshSchema, pgUrl, ROUTES, type RouteOptions } from './env.js';

const admin = new pg.Pool({ connectionString: pgUrl(), max: 2 });
afterAll(async () => {
  await admin.end();
  await dropOwnSchemas();
});

const service = (route: () => RouteOptions, schema: string) =>
  createBlogService({ driver: postgresDriver({ ...route(), schema, max: 3 }) });

async function until(check: () => boolean, what: string, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function blogIn(s: BlogService): Promise<string> {
  const owner = await s.users.insert({ body: { displayName: 'Owner' } });
  return (
    await s.blogs.insert({
      body: { name: 'Events', url: `https://events-${Math.random()}.example/` },
      ownerId: owner.id,
    })
  ).id!;
}

/** A writer process inserting posts until it is killed; resolves once it has reported `writes` inserts. */
function writer(route: () => RouteOptions, schema: string, blogId: string, writes: number) {
  const proc = spawn(
    process.execPath,
    ['--import', 'tsx', 'test/drivers/postgres/child.ts', 'insert', pgUrl(), schema, blogId],
    {
      stdio: ['pipe', 'pipe', 'pipe'],
      // How it reaches the store (child.ts): the route's driver options.
      env: { ...process.env, BLOGCORE_PG_ROUTE: JSON.stringify(route()) },
    },
  );
  let stderr = '';
  proc.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
  const reported = new Promise<void>((resolve, reject) => {
    let lines = 0;
    proc.stdout.on('data', (b: Buffer) => {
      lines += b.toString().split('\n').length - 1;
      if (lines > writes) resolve();
    });
    proc.on('exit', (code, signal) => reject(new Error(`writer exited (${code ?? signal}): ${stderr}`)));
  });
  return { proc, reported };
}

describe.each(ROUTES)('postgres: events commit with their writes, %s', (_name, route) => {
  it('writers killed with SIGKILL mid-stream: every committed write is heard once by every other server, nothing else', async () => {
    const schema = freshSchema('kill');
    const listeners = [service(route, schema), service(route, schema)];
    const heard = listeners.map(() => new Map<string, number>());
    listeners.forEach((l, i) => {
      l.on('post.inserted', (e) => {
        const title = (e.resource as { title: string }).title;
        heard[i]!.set(title, (heard[i]!.get(title) ?? 0) + 1);
      });
    });
    await Promise.all(listeners.map((l) => l.ready()));
    const blogId = await blogIn(listeners[0]!);
    for (let round = 0; round < 4; round++) {
      const kids = [writer(route, schema, blogId, 5 + round * 7), writer(route, schema, blogId, 11 + round * 5)];
      await Promise.all(kids.map((k) => k.reported));
      for (const k of kids) k.proc.kill('SIGKILL');
      await Promise.all(
        kids.map(
          (k) =>
            new Promise((r) =>
              k.proc.exitCode !== null || k.proc.signalCode !== null ? r(null) : k.proc.once('exit', r),
            ),
        ),
      );
    }
    // The server rolls back what the killed connections had not committed; then the store says what committed.
    await until(() => true, 'nothing');
    // Behind PgBouncer a killed writer's last statement can reach the server after no commit is seen running (it
    // waited in the pooler's queue): the log must also stay where it is for half a second.
    let newest = '';
    for (let i = 0; i < 200; i++) {
      const busy = await admin.query(
        `SELECT count(*)::int AS n FROM pg_stat_activity WHERE state = 'active' AND query LIKE $1 AND pid <> pg_backend_pid()`,
        [`%${schema}%commit_%`], // commit_ops, or a shaped commit calling commit_begin
      );
      const now = (await admin.query(`SELECT max(seq)::text AS s FROM "${schema}".changes`)).rows[0].s as string;
      if (busy.rows[0].n === 0 && now === newest) break;
      newest = now;
      await new Promise((r) => setTimeout(r, busy.rows[0].n === 0 ? 500 : 50));
    }
    const stored = new Set<string>();
    for (let token: string | undefined; ; ) {
      const page = await listeners[0]!.posts.list({
        blogId,
        maxResults: 500,
        fetchBodies: false,
        ...(token ? { pageToken: token } : {}),
      });
      for (const p of page.items ?? []) stored.add(p.title!);
      token = page.nextPageToken;
      if (!token) break;
    }
    expect(stored.size).toBeGreaterThan(40);
    for (const h of heard) {
      await until(() => h.size >= stored.size, `${stored.size} events (heard ${h.size})`);
      expect([...h.keys()].sort()).toEqual([...stored].sort());
      expect([...h.values()].filter((n) => n !== 1)).toEqual([]);
    }
    await Promise.all(listeners.map((l) => l.close()));
  }, 120_000);

  it('a listener hears every write committed after its on() returned, on every instance, once (in a loop)', async () => {
    const schema = freshSchema('from');
    const a = service(route, schema);
    const blogId = await blogIn(a);
    const post = await a.posts.insert({ blogId, body: { title: 'v0', content: '<p>x</p>' } });
    for (let round = 0; round < 12; round++) {
      // Every other round the listener comes before the store is open (on() then open on their own).
      const b = service(route, schema);
      if (round % 2) await b.ready();
      const heard: string[] = [];
      b.on('post.updated', (e) => void heard.push((e.resource as { title: string }).title));
      const titles = [`r${round}-a`, `r${round}-b`];
      for (const title of titles) await a.posts.patch({ blogId, postId: post.id!, body: { title } });
      const mine = () => heard.filter((t) => titles.includes(t));
      await until(() => mine().length >= 2, `round ${round}: both updates (heard ${heard.join(', ')})`, 10_000);
      await new Promise((r) => setTimeout(r, round === 0 ? 300 : 20));
      expect(mine()).toEqual(titles);
      // A listener added before the store opened may also hear what was stored just before; never twice.
      expect(new Set(heard).size).toBe(heard.length);
      if (round % 2) expect(heard).toEqual(titles);
      await b.close();
    }
    await a.close();
  }, 120_000);
});
