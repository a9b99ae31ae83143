/**
 * Kept responses (src/http/kept.ts, docs/http.md "Kept responses"): 1, 2 and 4 app server processes on one SQLite
 * file or PostgreSQL schema, each a node:http server with kept responses on, writes and reads interleaved. After a
 * write's answer arrived (through any of them, or from another process on the store), every read by anyone, through
 * any of them, answers exactly what the uncached path answers (the same handler with `keptResponses: false`): the
 * same status, bytes and ETag. Then reads race writes, and none may answer older than the last write whose answer
 * had arrived when the read was sent.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { request } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, describe, expect, it } from 'vitest';
import { postgresDriver } from '../../drivers/postgres/index.js';
import { sqliteDriver } from '../../drivers/sqlite/index.js';
import { createHttpHandler, keptResponsesOf } from '../../src/http/index.js';
import { createBlogService, type BlogService } from '../../src/index.js';
import { internalsOf } from '../../src/service/internals.js';
import { dropOwnSchemas, freshSchema, pgUrl } from '../drivers/postgres/env.js';

const dir = mkdtempSync(join(tmpdir(), 'blogcore-kept-'));
let files = 0;
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await dropOwnSchemas();
});

const HOST = 'kept.test';

interface Answer {
  status: number;
  etag: string | undefined;
  body: string;
}

interface Server {
  port: number;
  child: ChildProcess;
}

function startServer(args: string[]): Promise<Server> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/http/kept-server.ts', ...args], {
    cwd: process.cwd(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /READY (\d+)/.exec(out);
      if (m) resolve({ port: Number(m[1]), child });
    });
    child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
    child.on('exit', (code) => reject(new Error(`server exited (${code}): ${out}`)));
  });
}

const stop = (s: Server) =>
  new Promise<void>((resolve) => {
    if (s.child.exitCode !== null) return resolve();
    s.child.once('exit', () => resolve());
    s.child.kill('SIGTERM');
  });

/** A request to one server process, with the Host every answer's links are built from. */
function send(port: number, method: string, path: string, user?: string, body?: unknown): Promise<Answer> {
  const text = body === undefined ? undefined : JSON.stringify(body);
  const headers: Record<string, string> = { host: HOST };
  if (user) headers.authorization = `Bearer ${user}`;
  if (text !== undefined) {
    headers['content-type'] = 'application/json';
    headers['content-length'] = String(Buffer.byteLength(text));
  }
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path, headers, agent: false }, (res) => {
      let data = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (data += d));
      res.on('end', () => resolve({ status: res.statusCode!, etag: res.headers.etag, body: data }));
    });
    req.on('error', reject);
    req.end(text);
  });
}

/** The uncached path: the same handler over the same store, kept responses off, in this process. */
function reference(service: BlogService) {
  const handler = createHttpHandler(service, {
    keptResponses: false,
    authenticate: (r) => {
      const auth = r.headers.get('authorization');
      return auth === null ? null : { userId: auth.slice('Bearer '.length) };
    },
  });
  return async (path: string, user?: string): Promise<Answer> => {
    const res = await handler(
      new Request(`http://${HOST}${path}`, { headers: user ? { authorization: `Bearer ${user}` } : {} }),
    );
    return { status: res.status, etag: res.headers.get('etag') ?? undefined, body: await res.text() };
  };
}

interface World {
  blogId: string;
  admin: string;
  author: string;
  reader: string;
  p1: string;
  p2: string;
}

async function seed(service: BlogService): Promise<World> {
  const admin = (await service.users.insert({ body: { displayName: 'Ada' } })).id!;
  const author = (await service.users.insert({ body: { displayName: 'Bo' } })).id!;
  const reader = (await service.users.insert({ body: { displayName: 'Cy' } })).id!;
  const blog = await service.blogs.insert({
    body: { name: 'Kept', url: `https://kept${files}.example/` },
    ownerId: admin,
  });
  const blogId = blog.id!;
  await service.as({ userId: admin }).members.set({ blogId, userId: author, role: 'AUTHOR' });
  const p1 = await service
    .as({ userId: admin })
    .posts.insert({ blogId, body: { title: 'v0', content: '<p>word</p>' } });
  const p2 = await service
    .as({ userId: author })
    .posts.insert({ blogId, isDraft: true, body: { title: 'Draft', content: '<p>word draft</p>' } });
  await service.as({ userId: reader }).comments.insert({ blogId, postId: p1.id!, body: { content: 'first' } });
  return { blogId, admin, author, reader, p1: p1.id!, p2: p2.id! };
}

