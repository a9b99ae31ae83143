/**
 * Writing together (docs/collab.md) on every driver: documents made from the stored HTML, random concurrent
 * edits from 2–5 writers converging through the service, the HTML rendered back through the normal write path,
 * a change made elsewhere reaching open documents, compaction keeping the document small, and who may take part.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import * as Y from 'yjs';
import { yXmlFragmentToProseMirrorRootNode } from '@tiptap/y-tiptap';
import { DRIVERS } from '../support/drivers.js';
import { Awareness, applyAwarenessUpdate, encodeAwarenessUpdate } from 'y-protocols/awareness';
import { memoryDriver } from '../../drivers/memory/index.js';
import {
  expectError,
  getPost,
  makePage,
  makePost,
  newService,
  USERS,
  world,
  type Driver,
  type Service,
  type World,
} from './helpers.js';
import type { WriteOp } from '../../src/store/driver.js';
import { htmlDocument } from '../../src/collab/document.js';
import { richSchema, writeHtml } from '../../src/collab/index.js';

type Target = { blogId: string; postId: string };

/** One writer: a Yjs document kept in step with the service by open, push and pull. */
class Writer {
  readonly doc = new Y.Doc();
  position = '0';
  private outbox: Uint8Array[] = [];
  constructor(
    readonly service: Service,
    readonly target: Target,
  ) {
    this.doc.on('update', (u: Uint8Array, origin: unknown) => {
      if (origin !== 'remote') this.outbox.push(u);
    });
  }
  async open(): Promise<void> {
    const s = await this.service.collab.open(this.target);
    Y.applyUpdate(this.doc, s.update, 'remote');
    this.position = s.position;
  }
  async push(): Promise<void> {
    if (this.outbox.length === 0) return;
    const update = Y.mergeUpdates(this.outbox.splice(0));
    await this.service.collab.push({ ...this.target, update });
  }
  async pull(wait?: number): Promise<Uint8Array> {
    const s = await this.service.collab.pull({ ...this.target, since: this.position, ...(wait ? { wait } : {}) });
    if (s.update.byteLength) Y.applyUpdate(this.doc, s.update, 'remote');
    this.position = s.position;
    return s.update;
  }
  /** Pulls until nothing is new. */
  async catchUp(): Promise<void> {
    while ((await this.pull()).byteLength > 0);
  }
  get content(): Y.XmlFragment {
    return this.doc.getXmlFragment('content');
  }
  async html(): Promise<string> {
    const node = yXmlFragmentToProseMirrorRootNode(this.content, richSchema());
    return writeHtml(richSchema(), node, await htmlDocument());
  }
}

/** A random edit of a writer's document: typing or deleting in a paragraph or the title, or a new paragraph. */
type Edit = { at: number; where: number; op: 'type' | 'delete' | 'paragraph' | 'title'; text: string; length: number };
const edit = fc.record({
  at: fc.nat(),
  where: fc.nat(),
  op: fc.constantFrom('type', 'type', 'delete', 'paragraph', 'title'),
  text: fc.string({ minLength: 1, maxLength: 6, unit: fc.constantFrom('a', 'b', 'é', ' ', '日', 'z') }),
  length: fc.integer({ min: 1, max: 4 }),
}) as fc.Arbitrary<Edit>;

function apply(w: Writer, e: Edit): void {
  const blocks = w.content.toArray().filter((n): n is Y.XmlElement => n instanceof Y.XmlElement);
  if (e.op === 'title') {
    const t = w.doc.getText('title');
    t.insert(e.where % (t.length + 1), e.text);
    return;
  }
  if (e.op === 'paragraph' || blocks.length === 0) {
    const p = new Y.XmlElement('paragraph');
    p.insert(0, [new Y.XmlText(e.text)]);
    w.content.insert(e.at % (w.content.length + 1), [p]);
    return;
  }
  const block = blocks[e.at % blocks.length]!;
  const text = block.toArray().find((n): n is Y.XmlText => n instanceof Y.XmlText);
  if (!text) return;
  if (e.op === 'type') text.insert(e.where % (text.length + 1), e.text);
  else if (text.length > 0) {
    const from = e.where % text.length;
    text.delete(from, Math.min(e.length, text.length - from));
  }
}

