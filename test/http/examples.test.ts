// Each example host (examples/*/server.ts, importing the built package) starts on a free port and answers.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireBuild, start, type Proc } from './spawn.js';

let dir: string;
const procs: Proc[] = [];

beforeAll(() => {
  requireBuild();
  dir = mkdtempSync(join(tmpdir(), 'blogcore-examples-'));
});
afterAll(async () => {
  await Promise.all(procs.map((p) => p.stop('SIGKILL')));
  rmSync(dir, { recursive: true, force: true });
});

async function run(name: string, env: Record<string, string> = {}) {
  const p = start(['--import', 'tsx', `examples/${name}/server.ts`], {
    PORT: '0',
    BLOG_DB: join(dir, `${name}.db`),
    ...env,
  });
  procs.push(p);
  const url = (await p.waitFor(/listening on (http:\/\/\S+)/))[1]!;
  return { p, url };
}

interface PostList {
  kind: string;
  items: Array<{ title: string; selfLink: string }>;
}

describe('examples', () => {
  it('node-http: serves the blog from SQLite and stops on SIGTERM', async () => {
    const { p, url } = await run('node-http');
    const res = await fetch(url);
    expect(res.status).toBe(200);
    const list = (await res.json()) as PostList;
    expect(list.kind).toBe('blogger#postList');
    expect(list.items[0]!.title).toBe('Hello from node:http');
    expect(await p.stop('SIGTERM')).toBe(0);
  });

  it('express: mounted under /api, bearer sign-in, other paths fall through to Express', async () => {
    const { p, url } = await run('express', { BLOG_TOKEN: 'example-token' });
    const list = (await (await fetch(url)).json()) as PostList;
    expect(list.items[0]!.title).toBe('Hello from Express');
    const base = url.slice(0, url.indexOf('/api/'));
    const notOurs = await fetch(`${base}/api/elsewhere`);
    expect(notOurs.status).toBe(404);
    expect(notOurs.headers.get('content-type')).not.toMatch(/json/); // Express's own 404 page
    const denied = await fetch(url, { headers: { authorization: 'Bearer nope' } });
    expect(denied.status).toBe(401);
    const drafts = await fetch(`${url}?status=draft`, { headers: { authorization: 'Bearer example-token' } });
    expect(drafts.status).toBe(200);
    const made = await fetch(url, {
      method: 'POST',
      headers: { authorization: 'Bearer example-token', 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'Posted through Express', content: '<p>ok</p>' }),
    });
    expect(made.status).toBe(200);
    expect(await p.stop('SIGTERM')).toBe(0);
  });

  it('hono: answers GETs and CORS preflights', async () => {
    const { p, url } = await run('hono');
    const list = (await (await fetch(url, { headers: { origin: 'https://elsewhere.example' } })).json()) as PostList;
    expect(list.items[0]!.title).toBe('Hello from Hono');
    const pre = await fetch(url, {
      method: 'OPTIONS',
      headers: { origin: 'https://elsewhere.example', 'access-control-request-method': 'POST' },
    });
    expect(pre.status).toBe(204);
    expect(pre.headers.get('access-control-allow-origin')).toBe('*');
    // Everything the helper serves is mounted: the blog's feed too; the app's own route stays the app's.
    const base = url.slice(0, url.indexOf('/v3/'));
    const blogId = /\/blogs\/([^/]+)\//.exec(url)![1]!;
    expect((await fetch(`${base}/feeds/${blogId}/posts/default`)).status).toBe(200);
    expect(await (await fetch(`${base}/`)).text()).toMatch(/^Try GET/);
    expect(await p.stop('SIGTERM')).toBe(0);
  });

  it('fastify: the plugin serves /v3 (JSON POSTs included) and the host still parses its own JSON bodies', async () => {
    const { p, url } = await run('fastify');
    const list = (await (await fetch(url)).json()) as PostList & { items: Array<{ id: string }> };
    expect(list.items[0]!.title).toBe('Hello from Fastify');
    // A JSON POST to the blog (an anonymous comment) is read by the handler, not left hanging.
    const comment = await fetch(`${url}/${list.items[0]!.id}/comments`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ content: 'Nice post', author: { displayName: 'A visitor' } }),
      signal: AbortSignal.timeout(10_000),
    });
    expect(comment.status).toBe(200);
    expect(((await comment.json()) as { content: string }).content).toBe('Nice post');
    // The host's own route keeps Fastify's JSON parser.
    const base = url.slice(0, url.indexOf('/v3/'));
    const echo = await fetch(`${base}/app/echo`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"a":1}',
    });
    expect(echo.status).toBe(200);
    expect(await echo.json()).toEqual({ a: 1 });
    // Everything the helper serves is mounted: the blog's feed too.
    const blogId = /\/blogs\/([^/]+)\//.exec(url)![1]!;
    expect((await fetch(`${base}/feeds/${blogId}/posts/default`)).status).toBe(200);
    expect(await p.stop('SIGTERM')).toBe(0);
  });
});