/** Every read of the test, by every kind of caller: anonymous, the author, the admin. */
function reads(w: World): Array<[string, string | undefined]> {
  const b = `/v3/blogs/${w.blogId}`;
  const paths = [
    `${b}/posts/${w.p1}?prettyPrint=false`,
    `${b}/posts/${w.p2}`,
    `${b}/posts?maxResults=5&fetchBodies=false`,
    `${b}/posts?fetchBodies=false&maxResults=5`,
    `${b}/posts/search?q=word`,
    `${b}/posts/${w.p1}/comments`,
    `${b}/posts/${w.p1}/comments?view=ADMIN&status=pending`,
    b,
    // Feeds: public, read as an anonymous reader whoever asks.
    `/feeds/${w.blogId}/posts/default`,
    `/feeds/${w.blogId}/posts/default?alt=rss&max-results=5`,
  ];
  return [undefined, w.author, w.admin].flatMap((user) => paths.map((p) => [p, user] as [string, string]));
}

type Store = 'sqlite' | 'postgres';

function open(store: Store): { args: string[]; service: BlogService } {
  if (store === 'sqlite') {
    const file = join(dir, `k${files++}.db`);
    return { args: ['sqlite', file], service: createBlogService({ driver: sqliteDriver({ filename: file }) }) };
  }
  const schema = freshSchema('kept');
  return {
    args: ['postgres', pgUrl(), schema],
    service: createBlogService({ driver: postgresDriver({ connectionString: pgUrl(), schema, max: 3 }) }),
  };
}

async function withServers(store: Store, count: number, run: (ctx: Ctx) => Promise<void>): Promise<void> {
  const { args, service } = open(store);
  const world = await seed(service);
  const servers: Server[] = [];
  try {
    for (let i = 0; i < count; i++) servers.push(await startServer(args));
    await run({ world, service, ports: servers.map((s) => s.port), uncached: reference(service) });
  } finally {
    await Promise.all(servers.map(stop));
    await service.close();
  }
}

interface Ctx {
  world: World;
  service: BlogService;
  ports: number[];
  uncached: (path: string, user?: string) => Promise<Answer>;
}

/** The writes interleaved with reads: through the servers over HTTP, and one from this process (roles). */
function writes(ctx: Ctx): Array<(port: number, n: number) => Promise<unknown>> {
  const { world: w, service } = ctx;
  const b = `/v3/blogs/${w.blogId}`;
  const ok = async (a: Promise<Answer>) => {
    const res = await a;
    expect(res.status, res.body).toBeLessThan(300);
    return JSON.parse(res.body || '{}') as { id?: string; status?: string };
  };
  return [
    (port, n) =>
      ok(send(port, 'PATCH', `${b}/posts/${w.p1}`, w.admin, { title: `v${n}`, content: `<p>word ${n}</p>` })),
    async (port) => {
      const post = await ok(send(port, 'GET', `${b}/posts/${w.p2}`, w.admin));
      return ok(send(port, 'POST', `${b}/posts/${w.p2}/${post.status === 'LIVE' ? 'revert' : 'publish'}`, w.admin));
    },
    async (port, n) => {
      const c = await ok(send(port, 'POST', `${b}/posts/${w.p1}/comments`, w.reader, { content: `c${n}` }));
      return ok(send(port, 'POST', `${b}/posts/${w.p1}/comments/${c.id}/approve`, w.admin));
    },
    (port, n) => ok(send(port, 'PATCH', b, w.admin, { name: `Kept ${n}` })),
    async (_port, n) => {
      // Another process on the store (this one): the author's role changes what the author may see.
      const role = n % 2 === 0 ? 'READER' : 'AUTHOR';
      await service.as({ userId: w.admin }).members.set({ blogId: w.blogId, userId: w.author, role });
    },
  ];
}

