/**
 * A look at the change log asked in the same turn as a read rides on that read's statement (connect.ts `look`):
 * the read answers exactly what it answers alone, in order, and the look the log's bounds as a look alone.
 */
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { postgresDriver } from '../../../drivers/postgres/index.js';
import { createBlogService } from '../../../src/index.js';
import { dropOwnSchemas, freshSchema, pgUrl } from './env.js';

afterAll(dropOwnSchemas);

describe('postgres: the look at the log rides on a read of the same turn', () => {
  it('answers as the two apart, in one statement', async () => {
    const pool = new pg.Pool({ connectionString: pgUrl(), max: 4 });
    let statements = 0;
    pool.on('connect', (client) => {
      const query = client.query.bind(client) as (...args: unknown[]) => unknown;
      (client as unknown as { query: typeof query }).query = (...args) => {
        statements++;
        return query(...args);
      };
    });
    const driver = postgresDriver({ pool, schema: freshSchema('look') });
    const service = createBlogService({ driver });
    const owner = await service.users.insert({ body: { displayName: 'Owner' } });
    const blogId = (
      await service.blogs.insert({ body: { name: 'B', url: 'https://look.example/' }, ownerId: owner.id! })
    ).id!;
    for (let i = 0; i < 7; i++)
      await service.posts.insert({
        blogId,
        body: {
          title: `Post ${i}`,
          content: `<p>${i}</p>`,
          published: new Date(Date.UTC(2026, 0, 1 + i)).toISOString(),
        },
      });
    const page = {
      collection: 'posts',
      index: 'published',
      prefix: [blogId, 'LIVE'],
      direction: 'desc',
      limit: 5,
    } as const;
    const alone = { list: await driver.list(page), bounds: await driver.logBounds() };
    const missing = {
      collection: 'posts',
      index: 'published',
      prefix: [blogId, 'DRAFT'],
      direction: 'desc',
      limit: 5,
    } as const;

    statements = 0;
    const [bounds, list] = await Promise.all([driver.logBounds(), driver.list(page)]);
    expect(statements).toBe(1);
    expect(bounds).toEqual(alone.bounds);
    expect(list.map((d) => d.id)).toEqual(alone.list.map((d) => d.id));
    expect(list).toEqual(alone.list);
    expect(list.map((d) => d.doc.title)).toEqual(['Post 6', 'Post 5', 'Post 4', 'Post 3', 'Post 2']);

    // A read that finds nothing still carries the look.
    statements = 0;
    const [again, none, gone] = await Promise.all([
      driver.logBounds(),
      driver.list(missing),
      driver.get('posts', 'nope'),
    ]);
    expect(statements).toBe(2);
    expect(again).toEqual(alone.bounds);
    expect(none).toEqual([]);
    expect(gone).toBeUndefined();

    // A look with no read in its turn goes alone, and sees a commit made since.
    await service.posts.insert({ blogId, body: { title: 'Later' } });
    const after = await driver.logBounds();
    expect(after.newest).toBeGreaterThan(alone.bounds.newest);
    await service.close();
    await pool.end();
  });
});
