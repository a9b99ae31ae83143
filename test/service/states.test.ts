/**
 * The state table of docs/design.md §6: every operation from every state, for posts, pages and comments, with the
 * resulting state or a 409 `conflict` that names the current state and writes nothing. Scheduled posts go
 * LIVE on their own when the (test) clock passes their time.
 */
import { describe, expect, it } from 'vitest';
import {
  BLOG_URL,
  COMMENT_STATES,
  DAY,
  HOUR,
  PAGE_STATES,
  POST_STATES,
  T0,
  changeCount,
  expectError,
  expectNoWrite,
  getPost,
  ids,
  makeComment,
  makePage,
  makePost,
  pathOf,
  settle,
  world,
  type CommentState,
  type PageState,
  type PostState,
  type Wire,
  type World,
} from './helpers.js';
import { DRIVERS } from '../support/drivers.js';

const iso = (ms: number) => new Date(ms).toISOString();
const PAST = '2026-02-01T09:00:00.000Z';

type Outcome = PostState | 'gone' | 409;

/** A post operation run by the post's author, as the state table names it. */
interface PostOp {
  name: string;
  run: (w: World, post: Wire) => Promise<unknown>;
  expected: Record<PostState, Outcome>;
}

const k = (w: World, post: Wire) => ({ blogId: w.blogId, postId: post.id as string });

const postOps: PostOp[] = [
  {
    name: 'publish()',
    run: (w, p) => w.author.posts.publish(k(w, p)),
    expected: { LIVE: 'LIVE', DRAFT: 'LIVE', SCHEDULED: 'SCHEDULED', SOFT_TRASHED: 409 },
  },
  {
    name: 'publish({publishDate: future})',
    run: (w, p) => w.author.posts.publish({ ...k(w, p), publishDate: w.clock.iso(3 * DAY) }),
    expected: { LIVE: 409, DRAFT: 'SCHEDULED', SCHEDULED: 'SCHEDULED', SOFT_TRASHED: 409 },
  },
  {
    name: 'publish({publishDate: past})',
    run: (w, p) => w.author.posts.publish({ ...k(w, p), publishDate: PAST }),
    expected: { LIVE: 409, DRAFT: 'LIVE', SCHEDULED: 'LIVE', SOFT_TRASHED: 409 },
  },
  {
    name: 'revert()',
    run: (w, p) => w.author.posts.revert(k(w, p)),
    expected: { LIVE: 'DRAFT', DRAFT: 'DRAFT', SCHEDULED: 'DRAFT', SOFT_TRASHED: 'DRAFT' },
  },
  {
    name: 'delete({useTrash: true})',
    run: (w, p) => w.author.posts.delete({ ...k(w, p), useTrash: true }),
    expected: { LIVE: 'SOFT_TRASHED', DRAFT: 'SOFT_TRASHED', SCHEDULED: 'SOFT_TRASHED', SOFT_TRASHED: 409 },
  },
  {
    name: 'delete()',
    run: (w, p) => w.author.posts.delete(k(w, p)),
    expected: { LIVE: 'gone', DRAFT: 'gone', SCHEDULED: 'gone', SOFT_TRASHED: 'gone' },
  },
  {
    name: 'update()',
    run: (w, p) => w.author.posts.update({ ...k(w, p), body: { title: 'Replaced title', content: 'replaced' } }),
    expected: { LIVE: 'LIVE', DRAFT: 'DRAFT', SCHEDULED: 'SCHEDULED', SOFT_TRASHED: 409 },
  },
  {
    name: 'patch()',
    run: (w, p) => w.author.posts.patch({ ...k(w, p), body: { content: 'patched' } }),
    expected: { LIVE: 'LIVE', DRAFT: 'DRAFT', SCHEDULED: 'SCHEDULED', SOFT_TRASHED: 409 },
  },
  {
    name: 'patch({publish: true})',
    run: (w, p) => w.author.posts.patch({ ...k(w, p), body: { content: 'patched' }, publish: true }),
    expected: { LIVE: 'LIVE', DRAFT: 'LIVE', SCHEDULED: 'SCHEDULED', SOFT_TRASHED: 409 },
  },
  {
    name: 'update({revert: true})',
    run: (w, p) => w.author.posts.update({ ...k(w, p), body: { title: 'T', content: 'c' }, revert: true }),
    expected: { LIVE: 'DRAFT', DRAFT: 'DRAFT', SCHEDULED: 'DRAFT', SOFT_TRASHED: 409 },
  },
  {
    name: 'patch({revert: true})',
    run: (w, p) => w.author.posts.patch({ ...k(w, p), body: { content: 'patched' }, revert: true }),
    expected: { LIVE: 'DRAFT', DRAFT: 'DRAFT', SCHEDULED: 'DRAFT', SOFT_TRASHED: 409 },
  },
  {
    name: 'update({publish: true})',
    run: (w, p) => w.author.posts.update({ ...k(w, p), body: { title: 'T', content: 'c' }, publish: true }),
    // A SCHEDULED post keeps its saved future time (a body `published` only counts on a DRAFT).
    expected: { LIVE: 'LIVE', DRAFT: 'LIVE', SCHEDULED: 'SCHEDULED', SOFT_TRASHED: 409 },
  },
];

