/**
 * HTTP through the helper with 1 and 2 app processes on one PostgreSQL (postgres.bench.ts runs it): requests/s
 * for GET one post and a 20-post list, autocannon with 10 connections in all (split over the processes).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BenchContext } from './harness.js';

interface CannonResult {
  requests: { average: number; total: number };
  non2xx: number;
  errors: number;
}
type Autocannon = (opts: { url: string; connections: number; duration: number }) => Promise<CannonResult>;
const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;
const here = dirname(fileURLToPath(import.meta.url));
const CONNECTIONS = 10;

function start(url: string, schema: string): Promise<{ child: ChildProcess; origin: string }> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', join(here, 'postgres-http-server.ts'), `--url=${url}`, `--schema=${schema}`],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (b: Buffer) => {
      out += b.toString();
      const m = /READY (\d+)/.exec(out);
      if (m) resolve({ child, origin: `http://127.0.0.1:${m[1]}` });
    });
    child.on('exit', (code) => reject(new Error(`app server exited (${code})`)));
  });
}

/** Requests/s over all the servers at once, each taking its share of the connections. */
async function rate(origins: string[], path: string, seconds: number): Promise<number> {
  const results = await Promise.all(
    origins.map((o) =>
      autocannon({ url: o + path, connections: Math.ceil(CONNECTIONS / origins.length), duration: seconds }),
    ),
  );
  if (results.some((r) => r.non2xx || r.errors))
    throw new Error(`HTTP errors: ${JSON.stringify(results.map((r) => [r.non2xx, r.errors]))}`);
  return results.reduce((s, r) => s + r.requests.total, 0) / seconds;
}

export async function httpRows(
  url: string,
  schema: string,
  blogId: string,
  postId: string,
  ctx: BenchContext,
): Promise<string[]> {
  const seconds = Number(ctx.args['http-seconds'] ?? (ctx.quick ? 1 : 3));
  const out: string[] = [];
  for (const processes of [1, 2]) {
    const servers = await Promise.all(Array.from({ length: processes }, () => start(url, schema)));
    try {
      const origins = servers.map((s) => s.origin);
      await rate(origins, `/v3/blogs/${blogId}/posts/${postId}`, 1); // warm-up
      const one = await rate(origins, `/v3/blogs/${blogId}/posts/${postId}`, seconds);
      const list = await rate(origins, `/v3/blogs/${blogId}/posts?maxResults=20`, seconds);
      out.push(
        `HTTP, ${processes} app process${processes > 1 ? 'es' : ''} on one PostgreSQL: GET one post ${one.toFixed(0)} req/s, list of 20 ${list.toFixed(0)} req/s`,
      );
    } finally {
      for (const s of servers) s.child.kill('SIGTERM');
      await Promise.all(
        servers.map((s) => new Promise((r) => (s.child.exitCode !== null ? r(null) : s.child.once('exit', r)))),
      );
    }
  }
  return out;
}
