/**
 * service.startScheduler(): scheduled posts go LIVE and `post.published` fires at their time, without any
 * read; the timer is set to the next due post (not a poll) and brought forward by writes; with two processes
 * on one SQLite file every post is published once.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { memoryDriver } from '../../drivers/memory/index.js';
import { sqliteDriver } from '../../drivers/sqlite/index.js';
import type { StorageDriver } from '../../src/store/driver.js';
import { createBlogService, type BlogEvent } from '../../src/index.js';

const MINUTE = 60_000;
const dir = mkdtempSync(join(tmpdir(), 'blogcore-scheduler-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The memory driver, counting the index walks it answers (to show an idle scheduler reads nothing). */
function countingDriver(): { driver: StorageDriver; lists: () => number } {
  const inner = memoryDriver();
  let lists = 0;
  const driver: StorageDriver = Object.create(inner);
  driver.list = (q) => {
    lists++;
    return inner.list(q);
  };
  return { driver, lists: () => lists };
}

async function setup(driver: StorageDriver = memoryDriver()) {
  const service = createBlogService({ driver });
  const user = await service.users.insert({ body: { displayName: 'Ada' } });
  const blog = await service.blogs.insert({
    body: { name: 'On time', url: 'https://ontime.example/' },
    ownerId: user.id,
  });
  const published: BlogEvent[] = [];
  service.on('post.published', (e) => void published.push(e));
  const schedule = (offsetMs: number, title = 'Later') =>
    service.posts.insert({
      blogId: blog.id,
      body: { title, published: new Date(Date.now() + offsetMs).toISOString() },
    });
  /** The post's status as stored, read from the driver (a service read would itself promote a due post). */
  const stored = async (id: string) => ((await driver.get('posts', id))!.doc as { status: string }).status;
  return { service, blogId: blog.id, published, schedule, stored };
}

describe('startScheduler with a fake clock', () => {
  // The scheduler's code loads on first start (src/util/lazy.ts's reason); load it before the clock is faked, so
  // the fake clock's steps are all that time the scheduler (the module loader has timers of its own).
  beforeAll(async () => {
    await import('../../src/core/scheduler.js');
  });
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'], now: Date.parse('2026-05-01T12:00:00Z') });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('publishes at the due time, without any read, and fires post.published once', async () => {
    const w = await setup();
    const post = await w.schedule(60 * MINUTE);
    const stop = w.service.startScheduler();
    await vi.advanceTimersByTimeAsync(59 * MINUTE);
    expect(await w.stored(post.id)).toBe('SCHEDULED');
    expect(w.published).toEqual([]);
    await vi.advanceTimersByTimeAsync(MINUTE);
    expect(await w.stored(post.id)).toBe('LIVE');
    expect(w.published.map((e) => e.id)).toEqual([post.id]);
    await vi.advanceTimersByTimeAsync(60 * MINUTE);
    expect(w.published).toHaveLength(1);
    stop();
  });

  it('is re-armed by a write that schedules an earlier post, and by publish with a date', async () => {
    const w = await setup();
    const stop = w.service.startScheduler({ maxDelayMs: 24 * 60 * MINUTE });
    await vi.advanceTimersByTimeAsync(MINUTE);
    const late = await w.schedule(10 * 60 * MINUTE, 'late');
    const soon = await w.schedule(30 * MINUTE, 'soon');
    const draft = await w.service.posts.insert({ blogId: w.blogId, body: { title: 'draft' }, isDraft: true });
    await w.service.posts.publish({
      blogId: w.blogId,
      postId: draft.id,
      publishDate: new Date(Date.now() + 45 * MINUTE).toISOString(),
    });
    await vi.advanceTimersByTimeAsync(30 * MINUTE);
    expect(w.published.map((e) => e.id)).toEqual([soon.id]);
    await vi.advanceTimersByTimeAsync(15 * MINUTE);
    expect(w.published.map((e) => e.id)).toEqual([soon.id, draft.id]);
    await vi.advanceTimersByTimeAsync(9 * 60 * MINUTE + 14 * MINUTE);
    expect(await w.stored(late.id)).toBe('SCHEDULED');
    await vi.advanceTimersByTimeAsync(MINUTE);
    expect(await w.stored(late.id)).toBe('LIVE');
    expect(w.published.map((e) => e.id)).toEqual([soon.id, draft.id, late.id]);
    stop();
  });

  it('sleeps while nothing is due (no reads), and stops', async () => {
    const { driver, lists } = countingDriver();
    const w = await setup(driver);
    const post = await w.schedule(3 * 60 * MINUTE);
    const stop = w.service.startScheduler({ maxDelayMs: 24 * 60 * MINUTE });
    await vi.advanceTimersByTimeAsync(1000);
    const before = lists();
    await vi.advanceTimersByTimeAsync(2 * 60 * MINUTE);
    expect(lists()).toBe(before); // two hours, not one look
    expect(vi.getTimerCount()).toBe(1);
    stop();
    expect(vi.getTimerCount()).toBe(0);
    await vi.advanceTimersByTimeAsync(2 * 60 * MINUTE);
    expect(await w.stored(post.id)).toBe('SCHEDULED'); // stopped: only a read promotes it now
    expect(w.published).toEqual([]);
    expect((await w.service.posts.get({ blogId: w.blogId, postId: post.id })).status).toBe('LIVE');
    expect(w.published).toHaveLength(1);
  });

  it('only the host service runs it', async () => {
    const w = await setup();
    expect(() => w.service.as(null).startScheduler()).toThrow(/host/);
  });
});

