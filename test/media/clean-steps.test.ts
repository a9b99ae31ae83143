/**
 * `cleanMedia`'s steps (docs/design.md §23). A run that dies after any one write (the new picture stored, its
 * redirect, a post rewritten, the old bytes gone…) leaves a store that the next run completes: the same pictures,
 * posts and pages as a run that never stopped, every media url of their content answering (200, or 301 to a 200),
 * and no stored bytes left carrying the metadata. And one call reads a bounded number of records whatever the
 * blog holds: a picture used by 260 posts is cleaned over several calls, each within the same bound as on a blog
 * of three posts (test/support/counting-driver.ts).
 */
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, expect, it } from 'vitest';
import { sqliteDriver } from '../../drivers/sqlite/index.js';
import { createBlogService, type BlogService } from '../../src/index.js';
import { createHttpHandler } from '../../src/http/index.js';
import { cleanMedia } from '../../src/io/index.js';
import type { BlobStore, StorageDriver } from '../../src/store/driver.js';
import { countingDriver } from '../support/counting-driver.js';
import { BASE, latin1, SECRETS, storedBefore } from './stored-before.js';

const dir = mkdtempSync(join(tmpdir(), 'blogcore-media-clean-steps-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

class Crash extends Error {}

/**
 * `inner` as a process sees it that dies right after its `after`-th write (a commit, a blob put or delete): that
 * write is done, then every call fails, so nothing more of the run reaches the store.
 */
function dyingAfter(inner: StorageDriver, after: number) {
  let writes = 0;
  let dead = false;
  const write = async <T>(op: () => Promise<T>): Promise<T> => {
    if (dead) throw new Crash('dead');
    const x = await op();
    if (++writes === after) {
      dead = true;
      throw new Crash(`died after write ${after}`);
    }
    return x;
  };
  const alive = <T>(op: () => Promise<T>): Promise<T> => (dead ? Promise.reject(new Crash('dead')) : op());
  const blobs: BlobStore = {
    put: (key, source) => write(() => inner.blobs.put(key, source)),
    delete: (key) => write(() => inner.blobs.delete(key)),
    read: (key, range) => alive(() => inner.blobs.read(key, range)),
    sweep: (before, limit) => alive(() => inner.blobs.sweep(before, limit)),
  };
  const driver = new Proxy(inner, {
    get(target, prop) {
      if (prop === 'blobs') return blobs;
      if (prop === 'commit') return (...a: Parameters<StorageDriver['commit']>) => write(() => target.commit(...a));
      const value = Reflect.get(target, prop) as unknown;
      return typeof value === 'function'
        ? (...a: unknown[]) => alive(() => (value as (...x: unknown[]) => Promise<unknown>).apply(target, a))
        : value;
    },
  });
  return { driver, dead: () => dead };
}

/** Every page of `cleanMedia` over the blog, as the command runs it; the reports' cleaned pictures. */
async function cleanAll(service: BlogService, blogId: string, maxResults = 1) {
  const cleaned: Array<{ from: string; to: string }> = [];
  let pageToken: string | undefined;
  do {
    const r = await cleanMedia(service, { blogId, maxResults, ...(pageToken ? { pageToken } : {}) });
    cleaned.push(...r.cleaned);
    expect(r.failed).toEqual([]);
    pageToken = r.nextPageToken;
  } while (pageToken);
  return cleaned;
}

/**
 * A second run over `file`, then what it holds: the pictures' ids, each post's and page's content. Every media
 * url in that content answers; no blob in the file carries the metadata.
 */
async function completed(file: string, blogId: string) {
  const service = createBlogService({ driver: sqliteDriver({ filename: file }), apiBaseUrl: BASE });
  await cleanAll(service, blogId);
  const media = (await service.media.list({ blogId, maxResults: 100 })).items.map((m) => m.id).sort();
  const items = [
    ...((await service.posts.list({ blogId, maxResults: 100 })).items ?? []),
    ...((await service.pages.list({ blogId })).items ?? []),
  ];
  const content = Object.fromEntries(items.map((p) => [p.id, p.content]));
  const http = createHttpHandler(service);
  const urls = new Set(Object.values(content).flatMap((c) => c?.match(/https:\/\/[^"\s]+\/media\/[^"\s]+/g) ?? []));
  for (const url of urls) {
    let r = await http(new Request(url, { redirect: 'manual' }));
    if (r.status === 301) r = await http(new Request(new URL(r.headers.get('location')!, url)));
    expect(r.status, url).toBe(200);
  }
  await service.close();
  const db = new Database(file, { readonly: true });
  const blobs = db
    .prepare('SELECT b.key, c.bytes FROM blobs b JOIN blob_chunks c ON c.blob = b.id WHERE b.key IS NOT NULL')
    .all() as Array<{ key: string; bytes: Buffer }>;
  db.close();
  for (const { key, bytes } of blobs) for (const s of SECRETS) expect(latin1(bytes), key).not.toContain(s);
  return { media, content };
}

it('a run that dies after any one of its writes is completed by the next: nothing lost, no dangling url', async () => {
  const template = join(dir, 'template.db');
  const { blogId } = await storedBefore(template);
  copyFileSync(template, join(dir, 'whole.db'));
  const whole = await completed(join(dir, 'whole.db'), blogId);
  expect(whole.media).toHaveLength(3);
  let stops = 0;
  for (let after = 1; ; after++) {
    const file = join(dir, `died-${after}.db`);
    copyFileSync(template, file);
    const inner = sqliteDriver({ filename: file });
    const dying = dyingAfter(inner, after);
    const service = createBlogService({ driver: dying.driver, apiBaseUrl: BASE });
    try {
      await cleanAll(service, blogId);
    } catch (error) {
      if (!dying.dead()) throw error;
    }
    if (!dying.dead()) {
      await service.close();
      break;
    }
    stops++;
    await inner.close();
    expect(await completed(file, blogId), `died after write ${after}`).toEqual(whole);
    rmSync(file);
  }
  // Two pictures, each: its new bytes and record, a redirect, its users, its old bytes and record.
  expect(stops).toBeGreaterThanOrEqual(14);
}, 300_000);

it('one call reads a bounded number of records, however many posts use a picture', async () => {
  const maxResults = 2;
  const reads = async (posts: number) => {
    const file = join(dir, `bounded-${posts}.db`);
    const { blogId, a } = await storedBefore(file, posts);
    const driver = countingDriver(sqliteDriver({ filename: file }));
    const service = createBlogService({ driver, apiBaseUrl: BASE });
    await service.blogs.get({ blogId });
    const perCall: number[] = [];
    let rewritten = 0;
    let pageToken: string | undefined;
    do {
      driver.reset();
      const r = await cleanMedia(service, { blogId, maxResults, ...(pageToken ? { pageToken } : {}) });
      perCall.push(driver.handedOut);
      rewritten += r.cleaned.reduce((n, c) => n + c.rewritten, 0);
      pageToken = r.nextPageToken;
    } while (pageToken);
    // Every post now names the new picture, none the old.
    if (posts < 100) expect(rewritten).toBe(posts + 1);
    const to = (await service.media.list({ blogId })).items.find((m) => m.filename === 'home.jpg')!.id;
    let pageToken2: string | undefined;
    do {
      const list = await service.posts.list({
        blogId,
        maxResults: 100,
        ...(pageToken2 ? { pageToken: pageToken2 } : {}),
      });
      for (const p of list.items ?? [])
        expect([p.content!.includes(to), p.content!.includes(a.id)]).toEqual([true, false]);
      pageToken2 = list.nextPageToken;
    } while (pageToken2);
    await service.close();
    return { perCall, rewritten };
  };
  const few = await reads(3);
  const many = await reads(260);
  // The bound: a constant times the page, plus the posts one call may rewrite (100), whatever the blog holds.
  const bound = 10 * (maxResults + 1) + 2 * 100;
  expect(Math.max(...few.perCall)).toBeLessThanOrEqual(bound);
  expect(Math.max(...many.perCall), many.perCall.join(' ')).toBeLessThanOrEqual(bound);
  // The 260 users took several calls (a picture resumed where the last call stopped).
  expect(many.perCall.length).toBeGreaterThan(few.perCall.length + 1);
}, 300_000);
