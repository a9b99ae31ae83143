/**
 * `posts.get` on PostgreSQL, where the look at the change log costs a round trip: the look, the caller's
 * membership and the post are read side by side and the rest answered in one step (src/resources/post-now.ts
 * `postsGetSoon`), the blog and author coming from the record cache. The cases of test/service/get-cases.ts:
 * another app server's changes seen by the next get, directly and behind PgBouncer; own writes; each refusal
 * the full path's; a post due to be published.
 */
import { afterAll, afterEach, describe, expect, test } from 'vitest';
import { postgresDriver } from '../../../drivers/postgres/index.js';
import { type BlogService, createBlogService } from '../../../src/index.js';
import { fill, publishesWhenDue, readsOwnWritesAndRefuses, seesOthersChanges } from '../../service/get-cases.js';
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

  test('a burst of reads in one turn, sharing one connection, each answers its own post', async () => {
    const service = make(freshSchema('get'));
    const { blogId } = await fill(service);
    const ids: string[] = [];
    for (let i = 0; i < 30; i++) ids.push((await service.posts.insert({ blogId, body: { title: `P${i}` } })).id);
    const got = await Promise.all([
      ...ids.map((postId) => service.posts.get({ blogId, postId })),
      service.posts.list({ blogId, maxResults: 5 }),
      service.posts.get({ blogId, postId: 'nope' }).catch((e: { code: number }) => e.code),
    ]);
    expect(got.slice(0, 30).map((p) => (p as { title: string }).title)).toEqual(ids.map((_, i) => `P${i}`));
    expect((got[30] as { items: unknown[] }).items).toHaveLength(5);
    expect(got[31]).toBe(404);
  });

  test('a scheduled post whose time has come is read LIVE, and published once', async () => {
    const schema = freshSchema('get');
    await publishesWhenDue((now) => make(schema, now));
  });
});
