/**
 * Every driver the service suites run on, the kysely way: each suite file is
 *
 *   describe.each(DRIVERS)('posts on %s', (_name, makeDriver) => { … world(makeDriver()) … });
 *
 * `makeDriver()` answers a new, empty store: memory; a SQLite file in a folder of the test file's own;
 * IndexedDB in fake-indexeddb (the driver suite also runs in Chromium: test/drivers/idb.browser.test.ts); a
 * schema on the PostgreSQL test server (test/drivers/postgres/), emptied after each test for the next one.
 * Importing this module registers the hooks that close and clean up what its file opened.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import 'fake-indexeddb/auto';
import { IDBFactory } from 'fake-indexeddb';
import { afterAll, afterEach } from 'vitest';
import { memoryDriver } from '../../drivers/memory/index.js';
import { sqliteDriver } from '../../drivers/sqlite/index.js';
import { idbDriver } from '../../drivers/idb/index.js';
import { postgresDriver } from '../../drivers/postgres/index.js';
import type { StorageDriver } from '../../src/store/driver.js';
import { reusedStores } from '../drivers/postgres/env.js';

export type DriverFactory = () => StorageDriver;

let dir: string | undefined;
let n = 0;
const opened: StorageDriver[] = [];
const pg = reusedStores(({ schema, pool }) => postgresDriver({ pool, schema }), 'svc');
/** A store lives for one test: closed after it (a closed driver may be closed again). */
const kept = (driver: StorageDriver): StorageDriver => {
  opened.push(driver);
  return driver;
};
afterEach(async () => {
  await Promise.all(opened.splice(0).map((d) => d.close().catch(() => undefined)));
  await pg.release();
});
afterAll(async () => {
  await pg.dropAll();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

export const DRIVERS: ReadonlyArray<readonly [name: string, make: DriverFactory]> = [
  ['memory', () => kept(memoryDriver())],
  [
    'sqlite',
    () =>
      kept(
        sqliteDriver({ filename: join((dir ??= mkdtempSync(join(tmpdir(), 'blogcore-drivers-'))), `store-${++n}.db`) }),
      ),
  ],
  ['idb', () => kept(idbDriver({ name: `store-${++n}`, indexedDB: new IDBFactory() }))],
  ['postgres', () => pg.make()],
];
