// The handler as a plain Fetch function (Hono, Bun, Deno, workers call it this way), basePath choices, and
// toNodeHandler around a foreign Fetch handler and behind express.json().
import { createServer, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryDriver } from '../../drivers/memory/index.js';
import { createBlogService } from '../../src/index.js';
import { createHttpHandler, toNodeHandler } from '../../src/http/index.js';

const service = createBlogService({ driver: memoryDriver(), apiBaseUrl: 'https://api.example' });
let blogId: string;
let adminId: string;

beforeAll(async () => {
  adminId = (await service.users.insert({ body: { displayName: 'Fetch admin' } })).id;
  blogId = (
    await service.blogs.insert({ body: { name: 'Fetch tests', url: 'https://fetch.example/' }, ownerId: adminId })
  ).id;
});
afterAll(() => service.close());

const admin = () => ({ userId: adminId });

describe('the Fetch handler', () => {
  const handler = createHttpHandler(service, {
    authenticate: (r) => (r.headers.get('authorization') === 'Bearer t' ? admin() : null),
    maxBodyBytes: 2048,
  });
  const url = (path: string) => `https://api.example/v3/blogs/${blogId}${path}`;

  it('reads and writes through Request and Response', async () => {
    const made = await handler(
      new Request(url('/posts'), {
        method: 'POST',
        headers: { authorization: 'Bearer t', 'content-type': 'application/json' },
        body: JSON.stringify({ title: 'Via fetch', content: '<p>x</p>' }),
      }),
    );
    expect(made.status).toBe(200);
    const post = (await made.json()) as { id: string; etag: string; selfLink: string };
    expect(made.headers.get('etag')).toBe(post.etag);
    expect(post.selfLink).toBe(`https://api.example/v3/blogs/${blogId}/posts/${post.id}`);
    const got = await handler(new Request(url(`/posts/${post.id}`)));
    expect(((await got.json()) as { title: string }).title).toBe('Via fetch');
    const gone = await handler(
      new Request(url(`/posts/${post.id}`), { method: 'DELETE', headers: { authorization: 'Bearer t' } }),
    );
    expect(gone.status).toBe(204);
    expect(gone.body).toBeNull();
  });

  it('counts a streamed body against maxBodyBytes', async () => {
    let pulled = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(c) {
        pulled++;
        c.enqueue(new TextEncoder().encode(' '.repeat(1024)));
        if (pulled === 100) c.close();
      },
    });
    const res = await handler(
      new Request(url('/posts'), {
        method: 'POST',
        headers: { authorization: 'Bearer t', 'content-type': 'application/json' },
        body,
        duplex: 'half',
      } as RequestInit),
    );
    expect(res.status).toBe(413);
    expect(pulled).toBeLessThan(10); // stopped right after the limit, never read the rest
  });

  it('basePath: a custom prefix, or none at all', async () => {
    const prefixed = createHttpHandler(service, { basePath: '/api/blogger/v3/' });
    expect((await prefixed(new Request(`https://x.example/api/blogger/v3/blogs/${blogId}`))).status).toBe(200);
    expect((await prefixed(new Request(`https://x.example/v3/blogs/${blogId}`))).status).toBe(404);
    expect((await prefixed(new Request(`https://x.example/api/blogger/v3x/blogs/${blogId}`))).status).toBe(404);
    const bare = createHttpHandler(service, { basePath: '' });
    expect((await bare(new Request(`https://x.example/blogs/${blogId}`))).status).toBe(200);
    expect(() => createHttpHandler(service, { basePath: 'v3' })).toThrow(TypeError);
  });
});

describe('toNodeHandler', () => {
  const servers: Array<ReturnType<typeof createServer>> = [];
  const listen = async (listener: RequestListener) => {
    const server = createServer(listener);
    servers.push(server);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  };
  afterAll(() => Promise.all(servers.map((s) => new Promise((r) => s.close(r)))));

  it('adapts any Fetch handler, streaming its request and response bodies', async () => {
    const inner = createHttpHandler(service, { authenticate: () => admin(), maxBodyBytes: 2048 });
    const foreign = async (request: Request) => {
      const res = await inner(request);
      return new Response(res.body, {
        status: res.status,
        headers: { ...Object.fromEntries(res.headers), 'x-wrapped': '1' },
      });
    };
    const base = await listen(toNodeHandler(foreign));
    const made = await fetch(`${base}/v3/blogs/${blogId}/posts`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'Wrapped', content: 'w' }),
    });
    expect(made.status).toBe(200);
    expect(made.headers.get('x-wrapped')).toBe('1');
    expect(((await made.json()) as { title: string }).title).toBe('Wrapped');
    const big = await fetch(`${base}/v3/blogs/${blogId}/posts`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'x', content: 'y'.repeat(4000) }),
    });
    expect(big.status).toBe(413);
  });

  it('authenticate gets the method, the URL the client asked for and read-only Headers', async () => {
    const seen: Array<{
      method: string;
      url: string;
      auth: string | null;
      has: boolean;
      entries: Array<[string, string]>;
    }> = [];
    const base = await listen(
      toNodeHandler(
        createHttpHandler(service, {
          authenticate: (request) => {
            seen.push({
              method: request.method,
              url: request.url,
              auth: request.headers.get('Authorization'),
              has: request.headers.has('x-missing'),
              entries: [...request.headers],
            });
            expect(() => request.headers.set('x', 'y')).toThrow(TypeError);
            return null;
          },
        }),
      ),
    );
    const res = await fetch(`${base}/v3/blogs/${blogId}?view=READER`, {
      method: 'HEAD',
      headers: { authorization: 'Bearer abc', 'x-two': 'b' },
    });
    expect(res.status).toBe(200);
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({
      method: 'HEAD',
      url: `${base}/v3/blogs/${blogId}?view=READER`,
      auth: 'Bearer abc',
      has: false,
    });
    expect(seen[0]!.entries).toContainEqual(['x-two', 'b']);
    expect(seen[0]!.entries.map(([k]) => k)).toEqual([...seen[0]!.entries.map(([k]) => k)].sort());
  });

  it('works behind express.json() (re-encodes the parsed body) and falls through outside its base path', async () => {
    const app = express();
    app.use(express.json());
    app.use(toNodeHandler(createHttpHandler(service, { authenticate: () => admin() })));
    app.use((_req, res) => {
      res.status(418).send('express fallback');
    });
    const base = await listen(app);
    const made = await fetch(`${base}/v3/blogs/${blogId}/posts`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'Parsed first', content: 'p' }),
    });
    expect(made.status).toBe(200);
    expect(((await made.json()) as { title: string }).title).toBe('Parsed first');
    const other = await fetch(`${base}/health`);
    expect([other.status, await other.text()]).toEqual([418, 'express fallback']);
    // Inside the base path an unknown route is the API's own 404, not a fall-through.
    expect((await fetch(`${base}/v3/nothing`)).status).toBe(404);
  });
});
