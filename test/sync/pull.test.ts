/** The pull over HTTP on SQLite (docs/design.md §15): snapshots, tombstones, the access matrix, retention, long polls. */
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { BlogService } from '../../src/index.js';
import { apply, DAY, startSyncServer, STORES, type Json, type SyncServer } from './server.js';

import { dropOwnSchemas } from '../drivers/postgres/env.js';

afterAll(() => dropOwnSchemas());

describe.each(STORES)('on %s', (store) => {
  let s: SyncServer;
  beforeEach(async () => {
    s = await startSyncServer({ store });
  });
  afterEach(async () => {
    await s.close();
  });

  /** Every post, page and comment `who` can read now, through the ordinary list calls, as `kind:id` → resource. */
  async function visibleNow(who: 'admin' | 'author' | 'reader'): Promise<Map<string, Json>> {
    const service = s.as(who);
    const out = new Map<string, Json>();
    const blogId = s.blogId;
    const all = async (list: (pageToken?: string) => Promise<{ items?: readonly Json[]; nextPageToken?: string }>) => {
      let token: string | undefined;
      do {
        const page = await list(token);
        for (const item of page.items ?? []) out.set(`${item.kind}:${item.id}`, item);
        token = page.nextPageToken;
      } while (token);
    };
    const author = who !== 'reader';
    await all(
      (pageToken) =>
        service.posts.list({
          blogId,
          maxResults: 50,
          ...(pageToken ? { pageToken } : {}),
          ...(author ? { status: ['LIVE', 'DRAFT', 'SCHEDULED', 'SOFT_TRASHED'] } : {}),
        }) as Promise<Json>,
    );
    await all(
      (pageToken) =>
        service.pages.list({
          blogId,
          maxResults: 50,
          ...(pageToken ? { pageToken } : {}),
          ...(author ? { status: ['LIVE', 'DRAFT', 'SOFT_TRASHED'] } : {}),
        }) as Promise<Json>,
    );
    await all(
      (pageToken) =>
        service.comments.listByBlog({
          blogId,
          maxResults: 50,
          ...(pageToken ? { pageToken } : {}),
          ...(who === 'admin' ? { status: ['LIVE', 'EMPTIED', 'PENDING', 'SPAM'] } : {}),
        }) as Promise<Json>,
    );
    return out;
  }

  /** Compares replicas by what matters to a user: the same items at the same revision (etag) and content. */
  const summary = (m: Map<string, Json>) =>
    new Map([...m].map(([k, v]) => [k, { etag: v.etag, content: v.content, status: v.status, title: v.title }]));

  async function seed(svc: BlogService, blogId: string, n: number) {
    const posts: string[] = [];
    for (let i = 0; i < n; i++)
      posts.push(
        (await svc.posts.insert({ blogId, body: { title: `Post ${i}`, content: `<p>${i}</p>` }, isDraft: i % 5 === 4 }))
          .id!,
      );
    const live = posts.filter((_, i) => i % 5 !== 4);
    for (const [i, postId] of live.slice(0, 4).entries()) {
      await svc.comments.insert({ blogId, postId, body: { content: `comment ${i}` } });
    }
    const admin = s.as('admin');
    await admin.pages.insert({ blogId, body: { title: 'About', content: 'about' } });
    await admin.pages.insert({ blogId, body: { title: 'Draft page', content: 'soon' }, isDraft: true });
    return { posts, live };
  }

  describe('snapshot and follow-up pull', () => {
    it('pages through everything with writes in between and misses nothing (at-least-once)', async () => {
      const { live } = await seed(s.service, s.blogId, 20);
      // A reader's pending comment, and one on a draft: neither may reach a reader.
      await s.service.as(null).comments.insert({
        blogId: s.blogId,
        postId: live[5]!,
        body: { content: 'pending', author: { displayName: 'anon' } },
      });
      const admin = s.as('admin');
      let added = 0;
      for (const who of ['reader', 'author', 'admin'] as const) {
        const first = await s.pull(who, undefined, {
          maxResults: 4,
          between: async (page) => {
            if (page === 1)
              await admin.posts.patch({
                blogId: s.blogId,
                postId: live[0]!,
                body: { title: `Edited during the ${who} snapshot` },
              });
            if (page === 2)
              await admin.posts.insert({
                blogId: s.blogId,
                body: { title: `New during ${who} ${added++}`, content: 'x' },
              });
            if (page === 3) await admin.posts.delete({ blogId: s.blogId, postId: live[10 + added]! });
            if (page === 4)
              await admin.comments.insert({ blogId: s.blogId, postId: live[1]!, body: { content: 'late' } });
          },
        });
        expect(first.pages).toBeGreaterThan(5);
        const replica = apply(new Map(), first.items);
        const next = await s.pull(who, first.checkpoint, { maxResults: 3 });
        apply(replica, next.items);
        expect(summary(replica)).toEqual(summary(await visibleNow(who)));
        // And a pull with nothing new brings nothing.
        expect((await s.pull(who, next.checkpoint)).items).toEqual([]);
      }
    });

    it('refuses tokens and checkpoints it did not give out with 400, never a 500', async () => {
      for (const q of [
        'since=nonsense',
        'pageToken=%7B%7D',
        'since=eyJ2IjoxfQ',
        'maxResults=0',
        'wait=61',
        'view=OWNER',
      ]) {
        const { status, json } = await s.request('reader', 'GET', `/blogs/${s.blogId}/changes?${q}`);
        expect(status, q).toBe(400);
        expect(json!.error.errors[0].reason).toMatch(/invalid/);
      }
    });
  });

  describe('tombstones: every way an item leaves a caller', () => {
    it('a delete, a revert, a trash, spam and hidden comments arrive as deleted: true', async () => {
      const admin = s.as('admin');
      const b = s.blogId;
      const [gone, reverted, trashed, hiding] = (await Promise.all(
        ['gone', 'reverted', 'trashed', 'hiding'].map((t) =>
          admin.posts.insert({ blogId: b, body: { title: t, content: t } }),
        ),
      )) as unknown as [Json, Json, Json, Json];
      const page = await admin.pages.insert({ blogId: b, body: { title: 'p', content: 'p' } });
      const c1 = await admin.comments.insert({ blogId: b, postId: hiding.id!, body: { content: 'on hiding' } });
      const c2 = await admin.comments.insert({ blogId: b, postId: gone.id!, body: { content: 'spammy' } });
      const c3 = await admin.comments.insert({ blogId: b, postId: reverted.id!, body: { content: 'deleted' } });
      const start = { reader: await s.pull('reader'), author: await s.pull('author'), admin: await s.pull('admin') };
      const replicas = {
        reader: apply(new Map(), start.reader.items),
        author: apply(new Map(), start.author.items),
        admin: apply(new Map(), start.admin.items),
      };
      expect(replicas.reader.has(`blogger#comment:${c1.id}`)).toBe(true);

      await admin.comments.markAsSpam({ blogId: b, postId: gone.id!, commentId: c2.id! });
      await admin.comments.delete({ blogId: b, postId: reverted.id!, commentId: c3.id! });
      await admin.posts.delete({ blogId: b, postId: gone.id! });
      await admin.posts.revert({ blogId: b, postId: reverted.id! });
      await admin.posts.delete({ blogId: b, postId: trashed.id!, useTrash: true });
      await admin.pages.revert({ blogId: b, pageId: page.id! });
      await admin.posts.patch({ blogId: b, postId: hiding.id!, body: { readerComments: 'DONT_ALLOW_HIDE_EXISTING' } });

      for (const who of ['reader', 'author', 'admin'] as const) {
        const { items } = await s.pull(who, start[who].checkpoint, { maxResults: 2 });
        apply(replicas[who], items);
        const has = (kind: string, id: string) => replicas[who].has(`blogger#${kind}:${id}`);
        const tombstone = (kind: string, id: string) =>
          items.some((i) => i.kind === `blogger#${kind}` && i.id === id && i.deleted === true && !('resource' in i));
        expect(tombstone('post', gone.id!), `${who}: deleted post`).toBe(true);
        expect(tombstone('comment', c3.id!), `${who}: deleted comment`).toBe(true);
        expect(has('post', reverted.id!), `${who}: reverted post`).toBe(who !== 'reader');
        expect(has('post', trashed.id!), `${who}: trashed post`).toBe(who !== 'reader');
        expect(has('page', page.id!), `${who}: reverted page`).toBe(who !== 'reader');
        expect(has('comment', c2.id!), `${who}: spam comment`).toBe(false);
        expect(has('comment', c1.id!), `${who}: comment of a post that hides them`).toBe(who === 'admin');
        if (who === 'reader') {
          for (const id of [reverted.id!, trashed.id!]) expect(tombstone('post', id)).toBe(true);
          expect(tombstone('comment', c1.id!)).toBe(true);
        }
        expect(summary(replicas[who])).toEqual(summary(await visibleNow(who)));
      }
    });

    it('pages through one commit of many changes (a post deleted with its comments) without losing any', async () => {
      const admin = s.as('admin');
      const post = await admin.posts.insert({ blogId: s.blogId, body: { title: 'busy', content: 'c' } });
      const comments: string[] = [];
      for (let i = 0; i < 12; i++)
        comments.push(
          (await admin.comments.insert({ blogId: s.blogId, postId: post.id!, body: { content: `c${i}` } })).id!,
        );
      const { checkpoint } = await s.pull('reader');
      await admin.posts.delete({ blogId: s.blogId, postId: post.id! });
      const after = await s.pull('reader', checkpoint, { maxResults: 5 });
      expect(after.pages).toBe(3);
      expect(
        after.items
          .filter((i) => i.deleted)
          .map((i) => i.id)
          .sort(),
      ).toEqual([post.id!, ...comments].sort());
    });

    it('a role that changed makes the old checkpoint 410 resyncRequired', async () => {
      await s.as('admin').posts.insert({ blogId: s.blogId, body: { title: 'draft', content: 'd' }, isDraft: true });
      const { checkpoint, items } = await s.pull('author');
      expect(items.some((i) => i.resource?.status === 'DRAFT')).toBe(true);
      await s.service.members.set({ blogId: s.blogId, userId: s.users.author, role: 'READER' });
      const again = await s.request('author', 'GET', `/blogs/${s.blogId}/changes?since=${checkpoint}`);
      expect(again.status).toBe(410);
      expect(again.json!.error.errors[0].reason).toBe('resyncRequired');
      expect((await s.pull('author')).items.some((i) => i.resource?.status !== undefined)).toBe(false);
    });
  });

  describe('the access matrix', () => {
    it("a reader's pull never carries a draft, a pending comment or a field above the reader view", async () => {
      const { live, posts } = await seed(s.as('author'), s.blogId, 10);
      await s.service.as(null).comments.insert({
        blogId: s.blogId,
        postId: live[0]!,
        body: { content: 'pending', author: { displayName: 'a' } },
      });
      await s.as('reader').comments.insert({ blogId: s.blogId, postId: live[1]!, body: { content: 'pending too' } });
      // A comment on a post that is then reverted to draft.
      const draftPost = live[2]!;
      await s.as('admin').comments.insert({ blogId: s.blogId, postId: draftPost, body: { content: 'on a draft' } });
      await s.as('admin').posts.revert({ blogId: s.blogId, postId: draftPost });
      void posts;
      const first = await s.pull('reader', undefined, { maxResults: 3 });
      await s.as('author').posts.patch({ blogId: s.blogId, postId: draftPost, body: { title: 'still a draft' } });
      await s
        .as('author')
        .posts.insert({ blogId: s.blogId, body: { title: 'new draft', content: 'x' }, isDraft: true });
      const next = await s.pull('reader', first.checkpoint);
      for (const pulled of [first.items, next.items]) {
        for (const item of pulled) {
          if (item.deleted) continue;
          const r = item.resource;
          expect(r.status, JSON.stringify(r)).toBeUndefined();
          if (item.kind === 'blogger#comment') expect(r.content).not.toMatch(/pending|on a draft/);
          if (item.kind === 'blogger#post' || item.kind === 'blogger#page') expect(r.title).not.toMatch(/draft|Draft/);
        }
      }
      // Nor does it learn that they exist: no tombstone names a draft never published or a pending comment.
      const secret = await s
        .as('author')
        .posts.insert({ blogId: s.blogId, body: { title: 'secret draft', content: 'x' }, isDraft: true });
      const pending = await s.service.as(null).comments.insert({
        blogId: s.blogId,
        postId: live[3]!,
        body: { content: 'pending three', author: { displayName: 'a' } },
      });
      // Nor a post created SCHEDULED (its id would tell its creation time), a draft deleted, a
      // pending comment marked as spam: nobody below AUTHOR could ever have seen any of them.
      const admin0 = s.as('admin');
      const authorStart = (await s.pull('author')).checkpoint;
      const scheduled = await admin0.posts.insert({
        blogId: s.blogId,
        body: { title: 'soon', content: 'x', published: new Date(s.clock.ms + DAY).toISOString() },
      });
      const gone = await s
        .as('author')
        .posts.insert({ blogId: s.blogId, body: { title: 'gone draft', content: 'x' }, isDraft: true });
      await s.as('author').posts.delete({ blogId: s.blogId, postId: gone.id });
      const spam = await s.service.as(null).comments.insert({
        blogId: s.blogId,
        postId: live[3]!,
        body: { content: 'buy', author: { displayName: 'b' } },
      });
      await admin0.comments.markAsSpam({ blogId: s.blogId, postId: live[3]!, commentId: spam.id });
      const never = [secret.id, pending.id, scheduled.id, gone.id, spam.id];
      for (const who of ['reader', 'anonymous'] as const) {
        const ids = (await s.pull(who, next.checkpoint)).items.map((i) => i.id);
        for (const id of never) expect(ids, `${who} pulled ${id}`).not.toContain(id);
      }
      // The author saw the draft and the scheduled post: the delete reaches them, the scheduled post too.
      const forAuthor = (await s.pull('author', authorStart)).items;
      expect(forAuthor.find((i) => i.id === gone.id)).toMatchObject({ deleted: true });
      expect(forAuthor.find((i) => i.id === scheduled.id)?.resource?.status).toBe('SCHEDULED');
      const reader = apply(apply(new Map(), first.items), next.items);
      // Four comments by the author, one of them on the post reverted to draft.
      expect([...reader.keys()].filter((k) => k.startsWith('blogger#comment'))).toHaveLength(3);
      expect(summary(reader)).toEqual(summary(await visibleNow('reader')));
      // The author sees drafts with their status, but no pending comment; the admin sees those too.
      const author = apply(new Map(), (await s.pull('author')).items);
      expect([...author.values()].some((r) => r.status === 'DRAFT')).toBe(true);
      expect([...author.values()].some((r) => r.kind === 'blogger#comment' && /pending/.test(r.content))).toBe(false);
      const admin = apply(new Map(), (await s.pull('admin')).items);
      expect([...admin.values()].filter((r) => r.kind === 'blogger#comment' && r.status === 'PENDING')).toHaveLength(3);
      expect(summary(admin)).toEqual(summary(await visibleNow('admin')));
    });
  });

  describe('retention and long polls', () => {
    it('keeps deletions readable within the retention, and answers 410 once the log no longer reaches back', async () => {
      await s.close();
      s = await startSyncServer({ store, retentionDays: 30 });
      const admin = s.as('admin');
      const post = await admin.posts.insert({ blogId: s.blogId, body: { title: 't', content: 'c' } });
      const { checkpoint } = await s.pull('reader');
      await admin.posts.delete({ blogId: s.blogId, postId: post.id! });
      s.clock.advance(29 * DAY);
      await admin.posts.insert({ blogId: s.blogId, body: { title: 'later', content: 'c' } });
      const within = await s.pull('reader', checkpoint);
      expect(within.items).toContainEqual({ kind: 'blogger#post', id: post.id, deleted: true });

      s.clock.advance(2 * DAY);
      await admin.posts.insert({ blogId: s.blogId, body: { title: 'after the retention', content: 'c' } });
      const old = await s.request('reader', 'GET', `/blogs/${s.blogId}/changes?since=${checkpoint}`);
      expect(old.status).toBe(410);
      expect(old.json!.error.errors[0].reason).toBe('resyncRequired');
      // A fresh pull starts over.
      const fresh = await s.pull('reader');
      expect(fresh.items.map((i) => i.resource.title).sort()).toEqual(['after the retention', 'later']);
      expect((await s.pull('reader', fresh.checkpoint)).items).toEqual([]);
    });

    it('a long poll answers as soon as a write arrives', async () => {
      const { checkpoint } = await s.pull('reader');
      const waiting = s.request('reader', 'GET', `/blogs/${s.blogId}/changes?since=${checkpoint}&wait=30`);
      let answered = false;
      void waiting.then(() => (answered = true));
      await new Promise((r) => setTimeout(r, 200));
      expect(answered).toBe(false);
      // A write to another blog does not answer it.
      const other = await s.service.blogs.insert({
        body: { name: 'Other', url: 'https://other.example/' },
        ownerId: s.users.admin,
      });
      await s.service.posts.insert({ blogId: other.id!, body: { title: 'elsewhere', content: 'c' } });
      await new Promise((r) => setTimeout(r, 1_200));
      expect(answered).toBe(false);
      const post = await s.as('admin').posts.insert({ blogId: s.blogId, body: { title: 'wake up', content: 'c' } });
      const { status, json } = await waiting;
      expect(status).toBe(200);
      expect(json!.items).toEqual([
        { kind: 'blogger#post', id: post.id, resource: expect.objectContaining({ title: 'wake up' }) },
      ]);
      expect(json!.nextPageToken).toBeUndefined();
      expect((await s.pull('reader', json!.checkpoint)).items).toEqual([]);
    });
  });
});
