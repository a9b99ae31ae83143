/** Idempotency-Key on creates over HTTP, on SQLite: a retried create answers the first result, across restarts. */
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startSyncServer, STORES, type SyncServer } from './server.js';

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

  const HOUR = 3_600_000;
  const titles = async () =>
    ((await s.service.posts.list({ blogId: s.blogId, status: ['LIVE', 'DRAFT'], maxResults: 100 })).items ?? [])
      .map((p) => p.title)
      .sort();

  describe('Idempotency-Key', () => {
    it('a create retried after its answer was lost (even after a restart) makes one post and answers the first result', async () => {
      const body = { title: 'Once', content: '<p>only once</p>' };
      const key = { 'idempotency-key': 'k-2f1c9d' };
      const first = await s.request('author', 'POST', `/blogs/${s.blogId}/posts`, body, key);
      expect(first.status).toBe(200);
      const again = await s.request('author', 'POST', `/blogs/${s.blogId}/posts`, body, key);
      expect(again).toEqual(first);
      // The server restarts (a new service on the same file): the key still holds.
      await s.close(true);
      s = await startSyncServer({ restart: s });
      s.clock.advance(23 * HOUR);
      const later = await s.request('author', 'POST', `/blogs/${s.blogId}/posts`, body, key);
      expect(later.json!.id).toBe(first.json!.id);
      expect(await titles()).toEqual(['Once']);
      // Without a key, a repeat is a new post, as before.
      await s.request('author', 'POST', `/blogs/${s.blogId}/posts`, body);
      expect(await titles()).toEqual(['Once', 'Once']);
    });

    it('the same key with another body is 422 and creates nothing', async () => {
      const key = { 'idempotency-key': 'same' };
      await s.request('author', 'POST', `/blogs/${s.blogId}/posts`, { title: 'A', content: 'a' }, key);
      const other = await s.request('author', 'POST', `/blogs/${s.blogId}/posts`, { title: 'B', content: 'b' }, key);
      expect(other.status).toBe(422);
      expect(other.json!.error.errors[0]).toMatchObject({ location: 'Idempotency-Key', locationType: 'header' });
      const draft = await s.request(
        'author',
        'POST',
        `/blogs/${s.blogId}/posts?isDraft=true`,
        { title: 'A', content: 'a' },
        key,
      );
      expect(draft.status).toBe(422);
      expect(await titles()).toEqual(['A']);
    });

    it('keys are per caller, a failed create can be retried, and pages and comments are covered too', async () => {
      const key = { 'idempotency-key': 'shared-key' };
      const a = await s.request('author', 'POST', `/blogs/${s.blogId}/posts`, { title: 'Mine', content: 'x' }, key);
      const b = await s.request('admin', 'POST', `/blogs/${s.blogId}/posts`, { title: 'Mine', content: 'x' }, key);
      expect(b.json!.id).not.toBe(a.json!.id);
      // A refused create (a reader may not post) leaves the key free: the retry is judged afresh.
      expect(
        (await s.request('reader', 'POST', `/blogs/${s.blogId}/posts`, { title: 'R', content: 'r' }, key)).status,
      ).toBe(403);
      await s.service.members.set({ blogId: s.blogId, userId: s.users.reader, role: 'AUTHOR' });
      expect(
        (await s.request('reader', 'POST', `/blogs/${s.blogId}/posts`, { title: 'R', content: 'r' }, key)).status,
      ).toBe(200);
      expect(await titles()).toEqual(['Mine', 'Mine', 'R']);

      const page = { title: 'About', content: 'about' };
      const p1 = await s.request('admin', 'POST', `/blogs/${s.blogId}/pages`, page, { 'idempotency-key': 'page-1' });
      const p2 = await s.request('admin', 'POST', `/blogs/${s.blogId}/pages`, page, { 'idempotency-key': 'page-1' });
      expect(p2.json!.id).toBe(p1.json!.id);
      expect((await s.service.pages.list({ blogId: s.blogId })).items).toHaveLength(1);

      const comment = { content: 'first!', author: { displayName: 'Anon' } };
      const path = `/blogs/${s.blogId}/posts/${a.json!.id}/comments`;
      const c1 = await s.request('anonymous', 'POST', path, comment, { 'idempotency-key': 'c-1' });
      const c2 = await s.request('anonymous', 'POST', path, comment, { 'idempotency-key': 'c-1' });
      expect(c2.json!.id).toBe(c1.json!.id);
      expect(
        (await s.service.comments.list({ blogId: s.blogId, postId: a.json!.id, status: ['PENDING'] })).items,
      ).toHaveLength(1);
      // Another visitor reusing the key gets their own comment: never the first visitor's (and no 422 that tells it exists).
      const other = await s.request(
        'anonymous',
        'POST',
        path,
        { content: 'me too', author: { displayName: 'Bo' } },
        { 'idempotency-key': 'c-1' },
      );
      expect(other.status).toBe(200);
      expect(other.json!.id).not.toBe(c1.json!.id);
      expect(other.json!.content).toBe('me too');
      expect(
        (await s.service.comments.list({ blogId: s.blogId, postId: a.json!.id, status: ['PENDING'] })).items,
      ).toHaveLength(2);
    });

    it('copies sent at once create one post; the others answer it or 409', async () => {
      const key = { 'idempotency-key': 'burst' };
      const answers = await Promise.all(
        Array.from({ length: 6 }, () =>
          s.request('author', 'POST', `/blogs/${s.blogId}/posts`, { title: 'Burst', content: 'b' }, key),
        ),
      );
      const ok = answers.filter((x) => x.status === 200);
      expect(ok.length).toBeGreaterThan(0);
      expect(new Set(ok.map((x) => x.json!.id)).size).toBe(1);
      expect(answers.every((x) => x.status === 200 || x.status === 409)).toBe(true);
      expect(await titles()).toEqual(['Burst']);
    });

    it('refuses a malformed key with 400, and forgets keys after 24 hours', async () => {
      const bad = await s.request(
        'author',
        'POST',
        `/blogs/${s.blogId}/posts`,
        { title: 'x', content: 'x' },
        { 'idempotency-key': 'x'.repeat(201) },
      );
      expect(bad.status).toBe(400);
      expect(await titles()).toEqual([]);
      const key = { 'idempotency-key': 'day' };
      await s.request('author', 'POST', `/blogs/${s.blogId}/posts`, { title: 'Day', content: 'x' }, key);
      s.clock.advance(25 * HOUR);
      await s.request('author', 'POST', `/blogs/${s.blogId}/posts`, { title: 'Day', content: 'x' }, key);
      expect(await titles()).toEqual(['Day', 'Day']);
    });
  });
});
