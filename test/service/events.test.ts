/**
 * Events (decisions file): `{ type, blogId, id, actorId, resource }` after each successful write, with the
 * resource at ADMIN view; typed and '*' listeners; unsubscribe; nothing on refused writes.
 */
import { describe, expect, it } from 'vitest';
import {
  HOUR,
  catchError,
  makeComment,
  makePage,
  makePost,
  newService,
  settle,
  world,
  type Wire,
  type World,
} from './helpers.js';
import { DRIVERS } from '../support/drivers.js';

/** Runs `fn` and returns the events it caused. */
async function eventsOf(w: World, fn: () => Promise<unknown>): Promise<Wire[]> {
  await settle();
  const from = w.events.length;
  await fn();
  await settle();
  return w.events.slice(from);
}
const types = (events: Wire[]) => events.map((e) => e.type);

describe.each(DRIVERS)('%s', (_driver, makeDriver) => {
  describe('event types and payloads', () => {
    it('user.inserted, blog.inserted, member.set, member.removed', async () => {
      const service = newService(makeDriver());
      await service.ready();
      const events: Wire[] = [];
      service.on('*', (e: unknown) => {
        events.push(e as Wire);
      });
      await service.users.insert({ body: { id: 'u1', displayName: 'One' } });
      await service.users.insert({ body: { id: 'u2', displayName: 'Two' } });
      await settle();
      expect(types(events)).toEqual(['user.inserted', 'user.inserted']);
      expect(events[0]).toMatchObject({ type: 'user.inserted', id: 'u1' });
      expect(events[0]!.resource).toMatchObject({ kind: 'blogger#user', id: 'u1', displayName: 'One' });

      events.length = 0;
      const blog = (await service
        .as({ userId: 'u1' })
        .blogs.insert({ body: { name: 'B', url: 'https://b.example.test/' } })) as Wire;
      await settle();
      const blogEvents = events.filter((e) => e.type === 'blog.inserted');
      expect(blogEvents).toHaveLength(1);
      expect(blogEvents[0]).toMatchObject({ type: 'blog.inserted', blogId: blog.id, id: blog.id, actorId: 'u1' });
      expect(blogEvents[0]!.resource).toMatchObject({ kind: 'blogger#blog', id: blog.id, name: 'B' });

      events.length = 0;
      await service.as({ userId: 'u1' }).members.set({ blogId: blog.id, userId: 'u2', role: 'AUTHOR' });
      await service.as({ userId: 'u1' }).members.remove({ blogId: blog.id, userId: 'u2' });
      await settle();
      expect(types(events)).toEqual(['member.set', 'member.removed']);
      for (const e of events) {
        expect(e.blogId).toBe(blog.id);
        expect(e.actorId).toBe('u1');
        // The event names the member it is about.
        expect(JSON.stringify([e.id, e.resource])).toContain('u2');
      }
    });

    it('post events: inserted (+ published when LIVE), updated, published, reverted, trashed, deleted', async () => {
      const w = await world(makeDriver());
      const b = w.blogId;
      let id = '';
      const ins = await eventsOf(w, async () => {
        id = ((await w.author.posts.insert({ blogId: b, body: { title: 'Evented', content: 'c' } })) as Wire).id;
      });
      expect(types(ins)).toEqual(['post.inserted', 'post.published']);
      for (const e of ins) {
        expect(e).toMatchObject({ blogId: b, id, actorId: 'author' });
        // The resource is at ADMIN view: status shows.
        expect(e.resource).toMatchObject({ kind: 'blogger#post', id, status: 'LIVE', title: 'Evented' });
      }

      const draftIns = await eventsOf(w, () =>
        w.author.posts.insert({ blogId: b, body: { title: 'D', content: 'c' }, isDraft: true }),
      );
      expect(types(draftIns)).toEqual(['post.inserted']);
      expect(draftIns[0]!.resource.status).toBe('DRAFT');

      const upd = await eventsOf(w, () =>
        w.author.posts.patch({ blogId: b, postId: id, body: { title: 'Evented 2' } }),
      );
      expect(types(upd)).toEqual(['post.updated']);
      expect(upd[0]!.resource).toMatchObject({ id, title: 'Evented 2', status: 'LIVE' });
      const put = await eventsOf(w, () =>
        w.author.posts.update({ blogId: b, postId: id, body: { title: 'Evented 3', content: 'c' } }),
      );
      expect(types(put)).toEqual(['post.updated']);

      const rev = await eventsOf(w, () => w.author.posts.revert({ blogId: b, postId: id }));
      expect(types(rev)).toEqual(['post.reverted']);
      expect(rev[0]!.resource.status).toBe('DRAFT');
      const pub = await eventsOf(w, () => w.admin.posts.publish({ blogId: b, postId: id }));
      expect(types(pub)).toEqual(['post.published']);
      expect(pub[0]).toMatchObject({ id, actorId: 'admin' });
      expect(pub[0]!.resource.status).toBe('LIVE');

      const trash = await eventsOf(w, () => w.author.posts.delete({ blogId: b, postId: id, useTrash: true }));
      expect(types(trash)).toEqual(['post.trashed']);
      expect(trash[0]!.resource.status).toBe('SOFT_TRASHED');
      const del = await eventsOf(w, () => w.author.posts.delete({ blogId: b, postId: id }));
      expect(types(del)).toEqual(['post.deleted']);
      expect(del[0]).toMatchObject({ type: 'post.deleted', blogId: b, id, actorId: 'author' });
    });

    it('update with publish: true or revert: true reports the transition', async () => {
      const w = await world(makeDriver());
      const d = await makePost(w, 'DRAFT');
      const pub = await eventsOf(w, () =>
        w.author.posts.patch({ blogId: w.blogId, postId: d.id, body: { title: 'x' }, publish: true }),
      );
      expect(types(pub)).toContain('post.published');
      expect(pub.at(-1)!.resource.status).toBe('LIVE');
      const rev = await eventsOf(w, () =>
        w.author.posts.update({ blogId: w.blogId, postId: d.id, body: { title: 'y', content: 'c' }, revert: true }),
      );
      expect(types(rev)).toContain('post.reverted');
      expect(types(rev)).not.toContain('post.published');
    });

    it('a scheduled post emits post.inserted at insert and post.published once when it goes LIVE', async () => {
      const w = await world(makeDriver());
      const ins = await eventsOf(w, () =>
        w.author.posts.insert({ blogId: w.blogId, body: { title: 'S', content: 'c', published: w.clock.iso(HOUR) } }),
      );
      expect(types(ins)).toEqual(['post.inserted']);
      expect(ins[0]!.resource.status).toBe('SCHEDULED');
      w.clock.advance(HOUR + 1);
      const went = await eventsOf(w, async () => {
        await w.anon.posts.list({ blogId: w.blogId });
        await w.anon.posts.list({ blogId: w.blogId });
        await w.anon.posts.get({ blogId: w.blogId, postId: ins[0]!.id });
      });
      expect(types(went)).toEqual(['post.published']);
      expect(went[0]!.id).toBe(ins[0]!.id);
      expect(went[0]!.resource.status).toBe('LIVE');
    });

    it('page events', async () => {
      const w = await world(makeDriver());
      const b = w.blogId;
      let id = '';
      const ins = await eventsOf(w, async () => {
        id = ((await w.admin.pages.insert({ blogId: b, body: { title: 'P', content: 'c' }, isDraft: true })) as Wire)
          .id;
      });
      expect(types(ins)).toEqual(['page.inserted']);
      expect(ins[0]).toMatchObject({ blogId: b, id, actorId: 'admin' });
      expect(ins[0]!.resource).toMatchObject({ kind: 'blogger#page', status: 'DRAFT' });
      expect(
        types(await eventsOf(w, () => w.admin.pages.patch({ blogId: b, pageId: id, body: { title: 'Q' } }))),
      ).toEqual(['page.updated']);
      const pub = await eventsOf(w, () => w.admin.pages.publish({ blogId: b, pageId: id }));
      expect(types(pub)).toEqual(['page.published']);
      expect(pub[0]!.resource.status).toBe('LIVE');
      expect(types(await eventsOf(w, () => w.admin.pages.revert({ blogId: b, pageId: id })))).toEqual([
        'page.reverted',
      ]);
      expect(types(await eventsOf(w, () => w.admin.pages.delete({ blogId: b, pageId: id, useTrash: true })))).toEqual([
        'page.trashed',
      ]);
      const del = await eventsOf(w, () => w.admin.pages.delete({ blogId: b, pageId: id }));
      expect(types(del)).toEqual(['page.deleted']);
      expect(del[0]).toMatchObject({ blogId: b, id });
    });

    it('comment events, with the resource at ADMIN view even for a reader', async () => {
      const w = await world(makeDriver());
      const b = w.blogId;
      const post = await makePost(w, 'LIVE');
      let id = '';
      const ins = await eventsOf(w, async () => {
        const c = (await w.reader.comments.insert({ blogId: b, postId: post.id, body: { content: 'hello' } })) as Wire;
        expect(c.status).toBeUndefined();
        id = c.id;
      });
      expect(types(ins)).toEqual(['comment.inserted']);
      expect(ins[0]).toMatchObject({ blogId: b, id, actorId: 'reader' });
      expect(ins[0]!.resource).toMatchObject({ kind: 'blogger#comment', id, status: 'PENDING', content: 'hello' });
      const k = { blogId: b, postId: post.id as string, commentId: id };
      const ap = await eventsOf(w, () => w.admin.comments.approve(k));
      expect(types(ap)).toEqual(['comment.approved']);
      expect(ap[0]).toMatchObject({ id, actorId: 'admin' });
      expect(ap[0]!.resource.status).toBe('LIVE');
      const sp = await eventsOf(w, () => w.admin.comments.markAsSpam(k));
      expect(types(sp)).toEqual(['comment.spam']);
      expect(sp[0]!.resource.status).toBe('SPAM');
      const rc = await eventsOf(w, () => w.admin.comments.removeContent(k));
      expect(types(rc)).toEqual(['comment.contentRemoved']);
      expect(rc[0]!.resource).toMatchObject({ status: 'EMPTIED', content: '' });
      const del = await eventsOf(w, () => w.admin.comments.delete(k));
      expect(types(del)).toEqual(['comment.deleted']);
      expect(del[0]).toMatchObject({ blogId: b, id });
    });
  });

  describe('listeners', () => {
    it('a typed listener gets only its type; "*" gets all; each unsubscribes on its own', async () => {
      const w = await world(makeDriver());
      const typed: string[] = [];
      const all: string[] = [];
      const offTyped = w.service.on('post.updated', (e) => {
        typed.push(e.type);
      });
      const offAll = w.service.on('*', (e) => {
        all.push(e.type);
      });
      const p = await makePost(w, 'DRAFT');
      await w.author.posts.patch({ blogId: w.blogId, postId: p.id, body: { title: 'a' } });
      await settle();
      expect(typed).toEqual(['post.updated']);
      expect(all).toEqual(['post.inserted', 'post.updated']);
      offTyped();
      await w.author.posts.patch({ blogId: w.blogId, postId: p.id, body: { title: 'b' } });
      await settle();
      expect(typed).toEqual(['post.updated']);
      expect(all).toEqual(['post.inserted', 'post.updated', 'post.updated']);
      offAll();
      await w.author.posts.patch({ blogId: w.blogId, postId: p.id, body: { title: 'c' } });
      await settle();
      expect(all).toHaveLength(3);
      // The world's own listener still hears everything.
      expect(types(w.events).filter((t) => t === 'post.updated')).toHaveLength(3);
    });

    it('listeners on a scoped service hear writes made through any scope of the same service', async () => {
      const w = await world(makeDriver());
      const heard: string[] = [];
      const off = w.author.on('comment.inserted', (e) => {
        heard.push(e.id);
      });
      const p = await makePost(w, 'LIVE');
      const c = (await w.anon.comments.insert({ blogId: w.blogId, postId: p.id, body: { content: 'x' } })) as Wire;
      await settle();
      expect(heard).toEqual([c.id]);
      off();
    });
  });

  describe('no event on a refused write', () => {
    it('403, 404, 409, 412 and 400 refusals emit nothing', async () => {
      const w = await world(makeDriver());
      const b = w.blogId;
      const live = await makePost(w, 'LIVE');
      const trashed = await makePost(w, 'SOFT_TRASHED');
      const page = await makePage(w, 'LIVE');
      const emptied = await makeComment(w, live.id, 'EMPTIED');
      const stale = ((await w.author.posts.get({ blogId: b, postId: live.id })) as Wire).etag as string;
      await w.author.posts.patch({ blogId: b, postId: live.id, body: { title: 'fresh' } });
      const refused = await eventsOf(w, async () => {
        const codes = [
          await catchError(() => w.reader.posts.insert({ blogId: b, body: { title: 't', content: 'c' } })),
          await catchError(() => w.author2.posts.patch({ blogId: b, postId: live.id, body: { title: 'x' } })),
          await catchError(() => w.author.pages.insert({ blogId: b, body: { title: 't' } })),
          await catchError(() => w.author.comments.approve({ blogId: b, postId: live.id, commentId: emptied.id })),
          await catchError(() => w.anon.posts.delete({ blogId: b, postId: live.id })),
          await catchError(() => w.service.posts.patch({ blogId: b, postId: 'nope', body: { title: 'x' } })),
          await catchError(() => w.service.posts.patch({ blogId: b, postId: trashed.id, body: { title: 'x' } })),
          await catchError(() =>
            w.service.posts.publish({ blogId: b, postId: live.id, publishDate: w.clock.iso(HOUR) }),
          ),
          await catchError(() => w.service.comments.approve({ blogId: b, postId: live.id, commentId: emptied.id })),
          await catchError(() =>
            w.author.posts.patch({ blogId: b, postId: live.id, body: { title: 'x' }, ifMatch: stale }),
          ),
          await catchError(() => w.admin.pages.delete({ blogId: b, pageId: page.id, ifMatch: '"nope"' })),
          await catchError(() => w.author.posts.insert({ blogId: b, body: { title: 42 } as any })),
          await catchError(() => w.service.members.remove({ blogId: b, userId: 'admin' })),
          await catchError(() => w.anon.comments.insert({ blogId: b, postId: trashed.id, body: { content: 'x' } })),
        ].map((e) => e.code);
        expect(codes).toEqual([403, 403, 403, 403, 403, 404, 409, 409, 409, 412, 412, 400, 409, 404]);
      });
      expect(refused).toEqual([]);
    });

    it('a no-op publish of a LIVE post or page emits nothing', async () => {
      const w = await world(makeDriver());
      const p = await makePost(w, 'LIVE');
      const page = await makePage(w, 'LIVE');
      expect(await eventsOf(w, () => w.author.posts.publish({ blogId: w.blogId, postId: p.id }))).toEqual([]);
      expect(await eventsOf(w, () => w.admin.pages.publish({ blogId: w.blogId, pageId: page.id }))).toEqual([]);
    });
  });
});
