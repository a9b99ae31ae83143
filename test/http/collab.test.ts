/**
 * Writing together over HTTP (docs/collab.md): the document's bytes and position over real sockets, a long poll
 * woken by another writer's push, presence passed on and never stored, refusals in Google's error shape, and two
 * app servers on one store (a SQLite file, a PostgreSQL schema): a push to one is pulled from the other within 2 s.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import * as Y from 'yjs';
import { Awareness, applyAwarenessUpdate, encodeAwarenessUpdate } from 'y-protocols/awareness';
import { memoryDriver } from '../../drivers/memory/index.js';
import { sqliteDriver } from '../../drivers/sqlite/index.js';
import { postgresDriver } from '../../drivers/postgres/index.js';
import { BlogError, createBlogService, type BlogService } from '../../src/index.js';
import { createHttpHandler, toNodeHandler } from '../../src/http/index.js';
import type { StorageDriver } from '../../src/store/driver.js';
import { dropOwnSchemas, freshSchema, pgUrl } from '../drivers/postgres/env.js';

const open: Array<{ service: BlogService; http: Server }> = [];
const dir = mkdtempSync(join(tmpdir(), 'blogcore-collab-http-'));
afterAll(async () => {
  for (const { service, http } of open.splice(0)) {
    http.closeAllConnections();
    http.close();
    await service.close();
  }
  rmSync(dir, { recursive: true, force: true });
  await dropOwnSchemas();
});

/** A service on `driver` behind its own node:http server; tokens are user ids. */
async function appServer(driver: StorageDriver): Promise<{ service: BlogService; api: string }> {
  const service = createBlogService({ driver });
  const handler = createHttpHandler(service, {
    authenticate: (r) => {
      const token = r.headers.get('authorization')?.replace('Bearer ', '');
      if (!token) throw new BlogError({ code: 401, reason: 'authError', message: 'Sign in' });
      return { userId: token };
    },
  });
  const http = createServer(toNodeHandler(handler)).listen(0, '127.0.0.1');
  await new Promise((r) => http.once('listening', r));
  open.push({ service, http });
  return { service, api: `http://127.0.0.1:${(http.address() as AddressInfo).port}/v3` };
}

async function seed(service: BlogService) {
  const ada = await service.users.insert({ body: { displayName: 'Ada', id: 'ada' } });
  await service.users.insert({ body: { displayName: 'Bob', id: 'bob' } });
  await service.users.insert({ body: { displayName: 'Rita', id: 'rita' } });
  const blog = await service.blogs.insert({
    body: { name: 'Together', url: `https://together-${Math.random()}.example/` },
    ownerId: ada.id,
  });
  await service.members.set({ blogId: blog.id, userId: 'bob', role: 'AUTHOR' });
  await service.members.set({ blogId: blog.id, userId: 'rita', role: 'READER' });
  const post = await service
    .as({ userId: 'bob' })
    .posts.insert({ blogId: blog.id, body: { title: 'Shared', content: '<p>Hello</p>' } });
  return { blogId: blog.id, postId: post.id };
}