/** Waits (a few seconds at most) until the stored post shows `expected`. */
async function rendered(w: World, postId: string, expected: { title: string; content: string }): Promise<void> {
  const until = Date.now() + 8_000;
  let post = await getPost(w, postId);
  while ((post.content !== expected.content || post.title !== expected.title) && Date.now() < until) {
    await new Promise((r) => setTimeout(r, 100));
    post = await getPost(w, postId);
  }
  expect({ title: post.title, content: post.content }).toEqual(expected);
}

/**
 * A driver that lets a test hold one call until another lands: `hold(match)` makes the next call `match` picks
 * wait (before it reaches the store) until `release()`; `landed(match)` resolves once a commit `match` picks is done.
 * How a race between a push or open and a render is made to happen every time instead of once in a while.
 */
function racingDriver(inner: Driver) {
  type Hold = { match: (call: string, args: unknown[]) => boolean; gate: Promise<void>; reached: () => void };
  const holds: Hold[] = [];
  const watchers: { match: (ops: readonly WriteOp[]) => boolean; done: () => void }[] = [];
  const driver = new Proxy(inner, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver);
      if (typeof value !== 'function') return value;
      return async (...args: unknown[]) => {
        const i = holds.findIndex((h) => h.match(String(prop), args));
        if (i >= 0) {
          const [h] = holds.splice(i, 1);
          h!.reached();
          await h!.gate;
        }
        const result = await value.apply(target, args);
        if (prop === 'commit') {
          for (const w of watchers.splice(0)) {
            if (w.match(args[0] as WriteOp[])) w.done();
            else watchers.push(w);
          }
        }
        return result;
      };
    },
  });
  return {
    driver,
    /** Holds the next call `match` picks; answers when it is reached, and how to let it go on. */
    hold(match: Hold['match']) {
      let release!: () => void;
      let reached!: () => void;
      const gate = new Promise<void>((r) => (release = r));
      const at = new Promise<void>((r) => (reached = r));
      holds.push({ match, gate, reached });
      return { reached: at, release };
    },
    landed(match: (ops: readonly WriteOp[]) => boolean) {
      return new Promise<void>((done) => watchers.push({ match, done }));
    },
  };
}
const rendersPost = (ops: readonly WriteOp[]) => ops.some((o) => o.type === 'put' && o.collection === 'posts');
const compacts = (ops: readonly WriteOp[]) => ops.some((o) => o.type === 'delete' && o.collection === 'collabUpdates');

