// `blogcore serve` / `blogcore token` as `npm start` runs them: the built dist/cli.js on a temp SQLite file.
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
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

function serve(): Proc {
  const p = start(['dist/cli.js', 'serve', '--db', db, '--port', '0', '--host', '127.0.0.1']);
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
    token = out.match(/^ +(bk_[\w-]{20,})$/m)![1]!;
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
    const pages = (await (await fetch(`${api}/blogs/${blogId}/pages?status=live,draft`, { headers: { authorization: `Bearer ${token}` } })).json()) as PostList;
    expect(pages.items!.length).toBe(2);
    const pending = (await (await fetch(`${api}/blogs/${blogId}/comments?status=pending`, { headers: { authorization: `Bearer ${token}` } })).json()) as PostList;
    expect(pending.items!.length).toBe(1);
    // A wrong token is refused; the access_token parameter works like the header.
    expect((await fetch(postsUrl, { headers: { authorization: 'Bearer bk_wrong' } })).status).toBe(401);
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
    expect(out).not.toMatch(/bk_[\w-]{20,}/);
    expect(out).toMatch(/token --db /);
    const api = out.match(/Blog: +(\S+)/)![1]!;
    const titles = ((await (await fetch(`${api}/posts`)).json()) as PostList).items!.map((x) => x.title);
    expect(titles).toContain('Hello');
    expect((await fetch(`${api}/posts?status=draft`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);

    // `blogcore token` while the server runs: the new token works at once, the old one no longer does.
    const rotate = start(['dist/cli.js', 'token', '--db', db]);
    procs.push(rotate);
    const fresh = (await rotate.waitFor(/^(bk_[\w-]{20,})$/m))[1]!;
    expect(await rotate.exited).toBe(0);
    expect(fresh).not.toBe(token);
    expect((await fetch(`${api}/posts?status=draft`, { headers: { authorization: `Bearer ${fresh}` } })).status).toBe(200);
    expect((await fetch(`${api}/posts?status=draft`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(401);

    expect(await p.stop('SIGINT')).toBe(0);
  });

  it('fails clearly on a bad port', async () => {
    const p = start(['dist/cli.js', 'serve', '--db', db, '--port', 'eighty']);
    procs.push(p);
    expect(await p.exited).toBe(1);
    expect(p.output()).toContain('--port: not a port number: eighty');
  });
});
