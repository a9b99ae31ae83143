/**
 * A replica's note on a post, page or comment (docs/design.md §26): every write of the record keeps it, a delete
 * leaves it in `settings` under its own id in the same commit, and it never shows: not on the wire, in events or
 * in an export. On every driver.
 */
import { describe, expect, it } from 'vitest';
import { exportBlog } from '../../src/io/index.js';
import { internalsOf } from '../../src/service/internals.js';
import { put, type Noted, type ReplicaNote } from '../../src/store/records.js';
import { DRIVERS } from '../support/drivers.js';
import { makeComment, makePage, makePost, settle, world, type Wire, type World } from './helpers.js';

const noteOf = (id: string): ReplicaNote => ({ id: `note:${id}`, version: 3, etag: `"e-${id}"`, status: 'LIVE' });

/** Writes a note onto a stored record, as the sync feature does. */
async function noted(w: World, collection: Noted, id: string): Promise<ReplicaNote> {
  const { core } = internalsOf(w.service)!;
  const stored = (await core.driver.get(collection, id))!;
  const note = noteOf(id);
  await core.commit([put(collection, { ...stored.doc, replica: note }, stored)]);
  return note;
}

const stored = async (w: World, collection: Noted | 'settings', id: string) =>
  (await internalsOf(w.service)!.core.driver.get(collection, id))?.doc as Wire | undefined;

const collect = async (it: AsyncIterable<string>) => {
  let text = '';
  for await (const piece of it) text += piece;
  return text;
};

describe.each(DRIVERS)('%s', (_driver, makeDriver) => {
  describe('a replica note', () => {
    it('survives an edit, a publish, a revert, a trash and a new comment; never on the wire, in events or exports', async () => {
      const w = await world(makeDriver());
      const { blogId } = w;
      const post = await makePost(w, 'LIVE', { content: '<p>one</p>' });
      const page = await makePage(w, 'LIVE');
      const note = await noted(w, 'posts', post.id);
      const pageNote = await noted(w, 'pages', page.id);
      await w.author.posts.patch({ blogId, postId: post.id, body: { content: '<p>two</p>' } });
      expect((await stored(w, 'posts', post.id))!.replica).toEqual(note);
      await w.author.posts.revert({ blogId, postId: post.id });
      await w.author.posts.publish({ blogId, postId: post.id });
      await makeComment(w, post.id, 'LIVE');
      await w.author.posts.delete({ blogId, postId: post.id, useTrash: true });
      await w.admin.pages.update({ blogId, pageId: page.id, body: { title: 'Renamed', content: '<p>p</p>' } });
      await w.admin.pages.revert({ blogId, pageId: page.id });
      const after = (await stored(w, 'posts', post.id))!;
      expect(after).toMatchObject({ status: 'SOFT_TRASHED', content: '<p>two</p>', allComments: 1, replica: note });
      expect((await stored(w, 'pages', page.id))!).toMatchObject({ status: 'DRAFT', replica: pageNote });
      await settle();
      const shown = JSON.stringify([
        await w.admin.posts.get({ blogId, postId: post.id, view: 'ADMIN' }),
        await w.admin.pages.get({ blogId, pageId: page.id, view: 'ADMIN' }),
        w.events,
        await collect(exportBlog(w.service, blogId, { format: 'blogcore-json' })),
        await collect(exportBlog(w.service, blogId, { format: 'blogger-atom' })),
        await collect(exportBlog(w.service, blogId, { format: 'wxr' })),
      ]);
      expect(w.events.length).toBeGreaterThan(0);
      expect(shown).not.toContain('note:');
      expect(shown).not.toContain('"replica"');
    });

    it('survives a comment approve, spam and a content removal', async () => {
      const w = await world(makeDriver());
      const { blogId } = w;
      const post = await makePost(w, 'LIVE');
      const comment = await makeComment(w, post.id, 'PENDING');
      const note = await noted(w, 'comments', comment.id);
      await w.admin.comments.approve({ blogId, postId: post.id, commentId: comment.id });
      expect((await stored(w, 'comments', comment.id))!).toMatchObject({ status: 'LIVE', replica: note });
      await w.admin.comments.markAsSpam({ blogId, postId: post.id, commentId: comment.id });
      await w.admin.comments.removeContent({ blogId, postId: post.id, commentId: comment.id });
      expect((await stored(w, 'comments', comment.id))!).toMatchObject({ status: 'EMPTIED', replica: note });
      const shown = JSON.stringify(await w.admin.comments.get({ blogId, postId: post.id, commentId: comment.id }));
      expect(shown).not.toContain('note:');
    });

    it('a delete leaves it in settings under its own id: a post with its comments, a page, a comment', async () => {
      const w = await world(makeDriver());
      const { blogId } = w;
      const post = await makePost(w, 'LIVE');
      const page = await makePage(w, 'LIVE');
      const [c1, c2, c3] = [
        await makeComment(w, post.id, 'LIVE'),
        await makeComment(w, post.id, 'LIVE'),
        await makeComment(w, post.id, 'LIVE'),
      ];
      const notes = {
        post: await noted(w, 'posts', post.id),
        page: await noted(w, 'pages', page.id),
        c1: await noted(w, 'comments', c1!.id),
        c2: await noted(w, 'comments', c2!.id),
      };
      await w.admin.comments.delete({ blogId, postId: post.id, commentId: c1!.id });
      expect(await stored(w, 'comments', c1!.id)).toBeUndefined();
      expect(await stored(w, 'settings', notes.c1.id)).toEqual(notes.c1);
      await w.admin.pages.delete({ blogId, pageId: page.id });
      expect(await stored(w, 'settings', notes.page.id)).toEqual(notes.page);
      // A settings record already there (a replica's newer base) is kept as it is: the add creates, never writes over.
      const { core } = internalsOf(w.service)!;
      const newer = { ...notes.post, version: 9 };
      await core.commit([put('settings', newer, 0)]);
      await w.author.posts.delete({ blogId, postId: post.id });
      expect(await stored(w, 'posts', post.id)).toBeUndefined();
      expect(await stored(w, 'settings', notes.post.id)).toEqual(newer);
      // The post's comments went with it, and the noted one left its note.
      expect(await stored(w, 'comments', c2!.id)).toBeUndefined();
      expect(await stored(w, 'settings', notes.c2.id)).toEqual(notes.c2);
      expect(await stored(w, 'comments', c3!.id)).toBeUndefined();
    });

    it('is kept by the put of any write, whatever the write path builds', async () => {
      const w = await world(makeDriver());
      const post = await makePost(w, 'LIVE');
      const note = await noted(w, 'posts', post.id);
      const { core } = internalsOf(w.service)!;
      const s = (await core.driver.get('posts', post.id))!;
      // A record built from scratch (no spread of the stored one) over the stored record.
      const { replica: _r, ...bare } = s.doc;
      await core.commit([put('posts', { ...bare, title: 'Built anew' }, s)]);
      expect((await stored(w, 'posts', post.id))!).toMatchObject({ title: 'Built anew', replica: note });
      // The note's owner drops it by naming none.
      const again = (await core.driver.get('posts', post.id))!;
      await core.commit([put('posts', { ...again.doc, replica: undefined }, again)]);
      expect((await stored(w, 'posts', post.id))!.replica).toBeUndefined();
    });
  });
});
