/**
 * Read replicas with read-your-writes, on a real primary and a real streaming hot standby started here
 * (server.ts: a cold copy of the primary's data directory with standby.signal and primary_conninfo); replay is
 * paused (`pg_wal_replay_pause()`) to force lag. Write-then-read loops in process (a scoped service is a
 * session) and over HTTP (the client sends back Blogcore-Consistency-Token) never read stale; reads without a
 * write of their own go to the standby when it keeps up, skip it when it lags past the bound or is down. Also
 * behind PgBouncer in transaction mode in front of both servers (a tenth of the loops).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { postgresDriver, type PostgresDriver } from '../../../drivers/postgres/index.js';
import { createBlogService, type BlogService } from '../../../src/index.js';
import { createHttpHandler, toNodeHandler } from '../../../src/http/index.js';
import { requireBuild, start } from '../../http/spawn.js';
import { startPgBouncer, type PgBouncer } from './bouncer.js';
import { startReplicatedPair, type ReplicatedPair } from './server.js';

requireBuild();

/**
 * Write-then-read loops in each of the two loops (BLOGCORE_REPLICA_LOOPS scales it: 10,000 and more for a stress
 * run; CI's 3,000 keep the file within a few minutes of the whole run).
 */
const LOOPS = Number(process.env.BLOGCORE_REPLICA_LOOPS ?? 3_000);
const MAX_LAG_MS = 300;
const TOKEN = 'blogcore-consistency-token';

let pair: ReplicatedPair;
let bouncer: PgBouncer;
let standby: pg.Client;
const opened: Array<{ close(): Promise<void> }> = [];

// Starting a primary, taking a base backup and starting a standby from it took 61 s at load 26 (two CPU burners
// beside the loop the house issue asks for): the setup's bound is generous; the tests' own bounds stay.
beforeAll(async () => {
  pair = await startReplicatedPair();
  standby = await connect(pair.standby.url);
  bouncer = await startPgBouncer({ primary: pair.primary.url, standby: pair.standby.url });
}, 300_000);

afterAll(async () => {
  for (const o of opened.splice(0)) await o.close().catch(() => undefined);
  await standby?.end().catch(() => undefined);
  await bouncer?.stop();
  await pair?.stop();
});

/** How the app server reaches the primary and the standby, and how many loops it runs. */
interface Route {
  schema: string;
  loops: number;
  options(): { connectionString: string; replicas: string[]; preparedStatements?: false };
}

const ROUTES: ReadonlyArray<readonly [string, Route]> = [
  [
    'direct',
    {
      schema: 'replicas',
      loops: LOOPS,
      options: () => ({ connectionString: pair.primary.url, replicas: [pair.standby.url] }),
    },
  ],
  [
    'behind PgBouncer',
    {
      schema: 'replicas_pooled',
      loops: Math.ceil(LOOPS / 10),
      options: () => ({
        connectionString: bouncer.urls.primary!,
        replicas: [bouncer.urls.standby!],
        preparedStatements: false,
      }),
    },
  ],
];

async function connect(url: string): Promise<pg.Client> {
  const c = new pg.Client({ connectionString: url });
  c.on('error', () => {});
  await c.connect();
  return c;
}

function driver(route: Route): PostgresDriver {
  const d = postgresDriver({
    ...route.options(),
    schema: route.schema,
    max: 4,
    shareEvents: false,
    maxLagMs: MAX_LAG_MS,
  });
  opened.push(d);
  return d;
}

