/**
 * Where one PostgreSQL write's time goes, ours against raw `pg` (issue 35's profile): sequential `posts.insert`
 * and `posts.patch` (events shared) beside the raw statements of postgres.bench.ts, on a server of its own.
 * Per write: the app's CPU (`process.cpuUsage`), the server's CPU (its processes' /proc stat), round trips,
 * and a CPU profile of the app (node:inspector) summed by part; on the server, pg_stat_statements (nested
 * statements too) per write. The app's CPU is split into its main thread (the JavaScript) and the others (V8's
 * optimizing compiler and GC helpers, libuv). Run: `node --import tsx test/bench/postgres-profile.ts [--n=300]
 * [--warm=1000] [--share=false] [--top=40]`.
 *
 * A statement's slowest call shows the GIN index's pending-list cleanup on `tokens` (40–150 ms, about every 500
 * inserts, in raw's table as in ours): it lands in whichever statement's call fills the list, and with the seeded
 * posts always in the same one (the insert of a post with one label, at --warm=1500). A statement's time per call
 * is only comparable with its slowest call taken out.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import pg from 'pg';
import type { postgresDriver as PostgresDriver } from '../../drivers/postgres/index.js';
import type { createBlogService as CreateBlogService } from '../../src/index.js';
import { distinctWords, postWordFields } from '../../src/rules/text.js';
import { startPostgres } from '../drivers/postgres/server.js';
import { generator } from '../drivers/sqlite/bench-data.js';

const arg = (name: string, dflt: string) =>
  process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? dflt;
const N = Number(arg('n', '300'));
const TOP = Number(arg('top', '0'));
/**
 * Calls before the measured ones. V8 optimizes a write's functions on its helper threads over the first thousand
 * or so calls, and again after each deoptimization (such as a commit of a shape first seen late: the first that
 * deletes an events-ring record, at the 1,000th write); that CPU counts in the app's, 40% of it after 30 calls.
 */
const WARM = Number(arg('warm', '1500'));
/**
 * `--dist=true`: the built package (`npm run build` first), as users run it; by default the sources through tsx,
 * whose transform names every closure as it is made (esbuild's keepNames: a call per closure the build has not).
 */
const { createBlogService, postgresDriver } = (
  arg('dist', 'false') === 'true'
    ? { ...(await import('../../dist/index.js' as string)), ...(await import('../../dist/postgres.js' as string)) }
    : { ...(await import('../../src/index.js')), ...(await import('../../drivers/postgres/index.js')) }
) as { createBlogService: typeof CreateBlogService; postgresDriver: typeof PostgresDriver };

/** Self time by function, with its total (self and callees) beside: the functions to look at. */
function top(profile: { nodes: Node[]; samples: number[]; timeDeltas: number[] }): Array<[string, number, number]> {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const name = (n: Node) => {
    const f = n.callFrame;
    return f.url ? `${f.functionName || '(anon)'} ${f.url.replace(/^.*\/(node_modules\/)?/, '')}` : undefined;
  };
  const self = new Map<string, number>();
  const total = new Map<string, number>();
  profile.samples.forEach((id, i) => {
    const dt = profile.timeDeltas[i] ?? 0;
    const k = name(byId.get(id)!);
    if (k) self.set(k, (self.get(k) ?? 0) + dt);
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const up = name(byId.get(at)!);
      if (up && !seen.has(up)) {
        seen.add(up);
        total.set(up, (total.get(up) ?? 0) + dt);
      }
    }
  });
  return [...total].map(([k, t]): [string, number, number] => [k, self.get(k) ?? 0, t]).sort((a, b) => b[1] - a[1]);
}

