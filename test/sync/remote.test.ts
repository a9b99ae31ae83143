/** The replica's wire client (src/sync/remote.ts) against a real server: pulls, 410, 412, idempotent creates. */
import { afterEach, beforeEach, expect, it } from 'vitest';
import { createRemote, RemoteError, type Remote } from '../../src/sync/remote.js';
import type { Post } from '../../src/index.js';
import { startSyncServer, type SyncServer } from './server.js';

let s: SyncServer;
let remote: Remote;
beforeEach(async () => {
  s = await startSyncServer({ retentionDays: 1 });
  remote = createRemote({ baseUrl: s.api, headers: () => ({ authorization: 'Bearer author' }) });
});
afterEach(async () => {
  await s.close();
});

const caught = async (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (e: unknown) => e,
  );

it('follows a pull page by page and continues from its checkpoint', async () => {
  for (let i = 0; i < 7; i++)
    await s.as('author').posts.insert({ blogId: s.blogId, body: { title: `p${i}`, content: 'c' } });
  const ids: string[] = [];
  let checkpoint = '';
  let pageToken: string | undefined;
  do {
    const page = await remote.pull(s.blogId, { maxResults: 3, pageToken });
    ids.push(...page.items.map((i) => i.id));
    checkpoint = page.checkpoint;
    pageToken = page.nextPageToken;
  } while (pageToken);
  expect(ids).toHaveLength(7);
  const created = await remote.call<Post>('POST', `/blogs/${s.blogId}/posts`, {
    body: { title: 'mine', content: 'x' },
    query: { isDraft: true },
    idempotencyKey: 'k1',
  });
  expect(created.status).toBe('DRAFT');
  const next = await remote.pull(s.blogId, { since: checkpoint });
  expect(next.items.map((i) => i.id)).toEqual([created.id]);
});

it('turns refusals into RemoteErrors: 412 on a stale etag, 410 when the log no longer reaches back, 0 offline', async () => {
  const post = await remote.call<Post>('POST', `/blogs/${s.blogId}/posts`, {
    body: { title: 'v1', content: 'x' },
    idempotencyKey: 'create-1',
  });
  const again = await remote.call<Post>('POST', `/blogs/${s.blogId}/posts`, {
    body: { title: 'v1', content: 'x' },
    idempotencyKey: 'create-1',
  });
  expect(again.id).toBe(post.id);
  await remote.call('PATCH', `/blogs/${s.blogId}/posts/${post.id}`, { body: { title: 'v2' }, ifMatch: post.etag! });
  const stale = await caught(
    remote.call('PATCH', `/blogs/${s.blogId}/posts/${post.id}`, { body: { title: 'v3' }, ifMatch: post.etag! }),
  );
  expect(stale).toBeInstanceOf(RemoteError);
  expect(stale).toMatchObject({ status: 412, reason: 'conditionNotMet' });

  const { checkpoint } = await remote.pull(s.blogId);
  await s.as('admin').posts.delete({ blogId: s.blogId, postId: post.id! });
  s.clock.advance(2 * 86_400_000);
  await s.as('admin').posts.insert({ blogId: s.blogId, body: { title: 'later', content: 'x' } });
  expect(await caught(remote.pull(s.blogId, { since: checkpoint }))).toMatchObject({
    status: 410,
    reason: 'resyncRequired',
  });

  const offline = createRemote({ baseUrl: 'http://127.0.0.1:9/v3' });
  expect(await caught(offline.pull(s.blogId))).toMatchObject({ status: 0, reason: 'offline' });
});
