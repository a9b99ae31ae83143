/**
 * Several app servers on one PostgreSQL store, in one process: two services on two pools (as two servers
 * would have), each listener seeing every write once, also after its LISTEN connection is killed; a lost
 * connection surfaces as a clear error or a retry, never a wrong answer. Each reaches the store directly and
 * behind PgBouncer (env.ts ROUTES); without any LISTEN, events still arrive by polling the change log. A server
 * NOTIFYs only while another one listens, and a server that starts listening is notified within ASK_MS.
 */
import pg from 'pg';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { ASK_MS } from '../../../drivers/postgres/feed.js';
import { postgresDriver } from '../../../drivers/postgres/index.js';
import { channelOf } from '../../../drivers/postgres/schema.js';
import { createBlogService, type BlogEvent, type BlogService } from '../../../src/index.js';
import { dropOwnSchemas, freshSchema, pgBouncerUrl, pgUrl, ROUTES, type RouteOptions } from './env.js';

const admin = new pg.Pool({ connectionString: pgUrl(), max: 2 });
const services: BlogService[] = [];
afterEach(async () => {
  await Promise.all(services.splice(0).map((s) => s.close()));
});
afterAll(async () => {
  await admin.end();
  await dropOwnSchemas();
});

function instance(route: () => RouteOptions, schema: string, max = 4, now?: () => Date): BlogService {
  const s = createBlogService({ driver: postgresDriver({ ...route(), schema, max }), ...(now ? { now } : {}) });
  services.push(s);
  return s;
}