async function until(check: () => Promise<boolean>, what: string, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const paused = async () => (await standby.query('SELECT pg_is_wal_replay_paused() AS p')).rows[0].p as boolean;
const pause = async (on: boolean) => {
  await standby.query(on ? 'SELECT pg_wal_replay_pause()' : 'SELECT pg_wal_replay_resume()');
  await until(async () => (await paused()) === on, `replay ${on ? 'paused' : 'resumed'}`);
};
/** The standby has replayed everything the primary has written. */
async function caughtUp(): Promise<void> {
  const primary = await connect(pair.primary.url);
  const { rows } = await primary.query('SELECT pg_current_wal_insert_lsn()::text AS l');
  await primary.end();
  await until(
    async () => (await standby.query('SELECT pg_last_wal_replay_lsn() >= $1::pg_lsn AS ok', [rows[0].l])).rows[0].ok,
    'the standby to catch up',
  );
}

describe.each(ROUTES)('postgres read replicas, %s', (_name, route) => {
  let service: BlogService;
  let d: PostgresDriver;
  let blogId: string;
  let userId: string;
  let postId: string;
  const LOOPS = route.loops;
  /** Every this many loops (500, or less for a short loop: it pauses at least 6 times), replay on the standby is paused or resumed. */
  const TOGGLE = Math.min(500, Math.max(10, Math.floor(LOOPS / 6)));

  beforeAll(async () => {
    d = driver(route);
    service = createBlogService({ driver: d });
    const user = await service.users.insert({ body: { displayName: 'Writer' } });
    userId = user.id;
    blogId = (
      await service.blogs.insert({ body: { name: 'Replicated', url: 'https://replicated.example/' }, ownerId: userId })
    ).id!;
    postId = (await service.posts.insert({ blogId, body: { title: 'v0', content: '<p>x</p>' } })).id!;
    await caughtUp();
  }, 60_000);

  // A loop test that failed midway may leave replay paused: the tests after it start from a standby that replays.
  afterEach(async () => {
    if (await paused()) await pause(false);
  });

  it(`${LOOPS} write-then-read loops in process read their own write every time, the standby paused now and then`, async ({
    signal,
  }) => {
    const me = service.as({ userId });
    let stale = 0;
    // A loop that outlives its test's timeout stops, so it pauses the standby no more (afterEach resumes it).
    for (let i = 1; i <= LOOPS && !signal.aborted; i++) {
      if (i % TOGGLE === 0) await pause(i % (2 * TOGGLE) !== 0);
      await me.posts.patch({ blogId, postId, body: { title: `p${i}` } });
      if ((await me.posts.get({ blogId, postId })).title !== `p${i}`) stale++;
    }
    await pause(false);
    expect(stale).toBe(0);
  }, 600_000);

  it(`${LOOPS} write-then-read loops over HTTP, the client sending back the token, read their own write every time`, async ({
    signal,
  }) => {
    const handler = createHttpHandler(service, { authenticate: (r) => ({ userId: r.headers.get('x-user')! }) });
    const server: Server = createServer(toNodeHandler(handler));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    opened.push({ close: () => new Promise((r) => server.close(() => r())) });
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v3/blogs/${blogId}/posts/${postId}`;
    let token: string | undefined;
    const send = async (init: RequestInit) => {
      const res = await fetch(url, {
        ...init,
        headers: { 'x-user': userId, 'content-type': 'application/json', ...(token ? { [TOKEN]: token } : {}) },
      });
      expect(res.status).toBe(200);
      token = res.headers.get(TOKEN) ?? token;
      return (await res.json()) as { title: string };
    };
    let stale = 0;
    // A loop that outlives its test's timeout stops, so it pauses the standby no more (afterEach resumes it).
    for (let i = 1; i <= LOOPS && !signal.aborted; i++) {
      if (i % TOGGLE === 0) await pause(i % (2 * TOGGLE) !== 0);
      await send({ method: 'PATCH', body: JSON.stringify({ title: `h${i}` }) });
      if ((await send({ method: 'GET' })).title !== `h${i}`) stale++;
    }
    await pause(false);
    expect(token).toMatch(/^[0-9A-F]+\/[0-9A-F]+$/);
    expect(stale).toBe(0);
  }, 600_000);

  it('with the standby caught up, reads that carry no write of their own are served by it (at least 90%)', async () => {
    await caughtUp();
    const reader = service.as(null);
    // The driver learns replay positions from its monitor (every 50 ms, later on a busy machine): read until it
    // has seen the standby caught up, so the count below starts from that state.
    for (
      let seen = d.readsServed().replicas, t0 = Date.now();
      d.readsServed().replicas === seen && Date.now() - t0 < 10_000;
    ) {
      await reader.posts.get({ blogId, postId });
    }
    const before = d.readsServed();
    for (let i = 0; i < 500; i++) await reader.posts.get({ blogId, postId });
    const after = d.readsServed();
    const replica = after.replicas - before.replicas;
    const primary = after.primary - before.primary;
    expect(replica / (replica + primary)).toBeGreaterThanOrEqual(0.9);
  }, 60_000);

  it('a standby lagging past the bound is skipped: a reader without a token sees a new write within the bound, never waiting on it', async () => {
    await caughtUp();
    const writer = service.as({ userId });
    const reader = service.as(null);
    await pause(true);
    await writer.posts.patch({ blogId, postId, body: { title: 'while paused' } });
    const t0 = Date.now();
    let slowest = 0;
    for (;;) {
      const t = Date.now();
      const title = (await reader.posts.get({ blogId, postId })).title;
      slowest = Math.max(slowest, Date.now() - t);
      if (title === 'while paused') break;
      expect(
        Date.now() - t0,
        'a token-less read saw the write only once the standby lagged past the bound',
      ).toBeLessThan(MAX_LAG_MS + 2_000);
    }
    expect(slowest).toBeLessThan(1_000);
    await pause(false);
  }, 60_000);

  it('the standby killed mid-run: reads keep working from the primary, and use it again once it is back', async () => {
    await caughtUp();
    const reader = service.as(null);
    const me = service.as({ userId });
    let errors = 0;
    const loop = async (n: number) => {
      for (let i = 0; i < n; i++) {
        try {
          await reader.posts.get({ blogId, postId });
          await me.posts.patch({ blogId, postId, body: { title: `k${i}` } });
          expect((await me.posts.get({ blogId, postId })).title).toBe(`k${i}`);
        } catch (error) {
          errors++;
          throw error;
        }
      }
    };
    const running = loop(300);
    await new Promise((r) => setTimeout(r, 200));
    await pair.standby.kill();
    await running;
    expect(errors).toBe(0);
    const before = d.readsServed();
    for (let i = 0; i < 50; i++) await reader.posts.get({ blogId, postId });
    expect(d.readsServed().replicas - before.replicas, 'a dead standby serves nothing').toBe(0);
    await pair.restartStandby();
    await standby.end().catch(() => undefined);
    standby = await connect(pair.standby.url);
    await caughtUp();
    await until(async () => {
      const b = d.readsServed().replicas;
      await reader.posts.get({ blogId, postId });
      return d.readsServed().replicas > b;
    }, 'reads on the standby again');
  }, 120_000);
});

describe('postgres read replicas from the command line', () => {
  it('blogcore serve --db postgres://primary --replica postgres://standby serves, and a client reads its own write back', async () => {
    const cli = start([
      'dist/cli.js',
      'serve',
      '--db',
      `${pair.primary.url}?schema=cli`,
      '--replica',
      pair.standby.url,
      '--port',
      '0',
      '--quiet',
    ]);
    let code: number | null;
    try {
      // Start-up (a new schema's tables, the demo blog) takes 10-25 s on a loaded 2-core machine: wait for it.
      await cli.waitFor(/Ctrl\+C stops the server/, 90_000);
      const out = cli.output();
      const token = out.match(/^ +(bc_[\w-]{20,})$/m)![1]!;
      const blog = out.match(/Blog: +(\S+)/)![1]!;
      const made = await fetch(`${blog}/posts`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ title: 'Through the CLI', content: '<p>x</p>' }),
      });
      expect(made.status).toBe(200);
      const position = made.headers.get(TOKEN);
      expect(position).toMatch(/^[0-9A-F]+\/[0-9A-F]+$/);
      const id = ((await made.json()) as { id: string }).id;
      const seen = await fetch(`${blog}/posts/${id}`, { headers: { [TOKEN]: position! } });
      expect(seen.status).toBe(200);
      expect(((await seen.json()) as { title: string }).title).toBe('Through the CLI');
    } finally {
      code = await cli.stop('SIGTERM');
    }
    // After the checks above, so a failure of theirs is the one reported; the command's output says why if not 0.
    expect(code, cli.output()).toBe(0);
  }, 150_000);
});
