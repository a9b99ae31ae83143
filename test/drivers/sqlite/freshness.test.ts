/**
 * How a SQLite connection learns of other connections' commits (drivers/sqlite/changes.ts `logBounds`): it looks
 * (`PRAGMA data_version`, asked when the WAL index's headers in `-shm` moved) once per turn of the event loop and
 * again after any commit
 * of this process, so every call sees what was committed before anything that led to it reached this process —
 * another process's commit announced by a message, another connection's commit in this process at once — and a
 * burst of calls in one turn pays one look. `exclusive: true` takes the file for one connection: no look at all.
 */
import Database from 'better-sqlite3';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createBlogService, type BlogService } from '../../../src/index.js';
import { sqliteDriver } from '../../../drivers/sqlite/index.js';
import { counting } from './counting-db.js';

const dir = mkdtempSync(join(tmpdir(), 'blogcore-sqlite-fresh-'));
let n = 0;
const file = () => join(dir, `f${n++}.db`);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

async function blogOf(service: BlogService) {
  const owner = await service.users.insert({ body: { displayName: 'Owner' } });
  return service.blogs.insert({ body: { name: 'Before', url: `https://fresh${n}.example/` }, ownerId: owner.id! });
}

describe('sqlite driver: other connections’ commits', () => {
  it('looks once for a burst of calls in one turn, again in the next turn and after a commit of this process', async () => {
    const f = file();
    const { db, runs } = counting(f, /data_version/);
    const service = createBlogService({ driver: sqliteDriver({ database: db }) });
    const blog = await blogOf(service);
    const post = await service.posts.insert({ blogId: blog.id!, body: { title: 'P' } });
    await nextTurn();
    const before = runs();
    for (let i = 0; i < 50; i++) await service.posts.get({ blogId: blog.id!, postId: post.id! });
    expect(runs() - before).toBe(1);
    await nextTurn();
    await service.posts.get({ blogId: blog.id!, postId: post.id! });
    await service.posts.get({ blogId: blog.id!, postId: post.id! });
    expect(runs() - before).toBe(2);
    await service.posts.patch({ blogId: blog.id!, postId: post.id!, body: { title: 'Q' } });
    const afterCommit = runs();
    await service.posts.get({ blogId: blog.id!, postId: post.id! });
    expect(runs() - afterCommit).toBe(1);
    await service.close();
    db.close();
  });

  it('sees another connection of this process at once, in the same turn', async () => {
    const f = file();
    const a = createBlogService({ driver: sqliteDriver({ filename: f }) });
    const b = createBlogService({ driver: sqliteDriver({ filename: f }) });
    const blog = await blogOf(a);
    await nextTurn();
    expect((await a.blogs.get({ blogId: blog.id! })).name).toBe('Before');
    expect((await b.blogs.get({ blogId: blog.id! })).name).toBe('Before');
    await b.blogs.patch({ blogId: blog.id!, body: { name: 'After' } });
    expect((await a.blogs.get({ blogId: blog.id! })).name).toBe('After');
    await a.close();
    await b.close();
  });

  it("sees another process's commit in the call its message starts, having looked in every turn before", async () => {
    const f = file();
    const service = createBlogService({ driver: sqliteDriver({ filename: f }) });
    const blog = await blogOf(service);
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', join(import.meta.dirname, 'freshness-child.ts'), f, blog.id!, 'After'],
      {
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    // Reads in every turn while the other process works: each turn looks, none may keep an old look.
    const names = new Set<string>();
    let reading = true;
    const reads = (async () => {
      while (reading) {
        names.add((await service.blogs.get({ blogId: blog.id! })).name!);
        await nextTurn();
      }
    })();
    const seen = await new Promise<string>((resolve, reject) => {
      child.stdout.on('data', () => void service.blogs.get({ blogId: blog.id! }).then((b) => resolve(b.name!), reject));
      child.on('exit', (code) => code !== 0 && reject(new Error(`child exited with ${code}`)));
    });
    reading = false;
    await reads;
    expect(seen).toBe('After');
    expect(names.has('Before')).toBe(true);
    await service.close();
  }, 30_000);

  it('with exclusive: true holds the file alone and never looks for other connections', async () => {
    const f = file();
    const service = createBlogService({ driver: sqliteDriver({ filename: f, exclusive: true }) });
    const blog = await blogOf(service);
    const post = await service.posts.insert({ blogId: blog.id!, body: { title: 'P' } });
    expect((await service.posts.get({ blogId: blog.id!, postId: post.id! })).title).toBe('P');
    const other = new Database(f, { timeout: 50 });
    expect(() => other.prepare('SELECT count(*) FROM docs').get()).toThrow(/locked|busy/i);
    other.close();
    await service.close();
    const after = new Database(f);
    expect(after.prepare('SELECT count(*) FROM docs').pluck().get()).toBeGreaterThan(0);
    after.close();
  });
});
