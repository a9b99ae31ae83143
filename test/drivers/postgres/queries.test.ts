/**
 * The `psql` queries docs/postgres.md shows a DBA, run as written (the store's schema and the ids put in) against a
 * store blogcore wrote: a blog's posts newest first, its LIVE posts with a label, its label counts, a post's
 * comments and the blog's recent changes.
 */
import { readFileSync } from 'node:fs';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { postgresDriver } from '../../../drivers/postgres/index.js';
import { createBlogService } from '../../../src/index.js';
import { dropOwnSchemas, freshSchema, pgUrl } from './env.js';

const admin = new pg.Pool({ connectionString: pgUrl(), max: 2 });
afterAll(async () => {
  await admin.end();
  await dropOwnSchemas();
});

/** Each documented `psql "$DATABASE_URL" -c "…"` command's SQL, as the shell would pass it. */
const DOCUMENTED = readFileSync('docs/postgres.md', 'utf8')
  .split('\n')
  .filter((line) => line.startsWith('psql "$DATABASE_URL" -c "'))
  .map((line) => line.slice('psql "$DATABASE_URL" -c "'.length, -1).replace(/\\"/g, '"'));

describe('the documented psql queries', () => {
  it('list a blog and its posts as the service does', async () => {
    expect(DOCUMENTED.length).toBeGreaterThanOrEqual(5);
    const schema = freshSchema('psql');
    const service = createBlogService({ driver: postgresDriver({ connectionString: pgUrl(), schema, max: 2 }) });
    const owner = await service.users.insert({ body: { displayName: 'Owner' } });
    const blog = await service.blogs.insert({
      body: { name: 'Queried', url: 'https://queried.example/' },
      ownerId: owner.id!,
    });
    const blogId = blog.id!;
    const written = [];
    for (let i = 0; i < 25; i++)
      written.push(
        await service.posts.insert({
          blogId,
          body: {
            title: `Post ${i}`,
            content: `<p>${i}</p>`,
            labels: i % 2 ? ['news'] : ['notes'],
            published: new Date(Date.UTC(2026, 0, 1 + i)).toISOString(),
          },
          isDraft: i === 24,
        }),
      );
    const post = written[23]!;
    await service.comments.insert({ blogId, postId: post.id!, body: { content: 'First!' } });
    const run = async (sql: string) =>
      (
        await admin.query(
          sql.replaceAll('blogcore.', `"${schema}".`).replaceAll('$BLOG_ID', blogId).replaceAll('$POST_ID', post.id!),
        )
      ).rows;
    const [posts, labelled, counts, comments, changes] = await Promise.all(DOCUMENTED.map(run));
    // The blog's 20 newest posts, the draft included (the query names no status), as stored.
    const newest = [...written].reverse().slice(0, 20);
    expect(posts!.map((r) => [r.id, r.title, r.status])).toEqual(newest.map((p) => [p.id, p.title, p.status]));
    expect(posts![1]!.published).toBe(written[23]!.published);
    // Its LIVE posts labelled news, newest first: what the service's label filter answers.
    const served = await service.posts.list({ blogId, labels: 'news', maxResults: 20 });
    expect(labelled!.map((r) => r.id)).toEqual(served.items!.map((p) => p.id));
    expect(counts).toEqual([
      { label: 'news', live: '12', all: '12' },
      { label: 'notes', live: '12', all: '13' },
    ]);
    expect(comments!.map((r) => [r.status, r.content])).toEqual([['LIVE', 'First!']]);
    expect(changes!.length).toBe(20);
    expect(changes![0]).toMatchObject({ type: 'put', coll: expect.any(Number) });
    await service.close();
  });
});
