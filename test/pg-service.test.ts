/**
 * The service behaviour tests (test/service/*), unchanged, on the PostgreSQL driver: each test gets a store
 * in its own schema on one host-owned Pool (which the drivers must leave open), closed after the test.
 */
import pg from 'pg';
import { afterAll, afterEach } from 'vitest';
import { postgresDriver } from '../drivers/postgres/index.js';
import { pgUrl, tracked } from './postgres/env.js';
import { useDriver } from './service/helpers.js';

const pool = new pg.Pool({ connectionString: pgUrl(), max: 4 });
const stores = tracked((schema) => postgresDriver({ pool, schema }), 'svc');
useDriver(() => stores.make());
afterEach(() => stores.closeAll());
afterAll(async () => {
  await stores.dropAll();
  await pool.end();
});

await import('./service/access.test.js');
await import('./service/bad-input.test.js');
await import('./service/events.test.js');
await import('./service/operations.test.js');
await import('./service/paging.test.js');
await import('./service/states.test.js');
