// `blogcore serve` / `blogcore token` as `npm start` runs them: the built dist/cli.js on a temp SQLite file.
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireBuild, start, type Proc } from './spawn.js';

let dir: string;
let db: string;
const procs: Proc[] = [];

beforeAll(() => {
  requireBuild();
  dir = mkdtempSync(join(tmpdir(), 'blogcore-cli-'));
  db = join(dir, 'nested', 'blog.db');
});
afterAll(async () => {
  await Promise.all(procs.map((p) => p.stop('SIGKILL')));
  rmSync(dir, { recursive: true, force: true });
});

function serve(...more: string[]): Proc {
  const p = start(['dist/cli.js', 'serve', '--db', db, '--port', '0', '--host', '127.0.0.1', ...more]);
  procs.push(p);
  return p;
}

interface PostList {
  items?: Array<{ id: string; title: string; status?: string }>;
}

describe('blogcore serve', () => {
  let token: string;
  let postsUrl: string;

  it('first run: creates the demo blog, prints the base URL, curl examples and an admin token', async () => {
    const p = serve();
    await p.waitFor(/Ctrl\+C stops the server/);
    const out = p.output();
    const api = out.match(/API: +(http:\/\/127\.0\.0\.1:\d+\/v3)\//)![1]!;
    const blogUrl = out.match(/Blog: +(\S+)/)![1]!;
    token = out.match(/^ +(bc_[\w-]{20,})$/m)![1]!;
    postsUrl = `${blogUrl}/posts`;
    expect(blogUrl.startsWith(`${api}/blogs/`)).toBe(true);
    expect(out).toContain(`curl ${postsUrl}`);
    expect(out).toContain(`Authorization: Bearer ${token}`);

    // Anonymous: the LIVE demo posts only.
    const anon = (await (await fetch(postsUrl)).json()) as PostList;
    expect(anon.items!.length).toBeGreaterThanOrEqual(2);
    expect(anon.items!.every((x) => x.status === undefined)).toBe(true);
    // The admin token sees the draft and the scheduled post.
    const hidden = await fetch(`${postsUrl}?status=draft,scheduled`, { headers: { authorization: `Bearer ${token}` } });
    expect(hidden.status).toBe(200);
    expect(((await hidden.json()) as PostList).items!.map((x) => x.status).sort()).toEqual(['DRAFT', 'SCHEDULED']);
    // Pages and a pending comment exist too.
    const blogId = blogUrl.split('/').pop()!;
    const pages = (await (
      await fetch(`${api}/blogs/${blogId}/pages?status=live,draft`, { headers: { authorization: `Bearer ${token}` } })
    ).json()) as PostList;
    expect(pages.items!.length).toBe(2);
    const pending = (await (
      await fetch(`${api}/blogs/${blogId}/comments?status=pending`, { headers: { authorization: `Bearer ${token}` } })
    ).json()) as PostList;
    expect(pending.items!.length).toBe(1);
    // A wrong token is refused; the access_token parameter works like the header.
    expect((await fetch(postsUrl, { headers: { authorization: 'Bearer bc_wrong' } })).status).toBe(401);
    expect((await fetch(`${postsUrl}?status=draft&access_token=${token}`)).status).toBe(200);
    // A write with the token.
    const made = await fetch(postsUrl, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'Hello', content: '<p>Hi!</p>' }),
    });
    expect(made.status).toBe(200);

    expect(await p.stop('SIGTERM')).toBe(0);
  });

  it('keeps only a SHA-256 hash of the token in the settings collection', () => {
    const sqlite = new Database(db, { readonly: true });
    try {
      const rows = sqlite.prepare('SELECT doc FROM docs').all() as Array<{ doc: string }>;
      expect(rows.some((r) => r.doc.includes(token))).toBe(false);
      const hash = createHash('sha256').update(token).digest('hex');
      expect(rows.some((r) => r.doc.includes(hash))).toBe(true);
    } finally {
      sqlite.close();
    }
  });

  it('later runs keep the data, do not show the token again, and say how to rotate it', async () => {
    const p = serve();
    await p.waitFor(/Ctrl\+C stops the server/);
    const out = p.output();
    expect(out).not.toContain(token);
    expect(out).not.toMatch(/bc_[\w-]{20,}/);
    expect(out).toMatch(/token --db /);
    const api = out.match(/Blog: +(\S+)/)![1]!;
    const titles = ((await (await fetch(`${api}/posts`)).json()) as PostList).items!.map((x) => x.title);
    expect(titles).toContain('Hello');
    expect((await fetch(`${api}/posts?status=draft`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(
      200,
    );

    // `blogcore token` while the server runs: the new token works at once, the old one no longer does.
    const rotate = start(['dist/cli.js', 'token', '--db', db]);
    procs.push(rotate);
    const fresh = (await rotate.waitFor(/^(bc_[\w-]{20,})$/m))[1]!;
    expect(await rotate.exited).toBe(0);
    expect(fresh).not.toBe(token);
    expect((await fetch(`${api}/posts?status=draft`, { headers: { authorization: `Bearer ${fresh}` } })).status).toBe(
      200,
    );
    expect((await fetch(`${api}/posts?status=draft`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(
      401,
    );

    expect(await p.stop('SIGINT')).toBe(0);
  });

  it('a SIGTERM during start-up lets it finish, then stops cleanly (exit 0, no banner)', async () => {
    const fresh = join(dir, 'starting.db');
    const p = start(['dist/cli.js', 'serve', '--db', fresh, '--port', '0', '--host', '127.0.0.1']);
    procs.push(p);
    // The store's file appears early in start-up (the demo blog is written after it): signal then.
    while (!existsSync(fresh) && p.child.exitCode === null) await new Promise((r) => setTimeout(r, 2));
    expect(await p.stop('SIGTERM'), p.output()).toBe(0);
    expect(p.output()).toContain('SIGTERM: shutting down');
    expect(p.output()).not.toContain('Ctrl+C stops the server');
    // Closed cleanly: the next run finds the demo blog it wrote, and says so instead of making another.
    const again = start(['dist/cli.js', 'serve', '--db', fresh, '--port', '0', '--host', '127.0.0.1']);
    procs.push(again);
    await again.waitFor(/Ctrl\+C stops the server/);
    expect(again.output()).toContain('Blogs in this store, and who administers them:');
    expect(await again.stop('SIGTERM')).toBe(0);
  });

  it('a second signal while it stops (a supervisor, `npm start` passing one on) does not cut the stop short', async () => {
    const p = serve();
    const port = Number((await p.waitFor(/API: +http:\/\/127\.0\.0\.1:(\d+)\//))[1]);
    await p.waitFor(/Ctrl\+C stops the server/);
    // A client still sending its request keeps the stop waiting (for it, 2 s at most): the second signal comes then.
    const slow = connect(port, '127.0.0.1');
    slow.on('error', () => {});
    await new Promise((r) => slow.once('connect', r));
    slow.write('GET /v3 HTTP/1.1\r\nHost: x\r\n');
    p.child.kill('SIGTERM');
    await p.waitFor(/SIGTERM: shutting down/);
    p.child.kill('SIGINT');
    expect(await p.exited, p.output()).toBe(0);
    slow.destroy();
  });

  it('fails clearly on a bad port', async () => {
    const p = start(['dist/cli.js', 'serve', '--db', db, '--port', 'eighty']);
    procs.push(p);
    expect(await p.exited).toBe(2);
    expect(p.output()).toContain('--port: not a port number: eighty');
  });
});

describe('blogcore serve as a server', () => {
  it('the printed API root answers, with links that answer too', async () => {
    const p = serve();
    await p.waitFor(/Ctrl\+C stops the server/);
    const api = p.output().match(/API: +(\S+)/)![1]!;
    const res = await fetch(api);
    expect(res.status).toBe(200);
    const root = (await res.json()) as { version: string; links: Record<string, string> };
    expect(Object.keys(root.links).length).toBeGreaterThan(0);
    for (const link of Object.values(root.links)) expect((await fetch(link)).status).toBe(200);
    expect(await p.stop('SIGTERM')).toBe(0);
  });

  it('--api-base-url: links and selfLinks start with the public URL', async () => {
    const p = serve('--api-base-url', 'https://blog.example.com/api/');
    await p.waitFor(/Ctrl\+C stops the server/);
    const api = p.output().match(/API: +(\S+)/)![1]!;
    const root = (await (await fetch(api)).json()) as { blog: { selfLink: string } };
    expect(root.blog.selfLink).toMatch(/^https:\/\/blog\.example\.com\/api\/v3\/blogs\/\w+$/);
    const local = root.blog.selfLink.replace('https://blog.example.com/api', api.replace(/\/v3\/$/, ''));
    const blog = (await (await fetch(local)).json()) as { selfLink: string };
    expect(blog.selfLink).toBe(root.blog.selfLink);
    expect(await p.stop('SIGTERM')).toBe(0);
  });

  it('logs one line per request (method, path without the query, status, ms); --quiet logs none', async () => {
    const p = serve();
    await p.waitFor(/Ctrl\+C stops the server/);
    const blog = p.output().match(/Blog: +(http:\/\/[^/]+)(\S+)/)!;
    await fetch(`${blog[1]}${blog[2]}/posts?access_token=secret`);
    await fetch(`${blog[1]}/v3/blogs/nope`);
    const lines = (await p.waitFor(/^GET \/v3\/blogs\/nope 404 .*$/m))[0];
    expect(lines).toMatch(/^GET \/v3\/blogs\/nope 404 \d+(\.\d+)? ms$/);
    expect(p.output()).toMatch(new RegExp(`^GET ${blog[2]}/posts 401 \\d+(\\.\\d+)? ms$`, 'm'));
    expect(p.output()).not.toContain('secret');
    expect(await p.stop('SIGTERM')).toBe(0);

    const q = serve('--quiet');
    await q.waitFor(/Ctrl\+C stops the server/);
    const api = q.output().match(/API: +(\S+)/)![1]!;
    const before = q.output();
    expect((await fetch(`${api}blogs/nope`)).status).toBe(404);
    expect(await q.stop('SIGTERM')).toBe(0);
    expect(q.output().slice(before.length)).not.toContain('/v3/blogs/nope');
  });

  it('survives the reader of its log going away (`blogcore serve | head`): EPIPE ends the logging, not the server', async () => {
    const p = serve();
    await p.waitFor(/Ctrl\+C stops the server/);
    const api = p.output().match(/API: +(\S+)/)![1]!;
    // Like `| head` exiting: the read end of the server's stdout closes; each request then logs into a broken pipe.
    p.child.stdout!.destroy();
    for (let i = 0; i < 5; i++) {
      expect((await fetch(`${api}blogs/nope`)).status).toBe(404);
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(p.child.exitCode).toBeNull();
    expect((await fetch(api)).status).toBe(200);
    expect(await p.stop('SIGTERM')).toBe(0);
  });

  it('--max-connections caps open connections: one more is refused until one closes', async () => {
    const p = serve('--max-connections', '1');
    await p.waitFor(/Ctrl\+C stops the server/);
    const api = new URL(p.output().match(/API: +(\S+)/)![1]!);
    const held = connect(Number(api.port), api.hostname);
    await new Promise((r) => held.once('connect', r));
    // The server counts the held socket once it has accepted it; a request then finds no room.
    await expect(fetch(api, { headers: { connection: 'close' } }).then((r) => r.status)).rejects.toThrow();
    held.destroy();
    let status = 0;
    for (let i = 0; i < 50 && status !== 200; i++)
      status = await fetch(api).then(
        (r) => r.status,
        () => 0,
      );
    expect(status).toBe(200);
    expect(await p.stop('SIGTERM')).toBe(0);
  });

  it('--trust-proxy: behind one proxy the address it saw counts for the comment limits', async () => {
    const p = start(['dist/cli.js', 'serve', '--db', join(dir, 'proxy.db'), '--port', '0', '--trust-proxy', '1']);
    procs.push(p);
    await p.waitFor(/Ctrl\+C stops the server/);
    const blogUrl = p.output().match(/Blog: +(\S+)/)![1]!;
    const posts = (await (await fetch(`${blogUrl}/posts`)).json()) as PostList;
    let n = 0;
    const say = (forwardedFor: string) =>
      fetch(`${blogUrl}/posts/${posts.items![0]!.id}/comments`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-forwarded-for': forwardedFor },
        body: JSON.stringify({ content: `comment ${++n}` }),
      }).then((r) => r.status);
    // Five readers behind the proxy (one socket address): each its own limit.
    const readers = [];
    for (let i = 1; i <= 5; i++) readers.push(await say(`198.51.100.${i}`));
    expect(readers).toEqual([200, 200, 200, 200, 200]);
    // One of them flooding: its burst, then 429.
    const flood = [];
    for (let i = 0; i < 4; i++) flood.push(await say('192.0.2.9'));
    expect(flood).toEqual([200, 200, 200, 429]);
    expect(await p.stop('SIGTERM')).toBe(0);
    const bad = start(['dist/cli.js', 'serve', '--db', join(dir, 'proxy.db'), '--trust-proxy', 'nope']);
    expect(await bad.exited).toBe(2);
    expect(bad.output()).toContain('--trust-proxy: a hop count or addresses and CIDRs');
  }, 60_000);

  it('gives a comment 15 s to arrive whole (408 after), a picture upload its 120 s', async () => {
    // A store of its own: its first run prints the demo blog and its owner's token.
    const p = start(['dist/cli.js', 'serve', '--db', join(dir, 'deadline.db'), '--port', '0', '--quiet']);
    procs.push(p);
    await p.waitFor(/Ctrl\+C stops the server/);
    const api = new URL(p.output().match(/API: +(\S+)/)![1]!);
    const blogUrl = p.output().match(/Blog: +(\S+)/)![1]!;
    const token = p.output().match(/^ +(bc_[\w-]{20,})$/m)![1]!;
    const posts = (await (await fetch(`${blogUrl}/posts`)).json()) as PostList;
    const blogPath = new URL(blogUrl).pathname;
    /** Sends the headers and then one byte of the body a second; resolves with what came back once it closed. */
    const trickle = (path: string, headers: string) => {
      const socket = connect(Number(api.port), api.hostname);
      socket.on('error', () => {});
      socket.write(`POST ${path} HTTP/1.1\r\nHost: ${api.host}\r\ncontent-length: 1000\r\n${headers}\r\n{"content": "`);
      const drip = setInterval(() => socket.write('a'), 1000);
      const began = Date.now();
      let answer = '';
      socket.on('data', (d: Buffer) => (answer += d.toString()));
      const closed = new Promise<{ answer: string; seconds: number }>((r) =>
        socket.once('close', () => {
          clearInterval(drip);
          r({ answer, seconds: (Date.now() - began) / 1000 });
        }),
      );
      return { socket, closed, answer: () => answer };
    };
    const comment = trickle(`${blogPath}/posts/${posts.items![0]!.id}/comments`, 'content-type: application/json\r\n');
    const upload = trickle(`${blogPath}/media`, `authorization: Bearer ${token}\r\ncontent-type: image/png\r\n`);
    const cut = await comment.closed;
    expect(cut.answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(cut.answer).toContain('"reason":"requestTimeout"');
    // Cut at the body deadline (15 s), not at the upload's 120 s; a busy machine may check a little late.
    expect(cut.seconds).toBeGreaterThanOrEqual(14);
    expect(cut.seconds).toBeLessThan(60);
    // The upload, begun at the same moment, is still being received.
    await new Promise((r) => setTimeout(r, 3000));
    expect([upload.socket.closed, upload.answer()]).toEqual([false, '']);
    upload.socket.destroy();
    expect(await p.stop('SIGTERM')).toBe(0);
  }, 90_000);

  it('cuts off a client that never finishes its headers with 408 (Node alone waits 60 s)', async () => {
    const p = serve('--quiet');
    await p.waitFor(/Ctrl\+C stops the server/);
    const api = new URL(p.output().match(/API: +(\S+)/)![1]!);
    const slow = connect(Number(api.port), api.hostname);
    slow.write(`GET /v3/ HTTP/1.1\r\nHost: ${api.host}\r\n`); // and never the blank line that ends the headers
    let answer = '';
    slow.on('data', (d: Buffer) => (answer += d.toString()));
    await new Promise((r) => slow.once('close', r));
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(await p.stop('SIGTERM')).toBe(0);
  }, 25_000);
});
