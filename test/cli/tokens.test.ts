// Migrate, then serve: a store that `import` (or an app) wrote is served as it is, never given a demo blog, and
// `blogcore token --user` signs in as any of its users (the built CLI, dist/cli.js, on SQLite files).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqliteDriver } from '../../drivers/sqlite/index.js';
import { createBlogService } from '../../src/index.js';
import { ROOT, requireBuild, start, type Proc } from '../http/spawn.js';

let dir: string;
const procs: Proc[] = [];
beforeAll(() => {
  requireBuild();
  dir = mkdtempSync(join(tmpdir(), 'blogcore-tokens-'));
});
afterAll(async () => {
  await Promise.all(procs.map((p) => p.stop('SIGKILL')));
  rmSync(dir, { recursive: true, force: true });
});

function cli(...args: string[]) {
  const r = spawnSync(process.execPath, ['dist/cli.js', ...args], { cwd: ROOT, encoding: 'utf8' });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

async function serve(db: string): Promise<{ p: Proc; api: string; out: string }> {
  const p = start(['dist/cli.js', 'serve', '--db', db, '--port', '0', '--quiet']);
  procs.push(p);
  await p.waitFor(/Ctrl\+C stops the server/);
  return { p, api: p.output().match(/API: +(\S+)\/$/m)![1]!, out: p.output() };
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const DEMO = 'https://demo.blogcore.example/';

describe('import, then token, then serve', () => {
  it('serves the imported blog without a demo, and a token for its owner manages it', async () => {
    const db = join(dir, 'moved.db');
    const imported = cli('import', join(ROOT, 'test/io/fixtures/wordpress-1.2.xml'), '--db', db);
    expect(imported.code).toBe(0);
    // The import names the owner and the command that mints their token.
    const owner = imported.stdout.match(/token --db \S+ --user (\S+)/)![1]!;
    expect(imported.stdout).toContain(`user ${owner} (Marie Curié)`);
    const blogId = imported.stdout.match(/into blog (\S+)/)![1]!;

    // Without --user there is no one to default to: the error says how to name one.
    const nobody = cli('token', '--db', db);
    expect(nobody.code).toBe(1);
    expect(nobody.stderr).toMatch(/--user <id>.*users list/);
    expect(cli('token', '--db', db, '--user', 'nope').stderr).toMatch(/no user nope/);

    const users = cli('users', 'list', '--db', db);
    expect(users.code).toBe(0);
    expect(users.stdout).toMatch(
      new RegExp(
        `user ${owner} \\(Marie Curié\\), no token\\n +ADMIN +of Café & Crème \\(https://cafe.example.org/\\)`,
      ),
    );
    expect(users.stdout).toMatch(/\(Paul\), no token\n +AUTHOR of Café & Crème/);

    const minted = cli('token', '--db', db, '--user', owner);
    expect(minted.code).toBe(0);
    const token = minted.stdout.trim();
    expect(token).toMatch(/^bc_[\w-]{20,}$/);
    expect(minted.stderr).toContain(
      `New bearer token for user ${owner} (Marie Curié), ADMIN of Café & Crème (https://cafe.example.org/)`,
    );
    expect(cli('users', 'list', '--db', db).stdout).toContain('(Marie Curié), has a token');

    const { p, api, out } = await serve(db);
    // No demo blog, no new token: the banner names the store's blog and its admin, and how to mint a token.
    expect(out).not.toMatch(/^ +bc_/m);
    expect(out).not.toMatch(/demo/i);
    expect(out).toContain(`Café & Crème (https://cafe.example.org/): admins user ${owner} (Marie Curié)`);
    expect(out).toContain(`token --db ${db} --user ${owner}`);
    expect((await fetch(`${api}/blogs/byurl?url=${DEMO}`)).status).toBe(404);
    expect(((await (await fetch(`${api}/`)).json()) as { blog: { id: string } }).blog.id).toBe(blogId);
    // The token signs in as the owner: drafts of the imported blog, and writes.
    const drafts = await fetch(`${api}/blogs/${blogId}/posts?status=draft`, { headers: bearer(token) });
    expect(drafts.status).toBe(200);
    expect(((await drafts.json()) as { items: unknown[] }).items.length).toBeGreaterThan(0);
    const made = await fetch(`${api}/blogs/${blogId}/posts`, {
      method: 'POST',
      headers: { ...bearer(token), 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'Moved', content: '<p>here now</p>' }),
    });
    expect(made.status).toBe(200);
    // A second token for the same user replaces the first at once, on the running server.
    const second = cli('token', '--db', db, '--user', owner).stdout.trim();
    expect((await fetch(`${api}/blogs/${blogId}/posts?status=draft`, { headers: bearer(token) })).status).toBe(401);
    expect((await fetch(`${api}/blogs/${blogId}/posts?status=draft`, { headers: bearer(second) })).status).toBe(200);
    // Tokens of different users live side by side; the author may not read the admin's page views.
    const paulId = users.stdout.match(/user (\S+) \(Paul\)/)![1]!;
    const paul = cli('token', '--db', db, '--user', paulId).stdout.trim();
    expect((await fetch(`${api}/blogs/${blogId}/posts?status=draft`, { headers: bearer(paul) })).status).toBe(200);
    expect((await fetch(`${api}/blogs/${blogId}/pageviews`, { headers: bearer(paul) })).status).toBe(403);
    expect((await fetch(`${api}/blogs/${blogId}/pageviews`, { headers: bearer(second) })).status).toBe(200);
    expect(await p.stop('SIGTERM')).toBe(0);

    // Served again: still no demo.
    const again = await serve(db);
    expect((await fetch(`${again.api}/blogs/byurl?url=${DEMO}`)).status).toBe(404);
    expect(await again.p.stop('SIGTERM')).toBe(0);
  });

  it("serve on the README example's blog.db serves Notes, with no demo blog", async () => {
    const db = join(dir, 'readme.db');
    const service = createBlogService({ driver: sqliteDriver({ filename: db }) });
    await service.users.insert({ body: { id: 'ada', displayName: 'Ada Lovelace' } });
    const blog = await service.blogs.insert({
      body: { name: 'Notes', url: 'https://notes.example.com/' },
      ownerId: 'ada',
    });
    await service.close();
    const { p, api, out } = await serve(db);
    expect(out).toContain('Notes (https://notes.example.com/): admins user ada (Ada Lovelace)');
    expect(out).toContain(`token --db ${db} --user ada`);
    expect((await fetch(`${api}/blogs/byurl?url=${DEMO}`)).status).toBe(404);
    // The README's next steps, the server still running: Notes by its url, a token for Ada that works at once.
    expect((await fetch(`${api}/blogs/byurl?url=https://notes.example.com/`)).status).toBe(200);
    const token = cli('token', '--db', db, '--user', 'ada').stdout.trim();
    expect(
      (await fetch(`${api}/users/self/blogs`, { headers: bearer(token) }).then((r) => r.json())) as {
        items: Array<{ id: string }>;
      },
    ).toMatchObject({
      items: [{ id: blog.id }],
    });
    expect(await p.stop('SIGTERM')).toBe(0);
  });

  it('the first run on an empty store says whom the token is for and which blog they administer', async () => {
    const { p, out } = await serve(join(dir, 'empty.db'));
    const admin = out.match(
      /Bearer token for user (\S+) \(Demo Admin\), ADMIN of blogcore demo \(https:\/\/demo\.blogcore\.example\/\)/,
    );
    expect(admin, out).not.toBeNull();
    expect(await p.stop('SIGTERM')).toBe(0);
    // `token` without --user mints for that demo admin, as before.
    expect(cli('token', '--db', join(dir, 'empty.db')).stderr).toContain(`user ${admin![1]} (Demo Admin)`);
  });
});
