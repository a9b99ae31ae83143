/**
 * Vitest globalSetup: a throwaway PostgreSQL for the PostgreSQL suites (server.ts), and PgBouncer in front of it
 * (bouncer.ts), stopped afterwards. `BLOGCORE_TEST_PG_URL` points the tests at another server instead (then only
 * PgBouncer is started). Test files reach the URLs through `inject('pgUrl')` and `inject('pgBouncerUrl')` (env.ts).
 */
import type { TestProject } from 'vitest/node';
import { startPgBouncer } from './bouncer.js';
import { startPostgres } from './server.js';

declare module 'vitest' {
  export interface ProvidedContext {
    pgUrl: string;
    /** The same server through PgBouncer in transaction mode (bouncer.ts). */
    pgBouncerUrl: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const given = process.env.BLOGCORE_TEST_PG_URL;
  const server = given ? undefined : await startPostgres();
  const url = given ?? server!.url;
  project.provide('pgUrl', url);
  const bouncer = await startPgBouncer({ [new URL(url).pathname.slice(1) || 'postgres']: url });
  project.provide('pgBouncerUrl', Object.values(bouncer.urls)[0]!);
  return async () => {
    await bouncer.stop();
    await server?.stop();
  };
}