/** Waits until `check` holds (the other instance's events arrive on a NOTIFY or the driver's poll). */
async function until(check: () => boolean, what: string, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function setup(a: BlogService) {
  const owner = await a.users.insert({ body: { displayName: 'Owner' } });
  const blog = await a.blogs.insert({
    body: { name: 'Shared', url: `https://shared-${Math.random()}.example/` },
    ownerId: owner.id,
  });
  return { blogId: blog.id! };
}

/** Each instance's listeners see every write of every instance exactly once. */
async function everyWriteOnce(route: () => RouteOptions) {
  const schema = freshSchema('inst');
  const a = instance(route, schema);
  const b = instance(route, schema);
  const seenA: BlogEvent[] = [];
  const seenB: BlogEvent[] = [];
  a.on('*', (e) => void seenA.push(e));
  b.on('*', (e) => void seenB.push(e));
  await Promise.all([a.ready(), b.ready()]);
  const { blogId } = await setup(a);
  const written: string[] = [];
  for (let i = 0; i < 10; i++) {
    const by = i % 2 ? b : a;
    const p = await by.posts.insert({ blogId, body: { title: `P${i}`, content: '<p>x</p>' } });
    written.push(p.id!);
    await by.posts.patch({ blogId, postId: p.id!, body: { title: `P${i} edited` } });
  }
  const expected = [
    'user.inserted',
    'blog.inserted',
    ...written.flatMap(() => ['post.inserted', 'post.published', 'post.updated']),
  ].sort();
  for (const [name, seen] of [
    ['a', seenA],
    ['b', seenB],
  ] as const) {
    await until(() => seen.length >= expected.length, `instance ${name}'s events`);
    await new Promise((r) => setTimeout(r, 100)); // nothing extra arrives late
    expect(seen.map((e) => e.type).sort(), name).toEqual(expected);
    const updated = seen.filter((e) => e.type === 'post.updated').map((e) => (e.resource as { title: string }).title);
    expect(new Set(updated).size, `${name}: each post.updated once`).toBe(10);
    // Every post event carries the post, also where a write's events share one stored copy of it.
    for (const e of seen.filter((x) => x.type.startsWith('post.')))
      expect((e.resource as { title?: string } | undefined)?.title, `${name}: ${e.type}`).toMatch(/^P\d/);
  }
}

describe.each(ROUTES)('postgres: events across app servers, %s', (_name, route) => {
  it("each instance's listeners see every write of every instance exactly once", () => everyWriteOnce(route));

  it('a listener catches up after its LISTEN connection is killed (missed notifications)', async () => {
    const schema = freshSchema('inst');
    const a = instance(route, schema);
    const b = instance(route, schema);
    const seen: BlogEvent[] = [];
    b.on('post.inserted', (e) => void seen.push(e));
    await b.ready();
    const { blogId } = await setup(a);
    await a.posts.insert({ blogId, body: { title: 'before', content: 'x' } });
    await until(() => seen.length === 1, 'the first event');
    // Kill every connection LISTENing on this store's channel, then write while it is gone.
    const killed = await admin.query(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE 'LISTEN %' AND query LIKE $1`,
      [`%${schema}%`],
    );
    expect(killed.rowCount).toBeGreaterThan(0);
    for (let i = 0; i < 5; i++) await a.posts.insert({ blogId, body: { title: `during ${i}`, content: 'x' } });
    await until(() => seen.length === 6, 'the events written while the listener was gone');
    await new Promise((r) => setTimeout(r, 100));
    expect(seen.map((e) => (e.resource as { title: string }).title)).toEqual([
      'before',
      ...[0, 1, 2, 3, 4].map((i) => `during ${i}`),
    ]);
  });

  it('scheduled posts go LIVE once across instances', async () => {
    const schema = freshSchema('inst');
    let now = Date.parse('2026-03-01T00:00:00Z');
    const make = () => instance(route, schema, 4, () => new Date(now));
    const a = make();
    const b = make();
    const published: string[] = [];
    b.on('post.published', (e) => void published.push(e.id));
    a.on('post.published', (e) => void published.push(e.id));
    await Promise.all([a.ready(), b.ready()]);
    const { blogId } = await setup(a);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      ids.push(
        (
          await a.posts.insert({
            blogId,
            body: { title: `S${i}`, content: 'x', published: new Date(now + 60_000).toISOString() },
          })
        ).id!,
      );
    }
    now += 120_000;
    // Both instances read at once: each finds the due posts; compare-and-set lets one promote each.
    await Promise.all([a.posts.list({ blogId }), b.posts.list({ blogId })]);
    for (const s of [a, b])
      expect((await s.posts.list({ blogId })).items?.map((p) => p.id).sort()).toEqual([...ids].sort());
    // Each instance hears each post.published once: 5 ids × 2 instances.
    await until(() => published.length >= 10, 'post.published on both instances');
    await new Promise((r) => setTimeout(r, 100));
    expect(published.sort(), JSON.stringify(published)).toEqual([...ids, ...ids].sort());
  });
});

/**
 * A plain LISTEN on a store's channel, as no app server listens (its connection goes by no app server's name):
 * each commit's notification (messages, `tell`, left out), when it arrived and from which server.
 */
async function overhear(schema: string) {
  const client = new pg.Client({ connectionString: pgUrl() });
  await client.connect();
  const heard: Array<{ at: number; from: string }> = [];
  client.on('notification', (n) => {
    if (!n.payload?.startsWith('m:')) heard.push({ at: Date.now(), from: n.payload ?? '' });
  });
  await client.query(`LISTEN "${channelOf(schema)}"`);
  return { heard, end: () => client.end() };
}

/** How many connections LISTEN on the store's channel (the ear's included). */
async function listening(schema: string): Promise<number> {
  const r = await admin.query(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE query = $1`, [
    `LISTEN "${channelOf(schema)}"`,
  ]);
  return r.rows[0].n;
}

describe.each(ROUTES)('postgres: NOTIFY only while another app server listens, %s', (_name, route) => {
  it("a single app server's commits send none; a server without LISTEN does not count, and hears them", async () => {
    const schema = freshSchema('inst');
    const a = instance(route, schema);
    const quiet = instance(() => ({ ...route(), listen: false }), schema);
    const heard: string[] = [];
    quiet.on('post.inserted', (e) => void heard.push((e.resource as { title: string }).title));
    await Promise.all([a.ready(), quiet.ready()]);
    const t0 = Date.now();
    while ((await listening(schema)) < 1) {
      expect(Date.now() - t0, "A's LISTEN").toBeLessThan(15_000);
      await new Promise((r) => setTimeout(r, 20));
    }
    const ear = await overhear(schema);
    try {
      const { blogId } = await setup(a);
      // Past ASK_MS, so A has asked again since its own LISTEN stood (which is not another server's).
      await new Promise((r) => setTimeout(r, ASK_MS + 100));
      for (let i = 0; i < 5; i++) await a.posts.insert({ blogId, body: { title: `P${i}`, content: 'x' } });
      // The server without LISTEN polls the log.
      await until(() => heard.length === 5, 'the events polled');
      // The server without LISTEN notifies, as A listens (also of what it wrote on opening, before A listened).
      const before = ear.heard.length;
      await quiet.posts.insert({ blogId, body: { title: 'from quiet', content: 'x' } });
      await until(() => ear.heard.length > before, "the other server's NOTIFY", ASK_MS + 5_000);
      await new Promise((r) => setTimeout(r, 100));
      const from = new Set(ear.heard.map((h) => h.from));
      expect(from.size, `every NOTIFY came from the server without LISTEN, none from A: ${[...from]}`).toBe(1);
    } finally {
      await ear.end();
    }
  });

  it(`once a second server listens, the first's commits reach it by NOTIFY within ASK_MS (${ASK_MS} ms), and stop when it leaves`, async () => {
    const schema = freshSchema('inst');
    const a = instance(route, schema);
    await a.ready();
    const { blogId } = await setup(a);
    const ear = await overhear(schema);
    // B on a host's Pool, which keeps B's connections after B closes.
    const { connectionString, ...rest } = route();
    const host = new pg.Pool({ connectionString, max: 4 });
    const b = createBlogService({ driver: postgresDriver({ ...rest, pool: host, schema }) });
    try {
      const heard: string[] = [];
      b.on('post.inserted', (e) => void heard.push((e.resource as { title: string }).title));
      await b.ready();
      const t0 = Date.now();
      while ((await listening(schema)) < 3) {
        expect(Date.now() - t0, 'both LISTENs').toBeLessThan(15_000);
        await new Promise((r) => setTimeout(r, 20));
      }
      expect(ear.heard, 'A alone sent none').toEqual([]);
      for (let i = 0; i < 3; i++) {
        const before = ear.heard.length;
        const wrote = Date.now();
        await a.posts.insert({ blogId, body: { title: `P${i}`, content: 'x' } });
        // The bound is ASK_MS and a round trip or two; the rest is slack for a loaded machine. (Without the
        // NOTIFY, B would hear it only by its poll: no notification would come at all.)
        await until(() => ear.heard.length > before, `the NOTIFY of P${i}`, ASK_MS + 1_000);
        expect(ear.heard.at(-1)!.at - wrote).toBeLessThan(ASK_MS + 1_000);
        await until(() => heard.includes(`P${i}`), `B hears P${i}`);
      }
      // B leaves; its LISTEN connection stays in the host's Pool, named as before it listened.
      await b.close();
      await a.posts.insert({ blogId, body: { title: 'as B leaves', content: 'x' } });
      await new Promise((r) => setTimeout(r, ASK_MS + 300));
      const before = ear.heard.length;
      for (let i = 0; i < 3; i++) await a.posts.insert({ blogId, body: { title: `alone ${i}`, content: 'x' } });
      await new Promise((r) => setTimeout(r, 300));
      expect(ear.heard.length, 'no NOTIFY once A is alone again').toBe(before);
    } finally {
      await ear.end();
      await b.close();
      await host.end();
    }
  });
});

describe("postgres: what a server knows of the others' writes", () => {
  it("reads another server's change once it heard of it, and at once when its LISTEN cannot hear (a pooler)", async () => {
    const schema = freshSchema('inst');
    // Through PgBouncer without a direct LISTEN connection: its LISTEN hears nothing, so nothing is taken as
    // known without reading the log.
    const pooled = () => ({ connectionString: pgBouncerUrl(), preparedStatements: false as const });
    const direct = () => ({ connectionString: pgUrl() });
    const a = instance(direct, schema);
    const b = instance(direct, schema);
    const c = instance(pooled, schema);
    const { blogId } = await setup(a);
    for (const s of [b, c]) expect((await s.blogs.get({ blogId })).name).toBe('Shared');
    for (let i = 0; i < 5; i++) {
      await a.blogs.patch({ blogId, body: { name: `Renamed ${i}` } });
      expect((await c.blogs.get({ blogId })).name, 'behind the pooler, at once').toBe(`Renamed ${i}`);
      const t0 = Date.now();
      while ((await b.blogs.get({ blogId })).name !== `Renamed ${i}`) {
        expect(Date.now() - t0, 'directly, once the notification arrived').toBeLessThan(1000);
        await new Promise((r) => setTimeout(r, 5));
      }
    }
  });
});

describe("postgres: another server's write that returned", () => {
  it('is in the next list of every server: no document of an earlier walk is handed out again', async () => {
    const schema = freshSchema('inst');
    const a = instance(() => ({ connectionString: pgUrl() }), schema);
    const b = instance(() => ({ connectionString: pgUrl() }), schema);
    const { blogId } = await setup(a);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const body = { title: `P${i}`, content: '<p>x</p>' };
      ids.push((await a.posts.insert({ blogId, body, ...(i === 2 ? { isDraft: true } : {}) })).id!);
    }
    // Two statuses: a merged walk (keys) and its documents, the list a blog's admin sees.
    const titles = async () =>
      (await a.posts.list({ blogId, status: ['LIVE', 'DRAFT'], view: 'ADMIN' })).items!.map((p) => p.title);
    for (let i = 0; i < 20; i++) {
      // The second list walks the index again while its documents are the ones A read for the first.
      await titles();
      await titles();
      const postId = ids[i % ids.length]!;
      await b.posts.patch({ blogId, postId, body: { title: `B${i}` } });
      expect(await titles(), `round ${i}`).toContain(`B${i}`);
    }
  });

  it("is what a read of its record answers, right after one server's walk found that record", async () => {
    const schema = freshSchema('inst');
    const driverA = postgresDriver({ connectionString: pgUrl(), schema, max: 4 });
    const a = createBlogService({ driver: driverA });
    services.push(a);
    const b = instance(() => ({ connectionString: pgUrl() }), schema);
    const { blogId } = await setup(a);
    const post = await a.posts.insert({ blogId, body: { title: 'First', content: '<p>x</p>' } });
    await new Promise((r) => setTimeout(r, 300)); // A's LISTEN stands and has heard its own traffic
    const walk = {
      collection: 'posts',
      index: 'published',
      prefixes: [
        [blogId, 'LIVE'],
        [blogId, 'DRAFT'],
      ],
      direction: 'desc',
      limit: 10,
    } as const;
    for (let i = 0; i < 10; i++) {
      const [entry] = await driverA.keys({ ...walk, docs: true });
      expect(entry?.id).toBe(post.id);
      await b.posts.patch({ blogId, postId: post.id!, body: { title: `B${i}` } });
      const [doc] = await driverA.getMany('posts', [post.id!]);
      expect((doc?.doc as { title?: string } | undefined)?.title, `round ${i}`).toBe(`B${i}`);
      const [again] = await driverA.keys({ ...walk, docs: true });
      // (This driver reads a walk's documents with its entries: each as current as the entry.)
      expect((again?.doc as { title?: string } | undefined)?.title, `round ${i}, walked`).toBe(`B${i}`);
      expect(again?.version).toBe(i + 2);
    }
  });
});

describe('postgres: without any LISTEN', () => {
  it('every instance hears every write once, by polling the change log', () =>
    everyWriteOnce(() => ({ connectionString: pgBouncerUrl(), preparedStatements: false, listen: false })));

  it('opens no LISTEN connection', async () => {
    const schema = freshSchema('inst');
    const a = instance(() => ({ connectionString: pgUrl(), listen: false }), schema);
    const seen: BlogEvent[] = [];
    a.on('*', (e) => void seen.push(e));
    await a.ready();
    await setup(a);
    await new Promise((r) => setTimeout(r, 300));
    const listening = await admin.query(
      `SELECT count(*)::int AS n FROM pg_stat_activity WHERE query LIKE 'LISTEN %' AND query LIKE $1`,
      [`%${schema}%`],
    );
    expect(listening.rows[0].n).toBe(0);
    expect(seen.map((e) => e.type)).toEqual(['user.inserted', 'blog.inserted']);
  });
});

describe.each(ROUTES)('postgres: connection loss, %s', (_name, route) => {
  it('a terminated backend gives a clear error or a retried answer, never a wrong one', async () => {
    const schema = freshSchema('inst');
    const a = instance(route, schema, 2);
    const { blogId } = await setup(a);
    const post = await a.posts.insert({ blogId, body: { title: 'Stable', content: '<p>stable</p>' } });
    let errors = 0;
    let answers = 0;
    for (let round = 0; round < 10; round++) {
      const reading = Promise.allSettled(Array.from({ length: 4 }, () => a.posts.get({ blogId, postId: post.id! })));
      // Every connection of this store's pool, busy or idle.
      await admin.query(
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
         WHERE pid <> pg_backend_pid() AND backend_type = 'client backend' AND query LIKE $1`,
        [`%${schema}%`],
      );
      for (const r of await reading) {
        if (r.status === 'fulfilled') {
          answers++;
          expect(r.value.title).toBe('Stable');
        } else {
          errors++;
          expect(String(r.reason)).toMatch(/database connection was lost|terminat/i);
        }
      }
    }
    expect(answers + errors).toBe(40);
    // And the store answers normally afterwards.
    expect((await a.posts.get({ blogId, postId: post.id! })).title).toBe('Stable');
  });
});

describe("postgres: a host's Pool lends its LISTEN connection back as it was", () => {
  it('a server opened and closed on it again and again leaves no listeners of its own on its connections', async () => {
    const schema = freshSchema('inst');
    const host = new pg.Pool({ connectionString: pgUrl(), max: 2 });
    try {
      for (let round = 0; round < 3; round++) {
        const b = createBlogService({ driver: postgresDriver({ pool: host, schema }) });
        b.on('post.inserted', () => {});
        await b.ready();
        await b.users.insert({ body: { displayName: `U${round}` } });
        // Until its LISTEN stands (the connection is named for it once it does).
        const t0 = Date.now();
        while ((await listening(schema)) < 1) {
          expect(Date.now() - t0, 'the LISTEN').toBeLessThan(15_000);
          await new Promise((r) => setTimeout(r, 20));
        }
        await b.close();
        const lent = await Promise.all([host.connect(), host.connect()]);
        const events = ['notification', 'error', 'end'] as const;
        const counts = lent.map((c) => events.map((e) => c.listenerCount(e)));
        for (const c of lent) c.release();
        expect(counts).toEqual([
          [0, 0, 0],
          [0, 0, 0],
        ]);
      }
    } finally {
      await host.end();
    }
  });
});
