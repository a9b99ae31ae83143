/**
 * A page read is planned once per connection: its prepared statement keeps PostgreSQL's generic plan instead
 * of being planned again for every page (reads.ts `unseen`). A blog whose posts are nearly all LIVE is the case
 * that made PostgreSQL plan each read anew: a generic plan guesses a status matches half the posts.
 */
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { postgresDriver } from '../../../drivers/postgres/index.js';
import { createBlogService } from '../../../src/index.js';
import { dropOwnSchemas, freshSchema, pgUrl } from './env.js';

const pool = new pg.Pool({ connectionString: pgUrl(), max: 1 });
afterAll(async () => {
  await pool.end();
  await dropOwnSchemas();
});

describe('postgres: page reads', () => {
  it('keep their generic plans: a list, a page after it, a label filter and two statuses are not planned again each time', async () => {
    const schema = freshSchema('plans');
    const service = createBlogService({ driver: postgresDriver({ connectionString: pgUrl(), schema, max: 2 }) });
    const owner = await service.users.insert({ body: { displayName: 'Owner' } });
    const blogId = (
      await service.blogs.insert({ body: { name: 'Plans', url: 'https://plans.example/' }, ownerId: owner.id! })
    ).id!;
    for (let i = 0; i < 300; i++)
      await service.posts.insert({
        blogId,
        body: { title: `Post ${i}`, content: `<p>Body ${i}</p>`, labels: i % 3 ? ['common'] : ['rare', 'common'] },
        isDraft: i % 20 === 0,
      });
    await service.close();
    await pool.query(`ANALYZE "${schema}".posts`);
    // A reader on a connection of its own (one), whose prepared statements are then looked at.
    const reader = createBlogService({ driver: postgresDriver({ pool, schema, shareEvents: false }) });
    for (let round = 0; round < 30; round++) {
      const first = await reader.posts.list({ blogId, maxResults: 10 });
      const next = await reader.posts.list({ blogId, maxResults: 10, pageToken: first.nextPageToken! });
      const labelled = await reader.posts.list({ blogId, maxResults: 10, labels: ['common'] });
      const both = await reader.posts.list({ blogId, maxResults: 10, status: ['LIVE', 'DRAFT'], view: 'ADMIN' });
      expect([first, next, labelled, both].map((page) => page.items?.length)).toEqual([10, 10, 10, 10]);
    }
    const { rows } = await pool.query<{ statement: string; generic_plans: string; custom_plans: string }>(
      `SELECT statement, generic_plans, custom_plans FROM pg_prepared_statements WHERE statement LIKE '%ORDER BY%'`,
    );
    expect(rows.length).toBeGreaterThanOrEqual(4);
    expect(rows.filter((r) => Number(r.custom_plans) > 5).map((r) => r.statement)).toEqual([]);
    await reader.close();
  });
});
