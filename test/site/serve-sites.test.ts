/**
 * Every blog of a store at its own address (docs/design.md §22): the site answers each blog by the request's Host and
 * path, in process and in `blogcore serve --site`; on this machine the banner names each blog's local address
 * (path included) and `/` is the only blog or an index page linking each; unknown paths under a blog's address
 * get the site's HTML 404, and `/favicon.ico` is answered, never with the API's JSON.
 */
import { request } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { memoryDriver } from '../../drivers/memory/index.js';
import { sqliteDriver } from '../../drivers/sqlite/index.js';
import { type BlogService, createBlogService } from '../../src/index.js';
import { createSite } from '../../src/site/index.js';
import { type Proc, requireBuild, start } from '../http/spawn.js';

const dir = mkdtempSync(join(tmpdir(), 'blogcore-serve-sites-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Blogs at a host's root, under a path of another host, and two folders deep (Blogger's), each with a post. */
async function twoBlogs(service: BlogService, which: 'both' | 'notes' = 'both') {
  await service.users.insert({ body: { id: 'ada', displayName: 'Ada' } });
  const as = service.as({ userId: 'ada' });
  const made: Record<string, { blogId: string; post: string }> = {};
  for (const [name, url] of [
    ['Alpha', 'https://a.example/'],
    ['Notes', 'https://b.example/notes/'],
    // An imported Blogger blog: its url is two folders deep.
    ['Things', 'http://www.blogger.com/blogspot/jjsfavoritethings/'],
  ] as const) {
    if (which === 'notes' && name !== 'Notes') continue;
    const blog = await service.blogs.insert({ body: { name, url }, ownerId: 'ada' });
    const post = await as.posts.insert({ blogId: blog.id, body: { title: `${name} post`, content: `<p>${name}</p>` } });
    made[name] = { blogId: blog.id, post: new URL(post.url!).pathname };
  }
  return made;
}

/** A GET with the Host header given (fetch cannot set it). */
function get(origin: string, path: string, host?: string) {
  const url = new URL(path, origin);
  return new Promise<{ status: number; type: string; location: string; text: string }>((resolve, reject) => {
    const req = request(url, { headers: host ? { host } : {} }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (text += d));
      res.on('end', () =>
        resolve({
          status: res.statusCode!,
          type: String(res.headers['content-type'] ?? ''),
          location: String(res.headers.location ?? ''),
          text,
        }),
      );
    });
    req.on('error', reject);
    req.end();
  });
}

describe('createSite: unknown paths and the icon', () => {
  it("answers the site's HTML 404 under a blog's address, 204 for /favicon.ico, and leaves /v3 to the API", async () => {
    const service = createBlogService({ driver: memoryDriver() });
    const made = await twoBlogs(service);
    const site = createSite(service);
    for (const path of ['/nope.html', '/about', '/2026/13/x.html', '/search/label']) {
      const r = (await site(new Request(`https://a.example${path}`)))!;
      expect(r?.status, path).toBe(404);
      expect(r.headers.get('content-type')).toMatch(/^text\/html/);
      expect(await r.text()).toContain('Page not found');
    }
    const notes = (await site(new Request('https://b.example/notes/nope')))!;
    expect([notes.status, notes.headers.get('content-type')]).toEqual([404, 'text/html; charset=utf-8']);
    expect((await site(new Request('https://a.example/favicon.ico')))?.status).toBe(204);
    expect(await site(new Request('https://a.example/v3/blogs/x'))).toBeNull();
    expect(await site(new Request('https://elsewhere.example/nope'))).toBeNull();
    // Each blog at its own host and path; `<host>.localhost` stands for the host.
    expect((await site(new Request(`https://b.example${made.Notes!.post}`)))?.status).toBe(200);
    expect((await site(new Request(`http://b.example.localhost:8080${made.Notes!.post}`)))?.status).toBe(200);
    expect((await site(new Request(`http://a.example.localhost:8080${made.Alpha!.post}`)))?.status).toBe(200);
    expect((await site(new Request(`https://a.example${made.Notes!.post}`)))?.status).toBe(404);
    await service.close();
  });
});

describe('blogcore serve --site', { timeout: 60_000 }, () => {
  const serve = async (db: string, ...extra: string[]) => {
    requireBuild();
    const p = start(['dist/cli.js', 'serve', '--site', '--quiet', '--db', db, '--port', '0', ...extra]);
    const origin = (await p.waitFor(/API: {2}(http:\/\/127\.0\.0\.1:\d+)\/v3/))[1]!;
    await p.waitFor(/Ctrl\+C/);
    return { p, origin, port: new URL(origin).port };
  };
  const store = async (name: string, which: 'both' | 'notes') => {
    const db = join(dir, `${name}.db`);
    const service = createBlogService({ driver: sqliteDriver({ filename: db }) });
    const made = await twoBlogs(service, which);
    await service.close();
    return { db, made };
  };

  it('serves every blog by Host and path, lists each local address, and links each from an index page', async () => {
    const { db, made } = await store('two', 'both');
    let proc: Proc | undefined;
    try {
      const { p, origin, port } = await serve(db);
      proc = p;
      expect(p.output()).toContain(`http://a.example.localhost:${port}/  (https://a.example/)`);
      expect(p.output()).toContain(`http://b.example.localhost:${port}/notes/  (https://b.example/notes/)`);
      const alpha = await get(origin, '/', 'a.example');
      expect([alpha.status, alpha.text.includes('Alpha post')]).toEqual([200, true]);
      const notes = await get(origin, '/notes/', 'b.example');
      expect([notes.status, notes.text.includes('Notes post')]).toEqual([200, true]);
      expect((await get(origin, made.Notes!.post, `b.example.localhost:${port}`)).status).toBe(200);
      expect((await get(origin, made.Alpha!.post, 'a.example')).status).toBe(200);
      const things = await get(origin, '/blogspot/jjsfavoritethings/', `www.blogger.com.localhost:${port}`);
      expect([things.status, things.text.includes('Things post')]).toEqual([200, true]);
      expect((await get(origin, made.Things!.post, 'www.blogger.com')).status).toBe(200);
      for (const [path, host] of [
        ['/nope.html', 'a.example'],
        ['/about', 'a.example'],
        ['/notes/nope', 'b.example'],
      ] as const) {
        const r = await get(origin, path, host);
        expect([r.status, r.type], `${host}${path}`).toEqual([404, 'text/html; charset=utf-8']);
      }
      for (const host of ['a.example', 'b.example', `127.0.0.1:${port}`])
        expect((await get(origin, '/favicon.ico', host)).status, host).toBe(204);
      const index = await get(origin, '/');
      expect(index.status).toBe(200);
      expect(index.text).toContain(`href="http://a.example.localhost:${port}/"`);
      expect(index.text).toContain(`href="http://b.example.localhost:${port}/notes/"`);
      expect(JSON.parse((await get(origin, '/v3/')).text).kind).toBe('blogcore#api');
    } finally {
      await proc?.stop();
    }
  });

  it('the only blog, under a path: the banner names that path and / leads there', async () => {
    const { db } = await store('one', 'notes');
    let proc: Proc | undefined;
    try {
      const { p, origin } = await serve(db);
      proc = p;
      expect(p.output()).toContain(`Site: ${origin}/notes/  (https://b.example/notes/)`);
      const root = await get(origin, '/');
      expect([root.status, root.location]).toEqual([302, '/notes/']);
      const home = await get(origin, '/notes/');
      expect([home.status, home.text.includes('Notes post')]).toEqual([200, true]);
      expect((await get(origin, '/notes/nope')).type).toBe('text/html; charset=utf-8');
    } finally {
      await proc?.stop();
    }
  });

  it('--blog limits the site to one blog, whatever the Host', async () => {
    const { db, made } = await store('limited', 'both');
    let proc: Proc | undefined;
    try {
      const { p, origin } = await serve(db, '--blog', 'https://b.example/notes/');
      proc = p;
      expect(p.output()).toContain(`Site: ${origin}/notes/`);
      expect(p.output()).not.toContain('a.example.localhost');
      expect((await get(origin, made.Notes!.post)).status).toBe(200);
      expect((await get(origin, made.Alpha!.post, 'a.example')).type).not.toMatch(/html/);
    } finally {
      await proc?.stop();
    }
  });
});
