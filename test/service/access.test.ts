/**
 * The access matrix of docs/design.md §5: who may write what, who may read what that is not LIVE, views, the
 * status filters that need a role, readerComments, the starting state of comments and HTML sanitizing.
 */
import { describe, expect, it } from 'vitest';
import {
  PAGE_STATES,
  POST_STATES,
  catchError,
  expectError,
  expectNoWrite,
  getPost,
  ids,
  makeComment,
  makePage,
  makePost,
  world,
  type PostState,
  type Service,
  type Wire,
  type World,
} from './helpers.js';
import { DRIVERS } from '../support/drivers.js';

/** The runtime also takes enum values in any case and comma-joined lists (as the wire sends them); the types take the canonical forms only. */
const loose = (v: string | readonly string[]): never => v as never;

type ActorName = 'anon' | 'reader' | 'outsider' | 'authorOwn' | 'authorOther' | 'admin' | 'unscoped';
const ACTORS: ActorName[] = ['anon', 'reader', 'outsider', 'authorOwn', 'authorOther', 'admin', 'unscoped'];

/** The service for an actor; posts in these tests are always written by `author`, so author2 is "other". */
function actor(w: World, name: ActorName): Service {
  switch (name) {
    case 'anon':
      return w.anon;
    case 'reader':
      return w.reader;
    case 'outsider':
      return w.outsider;
    case 'authorOwn':
      return w.author;
    case 'authorOther':
      return w.author2;
    case 'admin':
      return w.admin;
    case 'unscoped':
      return w.service;
  }
}

const BELOW_AUTHOR: ActorName[] = ['anon', 'reader', 'outsider'];
const MAY_CHANGE_POST: ActorName[] = ['authorOwn', 'admin', 'unscoped'];

type PostWrite = 'patch' | 'update' | 'publish' | 'revert' | 'trash' | 'delete';
/** Writes the state table allows from each state, so a permitted caller must succeed. */
const VALID_WRITES: Record<PostState, PostWrite[]> = {
  LIVE: ['patch', 'update', 'publish', 'revert', 'trash', 'delete'],
  DRAFT: ['patch', 'update', 'publish', 'revert', 'trash', 'delete'],
  SCHEDULED: ['patch', 'update', 'publish', 'revert', 'trash', 'delete'],
  SOFT_TRASHED: ['revert', 'delete'],
};

function postWrite(s: Service, blogId: string, postId: string, op: PostWrite): Promise<unknown> {
  switch (op) {
    case 'patch':
      return s.posts.patch({ blogId, postId, body: { title: 'changed' } });
    case 'update':
      return s.posts.update({ blogId, postId, body: { title: 'changed', content: 'changed' } });
    case 'publish':
      return s.posts.publish({ blogId, postId });
    case 'revert':
      return s.posts.revert({ blogId, postId });
    case 'trash':
      return s.posts.delete({ blogId, postId, useTrash: true });
    case 'delete':
      return s.posts.delete({ blogId, postId });
  }
}

/** What an allowed write must have done (the state table itself is checked in states.test.ts). */
async function expectPostEffect(w: World, before: Wire, op: PostWrite): Promise<void> {
  if (op === 'delete') {
    await expectError(w.service.posts.get({ blogId: w.blogId, postId: before.id }), 404, 'notFound');
    return;
  }
  const after = (await w.service.posts.get({ blogId: w.blogId, postId: before.id })) as Wire;
  if (op === 'patch' || op === 'update') expect(after.title).toBe('changed');
  if (op === 'trash') expect(after.status).toBe('SOFT_TRASHED');
  if (op === 'revert') expect(after.status).toBe('DRAFT');
  if (op === 'publish') expect(after.status).toBe(before.status === 'DRAFT' ? 'LIVE' : before.status);
}

