/**
 * Many writers on one shared counter — a label's counts, a post's comment counts, a day's page views — on every
 * driver, in process, over HTTP and from several processes: every write succeeds and every count is exact.
 * (Each of these once was one compare-and-set record that most concurrent writers lost: 500s, lost views.)
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { sqliteDriver } from '../../drivers/sqlite/index.js';
import { postgresDriver } from '../../drivers/postgres/index.js';
import { freshSchema, pgUrl } from '../drivers/postgres/env.js';
import { createHttpHandler } from '../../src/http/index.js';
import { createBlogService } from '../../src/index.js';
import type { Driver, Service } from './helpers.js';
import { DRIVERS } from '../support/drivers.js';

const dir = mkdtempSync(join(tmpdir(), 'blogcore-concurrency-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;

const WRITERS = 100;

async function blogOn(driver: Driver): Promise<{ service: Service; blogId: string; postId: string }> {
  const service = createBlogService({ driver });
  await service.users.insert({ body: { id: 'writer', displayName: 'Wanda Writer' } });
  const blog = await service.blogs.insert({
    body: { name: 'Busy', url: `https://busy-${++n}.example.test/` },
    ownerId: 'writer',
  });
  const post = await service.posts.insert({
    blogId: blog.id,
    body: { title: 'Hot post', content: '<p>Comment here</p>' },
  });
  return { service, blogId: blog.id, postId: post.id };
}

/** Settles every promise and answers the reasons of those that failed (none, when all is well). */
async function failures(all: Array<Promise<unknown>>): Promise<unknown[]> {
  return (await Promise.allSettled(all)).flatMap((r) => (r.status === 'rejected' ? [r.reason] : []));
}

describe.each(DRIVERS)('%s: concurrent writers on one counter', (_name, makeDriver) => {
  it(`${WRITERS} parallel posts.insert sharing a label all succeed, and the label counts them all`, async () => {
    const { service, blogId } = await blogOn(makeDriver());
    const inserts = Array.from({ length: WRITERS }, (_, i) =>
      service.posts.insert({ blogId, body: { title: `News ${i}`, content: 'x', labels: ['news', `own-${i}`] } }),
    );
    expect(await failures(inserts)).toEqual([]);
    const labels = await service.labels.list({ blogId, maxResults: 500 });
    expect(labels.items.find((l) => l.name === 'news')).toMatchObject({ livePosts: WRITERS, allPosts: WRITERS });
    await service.close();
  });

  it(`${WRITERS} parallel posts.insert with one title all succeed, each with its own url`, async () => {
    const { service, blogId } = await blogOn(makeDriver());
    const posts = await Promise.all(
      Array.from({ length: WRITERS }, () =>
        service.posts.insert({ blogId, body: { title: 'Same title', content: 'x' } }),
      ),
    );
    expect(new Set(posts.map((p) => p.url)).size).toBe(WRITERS);
    await service.close();
  });

  it(`${WRITERS} parallel comments on one post all succeed, and the post counts them all`, async () => {
    const { service, blogId, postId } = await blogOn(makeDriver());
    const comments = Array.from({ length: WRITERS }, (_, i) =>
      service.comments.insert({ blogId, postId, body: { content: `Comment ${i}` } }),
    );
    expect(await failures(comments)).toEqual([]);
    const post = await service.posts.get({ blogId, postId });
    expect(post.replies?.totalItems).toBe(String(WRITERS));
    const listed = await service.comments.list({ blogId, postId, maxResults: 500, fetchBodies: false });
    expect(listed.items).toHaveLength(WRITERS);
    await service.close();
  });

  it(`${WRITERS / 2} parallel pageViews.record all count`, async () => {
    const { service, blogId, postId } = await blogOn(makeDriver());
    const views = Array.from({ length: WRITERS / 2 }, (_, i) =>
      service.pageViews.record({ blogId, ...(i % 2 ? { postId } : {}) }),
    );
    expect(await failures(views)).toEqual([]);
    const got = await service.pageViews.get({ blogId, range: ['all', '7DAYS'] });
    expect(got.counts.map((c) => c.count)).toEqual([String(WRITERS / 2), String(WRITERS / 2)]);
    await service.close();
  });

  it(`over HTTP: ${WRITERS} concurrent POSTs of posts with one label all answer 200`, async () => {
    const { service, blogId } = await blogOn(makeDriver());
    const asOwner = createHttpHandler(service, { authenticate: () => ({ userId: 'writer' }) });
    const responses = await Promise.all(
      Array.from({ length: WRITERS }, (_, i) =>
        asOwner(
          new Request(`http://local/v3/blogs/${blogId}/posts`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ title: `Over HTTP ${i}`, content: 'x', labels: ['news'] }),
          }),
        ),
      ),
    );
    expect(responses.map((r) => r.status)).toEqual(responses.map(() => 200));
    const labels = await (await asOwner(new Request(`http://local/v3/blogs/${blogId}/labels`))).json();
    expect(labels.items.find((l: { name: string }) => l.name === 'news')).toMatchObject({ livePosts: WRITERS });
    await service.close();
  });
});

/** Runs test/service/concurrency-child.ts: `count` posts with the label `news`, comments on `postId` and page views. */
function child(args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, ['--import', 'tsx', 'test/service/concurrency-child.ts', ...args], {
      cwd: process.cwd(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    proc.stdout.on('data', (b: Buffer) => (out += b.toString()));
    proc.stderr.on('data', (b: Buffer) => (err += b.toString()));
    proc.on('exit', (code) => (code === 0 ? resolve(out.trim()) : reject(new Error(`child exited ${code}: ${err}`))));
  });
}

const PROCESSES = 4;
const EACH = 40;

describe.each([
  ['sqlite', () => join(dir, `procs-${++n}.db`), (at: string) => sqliteDriver({ filename: at })],
  [
    'postgres',
    () => `${pgUrl()}#${freshSchema('cprocs')}`,
    (at: string) => postgresDriver({ connectionString: at.split('#')[0]!, schema: at.split('#')[1]! }),
  ],
] as const)('%s: several processes on one counter', (kind, place, open) => {
  it(`${PROCESSES} processes × ${EACH} writes of each kind lose nothing`, async () => {
    const at = place();
    const { service, blogId, postId } = await blogOn(open(at));
    await service.close();
    const outs = await Promise.all(
      Array.from({ length: PROCESSES }, (_, i) => child([kind, at, blogId, postId, String(EACH), String(i)])),
    );
    expect(outs).toEqual(outs.map(() => 'ok'));
    const check = createBlogService({ driver: open(at) });
    const labels = await check.labels.list({ blogId, maxResults: 500 });
    expect(labels.items.find((l) => l.name === 'news')).toMatchObject({
      livePosts: PROCESSES * EACH,
      allPosts: PROCESSES * EACH,
    });
    expect((await check.posts.get({ blogId, postId })).replies?.totalItems).toBe(String(PROCESSES * EACH));
    const views = await check.pageViews.get({ blogId, range: ['all'] });
    expect(views.counts[0]!.count).toBe(String(PROCESSES * EACH));
    await check.close();
  }, 120_000);
});
