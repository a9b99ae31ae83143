import { postgresDriver } from '../drivers/postgres/index.js';
import { runDriverSuite } from './driver-suite.js';
import { freshSchema, pgUrl } from './postgres/env.js';

runDriverSuite('postgres', () => postgresDriver({ connectionString: pgUrl(), schema: freshSchema('suite'), max: 4 }));
