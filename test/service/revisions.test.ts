/**
 * Revisions of posts and pages (extension): what a change keeps, restore as a change with ifMatch,
 * retention, access at AUTHOR view under the item's rules, and the HTTP routes. On memory here; on SQLite,
 * IndexedDB and PostgreSQL through test/sqlite-lifecycle, idb-lifecycle-service and pg-service.
 */
import { describe, expect, it } from 'vitest';
import { createHttpHandler } from '../../src/http/index.js';
import {
  expectError,
  expectNoWrite,
  makePage,
  makePost,
  newService,
  makeClock,
  world,
  MINUTE,
  type Wire,
} from './helpers.js';
import { DRIVERS } from '../support/drivers.js';
import { countingDriver } from '../support/counting-driver.js';
import { type PostRecord, put } from '../../src/store/records.js';

const contents = (list: Wire) => (list.items as Wire[]).map((r) => r.content);

describe.each(DRIVERS)('%s', (_driver, makeDriver) => {
  describe('posts.revisions', () => {
    it('update and patch keep the version they replace; publish and revert keep none', async () => {
      const w = await world(makeDriver());
      const post = await makePost(w, 'DRAFT', { content: 'v1', labels: ['a'] });
      const blogId = w.blogId;
      w.clock.advance(MINUTE);
      await w.author.posts.patch({ blogId, postId: post.id, body: { content: 'v2' } });
      w.clock.advance(MINUTE);
      await w.author.posts.update({
        blogId,
        postId: post.id,
        body: { title: 'new title', content: 'v3', labels: ['b'] },
      });
      await w.author.posts.publish({ blogId, postId: post.id });
      await w.author.posts.revert({ blogId, postId: post.id });
      await w.author.posts.patch({ blogId, postId: post.id, body: { content: 'v3' } }); // nothing changed: nothing kept
      const list = (await w.author.posts.revisions.list({ blogId, postId: post.id })) as Wire;
      expect(list.kind).toBe('blogcore#revisionList');
      expect(contents(list)).toEqual(['v2', 'v1']);
      const [v2, v1] = list.items as Wire[];
      expect(v1).toMatchObject({
        kind: 'blogcore#revision',
        post: { id: post.id },
        blog: { id: blogId },
        title: post.title,
        labels: ['a'],
      });
      expect(v2!.labels).toEqual(['a']);
      expect(await w.author.posts.revisions.get({ blogId, postId: post.id, revisionId: v1!.id })).toEqual(v1);
      const paged = (await w.author.posts.revisions.list({ blogId, postId: post.id, maxResults: 1 })) as Wire;
      const next = (await w.author.posts.revisions.list({
        blogId,
        postId: post.id,
        maxResults: 1,
        pageToken: paged.nextPageToken,
      })) as Wire;
      expect([...contents(paged), ...contents(next)]).toEqual(['v2', 'v1']);
    });

    it('restore is a change: it needs a current ifMatch, keeps what it replaces, and moves label counts', async () => {
      const w = await world(makeDriver());
      const blogId = w.blogId;
      const post = await makePost(w, 'LIVE', { content: 'first', labels: ['old'] });
      const edited = await w.author.posts.patch({
        blogId,
        postId: post.id,
        body: { content: 'second', labels: ['new'] },
      });
      const [first] = ((await w.author.posts.revisions.list({ blogId, postId: post.id })) as Wire).items as Wire[];
      // Someone edits meanwhile: a restore based on the etag read before is refused and changes nothing.
      await w.admin.posts.patch({ blogId, postId: post.id, body: { content: 'third' } });
      await expectNoWrite(w, () =>
        expectError(
          w.author.posts.revisions.restore({ blogId, postId: post.id, revisionId: first!.id, ifMatch: edited.etag }),
          412,
          'conditionNotMet',
        ),
      );
      const current = (await w.author.posts.get({ blogId, postId: post.id })) as Wire;
      const restored = (await w.author.posts.revisions.restore({
        blogId,
        postId: post.id,
        revisionId: first!.id,
        ifMatch: current.etag,
      })) as Wire;
      expect(restored).toMatchObject({ kind: 'blogger#post', content: 'first', labels: ['old'] });
      expect(w.events.filter((e) => e.type === 'post.updated').length).toBeGreaterThan(0);
      expect(contents(await w.author.posts.revisions.list({ blogId, postId: post.id }))).toEqual([
        'third',
        'second',
        'first',
      ]);
      expect(((await w.anon.labels.list({ blogId })) as Wire).items.map((l: Wire) => l.name)).toEqual(['old']);
    });

    it('keeps the last 50 by default, or as configured, oldest dropped in the same commit', async () => {
      const clock = makeClock();
      const service = newService(makeDriver(), clock);
      const kept = await import('../../src/index.js').then(({ createBlogService }) =>
        createBlogService({ driver: makeDriver(), revisionsKept: 3, now: () => new Date(clock.ms) }),
      );
      for (const s of [service, kept]) {
        await s.users.insert({ body: { id: 'u', displayName: 'U' } });
        const blog = await s.blogs.insert({ body: { name: 'B', url: 'https://b.example/' }, ownerId: 'u' });
        const post = await s.posts.insert({ blogId: blog.id, body: { content: 'c0' } });
        for (let i = 1; i <= 53; i++) {
          clock.advance(1000);
          await s.posts.patch({ blogId: blog.id, postId: post.id, body: { content: `c${i}` } });
        }
        const all = (await s.posts.revisions.list({ blogId: blog.id, postId: post.id, maxResults: 500 })) as Wire;
        const expected = s === kept ? ['c52', 'c51', 'c50'] : Array.from({ length: 50 }, (_, i) => `c${52 - i}`);
        expect(contents(all)).toEqual(expected);
      }
    });

    it('a change counts no revisions: the cap stays exact through patches, restores and a record stored before', async () => {
      const driver = countingDriver(makeDriver());
      const w = await world(driver, { revisionsKept: 3 });
      const { blogId } = w;
      const post = await makePost(w, 'LIVE', { content: 'c0' });
      const page = await makePage(w, 'LIVE', { content: 'p0' });
      const patchBoth = async (i: number) => {
        w.clock.advance(MINUTE);
        const p = await w.admin.posts.patch({ blogId, postId: post.id, body: { content: `c${i}` } });
        await w.admin.pages.patch({ blogId, pageId: page.id, body: { content: `p${i}` } });
        return p as Wire;
      };
      const kept = async () => [
        ...contents((await w.admin.posts.revisions.list({ blogId, postId: post.id, maxResults: 50 })) as Wire),
        ...contents((await w.admin.pages.revisions.list({ blogId, pageId: page.id, maxResults: 50 })) as Wire),
      ];
      driver.reset();
      for (let i = 1; i <= 5; i++) await patchBoth(i);
      expect(driver.counts).toBe(0);
      expect(await kept()).toEqual(['c4', 'c3', 'c2', 'p4', 'p3', 'p2']);
      // A restore is a change like any other: it keeps what it replaces and drops the oldest.
      const [, , oldest] = ((await w.admin.posts.revisions.list({ blogId, postId: post.id })) as Wire).items as Wire[];
      const restored = (await w.admin.posts.revisions.restore({
        blogId,
        postId: post.id,
        revisionId: oldest!.id,
      })) as Wire;
      expect(restored.content).toBe('c2');
      expect(driver.counts).toBe(0);
      expect(await kept()).toEqual(['c5', 'c4', 'c3', 'p4', 'p3', 'p2']);
      // The count is the store's own: never on the wire.
      expect(restored).not.toHaveProperty('revisions');
      expect(await w.admin.posts.get({ blogId, postId: post.id })).not.toHaveProperty('revisions');
      expect(await w.admin.pages.get({ blogId, pageId: page.id })).not.toHaveProperty('revisions');
      // Records stored before the count was kept with them: the next change counts once, then keeps the count.
      for (const [collection, id] of [
        ['posts', post.id],
        ['pages', page.id],
      ] as const) {
        const stored = (await driver.get(collection, id))!;
        expect(stored.doc.revisions).toBe(3);
        const { revisions: _n, ...before } = stored.doc as unknown as PostRecord;
        await driver.commit([put(collection, before, stored as never)]);
      }
      driver.reset();
      for (let i = 6; i <= 8; i++) await patchBoth(i);
      expect(driver.counts).toBe(2);
      expect(await kept()).toEqual(['c7', 'c6', 'c2', 'p7', 'p6', 'p5']);
    });

    it('is read at AUTHOR view under the post rules; restore needs edit rights', async () => {
      const w = await world(makeDriver());
      const blogId = w.blogId;
      const draft = await makePost(w, 'DRAFT', { content: 'd1' });
      await w.author.posts.patch({ blogId, postId: draft.id, body: { content: 'd2' } });
      const [rev] = ((await w.author2.posts.revisions.list({ blogId, postId: draft.id })) as Wire).items as Wire[];
      expect(rev!.content).toBe('d1');
      await expectError(w.reader.posts.revisions.list({ blogId, postId: draft.id }), 403, 'forbidden');
      await expectError(
        w.anon.posts.revisions.get({ blogId, postId: draft.id, revisionId: rev!.id }),
        403,
        'forbidden',
      );
      await expectError(
        w.author2.posts.revisions.restore({ blogId, postId: draft.id, revisionId: rev!.id }),
        403,
        'forbidden',
      );
      const other = await makePost(w, 'LIVE');
      await expectError(
        w.author.posts.revisions.get({ blogId, postId: other.id, revisionId: rev!.id }),
        404,
        'notFound',
      );
      await w.author.posts.delete({ blogId, postId: draft.id, useTrash: true });
      await expectError(
        w.author.posts.revisions.restore({ blogId, postId: draft.id, revisionId: rev!.id }),
        409,
        'conflict',
      );
      await w.author.posts.delete({ blogId, postId: draft.id });
      expect(
        await w.driver.list({
          collection: 'revisions',
          index: 'item',
          prefix: [draft.id],
          direction: 'asc',
          limit: 10,
        }),
      ).toEqual([]);
    });
  });

  describe('pages.revisions', () => {
    it('keeps, lists and restores page versions (admins restore)', async () => {
      const w = await world(makeDriver());
      const blogId = w.blogId;
      const page = await makePage(w, 'LIVE', { title: 'About', content: 'p1' });
      await w.admin.pages.patch({ blogId, pageId: page.id, body: { title: 'About us', content: 'p2' } });
      const list = (await w.author.pages.revisions.list({ blogId, pageId: page.id })) as Wire;
      expect(list.items).toEqual([
        expect.objectContaining({ kind: 'blogcore#revision', page: { id: page.id }, title: 'About', content: 'p1' }),
      ]);
      expect(list.items[0]).not.toHaveProperty('labels');
      await expectError(
        w.author.pages.revisions.restore({ blogId, pageId: page.id, revisionId: list.items[0].id }),
        403,
        'forbidden',
      );
      const restored = (await w.admin.pages.revisions.restore({
        blogId,
        pageId: page.id,
        revisionId: list.items[0].id,
      })) as Wire;
      expect(restored).toMatchObject({ kind: 'blogger#page', title: 'About', content: 'p1' });
    });
  });

  describe('revision routes', () => {
    it('list, get and restore over HTTP, restore honouring If-Match', async () => {
      const w = await world(makeDriver());
      const post = await makePost(w, 'LIVE', { content: 'h1' }, w.service);
      await w.service.posts.patch({ blogId: w.blogId, postId: post.id, body: { content: 'h2' } });
      const handler = createHttpHandler(w.service, { authenticate: () => ({ userId: 'admin' }) });
      const base = `http://x.test/v3/blogs/${w.blogId}/posts/${post.id}/revisions`;
      const list = (await (await handler(new Request(base))).json()) as Wire;
      const id = list.items[0].id as string;
      expect((await (await handler(new Request(`${base}/${id}`))).json()) as Wire).toMatchObject({ id, content: 'h1' });
      const stale = await handler(
        new Request(`${base}/${id}/restore`, { method: 'POST', headers: { 'if-match': post.etag } }),
      );
      expect(stale.status).toBe(412);
      const ok = await handler(new Request(`${base}/${id}/restore`, { method: 'POST' }));
      expect(ok.status).toBe(200);
      expect(((await ok.json()) as Wire).content).toBe('h1');
    });
  });
});
