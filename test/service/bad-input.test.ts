/**
 * Bad input (docs/design.md §9): every refused request is a BlogError with the right code, reason and location,
 * and changes nothing — the driver's change log does not grow and every read is the same afterwards.
 */
import { describe, expect, it } from 'vitest';
import { BlogError } from '../../src/index.js';
import {
  catchError,
  changeCount,
  expectError,
  expectNoWrite,
  getPost,
  ids,
  makeComment,
  makePage,
  makePost,
  world,
  type Call,
  type Wire,
  type World,
} from './helpers.js';
import { DRIVERS } from '../support/drivers.js';

interface Fixture {
  w: World;
  live: Wire;
  draft: Wire;
  page: Wire;
  comment: Wire;
  token: string;
}

describe.each(DRIVERS)('%s', (_driver, makeDriver) => {
  async function fixture(): Promise<Fixture> {
    const w = await world(makeDriver());
    const live = await makePost(w, 'LIVE', { labels: ['a'] });
    for (let i = 0; i < 3; i++) await makePost(w, 'LIVE');
    const draft = await makePost(w, 'DRAFT');
    const page = await makePage(w, 'LIVE');
    const comment = await makeComment(w, live.id, 'LIVE');
    const token = ((await w.author.posts.list({ blogId: w.blogId, maxResults: 2 })) as Wire).nextPageToken as string;
    expect(token).toBeTruthy();
    return { w, live, draft, page, comment, token };
  }

  /** Each call must be refused with 400 `invalid` at `location`, writing nothing. */
  async function invalidAt(f: Fixture, location: string, calls: Array<() => Promise<unknown>>): Promise<void> {
    await expectNoWrite(f.w, async () => {
      // Check every call before failing, so one wrong location does not hide the others.
      const wrong: string[] = [];
      for (const [i, call] of calls.entries()) {
        const e = await expectError(call, 400, 'invalid');
        if (e.location !== location) wrong.push(`call #${i}: location ${String(e.location)}`);
      }
      expect(wrong, `every error should name the parameter ${location}`).toEqual([]);
    });
  }

  describe('unknown enum values → 400 invalid', () => {
    it('status', async () => {
      const f = await fixture();
      const { w } = f;
      const b = w.blogId;
      await invalidAt(f, 'status', [
        () => w.author.posts.list({ blogId: b, status: 'PUBLISHED' as any }),
        () => w.author.posts.list({ blogId: b, status: ['LIVE', 'NOPE'] as any }),
        () => w.author.posts.search({ blogId: b, q: 'body', status: 'EVERYTHING' as any }),
        // SCHEDULED is a post status, not a page status; DRAFT is not a comment status.
        () => w.author.pages.list({ blogId: b, status: 'SCHEDULED' as any }),
        () => w.admin.comments.list({ blogId: b, postId: f.live.id, status: 'DRAFT' as any }),
        () => w.admin.comments.listByBlog({ blogId: b, status: 'HIDDEN' as any }),
        () => w.admin.blogs.listByUser({ userId: 'self', status: 'ARCHIVED' as any }),
      ]);
    });

    it('orderBy, sortOption, view, role', async () => {
      const f = await fixture();
      const { w } = f;
      const b = w.blogId;
      await invalidAt(f, 'orderBy', [
        () => w.anon.posts.list({ blogId: b, orderBy: 'TITLE' as any }),
        () => w.anon.posts.search({ blogId: b, q: 'x', orderBy: 'RANDOM' as any }),
      ]);
      await invalidAt(f, 'sortOption', [() => w.anon.posts.list({ blogId: b, sortOption: 'SIDEWAYS' as any })]);
      await invalidAt(f, 'view', [
        () => w.admin.posts.get({ blogId: b, postId: f.live.id, view: 'OWNER' as any }),
        () => w.admin.blogs.get({ blogId: b, view: 'SUPERUSER' as any }),
        () => w.admin.pages.list({ blogId: b, view: 'GOD' as any }),
        () => w.admin.comments.get({ blogId: b, postId: f.live.id, commentId: f.comment.id, view: 'x' as any }),
      ]);
      await invalidAt(f, 'role', [
        () => w.admin.blogs.listByUser({ userId: 'self', role: 'OWNER' as any }),
        () => w.admin.members.set({ blogId: b, userId: 'outsider', role: 'OWNER' as any }),
      ]);
    });

    it('readerComments in a body', async () => {
      const f = await fixture();
      await expectNoWrite(f.w, async () => {
        await expectError(
          () =>
            f.w.author.posts.insert({
              blogId: f.w.blogId,
              body: { title: 't', content: 'c', readerComments: 'SOMETIMES' as any },
            }),
          400,
          'invalid',
        );
        await expectError(
          () =>
            f.w.author.posts.patch({ blogId: f.w.blogId, postId: f.live.id, body: { readerComments: 'NEVER' as any } }),
          400,
          'invalid',
        );
      });
    });
  });

  describe('numbers out of range → 400 invalid', () => {
    it('maxResults 0, 501, "abc", -1, 1.5', async () => {
      const f = await fixture();
      const { w } = f;
      const b = w.blogId;
      const bad: unknown[] = [0, 501, 'abc', -1, 1.5];
      await invalidAt(
        f,
        'maxResults',
        bad.flatMap((n) => [
          () => w.anon.posts.list({ blogId: b, maxResults: n as any }),
          () => w.anon.posts.search({ blogId: b, q: 'body', maxResults: n as any }),
          () => w.anon.pages.list({ blogId: b, maxResults: n as any }),
          () => w.anon.comments.list({ blogId: b, postId: f.live.id, maxResults: n as any }),
          () => w.anon.comments.listByBlog({ blogId: b, maxResults: n as any }),
        ]),
      );
      // The bounds themselves are fine.
      expect(((await w.anon.posts.list({ blogId: b, maxResults: 1 })) as Wire).items).toHaveLength(1);
      expect(((await w.anon.posts.list({ blogId: b, maxResults: 500 })) as Wire).items).toHaveLength(4);
    });

    it('maxComments and maxPosts above 500 or negative', async () => {
      const f = await fixture();
      const { w } = f;
      const b = w.blogId;
      await invalidAt(f, 'maxComments', [
        () => w.anon.posts.get({ blogId: b, postId: f.live.id, maxComments: 501 }),
        () => w.anon.posts.get({ blogId: b, postId: f.live.id, maxComments: -1 }),
        () => w.anon.posts.list({ blogId: b, maxComments: 'many' as any }),
      ]);
      await invalidAt(f, 'maxPosts', [
        () => w.anon.blogs.get({ blogId: b, maxPosts: 501 }),
        () => w.anon.blogs.getByUrl({ url: 'https://blog.example.test/', maxPosts: -2 }),
      ]);
      expect(((await w.anon.posts.get({ blogId: b, postId: f.live.id, maxComments: 0 })) as Wire).id).toBe(f.live.id);
      expect(((await w.anon.blogs.get({ blogId: b, maxPosts: 500 })) as Wire).posts.items).toHaveLength(4);
    });

    it('booleans must be booleans', async () => {
      const f = await fixture();
      const { w } = f;
      await expectNoWrite(w, async () => {
        const e = await catchError(() =>
          w.anon.posts.get({ blogId: w.blogId, postId: f.live.id, fetchBody: 'yes' as any }),
        );
        expect(e.code).toBe(400);
        const d = await catchError(() =>
          w.author.posts.insert({ blogId: w.blogId, body: { title: 't', content: 'c' }, isDraft: 'no' as any }),
        );
        expect(d.code).toBe(400);
      });
    });
  });

  describe('dates → 400 invalid', () => {
    it('startDate / endDate / publishDate / body published that are not RFC 3339 timestamps', async () => {
      const f = await fixture();
      const { w } = f;
      const b = w.blogId;
      const bad = [
        'yesterday',
        '2026-13-01T00:00:00Z',
        '2026-03-15T25:00:00Z',
        '2026-03-15T10:00:00',
        '1710000000',
        '2026-03-15 10:00',
      ];
      await invalidAt(
        f,
        'startDate',
        bad.map((d) => () => w.anon.posts.list({ blogId: b, startDate: d })),
      );
      await invalidAt(
        f,
        'endDate',
        bad.map((d) => () => w.anon.comments.listByBlog({ blogId: b, endDate: d })),
      );
      await invalidAt(
        f,
        'publishDate',
        bad.map((d) => () => w.author.posts.publish({ blogId: b, postId: f.draft.id, publishDate: d })),
      );
      await expectNoWrite(w, async () => {
        for (const d of bad) {
          await expectError(
            () => w.author.posts.insert({ blogId: b, body: { title: 't', content: 'c', published: d } }),
            400,
            'invalid',
          );
        }
      });
    });
  });

  describe('impossible calendar dates → 400 invalid', () => {
    it('2026-02-30 is not a date (RFC 3339 §5.7), wherever a timestamp is taken', async () => {
      const f = await fixture();
      const { w } = f;
      const b = w.blogId;
      const d = '2026-02-30T00:00:00Z';
      await invalidAt(f, 'startDate', [() => w.anon.posts.list({ blogId: b, startDate: d })]);
      await invalidAt(f, 'endDate', [() => w.anon.comments.listByBlog({ blogId: b, endDate: d })]);
      await invalidAt(f, 'publishDate', [
        () => w.author.posts.publish({ blogId: b, postId: f.draft.id, publishDate: d }),
      ]);
      await expectNoWrite(w, () =>
        expectError(
          () => w.author.posts.insert({ blogId: b, body: { title: 't', content: 'c', published: d } }),
          400,
          'invalid',
        ),
      );
    });
  });

  describe('page tokens → 400 invalid (pageToken)', () => {
    it('forged, truncated, tampered and foreign tokens', async () => {
      const f = await fixture();
      const { w, token } = f;
      const b = w.blogId;
      const mid = Math.floor(token.length / 2);
      const flip = (s: string, i: number) => s.slice(0, i) + (s[i] === 'A' ? 'B' : 'A') + s.slice(i + 1);
      const forged = [
        'garbage',
        'eyJ0IjoxfQ',
        token.slice(0, -4),
        token.slice(0, mid),
        `${token}x`,
        // (Tokens are not signed: a flip inside an id can spell another well-formed id, which pages from there.
        // What must fail is a token that is not one: here a character no token has.)
        `${token.slice(0, mid)}*${token.slice(mid + 1)}`,
        flip(token, token.length - 1),
        flip(token, 0),
      ];
      await invalidAt(
        f,
        'pageToken',
        forged.map((t) => () => w.author.posts.list({ blogId: b, maxResults: 2, pageToken: t })),
      );
      // The real token still works.
      expect(((await w.author.posts.list({ blogId: b, maxResults: 2, pageToken: token })) as Wire).items).toHaveLength(
        2,
      );
    });
  });

  describe('unknown ids → 404 notFound', () => {
    it('posts, pages, comments, blogs, users', async () => {
      const f = await fixture();
      const { w } = f;
      const b = w.blogId;
      const nf = (p: Call) => expectError(p, 404, 'notFound');
      await expectNoWrite(w, async () => {
        await nf(() => w.service.posts.get({ blogId: b, postId: 'nope' }));
        await nf(() => w.service.posts.update({ blogId: b, postId: 'nope', body: { title: 't', content: 'c' } }));
        await nf(() => w.service.posts.patch({ blogId: b, postId: 'nope', body: { title: 't' } }));
        await nf(() => w.service.posts.delete({ blogId: b, postId: 'nope' }));
        await nf(() => w.service.posts.publish({ blogId: b, postId: 'nope' }));
        await nf(() => w.service.posts.revert({ blogId: b, postId: 'nope' }));
        await nf(() => w.service.posts.insert({ blogId: 'no-blog', body: { title: 't', content: 'c' } }));
        await nf(() => w.service.posts.list({ blogId: 'no-blog' }));
        await nf(() => w.service.pages.get({ blogId: b, pageId: 'nope' }));
        await nf(() => w.service.pages.update({ blogId: b, pageId: 'nope', body: { title: 't' } }));
        await nf(() => w.service.pages.patch({ blogId: b, pageId: 'nope', body: { title: 't' } }));
        await nf(() => w.service.pages.delete({ blogId: b, pageId: 'nope' }));
        await nf(() => w.service.pages.publish({ blogId: b, pageId: 'nope' }));
        await nf(() => w.service.pages.revert({ blogId: b, pageId: 'nope' }));
        await nf(() => w.service.comments.get({ blogId: b, postId: f.live.id, commentId: 'nope' }));
        await nf(() => w.service.comments.approve({ blogId: b, postId: f.live.id, commentId: 'nope' }));
        await nf(() => w.service.comments.markAsSpam({ blogId: b, postId: f.live.id, commentId: 'nope' }));
        await nf(() => w.service.comments.removeContent({ blogId: b, postId: f.live.id, commentId: 'nope' }));
        await nf(() => w.service.comments.delete({ blogId: b, postId: f.live.id, commentId: 'nope' }));
        await nf(() => w.service.comments.list({ blogId: b, postId: 'nope' }));
        await nf(() => w.service.comments.insert({ blogId: b, postId: 'nope', body: { content: 'x' } }));
        // A real comment addressed through another post is not found there.
        await nf(() => w.service.comments.get({ blogId: b, postId: f.draft.id, commentId: f.comment.id }));
        await nf(() => w.service.comments.approve({ blogId: b, postId: f.draft.id, commentId: f.comment.id }));
        await nf(() => w.service.blogs.get({ blogId: 'no-blog' }));
        await nf(() => w.service.users.get({ userId: 'no-user' }));
        await nf(() => w.service.members.set({ blogId: 'no-blog', userId: 'reader', role: 'READER' }));
        await nf(() => w.service.members.set({ blogId: b, userId: 'no-user', role: 'READER' }));
        // ownerId is not an address but a reference in the request: 400 or 404 are both honest answers.
        const owner = await catchError(() =>
          w.service.blogs.insert({ body: { name: 'n', url: 'https://new.example.test/' }, ownerId: 'no-user' }),
        );
        expect([400, 404]).toContain(owner.code);
      });
    });
  });

  describe('required parameters → 400 required', () => {
    it('q on search, path on getByPath, url on getByUrl, ids, body', async () => {
      const f = await fixture();
      const { w } = f;
      const b = w.blogId;
      await expectNoWrite(w, async () => {
        await expectError(() => w.anon.posts.search({ blogId: b } as any), 400, 'required', 'q');
        await expectError(() => w.anon.posts.getByPath({ blogId: b } as any), 400, 'required', 'path');
        await expectError(() => w.anon.blogs.getByUrl({} as any), 400, 'required', 'url');
        await expectError(() => w.anon.posts.get({ blogId: b } as any), 400, 'required', 'postId');
        await expectError(() => w.anon.posts.list({} as any), 400, 'required', 'blogId');
        await expectError(() => w.author.posts.insert({ blogId: b } as any), 400, 'required');
        await expectError(
          () => w.service.comments.approve({ blogId: b, postId: f.live.id } as any),
          400,
          'required',
          'commentId',
        );
      });
    });
  });

  describe('bodies with wrong types → 400, nothing written', () => {
    it('posts', async () => {
      const f = await fixture();
      const { w } = f;
      const b = w.blogId;
      const bodies: unknown[] = [
        null,
        'a string',
        [],
        42,
        { title: 42, content: 'c' },
        { title: 't', content: { html: 'c' } },
        { title: 't', content: 'c', labels: 'one' },
        { title: 't', content: 'c', labels: [1, 2] },
        { title: 't', content: 'c', published: 12345 },
        { title: ['t'], content: 'c' },
      ];
      await expectNoWrite(w, async () => {
        for (const body of bodies) {
          const e = await catchError(() => w.author.posts.insert({ blogId: b, body: body as any }));
          expect(e.code, JSON.stringify(body)).toBe(400);
          const p = await catchError(() => w.author.posts.patch({ blogId: b, postId: f.live.id, body: body as any }));
          expect(p.code, JSON.stringify(body)).toBe(400);
          const u = await catchError(() => w.author.posts.update({ blogId: b, postId: f.live.id, body: body as any }));
          expect(u.code, JSON.stringify(body)).toBe(400);
        }
      });
    });

    it('pages, comments, blogs, users, members', async () => {
      const f = await fixture();
      const { w } = f;
      const b = w.blogId;
      await expectNoWrite(w, async () => {
        const codes = [
          await catchError(() => w.admin.pages.insert({ blogId: b, body: { title: 1 } as any })),
          await catchError(() =>
            w.admin.pages.patch({ blogId: b, pageId: f.page.id, body: { content: false } as any }),
          ),
          await catchError(() =>
            w.service.comments.insert({ blogId: b, postId: f.live.id, body: { content: 5 } as any }),
          ),
          await catchError(() => w.service.comments.insert({ blogId: b, postId: f.live.id, body: {} as any })),
          await catchError(() =>
            w.service.comments.insert({ blogId: b, postId: f.live.id, body: { content: 'x', inReplyTo: 'id' } as any }),
          ),
          await catchError(() =>
            w.anon.comments.insert({
              blogId: b,
              postId: f.live.id,
              body: { content: 'x', author: { displayName: 7 } } as any,
            }),
          ),
          await catchError(() => w.service.blogs.insert({ body: { name: 'n', url: 'not a url' }, ownerId: 'admin' })),
          await catchError(() =>
            w.service.blogs.insert({ body: { name: 'n', url: 'ftp://files.example.test/' }, ownerId: 'admin' }),
          ),
          await catchError(() =>
            w.service.blogs.insert({ body: { name: 5, url: 'https://n.example.test/' } as any, ownerId: 'admin' }),
          ),
          await catchError(() => w.service.users.insert({ body: { displayName: 5 } as any })),
          await catchError(() => w.service.users.insert({ body: {} as any })),
          await catchError(() => w.service.members.set({ blogId: b, userId: 'outsider', role: 5 as any })),
        ].map((e) => e.code);
        expect(codes).toEqual(codes.map(() => 400));
      });
    });
  });

  describe('strings over the limits → 400 invalid, the limits themselves accepted', () => {
    it('post title, content, labels; comment content; page content', async () => {
      const f = await fixture();
      const { w } = f;
      const b = w.blogId;
      const x = (n: number) => 'x'.repeat(n);
      await expectNoWrite(w, async () => {
        const refused = [
          () => w.author.posts.insert({ blogId: b, body: { title: x(1001), content: 'c' } }),
          () => w.author.posts.insert({ blogId: b, body: { title: 't', content: x(1_000_001) } }),
          () => w.author.posts.insert({ blogId: b, body: { title: 't', content: 'c', labels: [x(201)] } }),
          () =>
            w.author.posts.insert({
              blogId: b,
              body: { title: 't', content: 'c', labels: Array.from({ length: 101 }, (_, i) => `l${i}`) },
            }),
          () => w.author.posts.patch({ blogId: b, postId: f.live.id, body: { title: x(1001) } }),
          () => w.admin.pages.insert({ blogId: b, body: { title: 't', content: x(1_000_001) } }),
          () => w.admin.pages.patch({ blogId: b, pageId: f.page.id, body: { title: x(1001) } }),
          () => w.service.comments.insert({ blogId: b, postId: f.live.id, body: { content: x(4097) } }),
          () =>
            w.anon.comments.insert({
              blogId: b,
              postId: f.live.id,
              body: { content: 'c', author: { displayName: x(201) } },
            }),
          () => w.service.blogs.insert({ body: { name: x(201), url: 'https://long.example.test/' }, ownerId: 'admin' }),
          () =>
            w.service.blogs.insert({
              body: { name: 'n', url: 'https://long.example.test/', description: x(2001) },
              ownerId: 'admin',
            }),
          () => w.service.users.insert({ body: { displayName: x(201) } }),
        ];
        for (const call of refused) await expectError(call, 400, 'invalid');
        await expectError(() => w.anon.posts.search({ blogId: b, q: x(1001) }), 400, 'invalid', 'q');
      });
      const atLimit = (await w.author.posts.insert({
        blogId: b,
        body: { title: x(1000), content: x(1_000_000), labels: Array.from({ length: 100 }, (_, i) => `${i}${x(190)}`) },
      })) as Wire;
      expect(atLimit.title).toHaveLength(1000);
      expect(atLimit.content).toHaveLength(1_000_000);
      expect(atLimit.labels).toHaveLength(100);
      const c = (await w.service.comments.insert({ blogId: b, postId: f.live.id, body: { content: x(4096) } })) as Wire;
      expect(c.content).toHaveLength(4096);
      expect(((await w.anon.posts.search({ blogId: b, q: 'y'.repeat(1000) })) as Wire).items ?? []).toEqual([]);
    });
  });

  describe('a query names at most 20 labels → 400 invalid (labels)', () => {
    it('21 labels, as a list or comma-joined, on list and search; 20 are fine', async () => {
      const f = await fixture();
      const { w } = f;
      const b = w.blogId;
      const twenty = ['a', ...Array.from({ length: 19 }, (_, i) => `other${i}`)];
      const twentyOne = [...twenty, 'one-more'];
      await invalidAt(f, 'labels', [
        () => w.anon.posts.list({ blogId: b, labels: twentyOne }),
        () => w.anon.posts.list({ blogId: b, labels: twentyOne.join(',') }),
        () => w.anon.posts.search({ blogId: b, q: 'body', labels: twentyOne }),
      ]);
      expect(ids(await w.anon.posts.list({ blogId: b, labels: twenty }))).toEqual([f.live.id]);
      // Repeats name one label: 30 copies of 'a' is one label.
      expect(ids(await w.anon.posts.list({ blogId: b, labels: Array(30).fill('a') }))).toEqual([f.live.id]);
    });
  });

  describe('links a page renders → 400 invalid unless an http(s) URL that parses', () => {
    const BAD_URLS = [
      'https://ok.example/" onmouseover="alert(1)',
      "https://ok.example/'onmouseover='alert(1)",
      'https://ok.example/<script>',
      'https://ok .example/',
      'javascript:alert(1)',
      'JavaScript:alert(1)',
      'data:text/html,<b>x</b>',
      'ftp://ok.example/',
      '//ok.example/',
      '/relative/path',
      'not a url',
      // Control characters a URL parser would keep (percent-encoded) or drop: refused, never stored as sent.
      'https://ok.example/a\u0000b',
      'https://ok.example/\u001b[31m',
      'https://ok.example/\u007f',
    ];

    it('post titleLink, comment author.url, user url', async () => {
      const f = await fixture();
      const { w } = f;
      const b = w.blogId;
      await invalidAt(
        f,
        'body.titleLink',
        BAD_URLS.flatMap((url) => [
          () => w.author.posts.insert({ blogId: b, body: { title: 't', content: 'c', titleLink: url } }),
          () => w.author.posts.patch({ blogId: b, postId: f.live.id, body: { titleLink: url } }),
          () =>
            w.author.posts.update({ blogId: b, postId: f.live.id, body: { title: 't', content: 'c', titleLink: url } }),
        ]),
      );
      await invalidAt(
        f,
        'body.author.url',
        BAD_URLS.map(
          (url) => () =>
            w.anon.comments.insert({
              blogId: b,
              postId: f.live.id,
              body: { content: 'hi', author: { displayName: 'V', url } },
            }),
        ),
      );
      await invalidAt(
        f,
        'body.url',
        BAD_URLS.map((url) => () => w.service.users.insert({ body: { displayName: 'U', url } })),
      );
    });

    it('http and https URLs are kept as given', async () => {
      const f = await fixture();
      const { w } = f;
      const link = 'https://ok.example/a?b=1&c=%22x%22#top';
      const p = (await w.author.posts.patch({
        blogId: w.blogId,
        postId: f.live.id,
        body: { titleLink: link },
      })) as Wire;
      expect(p.titleLink).toBe(link);
      const c = (await w.anon.comments.insert({
        blogId: w.blogId,
        postId: f.live.id,
        body: { content: 'hi', author: { displayName: 'V', url: 'http://visitor.example/' } },
      })) as Wire;
      expect(c.author.url).toBe('http://visitor.example/');
    });
  });

  describe('__proto__ and constructor keys', () => {
    it('JSON-parsed bodies and params cannot pollute prototypes or smuggle fields', async () => {
      const f = await fixture();
      const { w } = f;
      const b = w.blogId;
      const bodies = [
        `{"title":"proto","content":"c","__proto__":{"polluted":"yes","status":"DRAFT"}}`,
        `{"title":"ctor","content":"c","constructor":{"prototype":{"polluted":"yes"}}}`,
        `{"title":"nested","content":"c","labels":["a"],"author":{"__proto__":{"id":"admin"}}}`,
      ];
      for (const json of bodies) {
        const body = JSON.parse(json);
        const result = await Promise.resolve()
          .then(() => w.author.posts.insert({ blogId: b, body }))
          .then(
            (p) => p as Wire,
            (e: unknown) => {
              // Refusing is fine too, as long as it is a 400 that wrote nothing.
              expect(BlogError.is(e)).toBe(true);
              expect((e as BlogError).code).toBe(400);
              return undefined;
            },
          );
        if (result) {
          const stored = await getPost(w, result.id);
          for (const p of [result, stored]) {
            expect(p.status).toBe('LIVE');
            expect(p.polluted).toBeUndefined();
            expect(Object.keys(p)).not.toContain('__proto__');
            expect(Object.keys(p)).not.toContain('constructor');
            expect(p.author.id).toBe('author');
          }
        }
        expect(({} as Wire).polluted).toBeUndefined();
        expect((Object.prototype as Wire).status).toBeUndefined();
      }
      // Patching through __proto__ does not reach the stored status or the url.
      await Promise.resolve()
        .then(() =>
          w.author.posts.patch({
            blogId: b,
            postId: f.live.id,
            body: JSON.parse(`{"__proto__":{"status":"DRAFT","url":"https://evil.test/"}}`),
          }),
        )
        .catch((e: unknown) => expect((e as BlogError).code).toBe(400));
      const after = await getPost(w, f.live.id);
      expect(after.status).toBe('LIVE');
      expect(after.url).toBe(f.live.url);
      // A params object with a __proto__ key does not turn a public list into a draft list.
      const params = JSON.parse(`{"blogId":"${b}","__proto__":{"status":"DRAFT","view":"ADMIN"}}`);
      const list = await Promise.resolve()
        .then(() => w.anon.posts.list(params))
        .then(
          (l) => l as Wire,
          (e: unknown) => {
            expect((e as BlogError).code).toBe(400);
            return undefined;
          },
        );
      if (list) expect(list.items.map((p: Wire) => p.id)).not.toContain(f.draft.id);
      expect(({} as Wire).view).toBeUndefined();
    });
  });

  describe('read-only body fields are ignored', () => {
    it('on insert: id, kind, blog, status, url, selfLink, updated, replies, author, etag, trashed', async () => {
      const f = await fixture();
      const { w } = f;
      const other = (await w.service.blogs.insert({
        body: { name: 'Other', url: 'https://other.example.test/' },
        ownerId: 'author',
      })) as Wire;
      const p = (await w.author.posts.insert({
        blogId: w.blogId,
        body: {
          title: 'Honest Title',
          content: 'c',
          id: 'forged-id',
          kind: 'blogger#comment',
          blog: { id: other.id },
          status: 'DRAFT',
          url: 'https://evil.example.test/x.html',
          selfLink: 'https://evil.example.test/self',
          updated: '2001-01-01T00:00:00.000Z',
          replies: { totalItems: '99', selfLink: 'x' },
          author: { id: 'admin', displayName: 'Not Me' },
          etag: '"forged"',
          trashed: '2001-01-01T00:00:00.000Z',
        } as any,
      })) as Wire;
      expect(p.id).not.toBe('forged-id');
      expect(p.kind).toBe('blogger#post');
      expect(p.blog).toEqual({ id: w.blogId });
      expect(p.status).toBe('LIVE');
      expect(p.url).toBe('https://blog.example.test/2026/03/honest-title.html');
      expect(p.selfLink).toBe(`https://api.example.test/v3/blogs/${w.blogId}/posts/${p.id}`);
      expect(p.updated).toBe(w.clock.iso());
      expect(p.replies.totalItems).toBe('0');
      expect(p.author).toMatchObject({ id: 'author', displayName: 'Arthur Author' });
      expect(p.etag).not.toBe('"forged"');
      expect(p.trashed ?? undefined).toBeUndefined();
      await expectError(() => w.service.posts.get({ blogId: w.blogId, postId: 'forged-id' }), 404, 'notFound');
      expect(((await w.service.posts.list({ blogId: other.id })) as Wire).items ?? []).toEqual([]);
    });

    it('on patch and update of a LIVE post and a page, and on comments', async () => {
      const f = await fixture();
      const { w } = f;
      const forged = {
        id: 'forged',
        kind: 'x',
        status: 'SOFT_TRASHED',
        url: 'https://evil.example.test/',
        selfLink: 'https://evil.example.test/',
        updated: '2001-01-01T00:00:00.000Z',
        replies: { totalItems: '99' },
        author: { id: 'admin' },
        etag: '"forged"',
        trashed: '2001-01-01T00:00:00.000Z',
      };
      for (const call of [
        () =>
          w.author.posts.patch({ blogId: w.blogId, postId: f.live.id, body: { title: 'Patched', ...forged } as any }),
        () =>
          w.author.posts.update({
            blogId: w.blogId,
            postId: f.live.id,
            body: { title: 'Updated', content: 'c', ...forged } as any,
          }),
      ]) {
        const p = (await call()) as Wire;
        expect(p.id).toBe(f.live.id);
        expect(p.kind).toBe('blogger#post');
        expect(p.status).toBe('LIVE');
        expect(p.url).toBe(f.live.url);
        expect(p.updated).toBe(w.clock.iso());
        expect(p.replies.totalItems).toBe('1');
        expect(p.author.id).toBe('author');
        expect(p.trashed ?? undefined).toBeUndefined();
      }
      const page = (await w.admin.pages.patch({
        blogId: w.blogId,
        pageId: f.page.id,
        body: { title: 'P', ...forged } as any,
      })) as Wire;
      expect(page.status).toBe('LIVE');
      expect(page.url).toBe(f.page.url);
      expect(page.id).toBe(f.page.id);
      const c = (await w.anon.comments.insert({
        blogId: w.blogId,
        postId: f.live.id,
        body: { content: 'hi', id: 'forged', status: 'LIVE', post: { id: f.draft.id }, blog: { id: 'x' } } as any,
      })) as Wire;
      const stored = (await w.service.comments.get({ blogId: w.blogId, postId: f.live.id, commentId: c.id })) as Wire;
      expect(stored.id).not.toBe('forged');
      expect(stored.status).toBe('PENDING');
      expect(stored.post).toEqual({ id: f.live.id });
      expect(stored.blog).toEqual({ id: w.blogId });
    });
  });

  describe('a refused list writes nothing, even with a refiling step pending', () => {
    it('blog-wide comment lists and change pulls check their tokens before refiling comments', async () => {
      const f = await fixture();
      const { w } = f;
      const adminCheckpoint = (await w.admin.changes.list({ blogId: w.blogId })).checkpoint;
      // Reverting a post with a comment leaves that comment to be refiled by the next blog-wide list or pull.
      await w.admin.posts.revert({ blogId: w.blogId, postId: f.live.id });
      const before = await changeCount(w.driver);
      const refused = [
        () => w.admin.comments.listByBlog({ blogId: w.blogId, pageToken: 'nonsense' }),
        () => w.admin.comments.listByBlog({ blogId: w.blogId, pageToken: f.token }), // another query's token
        () => w.admin.changes.list({ blogId: w.blogId, pageToken: 'nonsense' }),
        () => w.admin.changes.list({ blogId: w.blogId, since: 'nonsense' }),
      ];
      for (const call of refused) await expectError(call, 400, 'invalid');
      await expectError(
        () => w.reader.changes.list({ blogId: w.blogId, since: adminCheckpoint }),
        410,
        'resyncRequired',
      ); // another view's
      expect(await changeCount(w.driver), 'a refused request wrote').toBe(before);
      // A request that is answered does refile.
      await w.admin.comments.listByBlog({ blogId: w.blogId });
      expect(await changeCount(w.driver)).toBeGreaterThan(before);
    });
  });

  describe('ifMatch', () => {
    it('a stale etag is 412 conditionNotMet on every write that takes it, and writes nothing', async () => {
      const f = await fixture();
      const { w } = f;
      const b = w.blogId;
      const stalePost = ((await w.author.posts.get({ blogId: b, postId: f.live.id })) as Wire).etag as string;
      const stalePage = ((await w.admin.pages.get({ blogId: b, pageId: f.page.id })) as Wire).etag as string;
      await w.author.posts.patch({ blogId: b, postId: f.live.id, body: { title: 'moved on' } });
      await w.admin.pages.patch({ blogId: b, pageId: f.page.id, body: { title: 'moved on' } });
      const c412 = (p: Call) => expectError(p, 412, 'conditionNotMet');
      await expectNoWrite(w, async () => {
        await c412(() =>
          w.author.posts.update({
            blogId: b,
            postId: f.live.id,
            body: { title: 't', content: 'c' },
            ifMatch: stalePost,
          }),
        );
        await c412(() =>
          w.author.posts.patch({ blogId: b, postId: f.live.id, body: { title: 't' }, ifMatch: stalePost }),
        );
        await c412(() => w.author.posts.delete({ blogId: b, postId: f.live.id, ifMatch: stalePost }));
        await c412(() => w.author.posts.delete({ blogId: b, postId: f.live.id, useTrash: true, ifMatch: stalePost }));
        await c412(() => w.author.posts.revert({ blogId: b, postId: f.live.id, ifMatch: stalePost }));
        await c412(() => w.author.posts.publish({ blogId: b, postId: f.live.id, ifMatch: stalePost }));
        await c412(() =>
          w.admin.pages.update({ blogId: b, pageId: f.page.id, body: { title: 't' }, ifMatch: stalePage }),
        );
        await c412(() =>
          w.admin.pages.patch({ blogId: b, pageId: f.page.id, body: { title: 't' }, ifMatch: stalePage }),
        );
        await c412(() => w.admin.pages.delete({ blogId: b, pageId: f.page.id, ifMatch: stalePage }));
        await c412(() => w.admin.pages.revert({ blogId: b, pageId: f.page.id, ifMatch: stalePage }));
        await c412(() => w.admin.pages.publish({ blogId: b, pageId: f.page.id, ifMatch: stalePage }));
        await c412(() =>
          w.author.posts.patch({ blogId: b, postId: f.live.id, body: { title: 't' }, ifMatch: '"made-up"' }),
        );
      });
    });
  });

  describe('methods reject, never throw', () => {
    it('every method returns a promise that rejects with a BlogError on bad params (docs/design.md §4)', async () => {
      const w = await world(makeDriver());
      const threw: string[] = [];
      const notBlogError: string[] = [];
      for (const [name, s] of [
        ['unscoped', w.service],
        ['author', w.author],
      ] as const) {
        for (const ns of ['blogs', 'posts', 'pages', 'comments', 'users', 'members'] as const) {
          const api = (s as unknown as Record<string, Record<string, (x: unknown) => Promise<unknown>>>)[ns]!;
          for (const method of Object.keys(api)) {
            if (typeof api[method] !== 'function') continue;
            for (const params of [{}, { blogId: 42, maxResults: 'many' }]) {
              let result: unknown;
              try {
                result = api[method]!(params);
              } catch {
                threw.push(`${name} ${ns}.${method}(${JSON.stringify(params)})`);
                continue;
              }
              expect(typeof (result as Promise<unknown>)?.then, `${ns}.${method} returns a promise`).toBe('function');
              const e = await (result as Promise<unknown>).then(
                () => undefined,
                (x: unknown) => x,
              );
              if (!BlogError.is(e) || e.code !== 400)
                notBlogError.push(`${name} ${ns}.${method}(${JSON.stringify(params)}) → ${String(e)}`);
            }
          }
        }
      }
      expect(threw, 'methods that threw synchronously instead of rejecting').toEqual([]);
      expect(notBlogError, 'methods that did not reject with a 400 BlogError').toEqual([]);
    });
  });

  describe('BlogError', () => {
    it('BlogError.is recognises a copy as a plain object; instanceof does not', async () => {
      const w = await world(makeDriver());
      const e = await catchError(() => w.anon.posts.get({ blogId: w.blogId, postId: 'nope' }));
      expect(e).toBeInstanceOf(BlogError);
      expect(e).toBeInstanceOf(Error);
      expect(e.code).toBe(404);
      expect(e.reason).toBe('notFound');
      expect(typeof e.message).toBe('string');
      const copy = { ...e };
      expect(copy instanceof BlogError).toBe(false);
      expect(BlogError.is(copy)).toBe(true);
      expect(BlogError.is(Object.assign(Object.create(null), e))).toBe(true);
      expect(BlogError.is(new Error('plain'))).toBe(false);
      expect(BlogError.is({ code: 404, reason: 'notFound', message: 'x' })).toBe(false);
      expect(BlogError.is(null)).toBe(false);
      expect(BlogError.is(undefined)).toBe(false);
      expect(BlogError.is('BlogError')).toBe(false);
    });

    it("a 400 carries the parameter's name in location and serializes to Google's shape", async () => {
      const w = await world(makeDriver());
      const e = await expectError(
        () => w.anon.posts.list({ blogId: w.blogId, maxResults: 0 }),
        400,
        'invalid',
        'maxResults',
      );
      const json = JSON.parse(JSON.stringify(e)) as Wire;
      expect(json.error.code).toBe(400);
      expect(json.error.errors[0].reason).toBe('invalid');
      expect(json.error.errors[0].location).toBe('maxResults');
      expect(typeof json.error.message).toBe('string');
      expect(JSON.stringify(json)).not.toMatch(/\bat .*\.ts:\d+/);
    });
  });
});
