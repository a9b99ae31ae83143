/**
 * Vitest globalSetup: a throwaway PostgreSQL for the PostgreSQL suites (server.ts), stopped afterwards.
 * `BLOGCORE_TEST_PG_URL` points the tests at another server instead (nothing is started then). Test files
 * reach the URL through `inject('pgUrl')` (env.ts).
 */
import type { TestProject } from 'vitest/node';
import { startPostgres } from './server.js';

declare module 'vitest' {
  export interface ProvidedContext {
    pgUrl: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const given = process.env.BLOGCORE_TEST_PG_URL;
  if (given) {
    project.provide('pgUrl', given);
    return async () => {};
  }
  const server = await startPostgres();
  project.provide('pgUrl', server.url);
  return () => server.stop();
}