async function expectCurrent(ctx: Ctx, step: string): Promise<void> {
  const all = reads(ctx.world);
  const expected = await Promise.all(all.map(([p, u]) => ctx.uncached(p, u)));
  const got = await Promise.all(ctx.ports.map((port) => Promise.all(all.map(([p, u]) => send(port, 'GET', p, u)))));
  ctx.ports.forEach((port, j) => {
    for (let i = 0; i < all.length; i++) {
      expect(got[j]![i], `${step}: ${all[i]![1] ?? 'anonymous'} GET ${all[i]![0]} on :${port}`).toEqual(expected[i]);
    }
  });
}

async function interleaved(ctx: Ctx): Promise<void> {
  const steps = writes(ctx);
  // Read twice first (the second from what is kept); after that, each write meets the answers read after the last.
  await expectCurrent(ctx, 'start');
  await expectCurrent(ctx, 'start, again');
  for (let n = 1; n <= steps.length + 1; n++) {
    await steps[n % steps.length]!(ctx.ports[n % ctx.ports.length]!, n);
    await expectCurrent(ctx, `after write ${n} (${n % steps.length})`);
  }
}

/** Reads racing writes: none answers a title older than the last write answered before the read was sent. */
async function racing(ctx: Ctx, writesCount: number): Promise<void> {
  const { world: w, ports } = ctx;
  const b = `/v3/blogs/${w.blogId}`;
  let done = 0;
  let writing = true;
  const stale: string[] = [];
  const reader = async (r: number) => {
    for (let i = 0; writing; i++) {
      const port = ports[(r + i) % ports.length]!;
      const user = i % 2 === 0 ? undefined : w.admin;
      const before = done;
      const [one, list] = await Promise.all([
        send(port, 'GET', `${b}/posts/${w.p1}`, user),
        send(port, 'GET', `${b}/posts?maxResults=5&fetchBodies=false`, user),
      ]);
      const title = (JSON.parse(one.body) as { title: string }).title;
      const listed = (JSON.parse(list.body) as { items: Array<{ id: string; title: string }> }).items.find(
        (p) => p.id === w.p1,
      )!.title;
      for (const t of [title, listed]) if (Number(t.slice(1)) < before) stale.push(`${t} after v${before} on :${port}`);
    }
  };
  const readers = [0, 1, 2, 3].map(reader);
  for (let n = 1; n <= writesCount; n++) {
    const res = await send(ports[0]!, 'PATCH', `${b}/posts/${w.p1}`, w.admin, { title: `v${n}` });
    expect(res.status).toBe(200);
    done = n;
  }
  writing = false;
  await Promise.all(readers);
  expect(stale).toEqual([]);
}

describe.each(['sqlite', 'postgres'] as const)('kept responses on %s', (store) => {
  it.each([1, 2, 4])(
    '%i process(es): every read after a write answers what the uncached path answers',
    async (n) => {
      await withServers(store, n, interleaved);
    },
    180_000,
  );

  it.each([1, 2, 4])(
    '%i process(es): reads racing writes never answer older than the last answered write',
    async (n) => {
      await withServers(store, n, (ctx) => racing(ctx, 30));
    },
    180_000,
  );
});

describe('kept responses in process', () => {
  it('a read again is answered from what is kept, bounded by maxBytes; a write drops it all', async () => {
    const service = createBlogService({ driver: sqliteDriver({ filename: join(dir, `k${files++}.db`) }) });
    const w = await seed(service);
    const handler = createHttpHandler(service, { keptResponses: { maxBytes: 6_000 } });
    const get = async (path: string) =>
      (await handler(new Request(`http://${HOST}/v3/blogs/${w.blogId}${path}`))).text();
    const kept = keptResponsesOf(handler)!;
    expect(kept).toEqual({ responses: 0, bytes: 0, maxBytes: 6_000 });
    const first = await get(`/posts/${w.p1}`);
    expect(keptResponsesOf(handler)!.responses).toBe(1);
    expect(await get(`/posts/${w.p1}`)).toBe(first);
    // Many answers: never more than maxBytes held, the oldest gone first.
    for (let i = 0; i < 40; i++) await get(`/posts/${w.p1}?maxComments=${i}`);
    const full = keptResponsesOf(handler)!;
    expect(full.bytes).toBeLessThanOrEqual(6_000);
    expect(full.responses).toBeGreaterThan(1);
    expect(full.responses).toBeLessThan(40);
    await service.as({ userId: w.admin }).posts.patch({ blogId: w.blogId, postId: w.p1, body: { title: 'v1' } });
    expect(keptResponsesOf(handler)).toEqual({ responses: 0, bytes: 0, maxBytes: 6_000 });
    expect(JSON.parse(await get(`/posts/${w.p1}`)).title).toBe('v1');
    expect(keptResponsesOf(createHttpHandler(service, { keptResponses: false }))).toBeUndefined();
    await service.close();
  });
});

