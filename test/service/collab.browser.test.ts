/**
 * Writing together on real IndexedDB in headless Chromium (the Node suite, collab.test.ts, runs it on
 * fake-indexeddb): random concurrent edits of 2 to 5 writers converge through the service, and the HTML the service
 * renders (with the page's own DOM) is what the writers' documents write.
 */
import fc from 'fast-check';
import { expect, it } from 'vitest';
import * as Y from 'yjs';
import { yXmlFragmentToProseMirrorRootNode } from '@tiptap/y-tiptap';
import { idbDriver } from '../../drivers/idb/index.js';
import { createBlogService } from '../../src/index.js';
import { richSchema, writeHtml } from '../../src/collab/index.js';

const run = `${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`;

const html = (doc: Y.Doc) =>
  writeHtml(richSchema(), yXmlFragmentToProseMirrorRootNode(doc.getXmlFragment('content'), richSchema()), document);

it('converges on Chromium IndexedDB, and the stored post is the HTML the writers show', async () => {
  const service = createBlogService({ driver: idbDriver({ name: `collab-${run}` }) });
  const owner = await service.users.insert({ body: { displayName: 'Ada' } });
  const blog = await service.blogs.insert({ body: { name: 'B', url: 'https://b.example/' }, ownerId: owner.id });
  await fc.assert(
    fc.asyncProperty(
      fc.integer({ min: 2, max: 5 }),
      fc.array(fc.tuple(fc.nat(), fc.nat(), fc.string({ minLength: 1, maxLength: 5 }), fc.boolean()), {
        minLength: 1,
        maxLength: 20,
      }),
      async (count, steps) => {
        const post = await service.posts.insert({
          blogId: blog.id,
          body: { title: 'T', content: '<p>One</p><p>Two</p>' },
        });
        const target = { blogId: blog.id, postId: post.id };
        const docs = Array.from({ length: count }, () => new Y.Doc());
        const positions: string[] = [];
        const outboxes: Uint8Array[][] = docs.map(() => []);
        for (const [i, d] of docs.entries()) {
          const s = await service.collab.open(target);
          Y.applyUpdate(d, s.update, 'remote');
          positions[i] = s.position;
          d.on('update', (u: Uint8Array, origin: unknown) => origin !== 'remote' && outboxes[i]!.push(u));
        }
        const send = async (i: number) => {
          if (outboxes[i]!.length)
            await service.collab.push({ ...target, update: Y.mergeUpdates(outboxes[i]!.splice(0)) });
        };
        const receive = async (i: number) => {
          for (;;) {
            const s = await service.collab.pull({ ...target, since: positions[i]! });
            positions[i] = s.position;
            if (!s.update.byteLength) return;
            Y.applyUpdate(docs[i]!, s.update, 'remote');
          }
        };
        for (const [who, where, text, sync] of steps) {
          const i = who % count;
          const blocks = docs[i]!.getXmlFragment('content').toArray() as Y.XmlElement[];
          const t = blocks[where % blocks.length]!.get(0) as Y.XmlText;
          t.insert(where % (t.length + 1), text);
          if (sync) {
            await send(i);
            await receive(i);
          }
        }
        for (let i = 0; i < count; i++) await send(i);
        for (let i = 0; i < count; i++) await receive(i);
        const expected = html(docs[0]!);
        for (const d of docs) expect(html(d)).toBe(expected);
      },
    ),
    { numRuns: 5 },
  );
  await service.close();
  await new Promise<void>((resolve) => {
    const r = indexedDB.deleteDatabase(`collab-${run}`);
    r.onsuccess = r.onerror = () => resolve();
  });
}, 120_000);

it('renders the shared document into the stored post with the page’s DOM', async () => {
  const service = createBlogService({ driver: idbDriver({ name: `collab-render-${run}` }) });
  const owner = await service.users.insert({ body: { displayName: 'Ada' } });
  const blog = await service.blogs.insert({ body: { name: 'B', url: 'https://b.example/' }, ownerId: owner.id });
  const post = await service.posts.insert({
    blogId: blog.id,
    body: { title: 'T', content: '<p>Hello <i>you</i></p>' },
  });
  const target = { blogId: blog.id, postId: post.id };
  const doc = new Y.Doc();
  Y.applyUpdate(doc, (await service.collab.open(target)).update);
  const sv = Y.encodeStateVector(doc);
  ((doc.getXmlFragment('content').get(0) as Y.XmlElement).get(0) as Y.XmlText).insert(0, 'Oh, ');
  await service.collab.push({ ...target, update: Y.encodeStateAsUpdate(doc, sv) });
  const until = Date.now() + 8_000;
  let content = '';
  while (Date.now() < until && content !== html(doc)) {
    await new Promise((r) => setTimeout(r, 100));
    content = (await service.posts.get({ blogId: blog.id, postId: post.id })).content ?? '';
  }
  expect(content).toBe('<p>Oh, Hello <i>you</i></p>');
  expect(content).toBe(html(doc));
  await service.close();
});