const RAW = `
  CREATE SCHEMA raw;
  CREATE TABLE raw.posts (
    id text COLLATE "C" PRIMARY KEY, blog_id text COLLATE "C" NOT NULL, status text COLLATE "C" NOT NULL,
    published text COLLATE "C" NOT NULL, updated text COLLATE "C" NOT NULL, path text, author_id text NOT NULL,
    title text NOT NULL, content text NOT NULL, labels text[] NOT NULL, tokens text[] NOT NULL, version int NOT NULL
  );
  CREATE INDEX posts_published ON raw.posts (blog_id, status, published, id);
  CREATE UNIQUE INDEX posts_path ON raw.posts (blog_id, path);
  CREATE INDEX posts_tokens ON raw.posts USING gin (tokens);
  CREATE TABLE raw.post_labels (
    blog_id text COLLATE "C" NOT NULL, label text COLLATE "C" NOT NULL, status text COLLATE "C" NOT NULL,
    published text COLLATE "C" NOT NULL, post_id text COLLATE "C" NOT NULL,
    PRIMARY KEY (blog_id, label, status, published, post_id)
  );
  CREATE TABLE raw.changes (seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, post_id text NOT NULL, version int NOT NULL);
  CREATE TABLE raw.events (id bigint PRIMARY KEY, doc text NOT NULL);`;
const OUTBOX = (n: number) => `, ev AS (INSERT INTO raw.events (id, doc) VALUES ($${n}, $${n + 1})),
  gone AS (DELETE FROM raw.events WHERE id = $${n} - 1000)`;
const INSERT = `WITH p AS (
    INSERT INTO raw.posts (id, blog_id, status, published, updated, path, author_id, title, content, labels, tokens, version)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, 1) RETURNING id, blog_id, status, published, labels),
  l AS (INSERT INTO raw.post_labels SELECT blog_id, unnest(labels), status, published, id FROM p)${OUTBOX(12)}
  INSERT INTO raw.changes (post_id, version) SELECT id, 1 FROM p`;
const COLS = 'id, blog_id, status, published, updated, path, author_id, title, content, labels, version';
// (The title's words go into the search tokens, as blogcore's do: postgres.bench.ts.)
const PATCH = `WITH u AS (UPDATE raw.posts SET title = $2, updated = $3, tokens = $7, version = version + 1 WHERE id = $1 AND version = $4 RETURNING id, version)${OUTBOX(5)}
  INSERT INTO raw.changes (post_id, version) SELECT id, version FROM u`;

/** CPU (µs) of every process of the server (the postmaster and its children). */
function serverCpu(postmaster: number): number {
  const tick = 1e6 / 100;
  let sum = 0;
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const f = readFileSync(`/proc/${d}/stat`, 'utf8');
      const rest = f.slice(f.lastIndexOf(')') + 2).split(' ');
      const ppid = Number(rest[1]);
      if (Number(d) !== postmaster && ppid !== postmaster) continue;
      sum += (Number(rest[11]) + Number(rest[12])) * tick;
    } catch {}
  }
  return sum;
}

/** CPU (µs) of each of this process's threads by id: the main thread's against V8's and libuv's helpers. */
function threadCpu(): Map<string, number> {
  const out = new Map<string, number>();
  for (const t of readdirSync('/proc/self/task')) {
    try {
      const f = readFileSync(`/proc/self/task/${t}/stat`, 'utf8');
      const rest = f.slice(f.lastIndexOf(')') + 2).split(' ');
      out.set(t, (Number(rest[11]) + Number(rest[12])) * 1e4);
    } catch {}
  }
  return out;
}

/** Bytes this process has written (sockets included): what it sends PostgreSQL, in a run that writes nothing else. */
const written = () => Number(/wchar: (\d+)/.exec(readFileSync('/proc/self/io', 'utf8'))![1]);

interface Node {
  id: number;
  callFrame: { functionName: string; url: string };
  children?: number[];
}

