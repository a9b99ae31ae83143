/**
 * `posts.get` on PostgreSQL, where the look at the change log costs a round trip: the look, the caller's
 * membership and the post are read side by side and the rest answered in one step (src/resources/post-now.ts
 * `postsGetSoon`), the blog and author coming from the record cache. The cases of test/service/get-cases.ts:
 * another app server's changes seen by the next get, directly and behind PgBouncer; own writes; each refusal
 * the full path's; a post due to be published.
 */
import { afterAll, afterEach, describe, test } from 'vitest';
import { postgresDriver } from '../../../drivers/postgres/index.js';
import { type BlogService, createBlogService } from '../../../src/index.js';
import { publishesWhenDue, readsOwnWritesAndRefuses, seesOthersChanges } from '../../service/get-cases.js';
import { dropOwnSchemas, freshSchema, ROUTES } from './env.js';

const open: BlogService[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
});
afterAll(dropOwnSchemas);

describe.each(ROUTES)('posts.get on PostgreSQL, %s', (_name, route) => {
  const make = (schema: string, now?: () => Date) => {
    const service = createBlogService({
      driver: postgresDriver({ ...route(), schema, max: 4 }),
      ...(now ? { now } : {}),
    });
    open.push(service);
    return service;
  };

  test("the next get shows another app server's change to the blog, the author, a role and the post", async () => {
    const schema = freshSchema('get');
    await seesOthersChanges(make(schema), make(schema));
  });

  test('reads its own writes, and refuses as the full path does', async () => {
    await readsOwnWritesAndRefuses(make(freshSchema('get')));
  });

  test('a scheduled post whose time has come is read LIVE, and published once', async () => {
    const schema = freshSchema('get');
    await publishesWhenDue((now) => make(schema, now));
  });
});
