/**
 * The PostgreSQL driver behind PgBouncer in transaction mode (Debian's 1.18: no prepared statements carried):
 * both suites through the pooler, with `preparedStatements: false`; and a driver that is not told still works,
 * naming no statements once the pooler shows itself.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { postgresDriver } from '../../drivers/postgres/index.js';
import { createBlogService } from '../../src/index.js';
import { runBoundedSuite } from './bounded.js';
import { runDriverSuite } from './suite.js';
import { dropOwnSchemas, freshSchema, pgBouncerUrl } from './postgres/env.js';

afterAll(() => dropOwnSchemas());

const pooled = () =>
  postgresDriver({
    connectionString: pgBouncerUrl(),
    schema: freshSchema('pooled'),
    max: 4,
    preparedStatements: false,
  });

runDriverSuite('postgres behind PgBouncer', pooled);
runBoundedSuite('postgres behind PgBouncer', pooled);

describe('postgres behind PgBouncer, not told', () => {
  it('serves every call: statements a pooled server connection does not have are sent again unnamed', async () => {
    const service = createBlogService({
      driver: postgresDriver({ connectionString: pgBouncerUrl(), schema: freshSchema('untold'), max: 4 }),
    });
    const owner = await service.users.insert({ body: { displayName: 'Owner' } });
    const blog = await service.blogs.insert({
      body: { name: 'Pooled', url: 'https://pooled.example/' },
      ownerId: owner.id,
    });
    // Side by side, so the pool's connections meet the pooler's server connections in every combination.
    const posts = await Promise.all(
      Array.from({ length: 24 }, (_, i) =>
        service.posts.insert({ blogId: blog.id!, body: { title: `Post ${i}`, content: '<p>x</p>', labels: ['a'] } }),
      ),
    );
    const read = await Promise.all(posts.map((p) => service.posts.get({ blogId: blog.id!, postId: p.id! })));
    expect(read.map((p) => p.title)).toEqual(posts.map((p) => p.title));
    expect((await service.posts.list({ blogId: blog.id!, labels: 'a', maxResults: 30 })).items).toHaveLength(24);
    await service.close();
  });
});
