/**
 * `posts.get` answered in one synchronous step where the driver reads at once (src/resources/post-now.ts: SQLite,
 * memory). The blog and the author come from the record cache there, so these check that what another connection
 * to the same SQLite file changed is seen by the very next get (the blog's url, the author's name, a member's role,
 * the blog's deletion), that this process's own writes are, and that each refusal is the full path's.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, test } from 'vitest';
import { memoryDriver } from '../../drivers/memory/index.js';
import { sqliteDriver } from '../../drivers/sqlite/index.js';
import { type BlogService, createBlogService } from '../../src/index.js';

const dir = mkdtempSync(join(tmpdir(), 'blogcore-get-at-once-'));
let n = 0;
const open: BlogService[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A blog with a LIVE post and a draft by `ada`; `bob` a user with no role yet. */
async function fill(service: BlogService) {
  await service.users.insert({ body: { id: 'ada', displayName: 'Ada' } });
  await service.users.insert({ body: { id: 'bob', displayName: 'Bob' } });
  const { id: blogId } = await service.blogs.insert({ ownerId: 'ada', body: { name: 'N', url: 'https://n.example/' } });
  const post = await service.posts.insert({ blogId, body: { title: 'River', content: '<p>high</p>' } });
  const draft = await service.posts.insert({ blogId, body: { title: 'Draft', content: '<p>d</p>' }, isDraft: true });
  return { blogId, postId: post.id, draftId: draft.id };
}

/** Two services on one SQLite file: two connections, as two processes have. */
function twoOnOneFile(): [BlogService, BlogService] {
  const file = join(dir, `store-${++n}.db`);
  const a = createBlogService({ driver: sqliteDriver({ filename: file }) });
  const b = createBlogService({ driver: sqliteDriver({ filename: file }) });
  open.push(a, b);
  return [a, b];
}

/** The error a call fails with (code, reason, message), or 'answered'. */
async function refusal(call: Promise<unknown>): Promise<unknown> {
  return call.then(
    () => 'answered',
    (e: { code?: number; reason?: string; message: string }) => ({
      code: e.code,
      reason: e.reason,
      message: e.message,
    }),
  );
}

describe('posts.get at once, on SQLite with another connection writing', () => {
  test("the next get shows the other connection's change to the blog, the author, a role and the post", async () => {
    const [a, b] = twoOnOneFile();
    const { blogId, postId, draftId } = await fill(a);
    // Warm: the blog and the author are in a's cache, and a's reads go the one-step way.
    for (let i = 0; i < 3; i++) expect((await a.posts.get({ blogId, postId })).title).toBe('River');

    await b.blogs.patch({ blogId, body: { url: 'https://moved.example/' } });
    expect((await a.posts.get({ blogId, postId })).url).toMatch(/^https:\/\/moved\.example\//);

    await b.users.update({ userId: 'ada', body: { displayName: 'Ada L.' } });
    expect((await a.posts.get({ blogId, postId })).author?.displayName).toBe('Ada L.');

    await b.posts.patch({ blogId, postId, body: { title: 'River, revised' } });
    expect((await a.posts.get({ blogId, postId })).title).toBe('River, revised');

    const bob = a.as({ userId: 'bob' });
    expect(await refusal(bob.posts.get({ blogId, postId: draftId }))).toMatchObject({ code: 404 });
    await b.members.set({ blogId, userId: 'bob', role: 'ADMIN' });
    expect((await bob.posts.get({ blogId, postId: draftId, view: 'ADMIN' })).status).toBe('DRAFT');

    await b.posts.delete({ blogId, postId });
    expect(await refusal(a.posts.get({ blogId, postId }))).toMatchObject({ code: 404 });
    await b.blogs.delete({ blogId });
    expect(await refusal(a.posts.get({ blogId, postId: draftId }))).toMatchObject({ code: 404, message: /Blog/ });
  });
});

describe.each([
  ['memory', () => memoryDriver()],
  ['sqlite', () => sqliteDriver({ filename: join(dir, `store-${++n}.db`) })],
])('posts.get at once on %s', (_name, driver) => {
  test('reads its own writes, and refuses as the full path does', async () => {
    const service = createBlogService({ driver: driver() });
    open.push(service);
    const { blogId, postId, draftId } = await fill(service);
    const other = (await service.blogs.insert({ ownerId: 'ada', body: { name: 'O', url: 'https://o.example/' } })).id;
    expect((await service.posts.get({ blogId, postId })).title).toBe('River');
    await service.posts.patch({ blogId, postId, body: { title: 'Sea', labels: ['x'] } });
    const got = await service.posts.get({ blogId, postId, fetchBody: false });
    expect(got).toMatchObject({ title: 'Sea', labels: ['x'], status: 'LIVE' });
    expect(got.content).toBeUndefined();
    // The answer is the caller's own: changing it changes no later answer.
    got.labels!.push('y');
    expect((await service.posts.get({ blogId, postId })).labels).toEqual(['x']);

    const anonymous = service.as(null);
    expect((await anonymous.posts.get({ blogId, postId })).status).toBeUndefined();
    expect(await refusal(anonymous.posts.get({ blogId, postId: draftId }))).toMatchObject({ code: 404 });
    expect(await refusal(anonymous.posts.get({ blogId, postId, view: 'ADMIN' }))).toMatchObject({ code: 403 });
    expect(await refusal(service.posts.get({ blogId: other, postId }))).toMatchObject({ code: 404, message: /Post/ });
    expect(await refusal(service.posts.get({ blogId, postId: 'nope' }))).toMatchObject({ code: 404 });
    expect(await refusal(service.posts.get({ blogId: 'nope', postId }))).toMatchObject({ code: 404, message: /Blog/ });
    expect(await refusal(service.posts.get({ blogId, postId, view: 'EDITOR' as never }))).toMatchObject({ code: 400 });
  });

  test('a scheduled post whose time has come is read LIVE, and published once', async () => {
    let now = Date.parse('2030-01-01T00:00:00Z');
    const service = createBlogService({ driver: driver(), now: () => new Date(now) });
    open.push(service);
    const { blogId } = await fill(service);
    const published: string[] = [];
    service.on('post.published', (e) => published.push(e.id));
    const at = new Date(now + 60_000).toISOString();
    const post = await service.posts.insert({ blogId, body: { title: 'Later', content: '<p>l</p>', published: at } });
    expect((await service.posts.get({ blogId, postId: post.id })).status).toBe('SCHEDULED');
    expect(await refusal(service.as(null).posts.get({ blogId, postId: post.id }))).toMatchObject({ code: 404 });
    now += 120_000;
    // The host's view sees SCHEDULED posts too: its get is the one that must make this one LIVE.
    expect((await service.posts.get({ blogId, postId: post.id })).status).toBe('LIVE');
    expect((await service.as(null).posts.get({ blogId, postId: post.id })).title).toBe('Later');
    expect(published).toEqual([post.id]);
  });
});
