/**
 * Comments from the public over HTTP (docs/design.md §25): who is asking (the socket, `trustProxy`, a Fetch host's
 * `clientAddress`), the API flood answered 429 with `Retry-After` in Google's error shape, a second address let
 * in during the flood, and the address seen by the blog's ADMINs alone.
 */
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { memoryDriver } from '../../drivers/memory/index.js';
import { createBlogService } from '../../src/index.js';
import { createHttpHandler, type HttpHandlerOptions, toNodeHandler } from '../../src/http/index.js';
import type { StorageDriver } from '../../src/store/driver.js';
import { DRIVERS } from '../support/drivers.js';

const ADMIN = 'Bearer admin';

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  json: any;
}

/** A POST from a chosen local address (127.0.0.2 is another client of the same machine). */
function send(
  url: string,
  body: unknown,
  options: { localAddress?: string; headers?: Record<string, string>; method?: string } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const text = body === undefined ? '' : JSON.stringify(body);
    const req = request(
      url,
      {
        method: options.method ?? 'POST',
        localAddress: options.localAddress ?? '127.0.0.1',
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...options.headers },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const raw = Buffer.concat(chunks).toString('utf8');
          resolve({ status: res.statusCode!, headers: res.headers, json: raw ? JSON.parse(raw) : undefined });
        });
      },
    );
    req.on('error', reject);
    req.end(text);
  });
}

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

