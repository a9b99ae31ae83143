/**
 * Every interface operation and management call through the public API, checking the wire shapes of
 * docs/design.md §4 and §7 (kinds, ids, timestamps, selfLinks, urls, counts, projections).
 */
import { describe, expect, it } from 'vitest';
import { BlogError, createBlogService } from '../../src/index.js';
import {
  API,
  BLOG_URL,
  RFC3339_MS,
  USERS,
  T0,
  catchError,
  expectError,
  getPost,
  ids,
  makeClock,
  makeComment,
  makePage,
  makePost,
  newService,
  pathOf,
  settle,
  world,
  type Driver,
  type Wire,
} from './helpers.js';
import { countingDriver } from '../support/counting-driver.js';
import { DRIVERS } from '../support/drivers.js';

/** The runtime also takes enum values in any case and comma-joined lists (as the wire sends them); the types take the canonical forms only. */
const loose = (v: string | readonly string[]): never => v as never;

const iso = (ms: number) => new Date(ms).toISOString();

describe.each(DRIVERS)('%s', (_driver, makeDriver) => {
  describe('users', () => {
    it('users.insert returns a blogger#user with the host id, and users.get reads it back', async () => {
      const service = newService(makeDriver());
      await service.ready();
      const u = (await service.users.insert({
        body: { id: 'host-42', displayName: 'Host User', url: 'https://example.test/me', about: 'Hi' },
      })) as Wire;
      expect(u.kind).toBe('blogger#user');
      expect(u.id).toBe('host-42');
      expect(u.displayName).toBe('Host User');
      expect(u.url).toBe('https://example.test/me');
      expect(u.about).toBe('Hi');
      expect(u.selfLink).toBe(`${API}/v3/users/host-42`);
      const got = (await service.users.get({ userId: 'host-42' })) as Wire;
      expect(got.id).toBe('host-42');
      expect(got.displayName).toBe('Host User');
    });

    it('users.insert without an id generates a string id', async () => {
      const service = newService(makeDriver());
      await service.ready();
      const u = (await service.users.insert({ body: { displayName: 'No Id' } })) as Wire;
      expect(typeof u.id).toBe('string');
      expect(u.id.length).toBeGreaterThan(0);
      expect(((await service.users.get({ userId: u.id })) as Wire).displayName).toBe('No Id');
    });

    it("users.get 'self' is the scoped actor; anonymous 'self' is 401 authError; unknown user 404", async () => {
      const w = await world(makeDriver());
      expect(((await w.author.users.get({ userId: 'self' })) as Wire).id).toBe(USERS.author.id);
      expect(((await w.reader.users.get({ userId: 'self' })) as Wire).displayName).toBe(USERS.reader.displayName);
      await expectError(w.anon.users.get({ userId: 'self' }), 401, 'authError');
      await expectError(w.service.users.get({ userId: 'nobody-here' }), 404, 'notFound');
    });

    it('users.insert is for the unscoped service only (403 for a scoped actor)', async () => {
      const w = await world(makeDriver());
      await expectError(w.admin.users.insert({ body: { displayName: 'Sneaky' } }), 403, 'forbidden');
      await expectError(w.anon.users.insert({ body: { displayName: 'Sneaky' } }), 403, 'forbidden');
    });
  });

  describe('blogs', () => {
    it('blogs.insert makes a blogger#blog whose owner is ADMIN; url stored with a trailing slash', async () => {
      const w = await world(makeDriver());
      const blog = (await w.author.blogs.insert({
        body: { name: 'Second', url: 'https://second.example.test' },
      })) as Wire;
      expect(blog.kind).toBe('blogger#blog');
      expect(typeof blog.id).toBe('string');
      expect(blog.name).toBe('Second');
      expect(blog.url).toBe('https://second.example.test/');
      expect(blog.selfLink).toBe(`${API}/v3/blogs/${blog.id}`);
      expect(blog.published).toMatch(RFC3339_MS);
      expect(blog.published).toBe(iso(T0));
      expect(blog.updated).toMatch(RFC3339_MS);
      const members = await w.service.members.list({ blogId: blog.id });
      expect(members.items).toEqual([{ userId: USERS.author.id, role: 'ADMIN' }]);
    });

    it('blogs.insert with ownerId (unscoped) makes that user ADMIN', async () => {
      const w = await world(makeDriver());
      const blog = (await w.service.blogs.insert({
        body: { name: 'Third', url: 'https://third.example.test/', description: 'd' },
        ownerId: USERS.reader.id,
      })) as Wire;
      expect(blog.description).toBe('d');
      expect((await w.service.members.list({ blogId: blog.id })).items).toEqual([
        { userId: USERS.reader.id, role: 'ADMIN' },
      ]);
    });

    it('blogs.insert refuses a url already taken by another blog', async () => {
      const w = await world(makeDriver());
      // A blog's url is unique (docs/design.md §13 answers a clash with 409): a 4xx BlogError, nothing written.
      const e = await catchError(
        w.service.blogs.insert({ body: { name: 'Dup', url: 'HTTPS://blog.example.test' }, ownerId: USERS.admin.id }),
      );
      expect([400, 409]).toContain(e.code);
      expect(ids(await w.service.blogs.listByUser({ userId: USERS.admin.id }))).toEqual([w.blogId]);
    });

    it('blogs.get: kind, ids, timestamps, selfLink, LIVE post and page counts as numbers, maxPosts', async () => {
      const w = await world(makeDriver());
      const p1 = await makePost(w, 'LIVE');
      w.clock.advance(1000);
      const p2 = await makePost(w, 'LIVE');
      await makePost(w, 'DRAFT');
      await makePost(w, 'SCHEDULED');
      await makePost(w, 'SOFT_TRASHED');
      await makePage(w, 'LIVE');
      await makePage(w, 'DRAFT');
      const blog = (await w.service.blogs.get({ blogId: w.blogId })) as Wire;
      expect(blog.kind).toBe('blogger#blog');
      expect(blog.id).toBe(w.blogId);
      expect(blog.name).toBe('Test Blog');
      expect(blog.description).toBe('A blog for tests');
      expect(blog.url).toBe(BLOG_URL);
      expect(blog.selfLink).toBe(`${API}/v3/blogs/${w.blogId}`);
      expect(blog.published).toMatch(RFC3339_MS);
      expect(blog.updated).toMatch(RFC3339_MS);
      expect(blog.posts.totalItems).toBe(2);
      expect(blog.pages.totalItems).toBe(1);
      expect(blog.posts.items ?? []).toEqual([]);

      const withPosts = (await w.anon.blogs.get({ blogId: w.blogId, maxPosts: 5 })) as Wire;
      expect(withPosts.posts.totalItems).toBe(2);
      expect(withPosts.posts.items.map((p: Wire) => p.id)).toEqual([p2.id, p1.id]);
      expect(withPosts.posts.items[0].kind).toBe('blogger#post');
      const one = (await w.anon.blogs.get({ blogId: w.blogId, maxPosts: 1 })) as Wire;
      expect(one.posts.items.map((p: Wire) => p.id)).toEqual([p2.id]);
      await expectError(w.anon.blogs.get({ blogId: 'no-such-blog' }), 404, 'notFound');
    });

    it('blogs.getByUrl ignores a missing trailing slash and the case of scheme and host', async () => {
      const w = await world(makeDriver());
      for (const url of [
        BLOG_URL,
        'https://blog.example.test',
        'HTTPS://BLOG.Example.TEST/',
        'https://BLOG.EXAMPLE.TEST',
      ]) {
        const blog = (await w.anon.blogs.getByUrl({ url })) as Wire;
        expect(blog.id, url).toBe(w.blogId);
        expect(blog.kind).toBe('blogger#blog');
      }
      await makePost(w, 'LIVE');
      const withPosts = (await w.anon.blogs.getByUrl({ url: BLOG_URL, maxPosts: 3 })) as Wire;
      expect(withPosts.posts.items).toHaveLength(1);
      await expectError(w.anon.blogs.getByUrl({ url: 'https://other.example.test/' }), 404, 'notFound');
    });

    it('blogs.listByUser: blogger#blogList; default roles AUTHOR and ADMIN; role and status filters; self', async () => {
      const w = await world(makeDriver());
      const own = (await w.admin.blogs.listByUser({ userId: 'self' })) as Wire;
      expect(own.kind).toBe('blogger#blogList');
      expect(ids(own)).toEqual([w.blogId]);
      expect(own.items[0].kind).toBe('blogger#blog');
      expect(ids(await w.author.blogs.listByUser({ userId: USERS.author.id }))).toEqual([w.blogId]);
      // A READER membership is not listed by default, only when asked for.
      expect(ids(await w.reader.blogs.listByUser({ userId: 'self' }))).toEqual([]);
      expect(ids(await w.reader.blogs.listByUser({ userId: 'self', role: 'READER' }))).toEqual([w.blogId]);
      expect(ids(await w.reader.blogs.listByUser({ userId: 'self', role: loose(['reader', 'ADMIN']) }))).toEqual([
        w.blogId,
      ]);
      expect(ids(await w.admin.blogs.listByUser({ userId: 'self', role: 'AUTHOR' }))).toEqual([]);
      expect(ids(await w.admin.blogs.listByUser({ userId: 'self', status: 'LIVE' }))).toEqual([w.blogId]);
      expect(ids(await w.admin.blogs.listByUser({ userId: 'self', status: 'DELETED' }))).toEqual([]);
      // Unscoped: any user.
      expect(ids(await w.service.blogs.listByUser({ userId: USERS.author2.id }))).toEqual([w.blogId]);
      await makePost(w, 'LIVE');
      const withPosts = (await w.admin.blogs.listByUser({ userId: 'self', maxPosts: 2 })) as Wire;
      expect(withPosts.items[0].posts.items).toHaveLength(1);
    });

    it('blogs.listByUser of another user is 403', async () => {
      const w = await world(makeDriver());
      await expectError(w.author.blogs.listByUser({ userId: USERS.admin.id }), 403, 'forbidden');
      await expectError(w.anon.blogs.listByUser({ userId: USERS.admin.id }), 403, 'forbidden');
    });
  });

  describe('members', () => {
    it('members.set / list / remove', async () => {
      const w = await world(makeDriver());
      const list = await w.admin.members.list({ blogId: w.blogId });
      const sorted = [...list.items].sort((a, b) => (a.userId < b.userId ? -1 : 1));
      expect(sorted).toEqual([
        { userId: 'admin', role: 'ADMIN' },
        { userId: 'author', role: 'AUTHOR' },
        { userId: 'author2', role: 'AUTHOR' },
        { userId: 'reader', role: 'READER' },
      ]);
      await w.admin.members.set({ blogId: w.blogId, userId: USERS.reader.id, role: loose('author') });
      await w.admin.members.set({ blogId: w.blogId, userId: USERS.outsider.id, role: 'READER' });
      await w.admin.members.remove({ blogId: w.blogId, userId: USERS.author2.id });
      const after = (await w.admin.members.list({ blogId: w.blogId })).items;
      expect(after.find((m) => m.userId === 'reader')?.role).toBe('AUTHOR');
      expect(after.find((m) => m.userId === 'outsider')?.role).toBe('READER');
      expect(after.find((m) => m.userId === 'author2')).toBeUndefined();
      // The removed author can no longer write.
      await expectError(
        w.author2.posts.insert({ blogId: w.blogId, body: { title: 'x', content: 'y' } }),
        403,
        'forbidden',
      );
      // The promoted reader can.
      const p = (await w.reader.posts.insert({ blogId: w.blogId, body: { title: 'x', content: 'y' } })) as Wire;
      expect(p.author.id).toBe(USERS.reader.id);
    });

    it('removing or demoting the last ADMIN is 409', async () => {
      const w = await world(makeDriver());
      await expectError(w.admin.members.remove({ blogId: w.blogId, userId: USERS.admin.id }), 409, 'conflict');
      await expectError(
        w.admin.members.set({ blogId: w.blogId, userId: USERS.admin.id, role: 'AUTHOR' }),
        409,
        'conflict',
      );
      // With a second ADMIN, the first may step down.
      await w.admin.members.set({ blogId: w.blogId, userId: USERS.author.id, role: 'ADMIN' });
      await w.admin.members.set({ blogId: w.blogId, userId: USERS.admin.id, role: 'AUTHOR' });
      const roles = (await w.service.members.list({ blogId: w.blogId })).items;
      expect(roles.find((m) => m.userId === 'admin')?.role).toBe('AUTHOR');
      expect(roles.find((m) => m.userId === 'author')?.role).toBe('ADMIN');
    });
  });

  describe('posts', () => {
    it('posts.insert: the full wire shape of a LIVE post', async () => {
      const w = await world(makeDriver());
      const post = (await w.author.posts.insert({
        blogId: w.blogId,
        body: { title: 'Hello World', content: '<p>Hi <b>there</b></p>', labels: ['News', 'tech'] },
      })) as Wire;
      expect(post.kind).toBe('blogger#post');
      expect(typeof post.id).toBe('string');
      expect(post.id.length).toBeGreaterThan(0);
      expect(post.blog).toEqual({ id: w.blogId });
      expect(post.title).toBe('Hello World');
      expect(post.content).toBe('<p>Hi <b>there</b></p>');
      expect(post.labels).toEqual(['News', 'tech']);
      expect(post.published).toBe(iso(T0));
      expect(post.updated).toMatch(RFC3339_MS);
      expect(post.url).toBe(`${BLOG_URL}2026/03/hello-world.html`);
      expect(post.selfLink).toBe(`${API}/v3/blogs/${w.blogId}/posts/${post.id}`);
      expect(post.author.id).toBe(USERS.author.id);
      expect(post.author.displayName).toBe(USERS.author.displayName);
      expect(post.replies.totalItems).toBe('0');
      expect(post.replies.selfLink).toContain(`/v3/blogs/${w.blogId}/posts/${post.id}/comments`);
      expect(typeof post.etag).toBe('string');
      expect(post.etag).toMatch(/^(W\/)?".*"$/);
      // The author's own view is AUTHOR: status is shown.
      expect(post.status).toBe('LIVE');
      expect(post.trashed).toBeUndefined();
    });

    it('post url: slug from the title, YYYY/MM of the publish time, _2 on collision', async () => {
      const w = await world(makeDriver());
      const a = (await w.author.posts.insert({
        blogId: w.blogId,
        body: { title: 'Same Title!', content: 'a' },
      })) as Wire;
      const b = (await w.author.posts.insert({
        blogId: w.blogId,
        body: { title: 'Same Title!', content: 'b' },
      })) as Wire;
      const c = (await w.author.posts.insert({
        blogId: w.blogId,
        body: { title: 'Same Title!', content: 'c' },
      })) as Wire;
      expect(a.url).toBe(`${BLOG_URL}2026/03/same-title.html`);
      expect(b.url).toBe(`${BLOG_URL}2026/03/same-title_2.html`);
      expect(c.url).toBe(`${BLOG_URL}2026/03/same-title_3.html`);
      const backdated = (await w.author.posts.insert({
        blogId: w.blogId,
        body: { title: 'Old News', content: 'x', published: '2025-11-02T08:00:00.000Z' },
      })) as Wire;
      expect(backdated.url).toBe(`${BLOG_URL}2025/11/old-news.html`);
      expect(backdated.published).toBe('2025-11-02T08:00:00.000Z');
      const long = (await w.author.posts.insert({
        blogId: w.blogId,
        body: { title: 'A Very Long Title That Goes On And On Well Past Forty Characters For Sure', content: 'x' },
      })) as Wire;
      const slug = pathOf(long.url)
        .replace(/^\/2026\/03\//, '')
        .replace(/\.html$/, '');
      expect(slug).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
      expect(slug.length).toBeLessThanOrEqual(45);
      expect(slug.length).toBeGreaterThan(10);
    });

    it('a title many posts share costs a bounded number of reads to find a free url', async () => {
      const driver = countingDriver(makeDriver());
      const w = await world(driver);
      const urls: string[] = [];
      const reads: number[] = [];
      for (let i = 0; i < 30; i++) {
        driver.reset();
        urls.push(
          (
            (await w.author.posts.insert({
              blogId: w.blogId,
              body: { title: 'Weekly Notes', content: `${i}` },
            })) as Wire
          ).url as string,
        );
        reads.push(driver.handedOut);
      }
      expect(new Set(urls).size).toBe(30);
      for (const url of urls) expect(url).toMatch(new RegExp(`^${BLOG_URL}2026/03/weekly-notes(_[0-9a-z]+)?\\.html$`));
      // The 30th insert reads what the 5th did, give or take the few random tries: not one read per post before it.
      expect(reads[29]!).toBeLessThanOrEqual(reads[4]! + 5);
    });

    it('a draft has no url', async () => {
      const w = await world(makeDriver());
      const d = (await w.author.posts.insert({
        blogId: w.blogId,
        body: { title: 'Draft', content: 'x' },
        isDraft: true,
      })) as Wire;
      expect(d.status).toBe('DRAFT');
      expect(d.url ?? undefined).toBeUndefined();
    });

    it('posts.get: fetchBody=false omits content, fetchImages fills images, maxComments fills replies oldest first', async () => {
      const w = await world(makeDriver());
      const post = await makePost(w, 'LIVE', {
        content:
          '<p>Look</p><img src="https://img.example.test/a.png" alt="a"><p><img alt="b" src="https://img.example.test/b.jpg"/></p>',
      });
      const c1 = await makeComment(w, post.id, 'LIVE', 'first');
      w.clock.advance(1000);
      const c2 = await makeComment(w, post.id, 'LIVE', 'second');
      w.clock.advance(1000);
      await makeComment(w, post.id, 'PENDING', 'pending one');
      w.clock.advance(1000);
      const c4 = await makeComment(w, post.id, 'LIVE', 'third');

      const plain = (await w.anon.posts.get({ blogId: w.blogId, postId: post.id })) as Wire;
      expect(plain.content).toContain('<img');
      expect(plain.images ?? undefined).toBeUndefined();
      expect(plain.replies.totalItems).toBe('3');
      expect(plain.replies.items ?? []).toEqual([]);

      const noBody = (await w.anon.posts.get({ blogId: w.blogId, postId: post.id, fetchBody: false })) as Wire;
      expect('content' in noBody).toBe(false);
      expect(noBody.title).toBe(post.title);

      const images = (await w.anon.posts.get({ blogId: w.blogId, postId: post.id, fetchImages: true })) as Wire;
      expect(images.images).toEqual([
        { url: 'https://img.example.test/a.png' },
        { url: 'https://img.example.test/b.jpg' },
      ]);

      const withComments = (await w.anon.posts.get({ blogId: w.blogId, postId: post.id, maxComments: 2 })) as Wire;
      expect(withComments.replies.items.map((c: Wire) => c.id)).toEqual([c1.id, c2.id]);
      expect(withComments.replies.items[0].kind).toBe('blogger#comment');
      const all = (await w.anon.posts.get({ blogId: w.blogId, postId: post.id, maxComments: 10 })) as Wire;
      expect(all.replies.items.map((c: Wire) => c.id)).toEqual([c1.id, c2.id, c4.id]);
      await expectError(w.anon.posts.get({ blogId: w.blogId, postId: 'no-such-post' }), 404, 'notFound');
    });

    it('fetchImages reads <img src> whatever the tag case and quoting', async () => {
      const w = await world(makeDriver());
      const post = await makePost(w, 'LIVE', {
        content: `<IMG SRC='https://img.example.test/c.gif'><img class="x" src=https://img.example.test/d.png>`,
      });
      const got = (await w.anon.posts.get({ blogId: w.blogId, postId: post.id, fetchImages: true })) as Wire;
      expect(got.images).toEqual([
        { url: 'https://img.example.test/c.gif' },
        { url: 'https://img.example.test/d.png' },
      ]);
    });

    it('posts.insert / update / patch honour fetchBody and fetchImages', async () => {
      const w = await world(makeDriver());
      const content = '<p><img src="https://img.example.test/x.png"></p>';
      const ins = (await w.author.posts.insert({
        blogId: w.blogId,
        body: { title: 't', content },
        fetchBody: false,
      })) as Wire;
      expect('content' in ins).toBe(false);
      const upd = (await w.author.posts.update({
        blogId: w.blogId,
        postId: ins.id,
        body: { title: 't2', content },
        fetchImages: true,
      })) as Wire;
      expect(upd.images).toEqual([{ url: 'https://img.example.test/x.png' }]);
      expect(upd.content).toBe(content);
      const pat = (await w.author.posts.patch({
        blogId: w.blogId,
        postId: ins.id,
        body: { title: 't3' },
        fetchBody: false,
      })) as Wire;
      expect('content' in pat).toBe(false);
      expect(pat.title).toBe('t3');
    });

    it('posts.list: blogger#postList with etag, newest published first, fetchBodies, fetchImages, maxComments', async () => {
      const w = await world(makeDriver());
      const a = await makePost(w, 'LIVE', { content: '<img src="https://i.test/1.png">' });
      w.clock.advance(60_000);
      const b = await makePost(w, 'LIVE');
      await makePost(w, 'DRAFT');
      const c1 = await makeComment(w, a.id, 'LIVE', 'one');
      const list = (await w.anon.posts.list({ blogId: w.blogId })) as Wire;
      expect(list.kind).toBe('blogger#postList');
      expect(typeof list.etag).toBe('string');
      expect(ids(list)).toEqual([b.id, a.id]);
      expect(list.nextPageToken ?? undefined).toBeUndefined();
      expect(list.prevPageToken ?? undefined).toBeUndefined();
      expect(list.items[0].kind).toBe('blogger#post');
      expect(typeof list.items[1].content).toBe('string');
      const noBodies = (await w.anon.posts.list({ blogId: w.blogId, fetchBodies: false })) as Wire;
      expect(noBodies.items.every((p: Wire) => !('content' in p))).toBe(true);
      const imgs = (await w.anon.posts.list({ blogId: w.blogId, fetchImages: true })) as Wire;
      expect(imgs.items[1].images).toEqual([{ url: 'https://i.test/1.png' }]);
      const comments = (await w.anon.posts.list({ blogId: w.blogId, maxComments: 5 })) as Wire;
      expect(comments.items[1].replies.items.map((c: Wire) => c.id)).toEqual([c1.id]);
      expect(comments.items[1].replies.totalItems).toBe('1');
    });

    it('posts.search: finds by words and returns a postList', async () => {
      const w = await world(makeDriver());
      const a = await makePost(w, 'LIVE', { title: 'Gardening tips', content: '<p>Tomatoes love sun</p>' });
      await makePost(w, 'LIVE', { title: 'Cooking', content: '<p>Pasta</p>' });
      const res = (await w.anon.posts.search({ blogId: w.blogId, q: 'tomatoes' })) as Wire;
      expect(res.kind).toBe('blogger#postList');
      expect(ids(res)).toEqual([a.id]);
      const noBody = (await w.anon.posts.search({ blogId: w.blogId, q: 'tomatoes', fetchBodies: false })) as Wire;
      expect('content' in noBody.items[0]).toBe(false);
    });

    it('posts.getByPath finds the LIVE post by its url path', async () => {
      const w = await world(makeDriver());
      const p = await makePost(w, 'LIVE', { title: 'Find Me By Path' });
      const found = (await w.anon.posts.getByPath({ blogId: w.blogId, path: pathOf(p.url) })) as Wire;
      expect(found.id).toBe(p.id);
      expect(found.kind).toBe('blogger#post');
      const c = await makeComment(w, p.id, 'LIVE');
      const withComments = (await w.anon.posts.getByPath({
        blogId: w.blogId,
        path: pathOf(p.url),
        maxComments: 1,
      })) as Wire;
      expect(withComments.replies.items.map((x: Wire) => x.id)).toEqual([c.id]);
      await expectError(
        w.anon.posts.getByPath({ blogId: w.blogId, path: '/2026/03/nothing-here.html' }),
        404,
        'notFound',
      );
    });

    it('posts.getByPath takes a date (RFC 3339) to disambiguate, and still finds the one post on that path', async () => {
      const w = await world(makeDriver());
      const p = await makePost(w, 'LIVE', { title: 'Dated Path' });
      const found = (await w.anon.posts.getByPath({
        blogId: w.blogId,
        path: pathOf(p.url),
        date: p.published,
      })) as Wire;
      expect(found.id).toBe(p.id);
      await expectError(
        () => w.anon.posts.getByPath({ blogId: w.blogId, path: pathOf(p.url), date: 'last week' }),
        400,
        'invalid',
        'date',
      );
    });

    it('posts.update replaces the whole post; posts.patch changes only the given fields', async () => {
      const w = await world(makeDriver());
      const p = await makePost(w, 'LIVE', { title: 'Orig', content: 'orig content', labels: ['a', 'b'] });
      w.clock.advance(5000);
      const patched = (await w.author.posts.patch({
        blogId: w.blogId,
        postId: p.id,
        body: { title: 'Patched' },
      })) as Wire;
      expect(patched.title).toBe('Patched');
      expect(patched.content).toBe('orig content');
      expect(patched.labels).toEqual(['a', 'b']);
      expect(patched.updated).toBe(iso(T0 + 5000));
      expect(patched.published).toBe(p.published);
      expect(patched.etag).not.toBe(p.etag);
      w.clock.advance(5000);
      const replaced = (await w.author.posts.update({
        blogId: w.blogId,
        postId: p.id,
        body: { title: 'Replaced', content: 'new' },
      })) as Wire;
      expect(replaced.title).toBe('Replaced');
      expect(replaced.content).toBe('new');
      expect(replaced.labels ?? []).toEqual([]);
      expect(replaced.updated).toBe(iso(T0 + 10_000));
      expect(replaced.etag).not.toBe(patched.etag);
      // The url is kept for good, although the title changed.
      expect(replaced.url).toBe(p.url);
      const again = await getPost(w, p.id);
      expect(again.title).toBe('Replaced');
      expect(again.etag).toBe(replaced.etag);
    });

    it('posts.delete resolves to undefined; posts.publish and posts.revert return the post', async () => {
      const w = await world(makeDriver());
      const p = await makePost(w, 'DRAFT');
      const pub = (await w.author.posts.publish({ blogId: w.blogId, postId: p.id })) as Wire;
      expect(pub.kind).toBe('blogger#post');
      expect(pub.status).toBe('LIVE');
      const rev = (await w.author.posts.revert({ blogId: w.blogId, postId: p.id })) as Wire;
      expect(rev.kind).toBe('blogger#post');
      expect(rev.status).toBe('DRAFT');
      expect(await w.author.posts.delete({ blogId: w.blogId, postId: p.id })).toBeUndefined();
      await expectError(w.service.posts.get({ blogId: w.blogId, postId: p.id }), 404, 'notFound');
    });

    it('ifMatch: the current etag and "*" match; an old etag is 412', async () => {
      const w = await world(makeDriver());
      const made = await makePost(w, 'LIVE');
      const p = (await w.author.posts.get({ blogId: w.blogId, postId: made.id })) as Wire;
      const a = (await w.author.posts.patch({
        blogId: w.blogId,
        postId: p.id,
        body: { title: 'x1' },
        ifMatch: p.etag,
      })) as Wire;
      await expectError(
        w.author.posts.patch({ blogId: w.blogId, postId: p.id, body: { title: 'x2' }, ifMatch: p.etag }),
        412,
        'conditionNotMet',
      );
      const b = (await w.author.posts.patch({
        blogId: w.blogId,
        postId: p.id,
        body: { title: 'x3' },
        ifMatch: '*',
      })) as Wire;
      expect(b.title).toBe('x3');
      await expectError(
        w.author.posts.delete({ blogId: w.blogId, postId: p.id, ifMatch: a.etag }),
        412,
        'conditionNotMet',
      );
      await expectError(
        w.author.posts.revert({ blogId: w.blogId, postId: p.id, ifMatch: a.etag }),
        412,
        'conditionNotMet',
      );
      await expectError(
        w.author.posts.update({ blogId: w.blogId, postId: p.id, body: { title: 'y' }, ifMatch: a.etag }),
        412,
        'conditionNotMet',
      );
      const r = (await w.author.posts.revert({ blogId: w.blogId, postId: p.id, ifMatch: b.etag })) as Wire;
      await expectError(
        w.author.posts.publish({ blogId: w.blogId, postId: p.id, ifMatch: b.etag }),
        412,
        'conditionNotMet',
      );
      await w.author.posts.publish({ blogId: w.blogId, postId: p.id, ifMatch: r.etag });
    });
  });

  describe('concurrent writes (compare-and-set, docs/design.md §3)', () => {
    it('two writes racing with the same ifMatch: exactly one wins, the other is 412, no lost update', async () => {
      const w = await world(makeDriver());
      const made = await makePost(w, 'LIVE');
      const p = (await w.author.posts.get({ blogId: w.blogId, postId: made.id })) as Wire;
      const results = await Promise.allSettled([
        w.author.posts.patch({ blogId: w.blogId, postId: p.id, body: { title: 'first' }, ifMatch: p.etag }),
        w.author.posts.patch({ blogId: w.blogId, postId: p.id, body: { title: 'second' }, ifMatch: p.etag }),
      ]);
      const won = results.filter((r) => r.status === 'fulfilled') as PromiseFulfilledResult<Wire>[];
      const lost = results.filter((r) => r.status === 'rejected') as PromiseRejectedResult[];
      expect(won).toHaveLength(1);
      expect(lost).toHaveLength(1);
      expect(BlogError.is(lost[0]!.reason)).toBe(true);
      expect((lost[0]!.reason as BlogError).code).toBe(412);
      expect((await getPost(w, p.id)).title).toBe(won[0]!.value.title);
    });

    it('concurrent patches without ifMatch all apply, each on top of the other', async () => {
      const w = await world(makeDriver());
      const p = await makePost(w, 'LIVE', { title: 'base', content: 'base' });
      await Promise.all([
        w.author.posts.patch({ blogId: w.blogId, postId: p.id, body: { title: 'new title' } }),
        w.author.posts.patch({ blogId: w.blogId, postId: p.id, body: { content: 'new content' } }),
        w.author.posts.patch({ blogId: w.blogId, postId: p.id, body: { labels: ['new'] } }),
      ]);
      const after = await getPost(w, p.id);
      expect(after.title).toBe('new title');
      expect(after.content).toBe('new content');
      expect(after.labels).toEqual(['new']);
    });

    it('concurrent inserts with one title get distinct urls', async () => {
      const w = await world(makeDriver());
      const posts = (await Promise.all(
        [1, 2, 3, 4].map(() => w.author.posts.insert({ blogId: w.blogId, body: { title: 'Race', content: 'x' } })),
      )) as Wire[];
      expect(posts.map((p) => p.url).sort()).toEqual(
        ['race', 'race_2', 'race_3', 'race_4'].map((s) => `${BLOG_URL}2026/03/${s}.html`),
      );
      const pages = (await Promise.all(
        [1, 2].map(() => w.admin.pages.insert({ blogId: w.blogId, body: { title: 'Race', content: 'x' } })),
      )) as Wire[];
      expect(pages.map((p) => p.url).sort()).toEqual([`${BLOG_URL}p/race.html`, `${BLOG_URL}p/race_2.html`]);
    });
  });

  describe('pages', () => {
    it('pages.insert / get: wire shape, url /p/slug.html with _2 on collision', async () => {
      const w = await world(makeDriver());
      const page = (await w.admin.pages.insert({
        blogId: w.blogId,
        body: { title: 'About Me', content: '<p>me</p>' },
      })) as Wire;
      expect(page.kind).toBe('blogger#page');
      expect(typeof page.id).toBe('string');
      expect(page.blog).toEqual({ id: w.blogId });
      expect(page.title).toBe('About Me');
      expect(page.content).toBe('<p>me</p>');
      expect(page.url).toBe(`${BLOG_URL}p/about-me.html`);
      expect(page.selfLink).toBe(`${API}/v3/blogs/${w.blogId}/pages/${page.id}`);
      expect(page.published).toBe(iso(T0));
      expect(page.updated).toMatch(RFC3339_MS);
      expect(page.author.id).toBe(USERS.admin.id);
      expect(typeof page.etag).toBe('string');
      expect(page.status).toBe('LIVE');
      const second = (await w.admin.pages.insert({
        blogId: w.blogId,
        body: { title: 'About Me', content: 'x' },
      })) as Wire;
      expect(second.url).toBe(`${BLOG_URL}p/about-me_2.html`);
      const got = (await w.anon.pages.get({ blogId: w.blogId, pageId: page.id })) as Wire;
      expect(got.id).toBe(page.id);
      expect(got.content).toBe('<p>me</p>');
      expect(got.status).toBeUndefined();
      await expectError(w.anon.pages.get({ blogId: w.blogId, pageId: 'nope' }), 404, 'notFound');
    });

    it('pages.list: blogger#pageList, newest published first, fetchBodies, status', async () => {
      const w = await world(makeDriver());
      const a = await makePage(w, 'LIVE');
      w.clock.advance(1000);
      const b = await makePage(w, 'LIVE');
      const d = await makePage(w, 'DRAFT');
      const list = (await w.anon.pages.list({ blogId: w.blogId })) as Wire;
      expect(list.kind).toBe('blogger#pageList');
      expect(typeof list.etag).toBe('string');
      expect(ids(list)).toEqual([b.id, a.id]);
      const nb = (await w.anon.pages.list({ blogId: w.blogId, fetchBodies: false })) as Wire;
      expect(nb.items.every((p: Wire) => !('content' in p))).toBe(true);
      const drafts = (await w.author.pages.list({ blogId: w.blogId, status: 'DRAFT' })) as Wire;
      expect(ids(drafts)).toEqual([d.id]);
      const paged = (await w.anon.pages.list({ blogId: w.blogId, maxResults: 1 })) as Wire;
      expect(ids(paged)).toEqual([b.id]);
      const next = (await w.anon.pages.list({
        blogId: w.blogId,
        maxResults: 1,
        pageToken: paged.nextPageToken,
      })) as Wire;
      expect(ids(next)).toEqual([a.id]);
      expect(next.nextPageToken ?? undefined).toBeUndefined();
    });

    it('pages.update / patch / publish / revert / delete', async () => {
      const w = await world(makeDriver());
      const p = await makePage(w, 'DRAFT', { title: 'Contact', content: 'c' });
      expect(p.url ?? undefined).toBeUndefined();
      const patched = (await w.admin.pages.patch({ blogId: w.blogId, pageId: p.id, body: { content: 'c2' } })) as Wire;
      expect(patched.title).toBe('Contact');
      expect(patched.content).toBe('c2');
      expect(patched.etag).not.toBe(p.etag);
      const replaced = (await w.admin.pages.update({
        blogId: w.blogId,
        pageId: p.id,
        body: { title: 'Contact Us' },
      })) as Wire;
      expect(replaced.title).toBe('Contact Us');
      expect(replaced.content ?? '').toBe('');
      const pub = (await w.admin.pages.publish({ blogId: w.blogId, pageId: p.id })) as Wire;
      expect(pub.status).toBe('LIVE');
      expect(pub.url).toBe(`${BLOG_URL}p/contact-us.html`);
      const rev = (await w.admin.pages.revert({ blogId: w.blogId, pageId: p.id })) as Wire;
      expect(rev.status).toBe('DRAFT');
      expect(rev.url).toBe(pub.url);
      expect(await w.admin.pages.delete({ blogId: w.blogId, pageId: p.id })).toBeUndefined();
      await expectError(w.service.pages.get({ blogId: w.blogId, pageId: p.id }), 404, 'notFound');
    });

    it('pages honour ifMatch', async () => {
      const w = await world(makeDriver());
      const p = await makePage(w, 'LIVE');
      const q = (await w.admin.pages.patch({
        blogId: w.blogId,
        pageId: p.id,
        body: { title: 'n' },
        ifMatch: p.etag,
      })) as Wire;
      await expectError(
        w.admin.pages.patch({ blogId: w.blogId, pageId: p.id, body: { title: 'm' }, ifMatch: p.etag }),
        412,
        'conditionNotMet',
      );
      await expectError(
        w.admin.pages.revert({ blogId: w.blogId, pageId: p.id, ifMatch: p.etag }),
        412,
        'conditionNotMet',
      );
      await expectError(
        w.admin.pages.delete({ blogId: w.blogId, pageId: p.id, ifMatch: p.etag }),
        412,
        'conditionNotMet',
      );
      await w.admin.pages.delete({ blogId: w.blogId, pageId: p.id, ifMatch: q.etag });
    });
  });

  describe('comments', () => {
    it('comments.insert / get: wire shape, author, inReplyTo', async () => {
      const w = await world(makeDriver());
      const post = await makePost(w, 'LIVE');
      const c = (await w.author.comments.insert({
        blogId: w.blogId,
        postId: post.id,
        body: { content: 'Nice post' },
      })) as Wire;
      expect(c.kind).toBe('blogger#comment');
      expect(typeof c.id).toBe('string');
      expect(c.post).toEqual({ id: post.id });
      expect(c.blog).toEqual({ id: w.blogId });
      expect(c.content).toBe('Nice post');
      expect(c.published).toBe(iso(T0));
      expect(c.updated).toMatch(RFC3339_MS);
      expect(c.selfLink).toBe(`${API}/v3/blogs/${w.blogId}/posts/${post.id}/comments/${c.id}`);
      expect(c.author.id).toBe(USERS.author.id);
      expect(c.author.displayName).toBe(USERS.author.displayName);
      const reply = (await w.admin.comments.insert({
        blogId: w.blogId,
        postId: post.id,
        body: { content: 'Thanks', inReplyTo: { id: c.id } },
      })) as Wire;
      expect(reply.inReplyTo).toEqual({ id: c.id });
      const got = (await w.anon.comments.get({ blogId: w.blogId, postId: post.id, commentId: c.id })) as Wire;
      expect(got.id).toBe(c.id);
      expect(got.content).toBe('Nice post');
      expect(got.status).toBeUndefined();
      const admin = (await w.admin.comments.get({ blogId: w.blogId, postId: post.id, commentId: c.id })) as Wire;
      expect(admin.status).toBe('LIVE');
      await expectError(w.anon.comments.get({ blogId: w.blogId, postId: post.id, commentId: 'nope' }), 404, 'notFound');
      expect((await getPost(w, post.id)).replies.totalItems).toBe('2');
    });

    it('an anonymous comment keeps body.author (default "Anonymous"); a signed-in one is its user', async () => {
      const w = await world(makeDriver());
      const post = await makePost(w, 'LIVE');
      const named = (await w.anon.comments.insert({
        blogId: w.blogId,
        postId: post.id,
        body: { content: 'hi', author: { displayName: 'Zed', url: 'https://zed.example.test/' } },
      })) as Wire;
      expect(named.author.displayName).toBe('Zed');
      expect(named.author.url).toBe('https://zed.example.test/');
      const nameless = (await w.anon.comments.insert({
        blogId: w.blogId,
        postId: post.id,
        body: { content: 'hi' },
      })) as Wire;
      expect(nameless.author.displayName).toBe('Anonymous');
      const signed = (await w.reader.comments.insert({
        blogId: w.blogId,
        postId: post.id,
        body: { content: 'hi', author: { displayName: 'Impostor' } },
      })) as Wire;
      expect(signed.author.id).toBe(USERS.reader.id);
      expect(signed.author.displayName).toBe(USERS.reader.displayName);
    });

    it('inReplyTo must name a comment of the same post (400 invalid)', async () => {
      const w = await world(makeDriver());
      const p1 = await makePost(w, 'LIVE');
      const p2 = await makePost(w, 'LIVE');
      const c = await makeComment(w, p1.id, 'LIVE');
      await expectError(
        w.service.comments.insert({ blogId: w.blogId, postId: p2.id, body: { content: 'x', inReplyTo: { id: c.id } } }),
        400,
        'invalid',
      );
      await expectError(
        w.service.comments.insert({
          blogId: w.blogId,
          postId: p1.id,
          body: { content: 'x', inReplyTo: { id: 'nope' } },
        }),
        400,
        'invalid',
      );
    });

    it('comments.list: blogger#commentList of one post, oldest first, with paging and fetchBodies', async () => {
      const w = await world(makeDriver());
      const post = await makePost(w, 'LIVE');
      const other = await makePost(w, 'LIVE');
      const made: string[] = [];
      for (let i = 0; i < 5; i++) {
        made.push((await makeComment(w, post.id, 'LIVE', `c${i}`)).id);
        w.clock.advance(1000);
      }
      await makeComment(w, other.id, 'LIVE');
      const list = (await w.anon.comments.list({ blogId: w.blogId, postId: post.id })) as Wire;
      expect(list.kind).toBe('blogger#commentList');
      expect(typeof list.etag).toBe('string');
      expect(ids(list)).toEqual(made);
      const p1 = (await w.anon.comments.list({ blogId: w.blogId, postId: post.id, maxResults: 3 })) as Wire;
      expect(ids(p1)).toEqual(made.slice(0, 3));
      const p2 = (await w.anon.comments.list({
        blogId: w.blogId,
        postId: post.id,
        maxResults: 3,
        pageToken: p1.nextPageToken,
      })) as Wire;
      expect(ids(p2)).toEqual(made.slice(3));
      const nb = (await w.anon.comments.list({ blogId: w.blogId, postId: post.id, fetchBodies: false })) as Wire;
      expect(nb.items.every((c: Wire) => !('content' in c))).toBe(true);
    });

    it('comments.listByBlog: newest first across posts; post restricts to one post', async () => {
      const w = await world(makeDriver());
      const a = await makePost(w, 'LIVE');
      const b = await makePost(w, 'LIVE');
      const c1 = await makeComment(w, a.id, 'LIVE');
      w.clock.advance(1000);
      const c2 = await makeComment(w, b.id, 'LIVE');
      w.clock.advance(1000);
      const c3 = await makeComment(w, a.id, 'LIVE');
      const all = (await w.anon.comments.listByBlog({ blogId: w.blogId })) as Wire;
      expect(all.kind).toBe('blogger#commentList');
      expect(ids(all)).toEqual([c3.id, c2.id, c1.id]);
      expect(ids(await w.anon.comments.listByBlog({ blogId: w.blogId, post: a.id }))).toEqual([c3.id, c1.id]);
    });

    it('approve, markAsSpam, removeContent return the comment; delete resolves to undefined', async () => {
      const w = await world(makeDriver());
      const post = await makePost(w, 'LIVE');
      const pending = await makeComment(w, post.id, 'PENDING', 'moderate me');
      const k = { blogId: w.blogId, postId: post.id, commentId: pending.id };
      const approved = (await w.admin.comments.approve(k)) as Wire;
      expect(approved.kind).toBe('blogger#comment');
      expect(approved.status).toBe('LIVE');
      const spam = (await w.admin.comments.markAsSpam(k)) as Wire;
      expect(spam.status).toBe('SPAM');
      const emptied = (await w.admin.comments.removeContent(k)) as Wire;
      expect(emptied.status).toBe('EMPTIED');
      expect(emptied.content).toBe('');
      expect(emptied.author.displayName).toBe('Anonymous');
      expect(await w.admin.comments.delete(k)).toBeUndefined();
      await expectError(w.service.comments.get(k), 404, 'notFound');
    });
  });

  describe('service lifecycle', () => {
    it('ready() opens the driver once, close() closes it', async () => {
      const inner = makeDriver();
      let opened = 0;
      let closed = 0;
      // A forwarding driver that counts open/close; every call reaches the real memory driver.
      const driver: Driver = {
        open: (schema) => {
          opened++;
          return inner.open(schema);
        },
        get: (c, id) => inner.get(c, id),
        getMany: (c, idList) => inner.getMany(c, idList),
        getByIndex: (c, i, k) => inner.getByIndex(c, i, k),
        list: (q) => inner.list(q),
        count: (q) => inner.count(q),
        keys: (q) => inner.keys(q),
        search: (q) => inner.search(q),
        commit: (ops, o) => inner.commit(ops, o),
        changesSince: (s, l) => inner.changesSince(s, l),
        streamChanges: (s, a, l) => inner.streamChanges(s, a, l),
        logBounds: () => inner.logBounds(),
        pruneChanges: (q) => inner.pruneChanges(q),
        blobs: inner.blobs,
        close: () => {
          closed++;
          return inner.close();
        },
      };
      const clock = makeClock();
      const service = createBlogService({ driver, now: () => new Date(clock.ms), apiBaseUrl: API });
      await service.ready();
      expect(opened).toBe(1);
      const u = (await service.users.insert({ body: { displayName: 'x' } })) as Wire;
      expect(u.kind).toBe('blogger#user');
      await service.close();
      expect(closed).toBe(1);
    });

    it('on(type) delivers only that type; on returns an unsubscribe function', async () => {
      const w = await world(makeDriver());
      const seen: Wire[] = [];
      const off = w.service.on('post.inserted', (e: unknown) => {
        seen.push(e as Wire);
      });
      const p = await makePost(w, 'DRAFT');
      await settle();
      expect(seen.map((e) => e.type)).toEqual(['post.inserted']);
      expect(seen[0]!.id).toBe(p.id);
      off();
      await makePost(w, 'DRAFT');
      await settle();
      expect(seen).toHaveLength(1);
    });

    it('the scoped service from as() answers the same methods', async () => {
      const w = await world(makeDriver());
      for (const s of [w.anon, w.reader, w.author, w.admin]) {
        for (const ns of ['blogs', 'posts', 'pages', 'comments', 'users', 'members'] as const) {
          expect(typeof (s as Wire)[ns]).toBe('object');
        }
        expect(typeof s.posts.search).toBe('function');
        expect(typeof s.comments.insert).toBe('function');
      }
    });

    it('apiBaseUrl prefixes selfLinks', async () => {
      const clock = makeClock();
      const service = createBlogService({
        driver: makeDriver(),
        now: () => new Date(clock.ms),
        apiBaseUrl: 'https://other.test/api',
      });
      await service.ready();
      const u = (await service.users.insert({ body: { id: 'u1', displayName: 'U' } })) as Wire;
      expect(u.selfLink).toBe('https://other.test/api/v3/users/u1');
    });

    it('now() controls every timestamp', async () => {
      const w = await world(makeDriver());
      w.clock.set(Date.parse('2027-01-02T03:04:05.678Z'));
      const p = await makePost(w, 'LIVE', { title: 'Time Travel' });
      expect(p.published).toBe('2027-01-02T03:04:05.678Z');
      expect(p.updated).toBe('2027-01-02T03:04:05.678Z');
      expect(p.url).toBe(`${BLOG_URL}2027/01/time-travel.html`);
    });
  });
});
