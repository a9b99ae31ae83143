/**
 * blogUserInfos, postUserInfos and pageViews through the public API: the documented shapes, who may ask
 * (a user's info is theirs and the blog's ADMINs'), and page views counted in day buckets.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import {
  DAY,
  USERS,
  changeCount,
  expectError,
  expectNoWrite,
  makePost,
  world,
  type Service,
  type Wire,
  type World,
} from './helpers.js';
import { DRIVERS } from '../support/drivers.js';

describe.each(DRIVERS)('%s', (_driver, makeDriver) => {
  let w: World;
  beforeEach(async () => {
    w = await world(makeDriver());
  });

  describe('blogUserInfos.get', () => {
    it("answers the blog with the user's role, to the user and to the blog's admins", async () => {
      const own = (await w.author.blogUserInfos.get({ userId: 'self', blogId: w.blogId })) as Wire;
      expect(own).toMatchObject({
        kind: 'blogger#blogUserInfo',
        blog: { kind: 'blogger#blog', id: w.blogId },
        blog_user_info: {
          kind: 'blogger#blogPerUserInfo',
          userId: USERS.author.id,
          blogId: w.blogId,
          hasAdminAccess: false,
          role: 'AUTHOR',
        },
      });
      const byAdmin = (await w.admin.blogUserInfos.get({ userId: USERS.reader.id, blogId: w.blogId })) as Wire;
      expect(byAdmin.blog_user_info).toMatchObject({ userId: USERS.reader.id, role: 'READER', hasAdminAccess: false });
      const admin = (await w.service.blogUserInfos.get({ userId: USERS.admin.id, blogId: w.blogId })) as Wire;
      expect(admin.blog_user_info).toMatchObject({ role: 'ADMIN', hasAdminAccess: true });
      // A signed-in user without a role reads a public blog: a READER.
      expect(
        ((await w.outsider.blogUserInfos.get({ userId: 'self', blogId: w.blogId })) as Wire).blog_user_info.role,
      ).toBe('READER');
    });

    it('fills blog.posts.items with maxPosts', async () => {
      await makePost(w, 'LIVE');
      await makePost(w, 'LIVE');
      const info = (await w.author.blogUserInfos.get({ userId: 'self', blogId: w.blogId, maxPosts: 1 })) as Wire;
      expect(info.blog.posts.items).toHaveLength(1);
    });

    it("refuses anyone else: other members, anonymous callers, the host's 'self'", async () => {
      await expectError(w.author.blogUserInfos.get({ userId: USERS.author2.id, blogId: w.blogId }), 403, 'forbidden');
      await expectError(w.reader.blogUserInfos.get({ userId: USERS.admin.id, blogId: w.blogId }), 403, 'forbidden');
      await expectError(w.outsider.blogUserInfos.get({ userId: USERS.reader.id, blogId: w.blogId }), 403, 'forbidden');
      await expectError(w.anon.blogUserInfos.get({ userId: USERS.reader.id, blogId: w.blogId }), 401, 'authError');
      await expectError(w.service.blogUserInfos.get({ userId: 'self', blogId: w.blogId }), 400, 'invalid', 'userId');
      await expectError(w.admin.blogUserInfos.get({ userId: 'nobody', blogId: w.blogId }), 404, 'notFound');
      await expectError(w.author.blogUserInfos.get({ userId: 'self', blogId: 'no-such-blog' }), 404, 'notFound');
    });
  });

  describe('postUserInfos', () => {
    it('get: the post and whether the user may edit it', async () => {
      const mine = await makePost(w, 'LIVE');
      const theirs = await makePost(w, 'LIVE', {}, w.author2);
      const own = (await w.author.postUserInfos.get({ userId: 'self', blogId: w.blogId, postId: mine.id })) as Wire;
      expect(own).toMatchObject({
        kind: 'blogger#postUserInfo',
        post: { kind: 'blogger#post', id: mine.id },
        post_user_info: {
          kind: 'blogger#postPerUserInfo',
          userId: USERS.author.id,
          blogId: w.blogId,
          postId: mine.id,
          hasEditAccess: true,
        },
      });
      const other = (await w.author.postUserInfos.get({ userId: 'self', blogId: w.blogId, postId: theirs.id })) as Wire;
      expect(other.post_user_info.hasEditAccess).toBe(false);
      const reader = (await w.admin.postUserInfos.get({
        userId: USERS.reader.id,
        blogId: w.blogId,
        postId: mine.id,
      })) as Wire;
      expect(reader.post_user_info.hasEditAccess).toBe(false);
      const admin = (await w.admin.postUserInfos.get({ userId: 'self', blogId: w.blogId, postId: theirs.id })) as Wire;
      expect(admin.post_user_info.hasEditAccess).toBe(true);
    });

    it('get: maxComments inlines comments; a draft stays hidden below AUTHOR view', async () => {
      const live = await makePost(w, 'LIVE');
      await w.service.comments.insert({ blogId: w.blogId, postId: live.id, body: { content: 'first' } });
      const withComments = (await w.reader.postUserInfos.get({
        userId: 'self',
        blogId: w.blogId,
        postId: live.id,
        maxComments: 5,
      })) as Wire;
      expect(withComments.post.replies.items.map((c: Wire) => c.content)).toEqual(['first']);
      const draft = await makePost(w, 'DRAFT');
      await expectError(
        w.reader.postUserInfos.get({ userId: 'self', blogId: w.blogId, postId: draft.id }),
        404,
        'notFound',
      );
      expect(
        ((await w.author2.postUserInfos.get({ userId: 'self', blogId: w.blogId, postId: draft.id })) as Wire)
          .post_user_info.hasEditAccess,
      ).toBe(false);
    });

    it('get and list refuse other users and anonymous callers', async () => {
      const post = await makePost(w, 'LIVE');
      await expectError(
        w.author2.postUserInfos.get({ userId: USERS.author.id, blogId: w.blogId, postId: post.id }),
        403,
        'forbidden',
      );
      await expectError(
        w.anon.postUserInfos.get({ userId: USERS.author.id, blogId: w.blogId, postId: post.id }),
        401,
        'authError',
      );
      await expectError(w.reader.postUserInfos.list({ userId: USERS.author.id, blogId: w.blogId }), 403, 'forbidden');
      await expectError(w.anon.postUserInfos.list({ userId: 'self', blogId: w.blogId }), 401, 'authError');
    });

    it('list: the documented kind, no bodies by default, pages with nextPageToken, filters as posts.list', async () => {
      const made: Wire[] = [];
      for (let i = 0; i < 3; i++) {
        w.clock.advance(60_000);
        made.push(await makePost(w, 'LIVE', { labels: i === 0 ? ['odd'] : ['even'] }, i === 1 ? w.author2 : w.author));
      }
      await makePost(w, 'DRAFT');
      const first = (await w.author.postUserInfos.list({ userId: 'self', blogId: w.blogId, maxResults: 2 })) as Wire;
      expect(first.kind).toBe('blogger#postList');
      expect(Object.keys(first).sort()).toEqual(['items', 'kind', 'nextPageToken']);
      expect(first.items.map((i: Wire) => i.post.id)).toEqual([made[2]!.id, made[1]!.id]);
      expect(first.items.map((i: Wire) => i.post_user_info.hasEditAccess)).toEqual([true, false]);
      expect(first.items[0].post.content).toBeUndefined();
      const second = (await w.author.postUserInfos.list({
        userId: 'self',
        blogId: w.blogId,
        maxResults: 2,
        pageToken: first.nextPageToken,
      })) as Wire;
      expect(second.items.map((i: Wire) => i.post.id)).toEqual([made[0]!.id]);
      expect(second.nextPageToken).toBeUndefined();
      const bodies = (await w.author.postUserInfos.list({
        userId: 'self',
        blogId: w.blogId,
        fetchBodies: true,
        labels: 'odd',
      })) as Wire;
      expect(bodies.items.map((i: Wire) => [i.post.id, typeof i.post.content])).toEqual([[made[0]!.id, 'string']]);
      const drafts = (await w.author.postUserInfos.list({
        userId: 'self',
        blogId: w.blogId,
        status: 'DRAFT',
        view: 'AUTHOR',
      })) as Wire;
      expect(drafts.items.map((i: Wire) => i.post.status)).toEqual(['DRAFT']);
      await expectError(
        w.reader.postUserInfos.list({ userId: 'self', blogId: w.blogId, status: 'DRAFT' }),
        403,
        'forbidden',
      );
    });
  });

  describe('blogs.listByUser with fetchUserInfo', () => {
    it('answers blogUserInfos beside items, one per blog, and none without the flag', async () => {
      const second = await w.service.blogs.insert({
        body: { name: 'Second', url: 'https://second.example.test/' },
        ownerId: USERS.author.id,
      });
      const list = (await w.author.blogs.listByUser({ userId: 'self', fetchUserInfo: true })) as Wire;
      expect(list.items.map((b: Wire) => b.id).sort()).toEqual([w.blogId, second.id].sort());
      expect(list.blogUserInfos.map((i: Wire) => i.blog.id)).toEqual(list.items.map((b: Wire) => b.id));
      const roles = Object.fromEntries(
        list.blogUserInfos.map((i: Wire) => [
          i.blog_user_info.blogId,
          [i.kind, i.blog_user_info.role, i.blog_user_info.hasAdminAccess],
        ]),
      );
      expect(roles).toEqual({
        [w.blogId]: ['blogger#blogUserInfo', 'AUTHOR', false],
        [second.id]: ['blogger#blogUserInfo', 'ADMIN', true],
      });
      expect((await w.author.blogs.listByUser({ userId: 'self' })) as Wire).not.toHaveProperty('blogUserInfos');
    });
  });

  describe('pageViews', () => {
    const views = async (s: Service, range?: string | readonly string[]) => {
      const out = (await s.pageViews.get({ blogId: w.blogId, ...(range ? { range: range as never } : {}) })) as Wire;
      return Object.fromEntries(out.counts.map((c: Wire) => [c.timeRange, c.count]));
    };

    it('counts recorded views in day buckets, for all time, 30 and 7 days', async () => {
      const post = await makePost(w, 'LIVE');
      const record = (n: number, postId?: string) =>
        Promise.all(
          Array.from({ length: n }, () =>
            w.service.pageViews.record({ blogId: w.blogId, ...(postId ? { postId } : {}) }),
          ),
        );
      await record(3); // day 0
      w.clock.advance(10 * DAY);
      await record(2, post.id); // day 10
      w.clock.advance(15 * DAY);
      await record(4); // day 25
      const out = (await w.admin.pageViews.get({ blogId: w.blogId })) as Wire;
      expect(out).toEqual({
        kind: 'blogger#page_views',
        blogId: w.blogId,
        counts: [
          { timeRange: 'ALL_TIME', count: '9' },
          { timeRange: 'THIRTY_DAYS', count: '9' },
          { timeRange: 'SEVEN_DAYS', count: '4' },
        ],
      });
      w.clock.advance(6 * DAY); // day 31: day 0 has left the 30 days; day 25 is still in the 7
      expect(await views(w.admin)).toEqual({ ALL_TIME: '9', THIRTY_DAYS: '6', SEVEN_DAYS: '4' });
      w.clock.advance(DAY); // day 32: day 25 leaves the 7 days
      expect(await views(w.admin, ['7DAYS'])).toEqual({ SEVEN_DAYS: '0' });
      expect(await views(w.service, 'ALL')).toEqual({ ALL_TIME: '9' });
    });

    it('recording is one commit; ranges in any case; bad ranges are 400', async () => {
      const before = await changeCount(w.driver);
      await w.service.pageViews.record({ blogId: w.blogId });
      const seqs = new Set((await w.driver.changesSince(0)).slice(before).map((c) => c.seq));
      expect(seqs.size).toBe(1);
      expect(await views(w.admin, ['all', '30days'])).toEqual({ ALL_TIME: '1', THIRTY_DAYS: '1' });
      await expectError(
        w.admin.pageViews.get({ blogId: w.blogId, range: ['90DAYS' as never] }),
        400,
        'invalid',
        'range',
      );
    });

    it('`count` records views gathered by the host in one commit; a count out of range is 400 and writes nothing', async () => {
      const post = await makePost(w, 'LIVE');
      const before = await changeCount(w.driver);
      await w.service.pageViews.record({ blogId: w.blogId, postId: post.id, count: 40 });
      expect(new Set((await w.driver.changesSince(0)).slice(before).map((c) => c.seq)).size).toBe(1);
      expect(await views(w.admin, ['all'])).toEqual({ ALL_TIME: '40' });
      for (const count of [0, -1, 1.5, 2_000_000]) {
        await expectNoWrite(w, () =>
          expectError(w.service.pageViews.record({ blogId: w.blogId, count }), 400, 'invalid', 'count'),
        );
      }
    });

    it('only blog admins read them (anonymous callers: 401, as docs/api.md says) and only host code records them', async () => {
      await expectError(w.author.pageViews.get({ blogId: w.blogId }), 403, 'forbidden');
      await expectError(w.anon.pageViews.get({ blogId: w.blogId }), 401, 'authError');
      await expectError(w.service.pageViews.get({ blogId: 'nope' }), 404, 'notFound');
      await expectNoWrite(w, () => expectError(w.admin.pageViews.record({ blogId: w.blogId }), 403, 'forbidden'));
      await expectNoWrite(w, () => expectError(w.anon.pageViews.record({ blogId: w.blogId }), 403, 'forbidden'));
      await expectError(w.service.pageViews.record({ blogId: 'nope' }), 404, 'notFound');
    });
  });
});
