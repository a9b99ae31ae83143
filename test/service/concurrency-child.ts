/**
 * One of several processes writing to one store at once (concurrency.test.ts): `count` posts labelled `news`,
 * `count` comments on one post and `count` page views, all in parallel; prints `ok` when every write succeeded.
 * Usage: node --import tsx test/service/concurrency-child.ts sqlite|postgres <file|url#schema> <blogId> <postId> <count> <n>
 */
import { postgresDriver } from '../../drivers/postgres/index.js';
import { sqliteDriver } from '../../drivers/sqlite/index.js';
import { createBlogService } from '../../src/index.js';

const [kind, at, blogId, postId, count, me] = process.argv.slice(2) as [string, string, string, string, string, string];
const driver =
  kind === 'sqlite'
    ? sqliteDriver({ filename: at })
    : postgresDriver({ connectionString: at.split('#')[0]!, schema: at.split('#')[1]! });
const service = createBlogService({ driver });
const writes: Array<Promise<unknown>> = [];
for (let i = 0; i < Number(count); i++) {
  writes.push(service.posts.insert({ blogId, body: { title: `From ${me}: ${i}`, content: 'x', labels: ['news'] } }));
  writes.push(service.comments.insert({ blogId, postId, body: { content: `From ${me}: ${i}` } }));
  writes.push(service.pageViews.record({ blogId }));
}
const failed = (await Promise.allSettled(writes)).filter((r) => r.status === 'rejected');
await service.close();
if (failed.length) {
  console.error(failed.map((r) => String((r as PromiseRejectedResult).reason)).join('\n'));
  process.exit(1);
}
console.log('ok');
