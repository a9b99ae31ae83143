import { afterAll } from 'vitest';
import { postgresDriver } from '../../drivers/postgres/index.js';
import { runBoundedSuite } from './bounded.js';
import { runDriverSuite } from './suite.js';
import { dropOwnSchemas, freshSchema, pgUrl } from './postgres/env.js';

afterAll(() => dropOwnSchemas());

runDriverSuite('postgres', () => postgresDriver({ connectionString: pgUrl(), schema: freshSchema('suite'), max: 4 }));
runBoundedSuite('postgres', () => postgresDriver({ connectionString: pgUrl(), schema: freshSchema('suite'), max: 4 }));