describe.each(DRIVERS)('%s', (_driver, makeDriver) => {
  describe('post writes: the access matrix', () => {
    for (const state of POST_STATES) {
      for (const op of VALID_WRITES[state]) {
        for (const who of ACTORS) {
          const allowed = MAY_CHANGE_POST.includes(who);
          it(`${who} ${op} on a ${state} post → ${allowed ? 'allowed' : 'refused'}`, async () => {
            const w = await world(makeDriver());
            const post = await makePost(w, state);
            const s = actor(w, who);
            if (allowed) {
              await postWrite(s, w.blogId, post.id, op);
              await expectPostEffect(w, post, op);
              return;
            }
            await expectNoWrite(w, async () => {
              const e = await catchError(postWrite(s, w.blogId, post.id, op));
              if (who === 'authorOther' || state === 'LIVE') {
                // The caller can see the post: refusing is a 403.
                expect({ code: e.code, reason: e.reason }).toEqual({ code: 403, reason: 'forbidden' });
              } else {
                // Below AUTHOR view a non-LIVE post must look exactly like one that does not exist.
                const missing = await catchError(postWrite(s, w.blogId, 'no-such-post-id', op));
                expect({ code: e.code, reason: e.reason }).toEqual({ code: missing.code, reason: missing.reason });
                expect([403, 404]).toContain(e.code);
              }
            });
          });
        }
      }
    }

    it('posts.insert: AUTHORs and ADMINs and the host may, others get 403', async () => {
      const w = await world(makeDriver());
      for (const who of ['anon', 'reader', 'outsider'] as const) {
        await expectNoWrite(w, () =>
          expectError(
            actor(w, who).posts.insert({ blogId: w.blogId, body: { title: 't', content: 'c' } }),
            403,
            'forbidden',
          ),
        );
      }
      for (const who of ['authorOwn', 'authorOther', 'admin', 'unscoped'] as const) {
        const p = (await actor(w, who).posts.insert({ blogId: w.blogId, body: { title: 't', content: 'c' } })) as Wire;
        expect(p.kind).toBe('blogger#post');
      }
      const own = (await w.author2.posts.insert({ blogId: w.blogId, body: { title: 'mine', content: 'c' } })) as Wire;
      expect(own.author.id).toBe('author2');
    });

    it('a scoped actor whose user does not exist gets 401 authError on writes', async () => {
      const w = await world(makeDriver());
      const ghost = w.service.as({ userId: 'ghost' });
      const live = await makePost(w, 'LIVE');
      await expectNoWrite(w, async () => {
        await expectError(
          ghost.posts.insert({ blogId: w.blogId, body: { title: 't', content: 'c' } }),
          401,
          'authError',
        );
        await expectError(
          ghost.comments.insert({ blogId: w.blogId, postId: live.id, body: { content: 'c' } }),
          401,
          'authError',
        );
        await expectError(
          ghost.blogs.insert({ body: { name: 'G', url: 'https://ghost.example.test/' } }),
          401,
          'authError',
        );
      });
    });
  });

  describe('page writes: ADMINs only', () => {
    type PageWrite = 'patch' | 'update' | 'publish' | 'revert' | 'trash' | 'delete';
    const valid: Record<string, PageWrite[]> = {
      LIVE: ['patch', 'update', 'publish', 'revert', 'trash', 'delete'],
      DRAFT: ['patch', 'update', 'publish', 'revert', 'trash', 'delete'],
      SOFT_TRASHED: ['revert', 'delete'],
    };
    const run = (s: Service, blogId: string, pageId: string, op: PageWrite): Promise<unknown> => {
      switch (op) {
        case 'patch':
          return s.pages.patch({ blogId, pageId, body: { title: 'x' } });
        case 'update':
          return s.pages.update({ blogId, pageId, body: { title: 'x', content: 'y' } });
        case 'publish':
          return s.pages.publish({ blogId, pageId });
        case 'revert':
          return s.pages.revert({ blogId, pageId });
        case 'trash':
          return s.pages.delete({ blogId, pageId, useTrash: true });
        case 'delete':
          return s.pages.delete({ blogId, pageId });
      }
    };
    for (const state of PAGE_STATES) {
      for (const op of valid[state]!) {
        for (const who of ACTORS) {
          const allowed = who === 'admin' || who === 'unscoped';
          it(`${who} ${op} on a ${state} page → ${allowed ? 'allowed' : 'refused'}`, async () => {
            const w = await world(makeDriver());
            const page = await makePage(w, state);
            const s = actor(w, who);
            if (allowed) {
              await run(s, w.blogId, page.id, op);
              if (op === 'delete')
                await expectError(w.service.pages.get({ blogId: w.blogId, pageId: page.id }), 404, 'notFound');
              else {
                const after = (await w.service.pages.get({ blogId: w.blogId, pageId: page.id })) as Wire;
                const expected = {
                  patch: page.status,
                  update: page.status,
                  publish: 'LIVE',
                  revert: 'DRAFT',
                  trash: 'SOFT_TRASHED',
                }[op];
                expect(after.status).toBe(expected);
                if (op === 'patch' || op === 'update') expect(after.title).toBe('x');
              }
              return;
            }
            await expectNoWrite(w, async () => {
              const e = await catchError(run(s, w.blogId, page.id, op));
              if (!BELOW_AUTHOR.includes(who) || state === 'LIVE') {
                expect({ code: e.code, reason: e.reason }).toEqual({ code: 403, reason: 'forbidden' });
              } else {
                const missing = await catchError(run(s, w.blogId, 'no-such-page-id', op));
                expect({ code: e.code, reason: e.reason }).toEqual({ code: missing.code, reason: missing.reason });
                expect([403, 404]).toContain(e.code);
              }
            });
          });
        }
      }
    }

    it('pages.insert: ADMIN and host only', async () => {
      const w = await world(makeDriver());
      for (const who of ['anon', 'reader', 'outsider', 'authorOwn', 'authorOther'] as const) {
        await expectNoWrite(w, () =>
          expectError(
            actor(w, who).pages.insert({ blogId: w.blogId, body: { title: 't', content: 'c' } }),
            403,
            'forbidden',
          ),
        );
      }
      for (const who of ['admin', 'unscoped'] as const) {
        expect(
          ((await actor(w, who).pages.insert({ blogId: w.blogId, body: { title: 't', content: 'c' } })) as Wire).kind,
        ).toBe('blogger#page');
      }
    });
  });

  describe('comment moderation and members: ADMINs only', () => {
    type Mod = 'approve' | 'markAsSpam' | 'removeContent' | 'delete';
    const mods: Mod[] = ['approve', 'markAsSpam', 'removeContent', 'delete'];
    for (const from of ['LIVE', 'PENDING'] as const) {
      for (const op of mods) {
        for (const who of ACTORS) {
          const allowed = who === 'admin' || who === 'unscoped';
          it(`${who} ${op} on a ${from} comment → ${allowed ? 'allowed' : 'refused'}`, async () => {
            const w = await world(makeDriver());
            const post = await makePost(w, 'LIVE');
            const c = await makeComment(w, post.id, from);
            const key = { blogId: w.blogId, postId: post.id as string, commentId: c.id as string };
            const s = actor(w, who);
            if (allowed) {
              await s.comments[op](key);
              if (op === 'delete') await expectError(w.service.comments.get(key), 404, 'notFound');
              else {
                const expected = { approve: 'LIVE', markAsSpam: 'SPAM', removeContent: 'EMPTIED' }[op];
                expect(((await w.service.comments.get(key)) as Wire).status).toBe(expected);
              }
              return;
            }
            await expectNoWrite(w, async () => {
              const e = await catchError(s.comments[op](key));
              if (from === 'LIVE') {
                expect({ code: e.code, reason: e.reason }).toEqual({ code: 403, reason: 'forbidden' });
              } else {
                // A PENDING comment is invisible below ADMIN view: same answer as a comment that does not exist.
                const missing = await catchError(s.comments[op]({ ...key, commentId: 'no-such-comment' }));
                expect({ code: e.code, reason: e.reason }).toEqual({ code: missing.code, reason: missing.reason });
                expect([403, 404]).toContain(e.code);
              }
            });
          });
        }
      }
    }

    it('members.set / remove / list: 403 below ADMIN', async () => {
      const w = await world(makeDriver());
      for (const who of ['anon', 'reader', 'outsider', 'authorOwn'] as const) {
        const s = actor(w, who);
        await expectNoWrite(w, async () => {
          await expectError(s.members.set({ blogId: w.blogId, userId: 'outsider', role: 'ADMIN' }), 403, 'forbidden');
          await expectError(s.members.remove({ blogId: w.blogId, userId: 'author2' }), 403, 'forbidden');
          await expectError(s.members.list({ blogId: w.blogId }), 403, 'forbidden');
        });
      }
      await w.admin.members.set({ blogId: w.blogId, userId: 'outsider', role: 'READER' });
      expect((await w.admin.members.list({ blogId: w.blogId })).items).toHaveLength(5);
    });
  });

  describe('reads of what is not LIVE', () => {
    for (const state of ['DRAFT', 'SCHEDULED', 'SOFT_TRASHED'] as const) {
      it(`a ${state} post by id: 404 below AUTHOR view, visible from AUTHOR up`, async () => {
        const w = await world(makeDriver());
        const p = await makePost(w, state);
        const key = { blogId: w.blogId, postId: p.id as string };
        for (const who of BELOW_AUTHOR) await expectError(actor(w, who).posts.get(key), 404, 'notFound');
        // An admin asking for the public view sees what the public sees.
        await expectError(w.admin.posts.get({ ...key, view: 'READER' }), 404, 'notFound');
        for (const who of ['authorOwn', 'authorOther', 'admin', 'unscoped'] as const) {
          const got = (await actor(w, who).posts.get(key)) as Wire;
          expect(got.id).toBe(p.id);
          expect(got.status).toBe(state);
        }
        expect(((await w.admin.posts.get({ ...key, view: 'AUTHOR' })) as Wire).status).toBe(state);
        // Not in public lists or searches either.
        expect(ids(await w.anon.posts.list({ blogId: w.blogId }))).toEqual([]);
        expect(ids(await w.admin.posts.list({ blogId: w.blogId }))).toEqual([]);
        expect(ids(await w.anon.posts.search({ blogId: w.blogId, q: 'body' }))).toEqual([]);
      });

      it(`listing ${state} posts needs AUTHOR view (403 below)`, async () => {
        const w = await world(makeDriver());
        const mine = await makePost(w, state);
        const theirs = await makePost(w, state, {}, w.author2);
        for (const who of BELOW_AUTHOR) {
          await expectError(actor(w, who).posts.list({ blogId: w.blogId, status: state }), 403, 'forbidden');
          await expectError(
            actor(w, who).posts.search({ blogId: w.blogId, q: 'body', status: state }),
            403,
            'forbidden',
          );
        }
        await expectError(w.admin.posts.list({ blogId: w.blogId, status: state, view: 'READER' }), 403, 'forbidden');
        for (const who of ['authorOwn', 'authorOther', 'admin', 'unscoped'] as const) {
          // An AUTHOR sees every author's drafts.
          const got = ids(await actor(w, who).posts.list({ blogId: w.blogId, status: state }));
          expect(got.sort()).toEqual([mine.id, theirs.id].sort());
          const found = ids(await actor(w, who).posts.search({ blogId: w.blogId, q: 'body', status: state }));
          expect(found.sort()).toEqual([mine.id, theirs.id].sort());
        }
      });
    }

    it('getByPath finds LIVE posts only, whoever asks', async () => {
      const w = await world(makeDriver());
      const p = await makePost(w, 'LIVE', { title: 'Path Then Draft' });
      const path = new URL(p.url).pathname;
      await w.author.posts.revert({ blogId: w.blogId, postId: p.id });
      for (const who of ACTORS)
        await expectError(actor(w, who).posts.getByPath({ blogId: w.blogId, path }), 404, 'notFound');
    });

    for (const state of ['DRAFT', 'SOFT_TRASHED'] as const) {
      it(`a ${state} page: 404 by id and 403 to list below AUTHOR view`, async () => {
        const w = await world(makeDriver());
        const p = await makePage(w, state);
        for (const who of BELOW_AUTHOR) {
          await expectError(actor(w, who).pages.get({ blogId: w.blogId, pageId: p.id }), 404, 'notFound');
          await expectError(actor(w, who).pages.list({ blogId: w.blogId, status: state }), 403, 'forbidden');
        }
        for (const who of ['authorOwn', 'admin', 'unscoped'] as const) {
          expect(((await actor(w, who).pages.get({ blogId: w.blogId, pageId: p.id })) as Wire).status).toBe(state);
          expect(ids(await actor(w, who).pages.list({ blogId: w.blogId, status: state }))).toEqual([p.id]);
        }
        expect(ids(await w.admin.pages.list({ blogId: w.blogId }))).toEqual([]);
      });
    }

    for (const state of ['PENDING', 'SPAM'] as const) {
      it(`a ${state} comment: 404 by id and 403 to list below ADMIN view`, async () => {
        const w = await world(makeDriver());
        const post = await makePost(w, 'LIVE');
        const c = await makeComment(w, post.id, state);
        const key = { blogId: w.blogId, postId: post.id as string, commentId: c.id as string };
        for (const who of ['anon', 'reader', 'outsider', 'authorOwn', 'authorOther'] as const) {
          const s = actor(w, who);
          await expectError(s.comments.get(key), 404, 'notFound');
          await expectError(s.comments.list({ blogId: w.blogId, postId: post.id, status: state }), 403, 'forbidden');
          await expectError(s.comments.listByBlog({ blogId: w.blogId, status: state }), 403, 'forbidden');
          expect(ids(await s.comments.list({ blogId: w.blogId, postId: post.id }))).toEqual([]);
        }
        await expectError(w.admin.comments.get({ ...key, view: 'AUTHOR' }), 404, 'notFound');
        await expectError(
          w.admin.comments.list({ blogId: w.blogId, postId: post.id, status: state, view: 'AUTHOR' }),
          403,
          'forbidden',
        );
        for (const who of ['admin', 'unscoped'] as const) {
          const s = actor(w, who);
          expect(((await s.comments.get(key)) as Wire).status).toBe(state);
          expect(ids(await s.comments.list({ blogId: w.blogId, postId: post.id, status: state }))).toEqual([c.id]);
          expect(ids(await s.comments.listByBlog({ blogId: w.blogId, status: state }))).toEqual([c.id]);
          // The default comment filter is LIVE and EMPTIED, whatever the view.
          expect(ids(await s.comments.list({ blogId: w.blogId, postId: post.id }))).toEqual([]);
        }
      });
    }

    it('comments of a post that is no longer LIVE are hidden below AUTHOR view', async () => {
      const w = await world(makeDriver());
      const post = await makePost(w, 'LIVE');
      const c = await makeComment(w, post.id, 'LIVE');
      await w.author.posts.revert({ blogId: w.blogId, postId: post.id });
      const key = { blogId: w.blogId, postId: post.id as string, commentId: c.id as string };
      for (const who of BELOW_AUTHOR) {
        await expectError(actor(w, who).comments.get(key), 404, 'notFound');
        await expectError(actor(w, who).comments.list({ blogId: w.blogId, postId: post.id }), 404, 'notFound');
      }
      expect(((await w.author.comments.get(key)) as Wire).id).toBe(c.id);
    });
  });

  describe('views', () => {
    it('asking for a view above your role is 403', async () => {
      const w = await world(makeDriver());
      const p = await makePost(w, 'LIVE');
      const c = await makeComment(w, p.id, 'LIVE');
      const page = await makePage(w, 'LIVE');
      const b = w.blogId;
      const cases: Array<[ActorName, 'AUTHOR' | 'ADMIN']> = [
        ['anon', 'AUTHOR'],
        ['anon', 'ADMIN'],
        ['reader', 'AUTHOR'],
        ['outsider', 'AUTHOR'],
        ['authorOwn', 'ADMIN'],
      ];
      for (const [who, view] of cases) {
        const s = actor(w, who);
        await expectError(s.blogs.get({ blogId: b, view }), 403, 'forbidden');
        await expectError(s.blogs.getByUrl({ url: 'https://blog.example.test/', view }), 403, 'forbidden');
        await expectError(s.posts.get({ blogId: b, postId: p.id, view }), 403, 'forbidden');
        await expectError(s.posts.list({ blogId: b, view }), 403, 'forbidden');
        await expectError(s.posts.search({ blogId: b, q: 'body', view }), 403, 'forbidden');
        await expectError(s.posts.getByPath({ blogId: b, path: new URL(p.url).pathname, view }), 403, 'forbidden');
        await expectError(s.pages.list({ blogId: b, view }), 403, 'forbidden');
        await expectError(s.pages.get({ blogId: b, pageId: page.id, view }), 403, 'forbidden');
        await expectError(s.comments.get({ blogId: b, postId: p.id, commentId: c.id, view }), 403, 'forbidden');
        await expectError(s.comments.list({ blogId: b, postId: p.id, view }), 403, 'forbidden');
        await expectError(s.comments.listByBlog({ blogId: b, view }), 403, 'forbidden');
      }
      // READER view is open to all; each role may ask for its own level.
      for (const who of ACTORS)
        expect(((await actor(w, who).posts.get({ blogId: b, postId: p.id, view: 'READER' })) as Wire).id).toBe(p.id);
      expect(((await w.author.posts.get({ blogId: b, postId: p.id, view: 'AUTHOR' })) as Wire).id).toBe(p.id);
      expect(((await w.admin.blogs.get({ blogId: b, view: 'ADMIN' })) as Wire).id).toBe(b);
      expect(((await w.service.blogs.get({ blogId: b, view: 'ADMIN' })) as Wire).id).toBe(b);
    });

    it('Post.status appears at AUTHOR view and above only, on reads and writes', async () => {
      const w = await world(makeDriver());
      const p = await makePost(w, 'LIVE');
      const key = { blogId: w.blogId, postId: p.id as string };
      for (const who of ['anon', 'reader', 'outsider'] as const) {
        const got = (await actor(w, who).posts.get(key)) as Wire;
        expect(got.id).toBe(p.id);
        expect(got.status).toBeUndefined();
        expect((await actor(w, who).posts.list({ blogId: w.blogId })).items?.[0]?.status).toBeUndefined();
      }
      expect(((await w.admin.posts.get({ ...key, view: 'READER' })) as Wire).status).toBeUndefined();
      for (const who of ['authorOwn', 'authorOther', 'admin', 'unscoped'] as const) {
        expect(((await actor(w, who).posts.get(key)) as Wire).status).toBe('LIVE');
        expect((await actor(w, who).posts.list({ blogId: w.blogId })).items?.[0]?.status).toBe('LIVE');
      }
      const page = await makePage(w, 'LIVE');
      expect(((await w.reader.pages.get({ blogId: w.blogId, pageId: page.id })) as Wire).status).toBeUndefined();
      expect(((await w.author.pages.get({ blogId: w.blogId, pageId: page.id })) as Wire).status).toBe('LIVE');
      // Write responses are shaped at the caller's view too.
      const patched = (await w.author.posts.patch({ ...key, body: { title: 'v' } })) as Wire;
      expect(patched.status).toBe('LIVE');
    });

    it('Comment.status appears at ADMIN view only, on reads and writes', async () => {
      const w = await world(makeDriver());
      const p = await makePost(w, 'LIVE');
      const fromAuthor = (await w.author.comments.insert({
        blogId: w.blogId,
        postId: p.id,
        body: { content: 'a' },
      })) as Wire;
      expect(fromAuthor.status).toBeUndefined();
      const fromReader = (await w.reader.comments.insert({
        blogId: w.blogId,
        postId: p.id,
        body: { content: 'r' },
      })) as Wire;
      expect(fromReader.status).toBeUndefined();
      const fromAdmin = (await w.admin.comments.insert({
        blogId: w.blogId,
        postId: p.id,
        body: { content: 'b' },
      })) as Wire;
      expect(fromAdmin.status).toBe('LIVE');
      const key = { blogId: w.blogId, postId: p.id as string, commentId: fromAuthor.id as string };
      for (const who of ['anon', 'reader', 'authorOwn', 'authorOther'] as const) {
        expect(((await actor(w, who).comments.get(key)) as Wire).status).toBeUndefined();
      }
      expect(((await w.admin.comments.get({ ...key, view: 'AUTHOR' })) as Wire).status).toBeUndefined();
      expect(((await w.admin.comments.get(key)) as Wire).status).toBe('LIVE');
      expect(((await w.service.comments.get(key)) as Wire).status).toBe('LIVE');
    });
  });

  describe('comments: who may add, starting state, readerComments, sanitizing', () => {
    it('a comment starts PENDING from anonymous, readers and non-members; LIVE from AUTHORs, ADMINs and the host', async () => {
      const w = await world(makeDriver());
      const p = await makePost(w, 'LIVE');
      const expected: Record<ActorName, string> = {
        anon: 'PENDING',
        reader: 'PENDING',
        outsider: 'PENDING',
        authorOwn: 'LIVE',
        authorOther: 'LIVE',
        admin: 'LIVE',
        unscoped: 'LIVE',
      };
      for (const who of ACTORS) {
        const c = (await actor(w, who).comments.insert({
          blogId: w.blogId,
          postId: p.id,
          body: { content: `from ${who}` },
        })) as Wire;
        const stored = (await w.service.comments.get({ blogId: w.blogId, postId: p.id, commentId: c.id })) as Wire;
        expect(stored.status, who).toBe(expected[who]);
      }
      expect((await getPost(w, p.id)).replies.totalItems).toBe('4');
    });

    it('DONT_ALLOW_SHOW_EXISTING refuses new comments below AUTHOR and still shows the old ones', async () => {
      const w = await world(makeDriver());
      const p = await makePost(w, 'LIVE');
      const old = await makeComment(w, p.id, 'LIVE', 'old');
      const patched = (await w.author.posts.patch({
        blogId: w.blogId,
        postId: p.id,
        body: { readerComments: 'DONT_ALLOW_SHOW_EXISTING' },
      })) as Wire;
      expect(patched.readerComments).toBe('DONT_ALLOW_SHOW_EXISTING');
      for (const who of ['anon', 'reader', 'outsider'] as const) {
        await expectNoWrite(w, () =>
          expectError(
            actor(w, who).comments.insert({ blogId: w.blogId, postId: p.id, body: { content: 'x' } }),
            403,
            'forbidden',
          ),
        );
        expect(ids(await actor(w, who).comments.list({ blogId: w.blogId, postId: p.id }))).toEqual([old.id]);
        expect(
          ((await actor(w, who).comments.get({ blogId: w.blogId, postId: p.id, commentId: old.id })) as Wire).content,
        ).toBe('old');
        expect(((await actor(w, who).posts.get({ blogId: w.blogId, postId: p.id })) as Wire).replies.totalItems).toBe(
          '1',
        );
      }
      for (const who of ['authorOwn', 'authorOther', 'admin', 'unscoped'] as const) {
        await actor(w, who).comments.insert({ blogId: w.blogId, postId: p.id, body: { content: who } });
      }
      expect(ids(await w.anon.comments.list({ blogId: w.blogId, postId: p.id }))).toHaveLength(5);
    });

    it('DONT_ALLOW_HIDE_EXISTING also hides existing comments below ADMIN view', async () => {
      const w = await world(makeDriver());
      const p = await makePost(w, 'LIVE');
      const old = await makeComment(w, p.id, 'LIVE', 'old');
      const patched = (await w.author.posts.patch({
        blogId: w.blogId,
        postId: p.id,
        body: { readerComments: loose('dont_allow_hide_existing') },
      })) as Wire;
      // Enums are matched in any case and always sent upper-case (docs/design.md §8).
      expect(patched.readerComments).toBe('DONT_ALLOW_HIDE_EXISTING');
      for (const who of ['anon', 'reader'] as const) {
        await expectNoWrite(w, () =>
          expectError(
            actor(w, who).comments.insert({ blogId: w.blogId, postId: p.id, body: { content: 'x' } }),
            403,
            'forbidden',
          ),
        );
      }
      const key = { blogId: w.blogId, postId: p.id as string, commentId: old.id as string };
      for (const who of ['anon', 'reader', 'authorOwn', 'authorOther'] as const) {
        const s = actor(w, who);
        expect(ids(await s.comments.list({ blogId: w.blogId, postId: p.id }))).toEqual([]);
        expect(ids(await s.comments.listByBlog({ blogId: w.blogId }))).toEqual([]);
        await expectError(s.comments.get(key), 404, 'notFound');
        const post = (await s.posts.get({ blogId: w.blogId, postId: p.id, maxComments: 10 })) as Wire;
        expect(post.replies.totalItems).toBe('0');
        expect(post.replies.items ?? []).toEqual([]);
      }
      for (const who of ['admin', 'unscoped'] as const) {
        const s = actor(w, who);
        expect(ids(await s.comments.list({ blogId: w.blogId, postId: p.id }))).toEqual([old.id]);
        expect(((await s.comments.get(key)) as Wire).content).toBe('old');
        expect(((await s.posts.get({ blogId: w.blogId, postId: p.id })) as Wire).replies.totalItems).toBe('1');
      }
      await w.author.comments.insert({ blogId: w.blogId, postId: p.id, body: { content: 'by the author' } });
      expect(ids(await w.admin.comments.list({ blogId: w.blogId, postId: p.id }))).toHaveLength(2);
    });

    it('ALLOW is the default readerComments', async () => {
      const w = await world(makeDriver());
      const p = (await w.author.posts.insert({ blogId: w.blogId, body: { title: 't', content: 'c' } })) as Wire;
      expect(p.readerComments ?? 'ALLOW').toBe('ALLOW');
      expect(
        ((await w.anon.comments.insert({ blogId: w.blogId, postId: p.id, body: { content: 'ok' } })) as Wire).id,
      ).toBeTruthy();
    });

    it('comment HTML is sanitized (script removed, links get rel="nofollow"); post and page HTML are kept', async () => {
      const w = await world(makeDriver());
      const html =
        '<p>Hi <b>bold</b> <script>alert(1)</script><a href="https://x.example.test/">link</a>' +
        '<img src="x" onerror="alert(2)"><a href="javascript:alert(3)">js</a></p>';
      const p = await makePost(w, 'LIVE', { content: html });
      expect(p.content).toBe(html);
      expect(((await w.anon.posts.get({ blogId: w.blogId, postId: p.id })) as Wire).content).toBe(html);
      const page = await makePage(w, 'LIVE', { content: html });
      expect(page.content).toBe(html);
      for (const s of [w.anon, w.service]) {
        const c = (await s.comments.insert({ blogId: w.blogId, postId: p.id, body: { content: html } })) as Wire;
        const stored = (await w.service.comments.get({ blogId: w.blogId, postId: p.id, commentId: c.id })) as Wire;
        for (const content of [c.content as string, stored.content as string]) {
          expect(content).not.toMatch(/<script/i);
          expect(content).not.toContain('alert(1)');
          expect(content).not.toMatch(/onerror/i);
          expect(content).not.toMatch(/javascript:/i);
          expect(content).toContain('<b>bold</b>');
          expect(content).toMatch(/<a [^>]*href="https:\/\/x\.example\.test\/"[^>]*>link<\/a>/);
          expect(content).toMatch(/<a [^>]*rel="nofollow"[^>]*>link<\/a>/);
        }
      }
    });
  });

  describe('blogs and users: who may see what', () => {
    it('blogs are public; listByUser is the user themself or the host', async () => {
      const w = await world(makeDriver());
      for (const who of ACTORS)
        expect(((await actor(w, who).blogs.get({ blogId: w.blogId })) as Wire).id).toBe(w.blogId);
      await expectError(w.reader.blogs.listByUser({ userId: 'admin' }), 403, 'forbidden');
      expect(ids(await w.service.blogs.listByUser({ userId: 'admin' }))).toEqual([w.blogId]);
    });
  });
});