describe.each(DRIVERS)('collab on %s', (name, makeDriver) => {
  it('makes the document from the stored HTML and renders edits back through the normal write path', async () => {
    const w = await world(makeDriver());
    const post = await makePost(w, 'LIVE', { title: 'Hello', content: '<p>One <b>two</b></p><p>Three</p>' });
    const target = { blogId: w.blogId, postId: post.id };
    const a = new Writer(w.author, target);
    await a.open();
    expect(a.doc.getText('title').toString()).toBe('Hello');
    expect(await a.html()).toBe('<p>One <b>two</b></p>\n<p>Three</p>');
    const para = a.content.get(1) as Y.XmlElement;
    (para.get(0) as Y.XmlText).insert(5, ' and four');
    a.doc.getText('title').insert(5, ' there');
    await a.push();
    await rendered(w, post.id, { title: 'Hello there', content: '<p>One <b>two</b></p>\n<p>Three and four</p>' });
    const after = await getPost(w, post.id);
    expect(after.etag).not.toBe(post.etag);
    expect(w.events.some((e) => e.type === 'post.updated' && e.id === post.id)).toBe(true);
    // The earlier text is a revision, as after any edit.
    const revisions = await w.author.posts.revisions.list({ blogId: w.blogId, postId: post.id });
    expect(revisions.items.some((r: { content?: string }) => r.content === post.content)).toBe(true);
  });

  it('converges: random concurrent edits of 2 to 5 writers end in one document and its HTML', async () => {
    const w = await world(makeDriver());
    const runs = name === 'memory' ? 12 : 4;
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 2, max: 5 }),
        fc.array(fc.tuple(fc.nat(), edit, fc.constantFrom('none', 'push', 'sync')), { minLength: 1, maxLength: 25 }),
        async (count, steps) => {
          const post = await makePost(w, 'DRAFT', { title: 'Together', content: '<p>Start</p>' });
          const target = { blogId: w.blogId, postId: post.id };
          // The author and the admin both write: the post's AUTHOR and the blog's ADMINs may.
          const writers = Array.from({ length: count }, (_, i) => new Writer(i % 2 ? w.admin : w.author, target));
          for (const wr of writers) await wr.open();
          for (const [who, e, then] of steps) {
            const wr = writers[who % count]!;
            apply(wr, e);
            if (then !== 'none') await wr.push();
            if (then === 'sync') await wr.catchUp();
          }
          for (const wr of writers) await wr.push();
          for (const wr of writers) await wr.catchUp();
          const title = writers[0]!.doc.getText('title').toString();
          const html = await writers[0]!.html();
          for (const wr of writers.slice(1)) {
            expect(wr.doc.getText('title').toString()).toBe(title);
            expect(await wr.html()).toBe(html);
          }
          // A writer arriving now sees the same.
          const late = new Writer(w.admin, target);
          await late.open();
          expect(await late.html()).toBe(html);
          expect(late.doc.getText('title').toString()).toBe(title);
        },
      ),
      { numRuns: runs },
    );
  }, 120_000);

  it('the rendered HTML is what the writers show, and a change made elsewhere reaches open documents', async () => {
    const w = await world(makeDriver());
    const post = await makePost(w, 'LIVE', { title: 'T', content: '<p>Alpha</p><ul><li><p>one</p></li></ul>' });
    const target = { blogId: w.blogId, postId: post.id };
    const a = new Writer(w.author, target);
    const b = new Writer(w.admin, target);
    await a.open();
    await b.open();
    ((a.content.get(0) as Y.XmlElement).get(0) as Y.XmlText).insert(5, ' beta');
    await a.push();
    await b.catchUp();
    await rendered(w, post.id, { title: 'T', content: await b.html() });

    // Google's client (or an import, or a revert) changes the content over the API.
    const current = await getPost(w, post.id);
    await w.admin.posts.patch({
      blogId: w.blogId,
      postId: post.id,
      body: { content: `${current.content}\n<p>From elsewhere</p>` },
    });
    const waiting = b.pull(5_000);
    const update = await waiting;
    expect(update.byteLength).toBeGreaterThan(0);
    expect(await b.html()).toContain('<p>From elsewhere</p>');
    await a.catchUp();
    expect(await a.html()).toBe(await b.html());
    // Edits go on from there: the outside paragraph stays.
    ((a.content.get(0) as Y.XmlElement).get(0) as Y.XmlText).insert(0, '> ');
    await a.push();
    await b.catchUp();
    await rendered(w, post.id, { title: 'T', content: await b.html() });
    expect((await getPost(w, post.id)).content).toContain('From elsewhere');
  });

  it('a pull waits for the next push and wakes with it', async () => {
    const w = await world(makeDriver());
    const post = await makePost(w, 'LIVE', { content: '<p>x</p>' });
    const target = { blogId: w.blogId, postId: post.id };
    const a = new Writer(w.author, target);
    const b = new Writer(w.author, target);
    await a.open();
    await b.open();
    const started = Date.now();
    const waiting = b.pull(10_000);
    await new Promise((r) => setTimeout(r, 50));
    ((a.content.get(0) as Y.XmlElement).get(0) as Y.XmlText).insert(1, 'y');
    await a.push();
    expect((await waiting).byteLength).toBeGreaterThan(0);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(await b.html()).toBe('<p>xy</p>');
    // Nothing new: an empty answer at the same position.
    const before = b.position;
    expect((await b.pull()).byteLength).toBe(0);
    expect(b.position).toBe(before);
  });

  it('a push reaches the pulls waiting on this service from memory: waking them reads nothing from the store', async () => {
    // What a pull reads of the store for pushes: a walk of the document's stream and the pushes it names.
    let walks = 0;
    const inner = makeDriver();
    const driver = new Proxy(inner, {
      get(target, prop, receiver) {
        const value = Reflect.get(target, prop, receiver);
        if (prop === 'streamChanges' || prop === 'getMany') {
          return (...args: unknown[]) => {
            if (String(args[0]).endsWith('~collab') || args[0] === 'collabUpdates') walks++;
            return (value as (...a: unknown[]) => unknown).apply(target, args);
          };
        }
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const w = await world(driver);
    const post = await makePost(w, 'LIVE', { content: '<p>x</p>' });
    const target = { blogId: w.blogId, postId: post.id };
    const a = new Writer(w.author, target);
    const readers = [new Writer(w.author, target), new Writer(w.admin, target), new Writer(w.admin, target)];
    for (const x of [a, ...readers]) await x.open();
    const text = () => (a.content.get(0) as Y.XmlElement).get(0) as Y.XmlText;
    for (let i = 0; i < 3; i++) {
      const waiting = readers.map((x) => x.pull(10_000));
      await new Promise((r) => setTimeout(r, 50));
      text().insert(1, String(i));
      walks = 0;
      await a.push();
      await Promise.all(waiting);
      expect(walks).toBe(0);
      for (const x of readers) expect(await x.html()).toBe(await a.html());
    }
  });

  it('compaction keeps the document within 3× the HTML after a session of typing and taking back', async () => {
    const w = await world(makeDriver());
    const post = await makePost(w, 'LIVE', { content: '<p>Start here.</p>' });
    const target = { blogId: w.blogId, postId: post.id };
    const a = new Writer(w.author, target);
    await a.open();
    const text = (a.content.get(0) as Y.XmlElement).get(0) as Y.XmlText;
    // 400 keystrokes at one place, each pushed as typed: words, and every seventh word a typo taken back.
    for (let i = 0, word = 0; i < 400; word++) {
      for (const ch of ` word${word}`) {
        text.insert(text.length, ch);
        await a.push();
        i++;
      }
      if (word % 7 === 6) {
        text.delete(text.length - 3, 3);
        await a.push();
        text.insert(text.length, 'xyz');
        await a.push();
        i += 2;
      }
    }
    await a.catchUp();
    const html = await a.html();
    await rendered(w, post.id, { title: post.title, content: html });
    const stored = await w.driver.get('collabDocs', `post:${post.id}`);
    const state = Buffer.from(String(stored!.doc.state), 'base64');
    const left = await w.driver.list({
      collection: 'collabUpdates',
      index: 'doc',
      prefix: [`post:${post.id}`],
      direction: 'asc',
      limit: 1000,
    });
    const bytes = state.byteLength + left.reduce((n, u) => n + Buffer.from(String(u.doc.update), 'base64').length, 0);
    expect(left.length).toBeLessThan(64);
    expect(bytes).toBeLessThanOrEqual(3 * Buffer.byteLength(html));
    // And it is still the same document for a newcomer.
    const late = new Writer(w.author, target);
    await late.open();
    expect(await late.html()).toBe(html);
  }, 60_000);

  it('a push that meets a render never takes the rendered text for a change made elsewhere', async () => {
    const race = racingDriver(makeDriver());
    const w = await world(race.driver);
    const post = await makePost(w, 'LIVE', { content: '<p>x</p>' });
    const target = { blogId: w.blogId, postId: post.id };
    const a = new Writer(w.author, target);
    await a.open();
    const text = (a.content.get(0) as Y.XmlElement).get(0) as Y.XmlText;
    text.insert(1, 'a');
    await a.push();
    // The next push has read the post; the render of the first lands before it reads the document.
    const held = race.hold((call, args) => call === 'get' && args[0] === 'collabDocs');
    const render = race.landed(rendersPost);
    text.insert(2, 'b');
    const pushing = a.push();
    await held.reached;
    await render;
    held.release();
    await pushing;
    await rendered(w, post.id, { title: post.title, content: '<p>xab</p>' });
    const late = new Writer(w.admin, target);
    await late.open();
    expect(await late.html()).toBe('<p>xab</p>');
  });

  it('an open that meets a compaction still answers the whole document', async () => {
    const race = racingDriver(makeDriver());
    const w = await world(race.driver);
    const post = await makePost(w, 'LIVE', { content: '<p>x</p>' });
    const target = { blogId: w.blogId, postId: post.id };
    const a = new Writer(w.author, target);
    await a.open();
    const text = (a.content.get(0) as Y.XmlElement).get(0) as Y.XmlText;
    // Enough pushes for the render to compact them; it is held at its commit until the open has read the state.
    const compaction = race.hold((call, args) => call === 'commit' && compacts(args[0] as WriteOp[]));
    for (let i = 0; i < 70; i++) {
      text.insert(text.length, 'y');
      await a.push();
    }
    await compaction.reached;
    const listing = race.hold(
      (call, args) => call === 'list' && (args[0] as { collection: string }).collection === 'collabUpdates',
    );
    const compacted = race.landed(compacts);
    const late = new Writer(w.admin, target);
    const opening = late.open();
    await listing.reached;
    compaction.release();
    await compacted;
    listing.release();
    await opening;
    expect(await late.html()).toBe(`<p>x${'y'.repeat(70)}</p>`);
  });

  it('a burst of more pushes than one read takes is opened whole, and rendered whole', async () => {
    const w = await world(makeDriver());
    const post = await makePost(w, 'LIVE', { content: '<p>x</p>' });
    const target = { blogId: w.blogId, postId: post.id };
    const a = new Writer(w.author, target);
    await a.open();
    const text = (a.content.get(0) as Y.XmlElement).get(0) as Y.XmlText;
    for (let i = 0; i < 1_100; i++) {
      text.insert(text.length, 'y');
      await a.push();
    }
    const late = new Writer(w.admin, target);
    await late.open();
    expect(await late.html()).toBe(`<p>x${'y'.repeat(1_100)}</p>`);
    await rendered(w, post.id, { title: post.title, content: `<p>x${'y'.repeat(1_100)}</p>` });
  }, 120_000);

  it('a deleted post, page or blog takes its shared documents with it', async () => {
    const w = await world(makeDriver());
    const stored = async (docId: string) => ({
      doc: await w.driver.get('collabDocs', docId),
      updates: (
        await w.driver.list({ collection: 'collabUpdates', index: 'doc', prefix: [docId], direction: 'asc', limit: 10 })
      ).length,
    });
    const typed = async (service: Service, target: { blogId: string; postId?: string; pageId?: string }) => {
      const doc = new Y.Doc();
      Y.applyUpdate(doc, (await service.collab.open(target)).update);
      const sv = Y.encodeStateVector(doc);
      doc.getText('title').insert(0, 'Shared ');
      await service.collab.push({ ...target, update: Y.encodeStateAsUpdate(doc, sv) });
    };
    const post = await makePost(w, 'LIVE', { content: '<p>x</p>' });
    const page = await makePage(w, 'LIVE', { content: '<p>y</p>' });
    await typed(w.author, { blogId: w.blogId, postId: post.id });
    await typed(w.admin, { blogId: w.blogId, pageId: page.id });
    expect(await stored(`post:${post.id}`)).toMatchObject({ doc: expect.anything(), updates: 1 });
    expect(await stored(`page:${page.id}`)).toMatchObject({ doc: expect.anything(), updates: 1 });
    // In the trash the document stays (a restored post is written together again); deleted, it goes.
    await w.author.posts.delete({ blogId: w.blogId, postId: post.id, useTrash: true });
    expect((await stored(`post:${post.id}`)).doc).toBeDefined();
    await w.author.posts.delete({ blogId: w.blogId, postId: post.id });
    expect(await stored(`post:${post.id}`)).toEqual({ doc: undefined, updates: 0 });
    await w.admin.pages.delete({ blogId: w.blogId, pageId: page.id });
    expect(await stored(`page:${page.id}`)).toEqual({ doc: undefined, updates: 0 });
    // A blog takes every document of its posts and pages.
    const other = await makePost(w, 'DRAFT', { content: '<p>z</p>' });
    await typed(w.author, { blogId: w.blogId, postId: other.id });
    expect((await stored(`post:${other.id}`)).updates).toBe(1);
    await w.admin.blogs.delete({ blogId: w.blogId });
    expect(await stored(`post:${other.id}`)).toEqual({ doc: undefined, updates: 0 });
  });

  it('a push that meets the delete of its post leaves no document or push behind, whichever lands first', async () => {
    const race = racingDriver(makeDriver());
    const w = await world(race.driver);
    const left = async (postId: string) => ({
      doc: await w.driver.get('collabDocs', `post:${postId}`),
      updates: (
        await w.driver.list({
          collection: 'collabUpdates',
          index: 'doc',
          prefix: [`post:${postId}`],
          direction: 'asc',
          limit: 10,
        })
      ).length,
    });
    const pushes = (ops: unknown[]) =>
      (ops as WriteOp[]).some((o) => o.type === 'put' && o.collection === 'collabUpdates');
    const deletes = (ops: unknown[]) => (ops as WriteOp[]).some((o) => o.type === 'delete' && o.collection === 'posts');
    for (const first of ['delete', 'push'] as const) {
      const post = await makePost(w, 'LIVE', { content: '<p>x</p>' });
      const target = { blogId: w.blogId, postId: post.id };
      const doc = new Y.Doc();
      Y.applyUpdate(doc, (await w.author.collab.open(target)).update);
      const sv = Y.encodeStateVector(doc);
      doc.getText('title').insert(0, 'Late ');
      const update = Y.encodeStateAsUpdate(doc, sv);
      // The second writer's commit is held (after its reads) until the first one's call has finished.
      const held = race.hold(
        (call, args) => call === 'commit' && (first === 'delete' ? pushes : deletes)(args[0] as unknown[]),
      );
      const second = (
        first === 'delete' ? w.author.collab.push({ ...target, update }) : w.author.posts.delete(target)
      ).then(
        () => 'done',
        (e: unknown) => e,
      );
      await held.reached;
      await (first === 'delete' ? w.author.posts.delete(target) : w.author.collab.push({ ...target, update }));
      held.release();
      await second;
      expect(await left(post.id), `${first} first`).toEqual({ doc: undefined, updates: 0 });
    }
  });

  it('only the post’s author and the blog’s admins take part; pages are for admins', async () => {
    const w = await world(makeDriver());
    const post = await makePost(w, 'LIVE', { content: '<p>x</p>' });
    const target = { blogId: w.blogId, postId: post.id };
    for (const who of [w.reader, w.author2, w.outsider]) await expectError(who.collab.open(target), 403, 'forbidden');
    await expectError(w.anon.collab.open(target), 403);
    await expectError(w.reader.collab.pull({ ...target, since: '0' }), 403, 'forbidden');
    const update = Y.encodeStateAsUpdate(new Y.Doc());
    await expectError(w.author2.collab.push({ ...target, update }), 403, 'forbidden');
    const draft = await makePost(w, 'DRAFT', { content: '<p>secret</p>' });
    await expectError(w.reader.collab.open({ blogId: w.blogId, postId: draft.id }), 404, 'notFound');
    const page = await makePage(w, 'LIVE', { content: '<p>page</p>' });
    await expectError(w.author.collab.open({ blogId: w.blogId, pageId: page.id }), 403, 'forbidden');
    const opened = await w.admin.collab.open({ blogId: w.blogId, pageId: page.id });
    expect(opened.update.byteLength).toBeGreaterThan(0);
    await expectError(w.author.collab.open({ blogId: w.blogId }), 400, 'invalid');
    await expectError(w.author.collab.open({ blogId: w.blogId, postId: post.id, pageId: page.id }), 400, 'invalid');
    await expectError(w.author.collab.push({ ...target, update: new Uint8Array([255, 1, 2]) }), 400, 'invalid');
    await expectError(w.author.collab.push({ ...target, update: new Uint8Array(300 * 1024) }), 413);
    await expectError(w.author.collab.pull({ ...target, since: 'abc' }), 400, 'invalid');
    await expectError(w.author.collab.pull({ ...target, since: '0', wait: 30_001 }), 400, 'invalid');
  });
});

describe('collab: two services on one memory store', () => {
  it('see each other’s pushes within 2 s, and each other’s cursors', async () => {
    const w = await world(memoryDriver());
    const other = newService(w.driver).as({ userId: USERS.author.id });
    const post = await makePost(w, 'LIVE', { content: '<p>x</p>' });
    const target = { blogId: w.blogId, postId: post.id };
    const a = new Writer(w.author, target);
    const b = new Writer(other, target);
    await a.open();
    await b.open();
    const started = Date.now();
    const waiting = b.pull(5_000);
    await new Promise((r) => setTimeout(r, 50));
    ((a.content.get(0) as Y.XmlElement).get(0) as Y.XmlText).insert(1, 'y');
    await a.push();
    await waiting;
    while ((await b.html()) !== '<p>xy</p>' && Date.now() - started < 5_000) await b.pull(2_000);
    expect(await b.html()).toBe('<p>xy</p>');
    expect(Date.now() - started).toBeLessThan(2_000);
    // Ada's cursor, sent to one service, reaches a pull on the other (and is stored nowhere).
    const ada = new Awareness(a.doc);
    ada.setLocalState({ user: { name: 'Ada', color: '#d33' } });
    const seen = new Awareness(new Y.Doc());
    const pulled = other.collab.pull({ ...target, since: b.position, wait: 2_000 });
    await new Promise((r) => setTimeout(r, 50));
    await w.author.collab.push({
      ...target,
      update: new Uint8Array([0, 0]),
      presence: encodeAwarenessUpdate(ada, [a.doc.clientID]),
    });
    const got = await pulled;
    if (got.presence) applyAwarenessUpdate(seen, got.presence.update, 'test');
    expect(seen.getStates().get(a.doc.clientID)).toEqual({ user: { name: 'Ada', color: '#d33' } });
    ada.destroy();
    seen.destroy();
    await other.close();
  });
});