/** Self time by part: where the function's file lives. */
function parts(profile: { nodes: Node[]; samples: number[]; timeDeltas: number[] }): Map<string, number> {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const out = new Map<string, number>();
  profile.samples.forEach((id, i) => {
    const f = byId.get(id)!.callFrame;
    const u = f.url;
    const part = /\(garbage collector\)/.test(f.functionName)
      ? 'GC'
      : f.functionName === '(idle)' || f.functionName === '(program)'
        ? f.functionName
        : /node_modules\/(pg|pg-protocol|pg-pool|pg-types|postgres-array)\//.test(u)
          ? 'pg client'
          : /node_modules\/zod/.test(u)
            ? 'zod'
            : /drivers\/postgres\//.test(u)
              ? 'driver (drivers/postgres)'
              : /drivers\/shared\//.test(u)
                ? 'driver (drivers/shared)'
                : /\/src\//.test(u)
                  ? `core ${u.replace(/^.*\/src\//, '').replace(/\/.*$/, '')}`
                  : /node_modules/.test(u)
                    ? `dep ${u.replace(/^.*node_modules\//, '').split('/')[0]}`
                    : u.startsWith('node:')
                      ? 'node internals'
                      : u
                        ? 'other js'
                        : `native: ${f.functionName}`;
    out.set(part, (out.get(part) ?? 0) + (profile.timeDeltas[i] ?? 0));
  });
  return out;
}

