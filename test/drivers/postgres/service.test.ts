/**
 * The service behaviour tests (test/service/*), unchanged, on the PostgreSQL driver: each store in its own
 * schema, its driver closed after the test.
 */
import { afterAll, afterEach } from 'vitest';
import { postgresDriver } from '../../../drivers/postgres/index.js';
import { pgUrl, tracked } from './env.js';
import { useDriver } from '../../service/helpers.js';

const stores = tracked((schema) => postgresDriver({ connectionString: pgUrl(), schema, max: 3 }), 'svc');
useDriver(() => stores.make());
afterEach(() => stores.closeAll());
afterAll(() => stores.dropAll());

await import('../../service/access.test.js');
await import('../../service/bad-input.test.js');
await import('../../service/events.test.js');
await import('../../service/operations.test.js');
await import('../../service/paging.test.js');
await import('../../service/states.test.js');
await import('../../service/userinfos.test.js');
await import('../../service/revisions.test.js');
