/**
 * The SQLite driver under the real service: two connections on one file racing on one post, and a
 * writer killed with SIGKILL mid-stream. These are the promises a host relies on when it runs several
 * processes on one blog.db or when a process dies.
 */
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BlogError, createBlogService, type BlogService } from '../../../src/index.js';
import { sqliteDriver } from '../../../drivers/sqlite/index.js';
import { runAndKill } from './child.js';
import { CRASH_BLOG_URL, CRASH_LABELS } from './crash-constants.js';
import { checkStore } from './invariants.js';

const dir = mkdtempSync(join(tmpdir(), 'blogcore-sqlite-service-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const ALL_POST_STATUSES = ['LIVE', 'DRAFT', 'SCHEDULED', 'SOFT_TRASHED'] as const;
const ALL_COMMENT_STATUSES = ['LIVE', 'EMPTIED', 'PENDING', 'SPAM'] as const;

async function everyPost(s: BlogService, blogId: string, labels?: string) {
  const out: Array<{ id: string; labels: string[]; replies: number }> = [];
  let pageToken: string | undefined;
  do {
    const page = await s.posts.list({
      blogId,
      status: ALL_POST_STATUSES,
      maxResults: 500,
      fetchBodies: false,
      pageToken,
      ...(labels ? { labels } : {}),
    });
    for (const p of page.items ?? [])
      out.push({ id: p.id!, labels: p.labels ?? [], replies: Number(p.replies?.totalItems ?? 0) });
    pageToken = page.nextPageToken;
  } while (pageToken);
  return out;
}

async function everyComment(s: BlogService, blogId: string) {
  const out: Array<{ id: string; postId: string; status: string }> = [];
  let pageToken: string | undefined;
  do {
    const page = await s.comments.listByBlog({
      blogId,
      status: ALL_COMMENT_STATUSES,
      maxResults: 500,
      fetchBodies: false,
      pageToken,
    });
    for (const c of page.items ?? []) out.push({ id: c.id!, postId: c.post!.id, status: c.status! });
    pageToken = page.nextPageToken;
  } while (pageToken);
  return out;
}

describe('sqlite + service: two connections on one file', () => {
  it('lets exactly one of two ifMatch updates of the same post win; the other gets 412 and nothing is lost', async () => {
    const file = join(dir, 'race.db');
    const hostDb = new Database(file);
    hostDb.pragma('journal_mode = WAL');
    const a = createBlogService({ driver: sqliteDriver({ filename: file }) });
    const b = createBlogService({ driver: sqliteDriver({ database: hostDb }) });
    const owner = await a.users.insert({ body: { displayName: 'Owner' } });
    const blog = await a.blogs.insert({ body: { name: 'Race', url: 'https://race.example/' }, ownerId: owner.id });
    const post = await a.posts.insert({
      blogId: blog.id!,
      body: { title: 'Start', content: '<p>start</p>', labels: ['start'] },
    });

    for (let round = 0; round < 10; round++) {
      const [seenA, seenB] = await Promise.all([
        a.posts.get({ blogId: blog.id!, postId: post.id! }),
        b.posts.get({ blogId: blog.id!, postId: post.id! }),
      ]);
      expect(seenA.etag).toBe(seenB.etag);
      const results = await Promise.allSettled([
        a.posts.patch({
          blogId: blog.id!,
          postId: post.id!,
          ifMatch: seenA.etag,
          body: { title: `A${round}`, labels: [`a${round}`] },
        }),
        b.posts.patch({
          blogId: blog.id!,
          postId: post.id!,
          ifMatch: seenB.etag,
          body: { title: `B${round}`, labels: [`b${round}`] },
        }),
      ]);
      const won = results.filter((r) => r.status === 'fulfilled');
      expect(won).toHaveLength(1);
      const lost = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
      expect(BlogError.is(lost.reason) && lost.reason.code).toBe(412);
      expect(BlogError.is(lost.reason) && lost.reason.reason).toBe('conditionNotMet');
      const winner = results[0]!.status === 'fulfilled' ? 'A' : 'B';
      const loserService = winner === 'A' ? b : a;
      // Both connections see the winner's write, labels index included.
      for (const s of [a, b]) {
        const now = await s.posts.get({ blogId: blog.id!, postId: post.id! });
        expect(now.title).toBe(`${winner}${round}`);
        const byLabel = await s.posts.list({ blogId: blog.id!, labels: `${winner.toLowerCase()}${round}` });
        expect(byLabel.items?.map((p) => p.id)).toEqual([post.id]);
      }
      // The loser re-reads and applies its change on top: both changes are kept.
      const fresh = await loserService.posts.get({ blogId: blog.id!, postId: post.id! });
      const merged = await loserService.posts.patch({
        blogId: blog.id!,
        postId: post.id!,
        ifMatch: fresh.etag,
        body: { content: `<p>after ${round}</p>` },
      });
      expect(merged.title).toBe(`${winner}${round}`);
      expect(merged.content).toBe(`<p>after ${round}</p>`);
    }
    await a.close();
    await b.close();
    expect(hostDb.open).toBe(true); // the host owns this connection
    hostDb.close();
    expect(checkStore(file)).toMatchObject({ integrity: 'ok', problems: [] });
  });
});

describe('sqlite + service: crash safety', () => {
  it('after SIGKILL mid-write the file is sound and holds whole operations only', async () => {
    const file = join(dir, 'crash-service.db');
    for (let round = 0; round < 3; round++) {
      expect(await runAndKill('test/drivers/sqlite/crash-writer.ts', [file], 2 + round)).toBeGreaterThan(0);

      const check = checkStore(file);
      expect(check.integrity).toBe('ok');
      expect(check.problems).toEqual([]);

      const s = createBlogService({ driver: sqliteDriver({ filename: file }) });
      const blog = await s.blogs.getByUrl({ url: CRASH_BLOG_URL });
      const posts = await everyPost(s, blog.id!);
      expect(posts.length).toBeGreaterThan(0);
      const byId = new Map(posts.map((p) => [p.id, p]));
      // Each label filter finds exactly the posts that carry the label.
      for (const label of CRASH_LABELS) {
        const found = (await everyPost(s, blog.id!, label)).map((p) => p.id).sort();
        expect(found, label).toEqual(
          posts
            .filter((p) => p.labels.includes(label))
            .map((p) => p.id)
            .sort(),
        );
      }
      // No comment outlives its post, and each post's count matches its LIVE comments.
      const comments = await everyComment(s, blog.id!);
      for (const c of comments) expect(byId.has(c.postId), `orphan comment ${c.id}`).toBe(true);
      for (const p of posts) {
        expect(p.replies, `replies of ${p.id}`).toBe(
          comments.filter((c) => c.postId === p.id && c.status === 'LIVE').length,
        );
      }
      await s.close();
    }
  }, 180_000);
});