/** One writer over HTTP. */
class Client {
  readonly doc = new Y.Doc();
  position = '';
  presenceClock = 0;
  constructor(
    readonly url: string,
    readonly token: string,
  ) {}
  private headers(extra: Record<string, string> = {}) {
    return { authorization: `Bearer ${this.token}`, ...extra };
  }
  async open(): Promise<Response> {
    const res = await fetch(this.url, { headers: this.headers() });
    if (res.ok) {
      Y.applyUpdate(this.doc, new Uint8Array(await res.arrayBuffer()));
      this.position = res.headers.get('blogcore-collab-position')!;
    }
    return res;
  }
  async push(update: Uint8Array, presence?: Uint8Array): Promise<Response> {
    return fetch(this.url, {
      method: 'POST',
      headers: this.headers({
        'content-type': 'application/octet-stream',
        ...(presence ? { 'blogcore-collab-presence': Buffer.from(presence).toString('base64') } : {}),
      }),
      body: new Uint8Array(update) as Uint8Array<ArrayBuffer>,
    });
  }
  async pull(wait = 0): Promise<{ res: Response; bytes: Uint8Array }> {
    const q = `since=${this.position}&wait=${wait}&presence=${this.presenceClock}`;
    const res = await fetch(`${this.url}?${q}`, { headers: this.headers() });
    const bytes = new Uint8Array(await res.arrayBuffer());
    if (res.ok) {
      if (bytes.byteLength) Y.applyUpdate(this.doc, bytes);
      this.position = res.headers.get('blogcore-collab-position')!;
      this.presenceClock = Number(res.headers.get('blogcore-collab-presence-clock') ?? this.presenceClock);
    }
    return { res, bytes };
  }
  /** Types `text` at the end of the first paragraph; answers the update. */
  type(text: string): Uint8Array {
    const before = Y.encodeStateVector(this.doc);
    const p = this.doc.getXmlFragment('content').get(0) as Y.XmlElement;
    const t = p.get(0) as Y.XmlText;
    t.insert(t.length, text);
    return Y.encodeStateAsUpdate(this.doc, before);
  }
  get text(): string {
    return ((this.doc.getXmlFragment('content').get(0) as Y.XmlElement).get(0) as Y.XmlText).toString();
  }
}