async function start(options: Omit<HttpHandlerOptions, 'authenticate'> = {}, driver: StorageDriver = memoryDriver()) {
  const service = createBlogService({ driver });
  const admin = await service.users.insert({ body: { displayName: 'Ada' } });
  const blog = await service.blogs.insert({ body: { name: 'B', url: 'https://b.example/' }, ownerId: admin.id });
  const post = await service.posts.insert({ blogId: blog.id, body: { title: 'Hello', content: '<p>x</p>' } });
  const handler = createHttpHandler(service, {
    authenticate: (req) => (req.headers.get('authorization') === ADMIN ? { userId: admin.id } : null),
    ...options,
  });
  const server = createServer(toNodeHandler(handler));
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v3`;
  const comments = `${base}/blogs/${blog.id}/posts/${post.id}/comments`;
  let n = 0;
  return {
    service,
    handler,
    comments,
    say: (o: Parameters<typeof send>[2] = {}) => send(comments, { content: `comment ${++n}` }, o),
    /** The client addresses the blog's ADMIN sees, newest first. */
    addresses: async () => {
      const list = await send(`${base}/blogs/${blog.id}/comments?status=PENDING&maxResults=500`, undefined, {
        method: 'GET',
        headers: { authorization: ADMIN },
      });
      return (list.json.items ?? []).map((c: { clientAddress?: string }) => c.clientAddress);
    },
    list: (auth?: string) =>
      send(`${comments}?status=LIVE&status=PENDING`, undefined, {
        method: 'GET',
        headers: auth ? { authorization: auth } : {},
      }),
  };
}

// On every store a server runs on (IndexedDB is a browser's).
describe.each(DRIVERS.filter(([name]) => name !== 'idb'))(
  'comments from the public over HTTP on %s',
  (_name, makeDriver) => {
    it('an anonymous flood gets 3 in, then 429 rateLimitExceeded with Retry-After; another address gets in', async () => {
      const s = await start({}, makeDriver());
      const answers: Answer[] = [];
      for (let i = 0; i < 50; i++) answers.push(await s.say());
      expect(answers.filter((a) => a.status === 200).length).toBe(3);
      const refused = answers.slice(3);
      expect(refused.every((a) => a.status === 429)).toBe(true);
      expect(Number(refused[0]!.headers['retry-after'])).toBeGreaterThanOrEqual(14);
      expect(Number(refused[0]!.headers['retry-after'])).toBeLessThanOrEqual(15);
      expect(refused[0]!.json).toEqual({
        error: {
          code: 429,
          message: expect.any(String),
          status: 'RESOURCE_EXHAUSTED',
          errors: [{ domain: 'global', reason: 'rateLimitExceeded', message: expect.any(String) }],
        },
      });
      const other = await s.say({ localAddress: '127.0.0.2' });
      expect(other.status).toBe(200);
      expect((await s.addresses()).sort()).toEqual(['127.0.0.1', '127.0.0.1', '127.0.0.1', '127.0.0.2']);
      // The blog's ADMIN is never limited.
      for (let i = 0; i < 10; i++) expect((await s.say({ headers: { authorization: ADMIN } })).status).toBe(200);
    });

    it('a flood is refused before its body is read; a retry with its Idempotency-Key still gets its comment', async () => {
      const s = await start({}, makeDriver());
      const retry = () => send(s.comments, { content: 'said once' }, { headers: { 'idempotency-key': 'k1' } });
      const first = await retry();
      expect(first.status).toBe(200);
      for (let i = 0; i < 2; i++) await s.say();
      // Over the limit, a body that is not even JSON gets the 429, not a 400: it was never parsed.
      const broken = await new Promise<number>((resolve, reject) => {
        const req = request(s.comments, { method: 'POST', headers: { 'content-type': 'application/json' } }, (res) => {
          res.resume();
          resolve(res.statusCode!);
        });
        req.on('error', reject);
        req.end('{"content": "not json');
      });
      expect(broken).toBe(429);
      const again = await retry();
      expect(again.status).toBe(200);
      expect(again.json.id).toBe(first.json.id);
      expect((await s.say({ headers: { 'idempotency-key': 'k2' } })).status).toBe(429);
    });

    it('without trustProxy a forged X-Forwarded-For is ignored', async () => {
      const s = await start({}, makeDriver());
      const statuses = [];
      for (let i = 0; i < 6; i++)
        statuses.push((await s.say({ headers: { 'x-forwarded-for': `192.0.2.${i}` } })).status);
      expect(statuses).toEqual([200, 200, 200, 429, 429, 429]);
      expect(new Set(await s.addresses())).toEqual(new Set(['127.0.0.1']));
    });

    it('behind one trusted hop, the address the proxy saw counts; a client-written prefix does not', async () => {
      const s = await start({ trustProxy: 1 }, makeDriver());
      const statuses = [];
      for (let i = 0; i < 6; i++)
        statuses.push((await s.say({ headers: { 'x-forwarded-for': `10.9.9.9, 192.0.2.${i}` } })).status);
      expect(statuses).toEqual([200, 200, 200, 200, 200, 200]);
      expect(await s.addresses()).toContain('192.0.2.5');
      expect(await s.addresses()).not.toContain('10.9.9.9');
      for (let i = 0; i < 3; i++) await s.say({ headers: { 'x-forwarded-for': '198.51.100.1' } });
      expect((await s.say({ headers: { 'x-forwarded-for': '198.51.100.1' } })).status).toBe(429);
    });

    it('trustProxy as a list: only those proxies are believed', async () => {
      const trusted = await start({ trustProxy: ['127.0.0.1/32', '10.0.0.0/8'] }, makeDriver());
      await trusted.say({ headers: { 'x-forwarded-for': '192.0.2.1, 10.1.2.3' } });
      expect(await trusted.addresses()).toEqual(['192.0.2.1']);
      const other = await start({ trustProxy: ['10.0.0.0/8'] }, makeDriver());
      await other.say({ headers: { 'x-forwarded-for': '192.0.2.1' } });
      expect(await other.addresses()).toEqual(['127.0.0.1']);
      expect(() => createHttpHandler(createBlogService({ driver: memoryDriver() }), { trustProxy: ['nope'] })).toThrow(
        TypeError,
      );
    });

    it('a Fetch host says who is asking with clientAddress(request)', async () => {
      const s = await start({ clientAddress: (req) => req.headers.get('x-test-peer') }, makeDriver());
      const call = (peer: string) =>
        s.handler(
          new Request(s.comments, {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'x-test-peer': peer },
            body: JSON.stringify({ content: `from ${peer} ${Math.random()}` }),
          }),
        );
      const statuses = [];
      for (let i = 0; i < 4; i++) statuses.push((await call('192.0.2.50')).status);
      expect(statuses).toEqual([200, 200, 200, 429]);
      const refused = await call('192.0.2.50');
      expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
      expect((await call('192.0.2.51')).status).toBe(200);
    });

    it('the client address is in no answer but an ADMIN view', async () => {
      const s = await start({}, makeDriver());
      const c = await s.say();
      expect(JSON.stringify(c.json)).not.toContain('127.0.0.1');
      expect(JSON.stringify((await s.list()).json)).not.toContain('127.0.0.1');
      const admin = await s.list(ADMIN);
      expect(admin.json.items[0].clientAddress).toBe('127.0.0.1');
    });

    it('POST /v3/blogs/{blogId}/comments/moderate: an ADMIN clears one address in a call; anyone else gets 403', async () => {
      const s = await start({ trustProxy: 1 }, makeDriver());
      for (let i = 0; i < 3; i++) await s.say({ headers: { 'x-forwarded-for': '192.0.2.66' } });
      await s.say({ headers: { 'x-forwarded-for': '192.0.2.67' } });
      const url = s.comments.replace(/\/posts\/[^/]+\/comments$/, '/comments/moderate');
      const body = { filter: { status: 'PENDING', clientAddress: '192.0.2.66' }, action: 'delete' };
      const refused = await send(url, body);
      expect(refused.status).toBe(403);
      expect(refused.json.error.errors[0].reason).toBe('forbidden');
      const done = await send(url, { ...body, blogId: 'another-blog' }, { headers: { authorization: ADMIN } });
      expect(done.status).toBe(200);
      expect(done.json).toEqual({ handled: 3 });
      expect(await s.addresses()).toEqual(['192.0.2.67']);
      const bad = await send(url, { filter: {}, action: 'burn' }, { headers: { authorization: ADMIN } });
      expect(bad.status).toBe(400);
    });
  },
);
