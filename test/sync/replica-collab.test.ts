/**
 * Writing together offline (docs/collab.md): two replicas on one post, each editor bound to the server and to its
 * local store; both go offline, both type 200 characters into the same paragraph, both come back and sync: every
 * character of both is in the server's document and its rendered HTML, with no conflict record, and a later
 * editor sees the same.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import * as Y from 'yjs';
import { httpChannel, joinCollab, serviceChannel } from '../../src/collab/index.js';
import { closedAfterEach, opener, serverFor, SETUPS } from './replicas.js';
import type { SyncServer } from './server.js';
import type { TestReplica } from './replicas.js';

let s: SyncServer;
const opened = closedAfterEach(() => s);

const paragraph = (doc: Y.Doc) => (doc.getXmlFragment('content').get(0) as Y.XmlElement).get(0) as Y.XmlText;

describe.each(SETUPS)('shared documents offline: local store on $local, server on $store', ({ local: kind, store }) => {
  beforeEach(async () => {
    s = await serverFor(store);
  });
  const open = opener(opened, () => s, kind);

  /** An editor as the example runs it online: one document kept in step with the server and the local store. */
  async function editOnline(r: TestReplica, who: string, target: { blogId: string; postId: string }) {
    const doc = new Y.Doc();
    const remote = await joinCollab(
      httpChannel({ baseUrl: s.api, headers: { authorization: `Bearer ${who}` }, fetch: r.net.fetch }, target),
      { doc, wait: 1_000 },
    );
    const here = await joinCollab(serviceChannel(r.local.collab, target), { doc, wait: 1_000 });
    await Promise.all([remote.opened, here.opened]);
    await Promise.all([remote.flush(), here.flush()]);
    return { doc, remote, here };
  }

  it('two authors type 200 characters each offline; on sync nothing is lost and no conflict is recorded', async () => {
    const post = await s
      .as('author')
      .posts.insert({ blogId: s.blogId, body: { title: 'Train', content: '<p>Start.</p>' } });
    const target = { blogId: s.blogId, postId: post.id! };
    const a = open('author');
    const b = open('admin');
    await a.replica.sync();
    await b.replica.sync();
    // Both open the post together while online: their local stores now hold the shared document.
    for (const [r, who] of [
      [a, 'author'],
      [b, 'admin'],
    ] as const) {
      const e = await editOnline(r, who, target);
      expect(paragraph(e.doc).toString()).toBe('Start.');
      await e.remote.close();
      await e.here.close();
    }

    // On the train: no network; each editor works on its local store alone.
    a.net.offline = true;
    b.net.offline = true;
    const typed = { a: 'a'.repeat(100) + 'A'.repeat(100), b: 'b'.repeat(100) + 'B'.repeat(100) };
    for (const [r, text] of [
      [a, typed.a],
      [b, typed.b],
    ] as const) {
      const doc = new Y.Doc();
      const here = await joinCollab(serviceChannel(r.local.collab, target), { doc, wait: 500 });
      await here.opened;
      // Typed one character at a time, at the end of the paragraph.
      for (const ch of text) paragraph(doc).insert(paragraph(doc).length, ch);
      await here.flush();
      await here.close();
    }
    await expect(a.replica.sync()).rejects.toThrow();

    // Back online: each sync sends what the server lacks.
    a.net.offline = false;
    b.net.offline = false;
    const first = await a.replica.sync();
    const second = await b.replica.sync();
    expect(first.conflicts + second.conflicts).toBe(0);
    expect(await a.replica.conflicts()).toEqual([]);
    expect(await b.replica.conflicts()).toEqual([]);

    const server = new Y.Doc();
    Y.applyUpdate(server, (await s.as('admin').collab.open(target)).update);
    const merged = paragraph(server).toString();
    expect(merged.length).toBe('Start.'.length + 400);
    expect(merged).toContain(typed.a);
    expect(merged).toContain(typed.b);

    // The server renders it into the post (≤ 2 s); the replicas pull that like any edit.
    const until = Date.now() + 8_000;
    let content = '';
    while (Date.now() < until) {
      content = (await s.as('admin').posts.get({ blogId: s.blogId, postId: post.id! })).content ?? '';
      if (content.includes(typed.a) && content.includes(typed.b)) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(content).toContain(typed.a);
    expect(content).toContain(typed.b);
    await a.replica.sync();
    const here = await a.local.posts.get({ blogId: s.blogId, postId: post.id!, view: 'AUTHOR' });
    expect(here.content).toBe(content);
    expect(await a.replica.pending()).toEqual([]);
    expect(await a.replica.conflicts()).toEqual([]);
  }, 60_000);
});
