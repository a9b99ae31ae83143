/**
 * A throwaway PgBouncer in transaction mode in front of a PostgreSQL server, as most deployments with many app
 * servers run it: Debian's `pgbouncer` (apt; 1.18, which carries no prepared statements), on a free 127.0.0.1
 * port, with a temp dir for its config. `BLOGCORE_PGBOUNCER` names another binary.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, serverUser } from './server.js';

export const PGBOUNCER = process.env.BLOGCORE_PGBOUNCER ?? '/usr/sbin/pgbouncer';

export interface PgBouncer {
  /** The pooled URL of each database given, by name. */
  urls: Record<string, string>;
  stop(): Promise<void>;
}

/** Waits until something accepts connections on the port. */
async function listening(port: number, child: ChildProcess, log: () => string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (child.exitCode !== null) throw new Error(`pgbouncer exited (${child.exitCode}): ${log()}`);
    const ok = await new Promise<boolean>((resolve) => {
      const s = connect(port, '127.0.0.1');
      s.once('connect', () => {
        s.end();
        resolve(true);
      });
      s.once('error', () => resolve(false));
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`pgbouncer did not listen on ${port}: ${log()}`);
}

/** PgBouncer (transaction pooling) in front of the servers the URLs name, one pooled database per URL. */
export async function startPgBouncer(targets: Record<string, string>): Promise<PgBouncer> {
  if (!existsSync(PGBOUNCER))
    throw new Error(
      `${PGBOUNCER} is missing: the PostgreSQL tests run PgBouncer in front of the server (apt-get install pgbouncer, or set BLOGCORE_PGBOUNCER)`,
    );
  const dir = mkdtempSync(join(tmpdir(), 'blogcore-pgbouncer-'));
  chmodSync(dir, 0o777);
  const port = await freePort();
  const databases = Object.entries(targets).map(([name, url]) => {
    const u = new URL(url);
    const password = decodeURIComponent(u.password);
    return `${name} = host=${u.hostname} port=${u.port || 5432} dbname=${u.pathname.slice(1) || 'postgres'} user=${decodeURIComponent(u.username)}${password ? ` password=${password}` : ''}`;
  });
  const user = decodeURIComponent(new URL(Object.values(targets)[0]!).username);
  writeFileSync(join(dir, 'users.txt'), `"${user}" ""\n`, { mode: 0o644 });
  writeFileSync(
    join(dir, 'pgbouncer.ini'),
    [
      '[databases]',
      ...databases,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = trust',
      `auth_file = ${join(dir, 'users.txt')}`,
      'pool_mode = transaction',
      'max_client_conn = 1000',
      'default_pool_size = 40',
      'server_reset_query =',
      // A server that is down (a killed standby) fails the queries waiting for it within seconds, not minutes,
      // and is tried again a second later.
      'query_wait_timeout = 5',
      'server_connect_timeout = 3',
      'server_login_retry = 1',
      'ignore_startup_parameters = extra_float_digits',
      '',
    ].join('\n'),
    { mode: 0o644 },
  );
  // As root, PgBouncer refuses to run unless told whom to run as.
  const as = serverUser();
  const child = spawn(PGBOUNCER, [...(as ? ['-u', as] : []), join(dir, 'pgbouncer.ini')], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let log = '';
  child.stderr!.on('data', (b: Buffer) => {
    if (log.length < 20_000) log += b.toString();
  });
  const crash = () => child.kill('SIGKILL');
  process.once('exit', crash);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await listening(port, child, () => log.trim().split('\n').slice(-3).join(' | '));
  const pooled = (name: string) => {
    const u = new URL(targets[name]!);
    u.port = String(port);
    u.pathname = `/${name}`;
    return u.toString();
  };
  return {
    urls: Object.fromEntries(Object.keys(targets).map((name) => [name, pooled(name)])),
    async stop() {
      // SIGINT: shut down at once, dropping the server connections.
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGINT');
      await exited;
      process.removeListener('exit', crash);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
