/**
 * Two app servers on one store (docs/comments.md "Limits"): with `commentLimits.shared` an address gets its burst
 * once across both, on a SQLite file and on PostgreSQL; without it each server counts alone (N servers, N times
 * the limit), as documented.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { postgresDriver } from '../../drivers/postgres/index.js';
import { sqliteDriver } from '../../drivers/sqlite/index.js';
import { type BlogService, createBlogService, type StorageDriver } from '../../src/index.js';
import { dropOwnSchemas, freshSchema, pgUrl } from '../drivers/postgres/env.js';

const dir = mkdtempSync(join(tmpdir(), 'blogcore-limits-'));
let n = 0;
const STORES: ReadonlyArray<readonly [string, () => () => StorageDriver]> = [
  [
    'a SQLite file',
    () => {
      const filename = join(dir, `store-${++n}.db`);
      return () => sqliteDriver({ filename });
    },
  ],
  [
    'PostgreSQL',
    () => {
      const schema = freshSchema('limits');
      return () => postgresDriver({ connectionString: pgUrl(), schema, max: 3 });
    },
  ],
];

const services: BlogService[] = [];
afterEach(async () => {
  for (const s of services.splice(0).reverse()) await s.close();
});
afterAll(dropOwnSchemas);

describe.each(STORES)('comment limits shared by two app servers on %s', (_name, store) => {
  async function servers(shared: boolean) {
    const open = store();
    const make = () => {
      const s = createBlogService({ driver: open(), ...(shared ? { commentLimits: { shared: true } } : {}) });
      services.push(s);
      return s;
    };
    const a = make();
    await a.users.insert({ body: { id: 'ada', displayName: 'Ada' } });
    const blog = await a.blogs.insert({ body: { name: 'B', url: `https://b${n}.example/` }, ownerId: 'ada' });
    const post = await a.posts.insert({ blogId: blog.id, body: { title: 'Hello' } });
    const b = make();
    let i = 0;
    const say = (s: BlogService, clientAddress: string) =>
      s
        .as(null)
        .comments.insert({ blogId: blog.id, postId: post.id, body: { content: `comment ${++i}` }, clientAddress })
        .then(
          () => 200,
          (e: { code: number }) => e.code,
        );
    const stored = async () =>
      (await a.comments.list({ blogId: blog.id, postId: post.id, status: ['PENDING'], maxResults: 100 })).items
        ?.length ?? 0;
    return { a, b, say, stored };
  }

  it('shared: one burst of 3 per address across both servers, each refusing once the store says so', async () => {
    const { a, b, say, stored } = await servers(true);
    expect([await say(a, '203.0.113.7'), await say(b, '203.0.113.7'), await say(a, '203.0.113.7')]).toEqual([
      200, 200, 200,
    ]);
    expect([await say(b, '203.0.113.7'), await say(a, '203.0.113.7'), await say(b, '203.0.113.7')]).toEqual([
      429, 429, 429,
    ]);
    expect(await say(b, '198.51.100.1')).toBe(200);
    expect(await stored()).toBe(4);
  });

  it('shared under a race: 20 at once from one address over both servers store 3', async () => {
    const { a, b, say, stored } = await servers(true);
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => say(i % 2 ? a : b, '203.0.113.8')));
    expect(answers.filter((s) => s === 200)).toHaveLength(3);
    expect(answers.filter((s) => s !== 200 && s !== 429)).toEqual([]);
    expect(await stored()).toBe(3);
  });

  it('not shared: each server counts alone, so two servers admit twice the burst', async () => {
    const { a, b, say, stored } = await servers(false);
    const answers = [];
    for (let i = 0; i < 4; i++) answers.push(await say(a, '203.0.113.9'), await say(b, '203.0.113.9'));
    expect(answers).toEqual([200, 200, 200, 200, 200, 200, 429, 429]);
    expect(await stored()).toBe(6);
  });
});
