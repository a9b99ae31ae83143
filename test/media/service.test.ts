/** The service media suite on memory, SQLite, IndexedDB (fake-indexeddb) and PostgreSQL. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import 'fake-indexeddb/auto';
import { IDBFactory } from 'fake-indexeddb';
import { afterAll } from 'vitest';
import { memoryDriver } from '../../drivers/memory/index.js';
import { sqliteDriver } from '../../drivers/sqlite/index.js';
import { idbDriver } from '../../drivers/idb/index.js';
import { postgresDriver } from '../../drivers/postgres/index.js';
import { pgUrl, tracked } from '../drivers/postgres/env.js';
import { runMediaSuite } from './suite.js';

const dir = mkdtempSync(join(tmpdir(), 'blogcore-media-'));
let n = 0;
const pg = tracked((schema) => postgresDriver({ connectionString: pgUrl(), schema, max: 3 }), 'media');
afterAll(async () => {
  await pg.dropAll();
  rmSync(dir, { recursive: true, force: true });
});

runMediaSuite('memory', () => memoryDriver());
runMediaSuite('sqlite', () => sqliteDriver({ filename: join(dir, `media-${++n}.db`) }));
runMediaSuite('idb (fake-indexeddb)', () => idbDriver({ name: `media-${++n}`, indexedDB: new IDBFactory() }));
runMediaSuite('postgres', () => pg.make());