describe('collab over HTTP', () => {
  it('opens, pushes and long-polls the shared document as bytes with its position', async () => {
    const { service, api } = await appServer(memoryDriver());
    const { blogId, postId } = await seed(service);
    const url = `${api}/blogs/${blogId}/posts/${postId}/collab`;
    const a = new Client(url, 'bob');
    const b = new Client(url, 'ada');
    const opened = await a.open();
    expect(opened.status).toBe(200);
    expect(opened.headers.get('content-type')).toBe('application/octet-stream');
    expect(a.text).toBe('Hello');
    await b.open();

    // Nothing new: an empty body, the same position.
    const idle = await b.pull();
    expect(idle.res.status).toBe(200);
    expect(idle.bytes.byteLength).toBe(0);

    const waiting = b.pull(10_000);
    await new Promise((r) => setTimeout(r, 100));
    const pushed = await a.push(a.type(' world'));
    expect(pushed.status).toBe(200);
    const body = (await pushed.json()) as { position: string };
    expect(pushed.headers.get('blogcore-collab-position')).toBe(body.position);
    const woke = await waiting;
    expect(woke.bytes.byteLength).toBeGreaterThan(0);
    expect(b.text).toBe('Hello world');

    // Presence: Bob's cursor reaches Ada; nothing of it is stored.
    const bobAware = new Awareness(a.doc);
    bobAware.setLocalState({ user: { name: 'Bob', color: '#d33' } });
    const presence = encodeAwarenessUpdate(bobAware, [a.doc.clientID]);
    expect((await a.push(new Uint8Array(0), presence)).status).toBe(200);
    const seen = await b.pull(2_000);
    const adaAware = new Awareness(new Y.Doc());
    applyAwarenessUpdate(adaAware, Buffer.from(seen.res.headers.get('blogcore-collab-presence')!, 'base64'), 'x');
    expect(adaAware.getStates().get(a.doc.clientID)).toEqual({ user: { name: 'Bob', color: '#d33' } });
    bobAware.destroy();
    adaAware.destroy();
  });

  it('refuses readers, other authors, strangers and oversized updates in Google’s shape', async () => {
    const { service, api } = await appServer(memoryDriver());
    const { blogId, postId } = await seed(service);
    const url = `${api}/blogs/${blogId}/posts/${postId}/collab`;
    const rita = await new Client(url, 'rita').open();
    expect(rita.status).toBe(403);
    expect(((await rita.json()) as { error: { errors: [{ reason: string }] } }).error.errors[0].reason).toBe(
      'forbidden',
    );
    const bob = new Client(url, 'bob');
    const big = await bob.push(new Uint8Array(300 * 1024));
    expect(big.status).toBe(413);
    const junk = await bob.push(new Uint8Array([1, 2, 3, 4]));
    expect(junk.status).toBe(400);
    const badSince = await fetch(`${url}?since=x`, { headers: { authorization: 'Bearer bob' } });
    expect(badSince.status).toBe(400);
    const tooLong = await fetch(`${url}?since=0&wait=30001`, { headers: { authorization: 'Bearer bob' } });
    expect(tooLong.status).toBe(400);
    // Pages are the admins'.
    const page = await service.pages.insert({ blogId, body: { title: 'About', content: '<p>me</p>' } });
    const pageUrl = `${api}/blogs/${blogId}/pages/${page.id}/collab`;
    expect((await new Client(pageUrl, 'bob').open()).status).toBe(403);
    expect((await new Client(pageUrl, 'ada').open()).status).toBe(200);
  });

  const twoServers = async (make: () => StorageDriver, presenceCrosses = false) => {
    const one = await appServer(make());
    const two = await appServer(make());
    const { blogId, postId } = await seed(one.service);
    const path = `/blogs/${blogId}/posts/${postId}/collab`;
    const a = new Client(`${one.api}${path}`, 'bob');
    const b = new Client(`${two.api}${path}`, 'ada');
    await a.open();
    await b.open();
    const times: number[] = [];
    for (let i = 0; i < 3; i++) {
      const waiting = b.pull(10_000);
      await new Promise((r) => setTimeout(r, 50));
      const started = Date.now();
      expect((await a.push(a.type(` ${i}`))).status).toBe(200);
      await waiting;
      // A pull can come back on something else (presence): it pulls again until the edit is there.
      while (b.text !== a.text && Date.now() - started < 5_000) await b.pull(2_000);
      times.push(Date.now() - started);
      expect(b.text).toBe(a.text);
    }
    expect(Math.max(...times)).toBeLessThan(2_000);
    // And the other way round, with the render landing in the stored post for both.
    await b.push(b.type('!'));
    await a.pull(2_000);
    expect(a.text).toBe(b.text);
    if (!presenceCrosses) return;
    // Bob's cursor, sent to the first server, reaches Ada's pull on the second (and is stored nowhere).
    const bobAware = new Awareness(a.doc);
    bobAware.setLocalState({ user: { name: 'Bob', color: '#d33' } });
    const seen = new Awareness(new Y.Doc());
    const started = Date.now();
    const waiting = b.pull(5_000);
    await new Promise((r) => setTimeout(r, 50));
    expect((await a.push(new Uint8Array(0), encodeAwarenessUpdate(bobAware, [a.doc.clientID]))).status).toBe(200);
    for (let got = await waiting; ; got = await b.pull(2_000)) {
      const header = got.res.headers.get('blogcore-collab-presence');
      if (header) applyAwarenessUpdate(seen, Buffer.from(header, 'base64'), 'x');
      if (seen.getStates().has(a.doc.clientID) || Date.now() - started > 5_000) break;
    }
    expect(seen.getStates().get(a.doc.clientID)).toEqual({ user: { name: 'Bob', color: '#d33' } });
    expect(Date.now() - started).toBeLessThan(2_000);
    bobAware.destroy();
    seen.destroy();
  };

  it('two app servers on one SQLite file: a push to one is pulled from the other within 2 s', async () => {
    const file = join(dir, 'shared.db');
    await twoServers(() => sqliteDriver({ filename: file }));
  });

  it('two app servers on one PostgreSQL schema: a push and a cursor reach the other within 2 s', async () => {
    const schema = freshSchema('collab_http');
    await twoServers(() => postgresDriver({ connectionString: pgUrl(), schema, max: 3 }), true);
  });
});
