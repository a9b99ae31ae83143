/**
 * What a `posts.get` must answer however it is answered (the full path, one synchronous step on SQLite and
 * memory, or the look and the reads side by side on PostgreSQL: src/resources/post-now.ts): the cases that
 * test/service/get-at-once.test.ts and test/drivers/postgres/get.test.ts run on their drivers.
 */
import { expect } from 'vitest';
import type { BlogService } from '../../src/index.js';

/** A blog with a LIVE post and a draft by `ada`; `bob` a user with no role yet. */
export async function fill(service: BlogService) {
  await service.users.insert({ body: { id: 'ada', displayName: 'Ada' } });
  await service.users.insert({ body: { id: 'bob', displayName: 'Bob' } });
  const { id: blogId } = await service.blogs.insert({ ownerId: 'ada', body: { name: 'N', url: 'https://n.example/' } });
  const post = await service.posts.insert({ blogId, body: { title: 'River', content: '<p>high</p>' } });
  const draft = await service.posts.insert({ blogId, body: { title: 'Draft', content: '<p>d</p>' }, isDraft: true });
  return { blogId, postId: post.id, draftId: draft.id };
}

/** The error a call fails with (code, reason, message), or 'answered'. */
export async function refusal(call: Promise<unknown>): Promise<unknown> {
  return call.then(
    () => 'answered',
    (e: { code?: number; reason?: string; message: string }) => ({
      code: e.code,
      reason: e.reason,
      message: e.message,
    }),
  );
}

/** Another connection's (or app server's) change to the blog, the author, a role and the post: seen by the next get. */
export async function seesOthersChanges(a: BlogService, b: BlogService): Promise<void> {
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
}

/** Reads its own writes, and refuses as the full path does. */
export async function readsOwnWritesAndRefuses(service: BlogService): Promise<void> {
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
}

/** A scheduled post whose time has come is read LIVE, and published once. */
export async function publishesWhenDue(make: (now: () => Date) => BlogService): Promise<void> {
  let now = Date.parse('2030-01-01T00:00:00Z');
  const service = make(() => new Date(now));
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
}
