/**
 * HTTP benches' shared parts: a server in a child process (so it and autocannon each get a core) that
 * answers `GET /__stats` with the requests it served and its CPU time, and autocannon runs against it that
 * report requests/s and the server's CPU time per request (which a shared machine disturbs far less).
 */
import { spawn } from 'node:child_process';
import { createServer, type RequestListener } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';

export interface CannonResult {
  requests: { average: number; total: number };
  latency: { p50: number; p99: number; average: number };
  non2xx: number;
  errors: number;
}
type Autocannon = (opts: {
  url: string;
  connections: number;
  duration: number;
  pipelining?: number;
}) => Promise<CannonResult>;
// autocannon ships no types: this is the slice used here.
export const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

export const CONNECTIONS = 10;

/** The server half: serves `listener` on 127.0.0.1 with `/__stats` beside it, prints `READY <port>`, stops on SIGTERM. */
export function serveWithStats(
  listener: RequestListener,
  close: () => Promise<void>,
  extra: () => object = () => ({}),
): void {
  let served = 0;
  const server = createServer((req, res) => {
    if (req.url === '/__stats') {
      const cpu = process.cpuUsage();
      res.end(JSON.stringify({ requests: served, cpuMicros: cpu.user + cpu.system, ...extra() }));
      return;
    }
    served++;
    listener(req, res);
  });
  server.keepAliveTimeout = 30_000;
  server.listen(0, '127.0.0.1', () => console.log(`READY ${(server.address() as AddressInfo).port}`));
  process.on('SIGTERM', () => {
    server.closeAllConnections();
    server.close(() => void close().then(() => process.exit(0)));
  });
}

/** Starts a server script (run with tsx) in a child process; resolves with its port and a stop function. */
export async function startServer(
  script: string,
  args: string[],
): Promise<{ port: number; stop: () => Promise<void> }> {
  const child = spawn(process.execPath, ['--import', 'tsx', script, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<number>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /READY (\d+)/.exec(out);
      if (m) resolve(Number(m[1]));
    });
    child.once('exit', (code) => reject(new Error(`${script} ${args.join(' ')} exited (${code}) before listening`)));
  });
  const stop = () =>
    new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
  return { port, stop };
}

/** JIT and page cache. */
export async function warmUp(url: string): Promise<void> {
  await autocannon({ url, connections: CONNECTIONS, duration: 1 });
}

interface Stats {
  requests: number;
  cpuMicros: number;
  /** The HTTP helper's kept responses (http-server.ts). */
  kept?: { responses: number; bytes: number; maxBytes: number };
}
export const stats = async (origin: string) => (await (await fetch(`${origin}/__stats`)).json()) as Stats;

/** One autocannon run, plus the server's CPU time per request over it. */
export async function measure(
  origin: string,
  path: string,
  seconds: number,
): Promise<CannonResult & { cpuPerRequest: number }> {
  const before = await stats(origin);
  const r = await autocannon({ url: origin + path, connections: CONNECTIONS, duration: seconds });
  const after = await stats(origin);
  if (r.non2xx > 0 || r.errors > 0) throw new Error(`${path}: ${r.non2xx} non-2xx answers, ${r.errors} errors`);
  return { ...r, cpuPerRequest: (after.cpuMicros - before.cpuMicros) / (after.requests - before.requests) };
}