interface Child {
  proc: ChildProcessWithoutNullStreams;
  lines: Array<Record<string, unknown>>;
  wait(pred: (lines: Array<Record<string, unknown>>) => boolean): Promise<void>;
}

/** Checks waiting on any child's output: a condition over both children is looked at whenever either prints. */
const waiters: Array<() => void> = [];

function startChild(file: string): Child {
  const proc = spawn(process.execPath, ['--import', 'tsx', 'test/core/scheduler-child.ts', file], {
    cwd: process.cwd(),
  });
  const lines: Array<Record<string, unknown>> = [];
  let buf = '';
  let stderr = '';
  proc.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
  proc.stdout.on('data', (b: Buffer) => {
    buf += b.toString();
    let nl: number;
    while ((nl = buf.indexOf('\n')) >= 0) {
      lines.push(JSON.parse(buf.slice(0, nl)) as Record<string, unknown>);
      buf = buf.slice(nl + 1);
    }
    for (const w of waiters.splice(0)) w();
  });
  return {
    proc,
    lines,
    wait: (pred) =>
      new Promise<void>((resolve, reject) => {
        const check = () => {
          if (pred(lines)) return resolve();
          if (proc.exitCode !== null) return reject(new Error(`child exited: ${stderr}`));
          waiters.push(check);
        };
        proc.once('exit', () => (pred(lines) ? resolve() : reject(new Error(`child exited: ${stderr}`))));
        check();
      }),
  };
}

describe('startScheduler with two processes on one SQLite file', () => {
  it('publishes every post once between them', async () => {
    const file = join(dir, 'two.db');
    const w = await setup(sqliteDriver({ filename: file }));
    // Posts due from 2 s on, some at the same instant: each process's timer is set to the next one and both race for it.
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) ids.push((await w.schedule(2000 + Math.floor(i / 2) * 200, `post ${i}`)).id);
    const children = [startChild(file), startChild(file)];
    try {
      const publishedIds = () =>
        children.flatMap((c) => c.lines.filter((x) => x.published).map((x) => x.published as string));
      await children[0]!.wait(() => new Set(publishedIds()).size === ids.length);
      for (const c of children) c.proc.stdin.write('finish\n');
      await Promise.all(children.map((c) => c.wait((l) => l.some((x) => x.closed))));
      expect(publishedIds().sort()).toEqual([...ids].sort());
      for (const id of ids) expect(await w.stored(id)).toBe('LIVE');
    } finally {
      for (const c of children) if (c.proc.exitCode === null) c.proc.kill('SIGKILL');
      await w.service.close();
    }
  }, 60_000);
});

describe('reads and the next due post', () => {
  /** A driver counting its walks of the `due` index. */
  function dueCounting(inner: StorageDriver) {
    let walks = 0;
    const driver: StorageDriver = Object.create(inner);
    driver.list = (q) => {
      if (q.index === 'due') walks++;
      return inner.list(q);
    };
    return { driver, walks: () => walks };
  }

  it('reads the due index only when what it knows of it may have changed', async () => {
    let clock = Date.UTC(2026, 0, 1);
    const { driver, walks } = dueCounting(memoryDriver());
    const service = createBlogService({ driver, now: () => new Date(clock) });
    const user = await service.users.insert({ body: { displayName: 'Ada' } });
    const blog = await service.blogs.insert({ body: { name: 'Due', url: 'https://due.example/' }, ownerId: user.id });
    await service.posts.list({ blogId: blog.id });
    const before = walks();
    for (let i = 0; i < 5; i++) await service.posts.list({ blogId: blog.id });
    expect(walks(), 'nothing scheduled: lists read no due index').toBe(before);
    const later = await service.posts.insert({
      blogId: blog.id,
      body: { title: 'Later', published: new Date(clock + MINUTE).toISOString() },
    });
    expect((await service.posts.list({ blogId: blog.id })).items ?? []).toEqual([]);
    const known = walks();
    await service.posts.list({ blogId: blog.id });
    expect(walks(), 'the next due post is a minute away').toBe(known);
    clock += 2 * MINUTE;
    expect((await service.posts.list({ blogId: blog.id })).items?.map((p) => p.id)).toEqual([later.id]);
  });

  it('a post another process scheduled goes LIVE at the first read after its time (the change log says the store moved)', async () => {
    const file = join(dir, 'due-two.db');
    let clock = Date.UTC(2026, 0, 1);
    const now = () => new Date(clock);
    const a = createBlogService({ driver: sqliteDriver({ filename: file }), now });
    const b = createBlogService({ driver: sqliteDriver({ filename: file }), now });
    const user = await a.users.insert({ body: { displayName: 'Ada' } });
    const blog = await a.blogs.insert({ body: { name: 'Two', url: 'https://two.example/' }, ownerId: user.id });
    expect((await a.posts.list({ blogId: blog.id })).items ?? []).toEqual([]);
    const later = await b.posts.insert({
      blogId: blog.id,
      body: { title: 'By b', published: new Date(clock + MINUTE).toISOString() },
    });
    expect((await a.posts.list({ blogId: blog.id })).items ?? []).toEqual([]);
    clock += 2 * MINUTE;
    expect((await a.posts.list({ blogId: blog.id })).items?.map((p) => p.id)).toEqual([later.id]);
    await a.close();
    await b.close();
  });
});