describe.each(DRIVERS)('%s', (_driver, makeDriver) => {
  describe('post state table (docs/design.md §6)', () => {
    for (const op of postOps) {
      for (const from of POST_STATES) {
        const outcome = op.expected[from];
        it(`${from} --${op.name}--> ${outcome === 409 ? '409 conflict' : outcome}`, async () => {
          const w = await world(makeDriver());
          const post = await makePost(w, from);
          if (outcome === 409) {
            await expectNoWrite(w, async () => {
              const e = await expectError(op.run(w, post), 409, 'conflict');
              expect(e.message).toContain(from);
            });
            return;
          }
          await op.run(w, post);
          if (outcome === 'gone') {
            await expectError(w.service.posts.get(k(w, post)), 404, 'notFound');
            return;
          }
          const after = await getPost(w, post.id);
          expect(after.status).toBe(outcome);
        });
      }
    }
  });

  describe('post transitions in detail', () => {
    it('insert: LIVE by default, DRAFT with isDraft, SCHEDULED with a future published, back-dated with a past one', async () => {
      const w = await world(makeDriver());
      const b = w.blogId;
      const live = (await w.author.posts.insert({ blogId: b, body: { title: 'a', content: 'x' } })) as Wire;
      expect(live.status).toBe('LIVE');
      expect(live.published).toBe(iso(T0));
      const draft = (await w.author.posts.insert({
        blogId: b,
        body: { title: 'b', content: 'x' },
        isDraft: true,
      })) as Wire;
      expect(draft.status).toBe('DRAFT');
      const future = iso(T0 + 2 * DAY);
      const sched = (await w.author.posts.insert({
        blogId: b,
        body: { title: 'c', content: 'x', published: future },
      })) as Wire;
      expect(sched.status).toBe('SCHEDULED');
      expect(sched.published).toBe(future);
      // The url is assigned when the post is scheduled.
      expect(sched.url).toBe(`${BLOG_URL}2026/03/c.html`);
      const back = (await w.author.posts.insert({
        blogId: b,
        body: { title: 'd', content: 'x', published: PAST },
      })) as Wire;
      expect(back.status).toBe('LIVE');
      expect(back.published).toBe(PAST);
      expect(back.url).toBe(`${BLOG_URL}2026/02/d.html`);
      const savedDraft = (await w.author.posts.insert({
        blogId: b,
        body: { title: 'e', content: 'x', published: future },
        isDraft: true,
      })) as Wire;
      expect(savedDraft.status).toBe('DRAFT');
    });

    it('a scheduled post is hidden until its time, then LIVE by itself with exactly one post.published', async () => {
      const w = await world(makeDriver());
      const when = T0 + 2 * HOUR;
      const p = (await w.author.posts.insert({
        blogId: w.blogId,
        body: { title: 'Later', content: 'x', published: iso(when) },
      })) as Wire;
      await settle();
      expect(w.events.filter((e) => e.type === 'post.published')).toEqual([]);
      await expectError(w.anon.posts.get(k(w, p)), 404, 'notFound');
      expect(ids(await w.anon.posts.list({ blogId: w.blogId }))).toEqual([]);
      expect(((await w.anon.blogs.get({ blogId: w.blogId })) as Wire).posts.totalItems).toBe(0);

      w.clock.set(when - 1);
      expect((await getPost(w, p.id)).status).toBe('SCHEDULED');
      w.clock.set(when);
      // Every read after the moment sees it LIVE, whichever read comes first.
      expect(ids(await w.anon.posts.list({ blogId: w.blogId }))).toEqual([p.id]);
      const seen = (await w.anon.posts.get(k(w, p))) as Wire;
      expect(seen.published).toBe(iso(when));
      expect((await getPost(w, p.id)).status).toBe('LIVE');
      expect(((await w.anon.posts.getByPath({ blogId: w.blogId, path: pathOf(p.url) })) as Wire).id).toBe(p.id);
      expect(((await w.anon.blogs.get({ blogId: w.blogId })) as Wire).posts.totalItems).toBe(1);
      await Promise.all([1, 2, 3, 4].map(() => w.anon.posts.get(k(w, p))));
      w.clock.advance(DAY);
      await w.anon.posts.list({ blogId: w.blogId });
      await settle();
      const published = w.events.filter((e) => e.type === 'post.published');
      expect(published).toHaveLength(1);
      expect(published[0]!.id).toBe(p.id);
      expect(published[0]!.resource.status).toBe('LIVE');
    });

    it('concurrent first reads after the due time still emit post.published once', async () => {
      const w = await world(makeDriver());
      const p = await makePost(w, 'SCHEDULED');
      w.clock.advance(11 * DAY);
      const results = (await Promise.all([
        w.anon.posts.get(k(w, p)),
        w.anon.posts.list({ blogId: w.blogId }),
        w.reader.posts.get(k(w, p)),
        w.service.posts.get(k(w, p)),
      ])) as Wire[];
      expect(results[0]!.id).toBe(p.id);
      expect(ids(results[1]!)).toEqual([p.id]);
      await settle();
      expect(w.events.filter((e) => e.type === 'post.published')).toHaveLength(1);
    });

    it('a post published with a future publishDate goes LIVE when the clock passes it', async () => {
      const w = await world(makeDriver());
      const d = await makePost(w, 'DRAFT');
      const when = T0 + 3 * DAY;
      const s = (await w.author.posts.publish({ ...k(w, d), publishDate: iso(when) })) as Wire;
      expect(s.status).toBe('SCHEDULED');
      expect(s.published).toBe(iso(when));
      await settle();
      expect(w.events.filter((e) => e.type === 'post.published')).toHaveLength(0);
      w.clock.set(when + 1);
      expect((await getPost(w, d.id)).status).toBe('LIVE');
      await settle();
      expect(w.events.filter((e) => e.type === 'post.published')).toHaveLength(1);
    });

    it('publish with a past publishDate back-dates the LIVE post', async () => {
      const w = await world(makeDriver());
      const d = await makePost(w, 'DRAFT', { title: 'Backdated Draft' });
      const live = (await w.author.posts.publish({ ...k(w, d), publishDate: PAST })) as Wire;
      expect(live.status).toBe('LIVE');
      expect(live.published).toBe(PAST);
      expect(live.url).toBe(`${BLOG_URL}2026/02/backdated-draft.html`);
    });

    it('publish without publishDate uses the saved future published time, else now', async () => {
      const w = await world(makeDriver());
      const future = iso(T0 + 5 * DAY);
      const withFuture = await makePost(w, 'DRAFT', { published: future });
      const s = (await w.author.posts.publish(k(w, withFuture))) as Wire;
      expect(s.status).toBe('SCHEDULED');
      expect(s.published).toBe(future);

      const withPast = await makePost(w, 'DRAFT', { published: PAST });
      w.clock.advance(HOUR);
      const l = (await w.author.posts.publish(k(w, withPast))) as Wire;
      expect(l.status).toBe('LIVE');
      expect(l.published).toBe(iso(T0 + HOUR));

      const scheduled = await makePost(w, 'SCHEDULED');
      const again = (await w.author.posts.publish(k(w, scheduled))) as Wire;
      expect(again.status).toBe('SCHEDULED');
      expect(again.published).toBe(scheduled.published);
    });

    it('published in a DRAFT patch is saved for publish; a PUT without it clears it', async () => {
      const w = await world(makeDriver());
      const future = iso(T0 + 4 * DAY);
      const a = await makePost(w, 'DRAFT');
      await w.author.posts.patch({ ...k(w, a), body: { published: future } });
      expect(((await w.author.posts.publish(k(w, a))) as Wire).status).toBe('SCHEDULED');

      const b = await makePost(w, 'DRAFT', { published: future });
      await w.author.posts.update({ ...k(w, b), body: { title: 'No date now', content: 'x' } });
      const pb = (await w.author.posts.publish(k(w, b))) as Wire;
      expect(pb.status).toBe('LIVE');
      expect(pb.published).toBe(iso(T0));
    });

    it('published in a body is ignored on a LIVE post', async () => {
      const w = await world(makeDriver());
      const p = await makePost(w, 'LIVE');
      const patched = (await w.author.posts.patch({ ...k(w, p), body: { published: PAST, title: 'new' } })) as Wire;
      expect(patched.published).toBe(p.published);
      expect(patched.status).toBe('LIVE');
      const put = (await w.author.posts.update({
        ...k(w, p),
        body: { published: iso(T0 + 9 * DAY), title: 'n', content: 'c' },
      })) as Wire;
      expect(put.published).toBe(p.published);
      expect(put.status).toBe('LIVE');
    });

    it('publish on a LIVE post changes nothing and emits nothing', async () => {
      const w = await world(makeDriver());
      const made = await makePost(w, 'LIVE');
      const p = (await w.author.posts.get(k(w, made))) as Wire;
      await settle();
      const changes = await changeCount(w.driver);
      const events = w.events.length;
      w.clock.advance(HOUR);
      const again = (await w.author.posts.publish(k(w, p))) as Wire;
      await settle();
      expect(again.status).toBe('LIVE');
      expect(again.etag).toBe(p.etag);
      expect(again.updated).toBe(p.updated);
      expect(again.published).toBe(p.published);
      expect(await changeCount(w.driver)).toBe(changes);
      expect(w.events.length).toBe(events);
    });

    it('delete({useTrash}) sets trashed and keeps comments; revert restores to DRAFT; publish returns to the same url', async () => {
      const w = await world(makeDriver());
      const p = await makePost(w, 'LIVE', { title: 'Keep My Url' });
      const c = await makeComment(w, p.id, 'LIVE');
      await makeComment(w, p.id, 'PENDING');
      w.clock.advance(HOUR);
      await w.author.posts.delete({ ...k(w, p), useTrash: true });
      const trashed = await getPost(w, p.id);
      expect(trashed.status).toBe('SOFT_TRASHED');
      expect(trashed.trashed).toBe(iso(T0 + HOUR));
      expect(trashed.url).toBe(p.url);
      // Trashed posts leave the public list and path.
      expect(ids(await w.anon.posts.list({ blogId: w.blogId }))).toEqual([]);
      await expectError(w.anon.posts.getByPath({ blogId: w.blogId, path: pathOf(p.url) }), 404, 'notFound');
      const reverted = (await w.author.posts.revert(k(w, p))) as Wire;
      expect(reverted.status).toBe('DRAFT');
      expect(reverted.url).toBe(p.url);
      const comments = (await w.service.comments.list({ ...k(w, p), status: ['LIVE', 'PENDING'] })) as Wire;
      expect(comments.items).toHaveLength(2);
      w.clock.advance(60 * DAY); // another month: the url must not move
      await w.author.posts.patch({ ...k(w, p), body: { title: 'A Completely Different Title' } });
      const republished = (await w.author.posts.publish(k(w, p))) as Wire;
      expect(republished.status).toBe('LIVE');
      expect(republished.url).toBe(p.url);
      expect(((await w.anon.posts.getByPath({ blogId: w.blogId, path: pathOf(p.url) })) as Wire).id).toBe(p.id);
      expect(
        ((await w.anon.posts.get({ ...k(w, p), maxComments: 5 })) as Wire).replies.items.map((x: Wire) => x.id),
      ).toEqual([c.id]);
    });

    it('a reverted post keeps its url; getByPath does not find it while it is a DRAFT', async () => {
      const w = await world(makeDriver());
      const p = await makePost(w, 'LIVE', { title: 'Reverted One' });
      const r = (await w.author.posts.revert(k(w, p))) as Wire;
      expect(r.url).toBe(p.url);
      await expectError(w.service.posts.getByPath({ blogId: w.blogId, path: pathOf(p.url) }), 404, 'notFound');
      // Its path stays taken: a new post with the same title gets _2.
      const other = await makePost(w, 'LIVE', { title: 'Reverted One' });
      expect(other.url).toBe(`${BLOG_URL}2026/03/reverted-one_2.html`);
    });

    it('delete() removes the post and its comments for good', async () => {
      const w = await world(makeDriver());
      const p = await makePost(w, 'LIVE');
      const keep = await makePost(w, 'LIVE');
      const c = await makeComment(w, p.id, 'LIVE');
      await makeComment(w, p.id, 'SPAM');
      const kept = await makeComment(w, keep.id, 'LIVE');
      await w.author.posts.delete(k(w, p));
      await expectError(w.service.posts.get(k(w, p)), 404, 'notFound');
      await expectError(w.service.comments.get({ ...k(w, p), commentId: c.id }), 404, 'notFound');
      const all = (await w.service.comments.listByBlog({
        blogId: w.blogId,
        status: ['LIVE', 'EMPTIED', 'PENDING', 'SPAM'],
      })) as Wire;
      expect(ids(all)).toEqual([kept.id]);
    });

    it('update/patch keep the state and bump updated and etag', async () => {
      const w = await world(makeDriver());
      for (const state of ['LIVE', 'DRAFT', 'SCHEDULED'] as const) {
        const p = await makePost(w, state);
        w.clock.advance(1000);
        const q = (await w.author.posts.patch({ ...k(w, p), body: { title: `patched ${state}` } })) as Wire;
        expect(q.status).toBe(state);
        expect(q.updated).toBe(w.clock.iso());
        expect(q.etag).not.toBe(p.etag);
      }
    });
  });

  type PageOutcome = PageState | 'gone' | 409;
  const pk = (w: World, page: Wire) => ({ blogId: w.blogId, pageId: page.id as string });
  const pageOps: Array<{
    name: string;
    run: (w: World, p: Wire) => Promise<unknown>;
    expected: Record<PageState, PageOutcome>;
  }> = [
    {
      name: 'publish()',
      run: (w, p) => w.admin.pages.publish(pk(w, p)),
      expected: { LIVE: 'LIVE', DRAFT: 'LIVE', SOFT_TRASHED: 409 },
    },
    {
      name: 'revert()',
      run: (w, p) => w.admin.pages.revert(pk(w, p)),
      expected: { LIVE: 'DRAFT', DRAFT: 'DRAFT', SOFT_TRASHED: 'DRAFT' },
    },
    {
      name: 'delete({useTrash: true})',
      run: (w, p) => w.admin.pages.delete({ ...pk(w, p), useTrash: true }),
      expected: { LIVE: 'SOFT_TRASHED', DRAFT: 'SOFT_TRASHED', SOFT_TRASHED: 409 },
    },
    {
      name: 'delete()',
      run: (w, p) => w.admin.pages.delete(pk(w, p)),
      expected: { LIVE: 'gone', DRAFT: 'gone', SOFT_TRASHED: 'gone' },
    },
    {
      name: 'update()',
      run: (w, p) => w.admin.pages.update({ ...pk(w, p), body: { title: 'T', content: 'c' } }),
      expected: { LIVE: 'LIVE', DRAFT: 'DRAFT', SOFT_TRASHED: 409 },
    },
    {
      name: 'patch()',
      run: (w, p) => w.admin.pages.patch({ ...pk(w, p), body: { content: 'c' } }),
      expected: { LIVE: 'LIVE', DRAFT: 'DRAFT', SOFT_TRASHED: 409 },
    },
    {
      name: 'patch({publish: true})',
      run: (w, p) => w.admin.pages.patch({ ...pk(w, p), body: { content: 'c' }, publish: true }),
      expected: { LIVE: 'LIVE', DRAFT: 'LIVE', SOFT_TRASHED: 409 },
    },
    {
      name: 'update({revert: true})',
      run: (w, p) => w.admin.pages.update({ ...pk(w, p), body: { title: 'T', content: 'c' }, revert: true }),
      expected: { LIVE: 'DRAFT', DRAFT: 'DRAFT', SOFT_TRASHED: 409 },
    },
  ];

  describe('page state table (docs/design.md §6)', () => {
    for (const op of pageOps) {
      for (const from of PAGE_STATES) {
        const outcome = op.expected[from];
        it(`${from} --${op.name}--> ${outcome === 409 ? '409 conflict' : outcome}`, async () => {
          const w = await world(makeDriver());
          const page = await makePage(w, from);
          if (outcome === 409) {
            await expectNoWrite(w, async () => {
              const e = await expectError(op.run(w, page), 409, 'conflict');
              expect(e.message).toContain(from);
            });
            return;
          }
          await op.run(w, page);
          if (outcome === 'gone') {
            await expectError(w.service.pages.get(pk(w, page)), 404, 'notFound');
            return;
          }
          expect(((await w.service.pages.get(pk(w, page))) as Wire).status).toBe(outcome);
        });
      }
    }

    it('page insert: LIVE, or DRAFT with isDraft (no url until published)', async () => {
      const w = await world(makeDriver());
      const live = (await w.admin.pages.insert({
        blogId: w.blogId,
        body: { title: 'Live Page', content: 'x' },
      })) as Wire;
      expect(live.status).toBe('LIVE');
      expect(live.url).toBe(`${BLOG_URL}p/live-page.html`);
      const draft = (await w.admin.pages.insert({
        blogId: w.blogId,
        body: { title: 'Draft Page', content: 'x' },
        isDraft: true,
      })) as Wire;
      expect(draft.status).toBe('DRAFT');
      expect(draft.url ?? undefined).toBeUndefined();
    });

    it('a trashed page is restored by revert and keeps its url when republished', async () => {
      const w = await world(makeDriver());
      const p = await makePage(w, 'LIVE', { title: 'Team' });
      w.clock.advance(HOUR);
      await w.admin.pages.delete({ ...pk(w, p), useTrash: true });
      const t = (await w.service.pages.get(pk(w, p))) as Wire;
      expect(t.status).toBe('SOFT_TRASHED');
      expect(t.trashed).toBe(iso(T0 + HOUR));
      expect(ids(await w.anon.pages.list({ blogId: w.blogId }))).toEqual([]);
      await w.admin.pages.revert(pk(w, p));
      await w.admin.pages.patch({ ...pk(w, p), body: { title: 'Our Team' } });
      const back = (await w.admin.pages.publish(pk(w, p))) as Wire;
      expect(back.status).toBe('LIVE');
      expect(back.url).toBe(`${BLOG_URL}p/team.html`);
    });

    it('publish on a LIVE page changes nothing', async () => {
      const w = await world(makeDriver());
      const p = await makePage(w, 'LIVE');
      const changes = await changeCount(w.driver);
      w.clock.advance(HOUR);
      const again = (await w.admin.pages.publish(pk(w, p))) as Wire;
      expect(again.etag).toBe(p.etag);
      expect(again.updated).toBe(p.updated);
      expect(await changeCount(w.driver)).toBe(changes);
    });
  });

  type CommentOutcome = CommentState | 'gone' | 409;
  const comments: Array<{
    name: string;
    run: (w: World, postId: string, c: Wire) => Promise<unknown>;
    expected: Record<CommentState, CommentOutcome>;
  }> = [
    {
      name: 'approve',
      run: (w, postId, c) => w.admin.comments.approve({ blogId: w.blogId, postId, commentId: c.id }),
      expected: { LIVE: 'LIVE', EMPTIED: 409, PENDING: 'LIVE', SPAM: 'LIVE' },
    },
    {
      name: 'markAsSpam',
      run: (w, postId, c) => w.admin.comments.markAsSpam({ blogId: w.blogId, postId, commentId: c.id }),
      expected: { LIVE: 'SPAM', EMPTIED: 409, PENDING: 'SPAM', SPAM: 'SPAM' },
    },
    {
      name: 'removeContent',
      run: (w, postId, c) => w.admin.comments.removeContent({ blogId: w.blogId, postId, commentId: c.id }),
      expected: { LIVE: 'EMPTIED', EMPTIED: 'EMPTIED', PENDING: 'EMPTIED', SPAM: 'EMPTIED' },
    },
    {
      name: 'delete',
      run: (w, postId, c) => w.admin.comments.delete({ blogId: w.blogId, postId, commentId: c.id }),
      expected: { LIVE: 'gone', EMPTIED: 'gone', PENDING: 'gone', SPAM: 'gone' },
    },
  ];

  describe('comment state table (docs/design.md §6)', () => {
    for (const op of comments) {
      for (const from of COMMENT_STATES) {
        const outcome = op.expected[from];
        it(`${from} --${op.name}--> ${outcome === 409 ? '409 conflict' : outcome}`, async () => {
          const w = await world(makeDriver());
          const post = await makePost(w, 'LIVE');
          const c = await makeComment(w, post.id, from, 'some words');
          const key = { blogId: w.blogId, postId: post.id as string, commentId: c.id as string };
          if (outcome === 409) {
            await expectNoWrite(w, async () => {
              const e = await expectError(op.run(w, post.id, c), 409, 'conflict');
              expect(e.message).toContain(from);
            });
            return;
          }
          await op.run(w, post.id, c);
          if (outcome === 'gone') {
            await expectError(w.service.comments.get(key), 404, 'notFound');
            return;
          }
          const after = (await w.service.comments.get(key)) as Wire;
          expect(after.status).toBe(outcome);
          if (outcome === 'EMPTIED') expect(after.content).toBe('');
          else expect(after.content).toBe('some words');
        });
      }
    }

    it('removeContent keeps the comment in its place in the thread, with its author', async () => {
      const w = await world(makeDriver());
      const post = await makePost(w, 'LIVE');
      const a = await makeComment(w, post.id, 'LIVE', 'first');
      w.clock.advance(1000);
      const b = (await w.reader.comments.insert({
        blogId: w.blogId,
        postId: post.id,
        body: { content: 'second' },
      })) as Wire;
      await w.admin.comments.approve({ blogId: w.blogId, postId: post.id, commentId: b.id });
      w.clock.advance(1000);
      const c = await makeComment(w, post.id, 'LIVE', 'third');
      await w.admin.comments.removeContent({ blogId: w.blogId, postId: post.id, commentId: b.id });
      const list = (await w.anon.comments.list({ blogId: w.blogId, postId: post.id })) as Wire;
      expect(ids(list)).toEqual([a.id, b.id, c.id]);
      expect(list.items[1].content).toBe('');
      expect(list.items[1].author.id).toBe('reader');
      // Only LIVE comments count in replies.totalItems.
      expect(((await w.anon.posts.get({ blogId: w.blogId, postId: post.id })) as Wire).replies.totalItems).toBe('2');
    });

    it('deleting a comment leaves its replies in place', async () => {
      const w = await world(makeDriver());
      const post = await makePost(w, 'LIVE');
      const parent = await makeComment(w, post.id, 'LIVE', 'parent');
      const reply = (await w.service.comments.insert({
        blogId: w.blogId,
        postId: post.id,
        body: { content: 'reply', inReplyTo: { id: parent.id } },
      })) as Wire;
      await w.admin.comments.delete({ blogId: w.blogId, postId: post.id, commentId: parent.id });
      const got = (await w.anon.comments.get({ blogId: w.blogId, postId: post.id, commentId: reply.id })) as Wire;
      expect(got.content).toBe('reply');
      expect(got.inReplyTo).toEqual({ id: parent.id });
      expect(ids(await w.anon.comments.list({ blogId: w.blogId, postId: post.id }))).toEqual([reply.id]);
    });

    it('comments are accepted on LIVE posts only: 409 for a caller who sees the post, 404 for one who does not', async () => {
      const w = await world(makeDriver());
      for (const state of ['DRAFT', 'SCHEDULED', 'SOFT_TRASHED'] as const) {
        const p = await makePost(w, state);
        await expectNoWrite(w, async () => {
          await expectError(
            w.author.comments.insert({ blogId: w.blogId, postId: p.id, body: { content: 'x' } }),
            409,
            'conflict',
          );
          await expectError(
            w.admin.comments.insert({ blogId: w.blogId, postId: p.id, body: { content: 'x' } }),
            409,
            'conflict',
          );
          await expectError(
            w.anon.comments.insert({ blogId: w.blogId, postId: p.id, body: { content: 'x' } }),
            404,
            'notFound',
          );
          await expectError(
            w.reader.comments.insert({ blogId: w.blogId, postId: p.id, body: { content: 'x' } }),
            404,
            'notFound',
          );
        });
      }
    });
  });
});
