/**
 * The content-lifecycle service tests (revisions, user infos and page views) on the SQLite driver: each store
 * a new file. (Label counts run on every driver in test/service/labels.test.ts.)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { sqliteDriver } from '../../../drivers/sqlite/index.js';
import { useDriver } from '../../service/helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'blogcore-sqlite-lifecycle-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
useDriver(() => sqliteDriver({ filename: join(dir, `store-${++n}.db`) }));

await import('../../service/revisions.test.js');
await import('../../service/userinfos.test.js');
