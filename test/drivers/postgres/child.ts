/**
 * One app server process for the multi-process PostgreSQL tests (test/drivers/postgres/processes.test.ts), driven by argv:
 *   rmw <url> <schema> <blogId> <postId> <successes> <total>   read-modify-write with ifMatch until `successes`
 *       writes went through; listens to post.updated and reports what it saw once `total` arrived
 *   open <url> <schema>                                          opens the store (migrations) and reports
 *   crash <url> <schema>                                         commits 20-record batches until killed
 *   insert <url> <schema> <blogId>                               inserts posts titled "<pid>-<n>" until killed
 * It prints "ready" when listening, waits for "go" on stdin, and ends with one JSON line.
 */
import { createInterface } from 'node:readline';
import { postgresDriver } from '../../../drivers/postgres/index.js';
import { BlogError, createBlogService } from '../../../src/index.js';
import { crashSchema, crashBatch } from './crash.js';

const [mode, url, schema, ...rest] = process.argv.slice(2) as [string, string, string, ...string[]];
const lines = createInterface({ input: process.stdin });
const go = new Promise<void>((resolve) => lines.on('line', (l) => l === 'go' && resolve()));
const say = (x: unknown) => process.stdout.write(`${typeof x === 'string' ? x : JSON.stringify(x)}\n`);

if (mode === 'rmw') {
  const [blogId, postId, wanted, total] = [rest[0]!, rest[1]!, Number(rest[2]), Number(rest[3])];
  const service = createBlogService({ driver: postgresDriver({ connectionString: url, schema, max: 3 }) });
  const seen = new Map<string, number>();
  let allSeen: () => void = () => {};
  const complete = new Promise<void>((r) => (allSeen = r));
  service.on('post.updated', (e) => {
    if (e.id !== postId) return;
    const title = (e.resource as { title: string }).title;
    seen.set(title, (seen.get(title) ?? 0) + 1);
    if (seen.size >= total) allSeen();
  });
  await service.ready();
  say('ready');
  await go;
  let successes = 0;
  let refused = 0;
  while (successes < wanted) {
    const post = await service.posts.get({ blogId, postId });
    const n = Number(post.title!.split(' ')[1]);
    try {
      await service.posts.patch({ blogId, postId, ifMatch: post.etag, body: { title: `count ${n + 1}` } });
      successes++;
    } catch (error) {
      if (!(BlogError.is(error) && error.code === 412)) throw error;
      refused++;
    }
  }
  await Promise.race([complete, new Promise((r) => setTimeout(r, 60_000))]);
  say({ successes, refused, seen: [...seen] });
  await service.close();
} else if (mode === 'open') {
  say('ready');
  await go;
  const service = createBlogService({ driver: postgresDriver({ connectionString: url, schema, max: 2 }) });
  await service.ready();
  const u = await service.users.insert({ body: { displayName: `p${process.pid}` } });
  say({ user: u.id });
  await service.close();
} else if (mode === 'insert') {
  // BLOGCORE_PG_ROUTE: how to reach the store (env.ts ROUTES), e.g. through PgBouncer.
  const route = JSON.parse(process.env.BLOGCORE_PG_ROUTE ?? '{}') as Record<string, unknown>;
  const service = createBlogService({
    driver: postgresDriver({ connectionString: url, ...route, schema, max: 4 }),
  });
  await service.ready();
  say('ready');
  // Four writes in flight at a time, so a kill lands in the middle of some of them.
  let n = 0;
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      for (;;) {
        const title = `${process.pid}-${n++}`;
        await service.posts.insert({ blogId: rest[0]!, body: { title, content: '<p>x</p>' } });
        say(title);
      }
    }),
  );
} else if (mode === 'crash') {
  const d = postgresDriver({ connectionString: url, schema, max: 2 });
  await d.open(crashSchema);
  say('ready');
  for (let batch = 0; ; batch++) {
    await d.commit(crashBatch(process.pid, batch));
    say(String(batch));
  }
}
lines.close();
