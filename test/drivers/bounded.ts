/**
 * Bounded work per request (docs/design.md §10), on every driver: the service over a driver that counts what
 * each call hands out (test/support/counting-driver.ts), with adversarial data written straight through the
 * driver as the service would file it. No request may take more than a small constant × (maxResults + 1)
 * records, whatever is stored. Every driver's test file runs this beside the contract suite (suite.ts).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { StorageDriver, WriteOp } from '../../src/store/driver.js';
import { MOVE_BATCH } from '../../src/core/comment-visibility.js';
import { createBlogService, type BlogService } from '../../src/index.js';
import { FILTER_ROUNDS } from '../../src/core/paging.js';
import { put, type CommentRecord, type PostRecord } from '../../src/store/records.js';
import { commentVisOf } from '../../src/rules/access.js';
import { countingDriver, type CountingDriver } from '../support/counting-driver.js';

const pad = (n: number) => String(n).padStart(6, '0');

export interface BoundedSuiteOptions {
  /** Scale of the adversarial data; lower it where every call is slow (real IndexedDB in a browser). */
  size?: number;
}

export function runBoundedSuite(
  name: string,
  create: () => StorageDriver | Promise<StorageDriver>,
  options: BoundedSuiteOptions = {},
): void {
  const size = options.size ?? 300;

  describe(`bounded work per request: ${name}`, () => {
    let inner: StorageDriver;
    let counter: CountingDriver;
    let service: BlogService;
    let blogId: string;
    let authorId: string;
    const at = (i: number) => new Date(Date.UTC(2025, 0, 1) + i * 1000).toISOString();
    const post = (i: number, more: Partial<PostRecord> = {}): PostRecord => ({
      id: `p${pad(i)}`,
      blogId,
      authorId,
      title: `Post ${i}`,
      content: `<p>every post says alpha then beta (${i})</p>`,
      published: at(i),
      updated: at(i),
      path: `/2025/01/p${i}.html`,
      rev: 1,
      status: 'LIVE',
      labels: [],
      readerComments: 'ALLOW',
      liveComments: 0,
      allComments: 0,
      ...more,
    });
    /** `n` LIVE comments of a post, filed as the service files them, newer than `from`. */
    const comments = (p: PostRecord, from: number, n: number): CommentRecord[] =>
      Array.from({ length: n }, (_, j) => ({
        id: `c${p.id}-${pad(from + j)}`,
        blogId,
        postId: p.id,
        status: 'LIVE' as const,
        content: 'hello',
        published: at(from + j),
        updated: at(from + j),
        authorName: 'Reader',
        vis: commentVisOf(p),
      }));
    /** A post with its comments (counters and filing class set), committed in batches. */
    const store = async (p: PostRecord, cs: CommentRecord[], expect = 0) => {
      const withCounts = {
        ...p,
        liveComments: p.liveComments + cs.length,
        allComments: p.allComments + cs.length,
        commentsVis: commentVisOf(p),
      };
      await d.commit([put('posts', withCounts, expect && { version: expect, doc: p })]);
      for (let i = 0; i < cs.length; i += 2000) await d.commit(cs.slice(i, i + 2000).map((c) => put('comments', c, 0)));
      return withCounts;
    };
    const d = {
      commit: (ops: WriteOp[]) => inner.commit(ops),
    };
    /** Records handed out by one request. */
    const cost = async <T>(request: () => Promise<T>): Promise<[T, number]> => {
      counter.reset();
      const out = await request();
      return [out, counter.handedOut];
    };

    beforeEach(async () => {
      inner = await create();
      counter = countingDriver(inner);
      service = createBlogService({ driver: counter });
      authorId = (await service.users.insert({ body: { displayName: 'Author' } })).id!;
      blogId = (
        await service.blogs.insert({ body: { name: 'Bounded', url: 'https://bounded.example/' }, ownerId: authorId })
      ).id!;
    });
    afterEach(async () => {
      await service.close();
    });

    it('answers a query naming 20 labels with about one page of records, whatever labels the posts carry', async () => {
      const M = 10;
      const labels = Array.from({ length: 100 }, (_, i) => `l${String(i).padStart(2, '0')}`);
      const posts = Array.from({ length: 4 * M }, (_, i) => post(i, { labels }));
      await d.commit(posts.map((p) => put('posts', p, 0)));
      const anon = service.as(null);
      const asked = labels.slice(0, 20).join(',');
      const [first, n1] = await cost(() =>
        anon.posts.list({ blogId, labels: asked, maxResults: M, fetchBodies: false }),
      );
      expect(first.items!.map((p) => p.id)).toEqual(
        posts
          .slice(-M)
          .reverse()
          .map((p) => p.id),
      );
      expect(n1).toBeLessThanOrEqual(4 * (M + 1));
      const [second, n2] = await cost(() =>
        anon.posts.list({ blogId, labels: asked, maxResults: M, fetchBodies: false, pageToken: first.nextPageToken }),
      );
      expect(second.items!.map((p) => p.id)).toEqual(
        posts
          .slice(-2 * M, -M)
          .reverse()
          .map((p) => p.id),
      );
      expect(n2).toBeLessThanOrEqual(4 * (M + 1));
    });

    it('walks no hidden comment for a reader listing a blog, however many there are', async () => {
      const open = await store(post(1), comments(post(1), 10, 3));
      const hides = post(2, { readerComments: 'DONT_ALLOW_HIDE_EXISTING' });
      const draft = post(3, { status: 'DRAFT' });
      let hiding = await store(hides, comments(hides, 100, size));
      await store(draft, comments(draft, 100 + size, size));
      const anon = service.as(null);
      const list = (maxResults: number) => cost(() => anon.comments.listByBlog({ blogId, maxResults }));
      const [page, few] = await list(1);
      expect(page.items!.map((c) => c.id)).toEqual([`c${open.id}-${pad(12)}`]);
      expect(few).toBeLessThanOrEqual(4 * 2);
      // Ten times the hidden comments: the same work.
      for (let k = 0; k < 9; k++) hiding = await store(hiding, comments(hiding, 100 + (2 + k) * size, size), k + 1);
      const [again, same] = await list(1);
      expect(again.items!.map((c) => c.id)).toEqual([`c${open.id}-${pad(12)}`]);
      expect(same).toBeLessThanOrEqual(few);
      const [three, n3] = await list(5);
      expect(three.items).toHaveLength(3);
      expect(n3).toBeLessThanOrEqual(4 * 6);
      // The admin sees them all, newest first.
      expect((await service.comments.listByBlog({ blogId, maxResults: 1 })).items![0]!.post?.id).toBe(hiding.id);
    });

    it('refiles the comments of a post reverted to draft a bounded step per request, hiding them from the first request on', async () => {
      const M = 5;
      const open = await store(post(1), comments(post(1), 10, 3));
      const busy = await store(post(2), comments(post(2), 100, 2 * MOVE_BATCH + 50));
      await service.posts.revert({ blogId, postId: busy.id });
      const anon = service.as(null);
      const seen: string[] = [];
      let settled = false;
      for (let request = 0; request < 5 && !settled; request++) {
        const [page, n] = await cost(() => anon.comments.listByBlog({ blogId, maxResults: M }));
        expect(n).toBeLessThanOrEqual(4 * FILTER_ROUNDS * (M + 1) + 2 * MOVE_BATCH + 4);
        seen.push(...page.items!.map((c) => c.post!.id!));
        settled = page.items!.length === 3;
      }
      expect(settled).toBe(true);
      expect(seen.every((id) => id === open.id)).toBe(true);
      // Once refiled, a request reads about one page again.
      const [, n] = await cost(() => anon.comments.listByBlog({ blogId, maxResults: M }));
      expect(n).toBeLessThanOrEqual(4 * (M + 1));
      // Published again, its comments come back for readers.
      await service.posts.publish({ blogId, postId: busy.id });
      let back = 0;
      for (let request = 0; request < 5 && back === 0; request++) {
        back = (await anon.comments.listByBlog({ blogId, maxResults: M })).items!.filter(
          (c) => c.post?.id === busy.id,
        ).length;
      }
      expect(back).toBe(M);
    });

    it('searches a word in every post, and a phrase that never matches, a bounded page at a time', async () => {
      const M = 5;
      const posts = Array.from({ length: Math.max(size, 120) }, (_, i) => post(i));
      await d.commit(posts.map((p) => put('posts', p, 0)));
      const anon = service.as(null);
      const [every, n1] = await cost(() => anon.posts.search({ blogId, q: 'every', maxResults: M }));
      expect(every.items!.map((p) => p.id)).toEqual(
        posts
          .slice(-M)
          .reverse()
          .map((p) => p.id),
      );
      expect(n1).toBeLessThanOrEqual(4 * (M + 1));
      // Both words are in every post, never side by side in this order: each page reads a bounded number of
      // records and may come back short, with a token to go on, until the posts run out.
      let token: string | undefined;
      let pages = 0;
      let found = 0;
      do {
        const [pg, n] = await cost(() =>
          anon.posts.search({ blogId, q: '"beta alpha"', maxResults: M, pageToken: token }),
        );
        expect(n).toBeLessThanOrEqual(2 * FILTER_ROUNDS * (M + 1) + 4);
        found += pg.items?.length ?? 0;
        token = pg.nextPageToken;
        pages++;
      } while (token && pages < 1000);
      expect(found).toBe(0);
      expect(token).toBeUndefined();
      expect((await anon.posts.search({ blogId, q: '"alpha then beta"', maxResults: M })).items).toHaveLength(M);
    });
  });
}