async function main() {
  const server = await startPostgres({
    durable: true,
    flags: [
      '-c',
      'shared_preload_libraries=pg_stat_statements',
      '-c',
      'pg_stat_statements.track=all',
      '-c',
      'pg_stat_statements.track_planning=on',
    ],
  });
  const admin = new pg.Pool({ connectionString: server.url, max: 1 });
  // (The server stopping under an idle connection must not crash the run.)
  admin.on('error', () => {});
  await admin.query('CREATE EXTENSION pg_stat_statements');
  await admin.query(RAW);
  const backend = (await admin.query('SELECT pg_backend_pid() AS p')).rows[0].p as number;
  const postmaster = Number(readFileSync(`/proc/${backend}/stat`, 'utf8').split(') ')[1]!.split(' ')[1]);
  const rawPool = new pg.Pool({ connectionString: server.url, max: 2 });
  rawPool.on('error', () => {});
  const service = createBlogService({
    driver: postgresDriver({
      connectionString: server.url,
      schema: 'ours',
      max: 2,
      ...(arg('share', 'true') === 'false' ? { shareEvents: false } : {}),
    }),
  });
  const owner = await service.users.insert({ body: { displayName: 'A' } });
  const blogId = (await service.blogs.insert({ body: { name: 'B', url: 'https://b.example/' }, ownerId: owner.id! }))
    .id!;
  const gen = generator(7);
  let trips = 0;
  const query = pg.Client.prototype.query;
  pg.Client.prototype.query = function (this: pg.Client, ...a: unknown[]) {
    trips++;
    return (query as (...x: unknown[]) => unknown).apply(this, a);
  } as typeof query;

  const oursIds: string[] = [];
  const rawIds: string[] = [];
  let ev = 0;
  let k = 0;
  const ours = {
    insert: async (i: number) => {
      const p = gen.post(i);
      oursIds.push(
        (await service.posts.insert({ blogId, body: { title: p.title, content: p.content, labels: p.labels } })).id!,
      );
    },
    patch: async (i: number) => {
      await service.posts.patch({ blogId, postId: oursIds[i % oursIds.length]!, body: { title: `Edited ${i}` } });
    },
  };
  const raw = {
    insert: async (i: number) => {
      const p = gen.post(i);
      const id = `R${String(k++).padStart(25, '0')}`;
      const now = new Date().toISOString();
      const row = [
        id,
        blogId,
        'LIVE',
        now,
        now,
        `/2026/11/x-${id}.html`,
        'author',
        p.title,
        p.content,
        p.labels,
        distinctWords(postWordFields(p)),
      ];
      const values = [...row, ++ev, JSON.stringify({ type: 'post.inserted', id, resource: row })];
      await rawPool.query({ name: 'ins', text: INSERT, values });
      rawIds.push(id);
    },
    patch: async (i: number) => {
      const id = rawIds[i % rawIds.length]!;
      const row = (
        await rawPool.query({ name: 'get', text: `SELECT ${COLS} FROM raw.posts WHERE id = $1`, values: [id] })
      ).rows[0];
      const now = new Date().toISOString();
      const after = { ...row, title: `Edited ${i}`, updated: now };
      await rawPool.query({
        name: 'patch',
        text: PATCH,
        values: [
          id,
          after.title,
          now,
          row.version,
          ++ev,
          JSON.stringify({ type: 'post.updated', id, resource: after }),
          distinctWords(postWordFields({ title: after.title, content: row.content, labels: row.labels })),
        ],
      });
    },
  };
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 100 });

  const lines: string[] = [];
  for (const op of ['insert', 'patch'] as const) {
    for (const [name, side] of [
      ['ours', ours],
      ['raw', raw],
    ] as const) {
      for (let i = 0; i < WARM; i++) await side[op](i);
      await admin.query('SELECT pg_stat_statements_reset()');
      trips = 0;
      // First unprofiled (the sampler's own CPU would count), then the same number of calls profiled.
      const w0 = written();
      const s0 = serverCpu(postmaster);
      const th0 = threadCpu();
      const c0 = process.cpuUsage();
      const t0 = performance.now();
      for (let i = 0; i < N; i++) await side[op](WARM + i);
      const wall = ((performance.now() - t0) * 1000) / N;
      const c = process.cpuUsage(c0);
      const th = threadCpu();
      const me = String(process.pid);
      const mainUs = (th.get(me) ?? 0) - (th0.get(me) ?? 0);
      const otherUs = [...th].reduce((a, [t, v]) => (t === me ? a : a + v - (th0.get(t) ?? 0)), 0);
      const s = serverCpu(postmaster) - s0;
      const w = (written() - w0) / N;
      const tripsPer = trips / N;
      const st = await admin.query(
        `SELECT calls, total_exec_time * 1000 AS us, total_plan_time * 1000 AS plan, max_exec_time * 1000 AS most, toplevel,
           (length(query) - length(replace(query, 'RETURNING t.version', ''))) / 19 AS ops, left(regexp_replace(query, '\\s+', ' ', 'g'), 90) AS q
         FROM pg_stat_statements WHERE query NOT LIKE '%pg_stat_statements%' ORDER BY total_exec_time + total_plan_time DESC LIMIT 14`,
      );
      await session.post('Profiler.start');
      for (let i = 0; i < N; i++) await side[op](WARM + N + i);
      const { profile } = await session.post('Profiler.stop');
      lines.push(
        `\n${op} ${name}: wall ${wall.toFixed(0)} µs, app CPU ${((c.user + c.system) / N).toFixed(0)} µs (main thread ${(mainUs / N).toFixed(0)}, others ${(otherUs / N).toFixed(0)}), server CPU ${(s / N).toFixed(0)} µs, round trips ${tripsPer.toFixed(2)}, bytes sent ${w.toFixed(0)} B`,
      );
      const byPart = [...parts(profile as never)].sort((a, b) => b[1] - a[1]);
      for (const [part, us] of byPart.slice(0, 14)) lines.push(`  app ${part.padEnd(30)} ${(us / N).toFixed(0)} µs`);
      if (TOP && name === 'ours')
        for (const [f, us, all] of top(profile as never).slice(0, TOP))
          lines.push(
            `    fn ${(us / N).toFixed(0).padStart(4)} µs self ${(all / N).toFixed(0).padStart(5)} µs total ${f}`,
          );
      for (const r of st.rows)
        lines.push(
          `  pg ${r.toplevel ? 'top ' : 'nest'} ${(Number(r.us) / N).toFixed(0).padStart(5)} µs (plan ${(Number(r.plan) / N).toFixed(0)}) ${(Number(r.calls) / N).toFixed(2)}×, a call ${(Number(r.us) / Number(r.calls)).toFixed(0)} µs, slowest ${(Number(r.most) / 1000).toFixed(1)} ms${r.ops > 0 ? `, ${r.ops} ops` : ''}: ${r.q}`,
        );
    }
  }
  console.log(lines.join('\n'));
  pg.Client.prototype.query = query;
  await service.close();
  await rawPool.end();
  await admin.end();
  await server.stop();
}

await main();
