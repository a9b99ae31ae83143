import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { sqliteDriver } from '../../drivers/sqlite/index.js';
import { runBoundedSuite } from './bounded.js';
import { runDriverSuite } from './suite.js';

const dir = mkdtempSync(join(tmpdir(), 'blogcore-sqlite-suite-'));
let n = 0;
afterAll(() => rmSync(dir, { recursive: true, force: true }));

runDriverSuite('sqlite file', () => sqliteDriver({ filename: join(dir, `suite-${n++}.db`) }));
runBoundedSuite('sqlite file', () => sqliteDriver({ filename: join(dir, `suite-${n++}.db`) }));
runDriverSuite('sqlite :memory:', () => sqliteDriver({ filename: ':memory:' }));
runBoundedSuite('sqlite :memory:', () => sqliteDriver({ filename: ':memory:' }));
