/**
 * `posts.get` answered in one synchronous step where the driver reads at once (src/resources/post-now.ts: SQLite,
 * memory). The blog and the author come from the record cache there, so these check that what another connection
 * to the same SQLite file changed is seen by the very next get (the blog's url, the author's name, a member's role,
 * the blog's deletion), that this process's own writes are, and that each refusal is the full path's.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, test } from 'vitest';
import { memoryDriver } from '../../drivers/memory/index.js';
import { sqliteDriver } from '../../drivers/sqlite/index.js';
import { type BlogService, createBlogService } from '../../src/index.js';
import { publishesWhenDue, readsOwnWritesAndRefuses, seesOthersChanges } from './get-cases.js';

const dir = mkdtempSync(join(tmpdir(), 'blogcore-get-at-once-'));
let n = 0;
const open: BlogService[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Two services on one SQLite file: two connections, as two processes have. */
function twoOnOneFile(): [BlogService, BlogService] {
  const file = join(dir, `store-${++n}.db`);
  const a = createBlogService({ driver: sqliteDriver({ filename: file }) });
  const b = createBlogService({ driver: sqliteDriver({ filename: file }) });
  open.push(a, b);
  return [a, b];
}

describe('posts.get at once, on SQLite with another connection writing', () => {
  test("the next get shows the other connection's change to the blog, the author, a role and the post", async () => {
    const [a, b] = twoOnOneFile();
    await seesOthersChanges(a, b);
  });
});

describe.each([
  ['memory', () => memoryDriver()],
  ['sqlite', () => sqliteDriver({ filename: join(dir, `store-${++n}.db`) })],
])('posts.get at once on %s', (_name, driver) => {
  const make = (now?: () => Date) => {
    const service = createBlogService({ driver: driver(), ...(now ? { now } : {}) });
    open.push(service);
    return service;
  };
  test('reads its own writes, and refuses as the full path does', async () => {
    await readsOwnWritesAndRefuses(make());
  });

  test('a scheduled post whose time has come is read LIVE, and published once', async () => {
    await publishesWhenDue(make);
  });
});