describe('kept feeds in process', () => {
  it('a feed again is answered from what is kept (304 and HEAD as uncached); a write drops it', async () => {
    const service = createBlogService({ driver: sqliteDriver({ filename: join(dir, `k${files++}.db`) }) });
    const w = await seed(service);
    const handler = createHttpHandler(service);
    const uncached = createHttpHandler(service, { keptResponses: false });
    const feed = `http://${HOST}/feeds/${w.blogId}/posts/default`;
    const both = async (url: string, init?: RequestInit) => {
      const [a, b] = await Promise.all([handler(new Request(url, init)), uncached(new Request(url, init))]);
      const answer = async (r: Response) => ({ status: r.status, headers: [...r.headers], body: await r.text() });
      const [kept, plain] = [await answer(a), await answer(b)];
      expect(kept).toEqual(plain);
      return kept;
    };
    const first = await both(feed);
    expect(first.body).toContain('>v0</title>');
    expect(keptResponsesOf(handler)!.responses).toBe(1);
    // The self link is the URL asked for: another host or query is another feed.
    await both(`http://other.test/feeds/${w.blogId}/posts/default`);
    await both(`${feed}?alt=rss`);
    expect(keptResponsesOf(handler)!.responses).toBe(3);
    expect(await both(feed)).toEqual(first);
    const etag = first.headers.find(([k]) => k === 'etag')![1];
    const notModified = await both(feed, { headers: { 'if-none-match': etag } });
    expect(notModified.status).toBe(304);
    expect(notModified.headers).toContainEqual(['cache-control', 'public, max-age=0, must-revalidate']);
    expect((await both(feed, { method: 'HEAD' })).body).toBe('');
    await service.as({ userId: w.admin }).posts.patch({ blogId: w.blogId, postId: w.p1, body: { title: 'v1' } });
    expect(keptResponsesOf(handler)!.responses).toBe(0);
    expect((await both(feed)).body).toContain('>v1</title>');
    expect((await both(`${feed}?alt=rss`)).body).toContain('>v1</title>');
    await service.close();
  });
});

describe.each(['sqlite', 'postgres'] as const)('handlers made again and again on %s', (store) => {
  it('do not accumulate: a handler let go takes its kept responses and listeners with it', async () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const { service } = open(store);
    const w = await seed(service);
    const { core } = internalsOf(service)!;
    const held = () => [core.commitListeners.size, core.movedListeners.size, core.events.count()];
    const before = held();
    const made = async () => {
      const handler = createHttpHandler(service);
      await handler(new Request(`http://${HOST}/v3/blogs/${w.blogId}/posts/${w.p1}`));
      expect(keptResponsesOf(handler)!.responses).toBe(1);
    };
    for (let i = 0; i < 50; i++) await made();
    expect(held()[0]).toBeGreaterThan(before[0]!);
    // The listeners go once the handlers are collected (a FinalizationRegistry's callbacks run after a collection).
    for (let i = 0; i < 50 && held()[0] !== before[0]; i++) {
      gc();
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(held()).toEqual(before);
    // A handler still held keeps working, and is still dropped by a write.
    const kept = createHttpHandler(service);
    await kept(new Request(`http://${HOST}/v3/blogs/${w.blogId}/posts/${w.p1}`));
    gc();
    await new Promise((resolve) => setTimeout(resolve, 20));
    await service.as({ userId: w.admin }).posts.patch({ blogId: w.blogId, postId: w.p1, body: { title: 'v9' } });
    expect(keptResponsesOf(kept)!.responses).toBe(0);
    await service.close();
  }, 60_000);
});
