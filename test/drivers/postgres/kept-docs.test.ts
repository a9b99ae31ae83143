/**
 * Documents a PostgreSQL read leaves out where the driver keeps them as stored (drivers/postgres/reads.ts
 * `docColumns`): a page read again sends no text of the posts that did not change, and still answers each as it
 * is stored now — after another app server's change or delete, and when a kept document is pushed out while the
 * read is on its way. (A record deleted and made again under its id, its version starting over, is the
 * conformance suite's: test/drivers/suite.ts.)
 */
import { afterAll, afterEach, describe, expect, test } from 'vitest';
import type { Connection } from '../../../drivers/postgres/connect.js';
import { postgresDriver } from '../../../drivers/postgres/index.js';
import { list } from '../../../drivers/postgres/reads.js';
import { type BlogService, createBlogService } from '../../../src/index.js';
import { dropOwnSchemas, freshSchema, ROUTES } from './env.js';

const open: BlogService[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
});
afterAll(dropOwnSchemas);

/**
 * A service on the store, and the posts' texts each of its reads of posts was sent back (a blog or user read again
 * after another server's write is not counted). One post per test: a post is kept from its fourth read unless
 * another row shares its slot in the table that counts reads (drivers/shared/parsed-docs.ts), which two posts
 * might.
 */
function server(route: () => object, schema: string) {
  const driver = postgresDriver({ ...route(), schema, max: 4 } as Parameters<typeof postgresDriver>[0]);
  const service = createBlogService({ driver });
  open.push(service);
  const texts: number[] = [];
  const conn = () => (driver as unknown as { conn: Connection }).conn;
  const spy = () => {
    const c = conn();
    const run = c.run.bind(c);
    c.run = async (text, values, read) => {
      const rows = await run(text, values, read);
      if (/\."posts"/.test(text))
        texts.push(rows.flat().filter((v) => typeof v === 'string' && v.startsWith('{"')).length);
      return rows;
    };
  };
  return { service, conn, spy, texts };
}

describe.each(ROUTES)('documents left out of a read, on PostgreSQL, %s', (_name, route) => {
  test('a page read again sends no post that did not change, and answers it as stored now', async () => {
    const schema = freshSchema('kept');
    const a = server(route, schema);
    const b = server(route, schema);
    const owner = await a.service.users.insert({ body: { displayName: 'Owner' } });
    const blogId = (
      await a.service.blogs.insert({ body: { name: 'B', url: 'https://kept.example/' }, ownerId: owner.id })
    ).id;
    const { id } = await a.service.posts.insert({ blogId, body: { title: 'one', content: '<p>one</p>' } });
    const titles = async () => (await a.service.posts.list({ blogId, maxResults: 5 })).items?.map((p) => p.title);
    for (let n = 0; n < 6; n++) await titles();
    a.spy();
    expect(await titles()).toEqual(['one']);
    expect(a.texts.reduce((x, y) => x + y, 0)).toBe(0);

    // Another app server changes it: its text comes back, once.
    await b.service.posts.patch({ blogId, postId: id, body: { title: 'one, changed' } });
    a.texts.length = 0;
    expect(await titles()).toEqual(['one, changed']);
    expect(a.texts.reduce((x, y) => x + y, 0)).toBe(1);

    // Deleted by the other: gone from the page.
    await b.service.posts.delete({ blogId, postId: id });
    expect(await titles()).toEqual([]);
  });

  test('a kept document pushed out while the read is on its way is read again', async () => {
    const a = server(route, freshSchema('kept'));
    const owner = await a.service.users.insert({ body: { displayName: 'Owner' } });
    const blogId = (
      await a.service.blogs.insert({ body: { name: 'B', url: 'https://kept.example/' }, ownerId: owner.id })
    ).id;
    await a.service.posts.insert({ blogId, body: { title: 'one' } });
    const walk = () =>
      list(a.conn(), {
        collection: 'posts',
        index: 'published',
        prefix: [blogId, 'LIVE'],
        direction: 'desc',
        limit: 5,
      });
    for (let n = 0; n < 6; n++) await walk();
    a.spy();
    const pending = walk();
    a.conn().parsed.clear();
    expect((await pending).map((d) => d.doc.title)).toEqual(['one']);
    // Sent knowing it, answered without its text; then again knowing none.
    expect(a.texts).toEqual([0, 1]);
  });
});
