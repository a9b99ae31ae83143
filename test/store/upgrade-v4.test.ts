/**
 * A store written under store schema 3 as main had it before issue 15 (idempotency, no pageviews, labels or
 * revisions; core layout 2) opened by this build, on SQLite and on IndexedDB: the new collections appear,
 * the labels of the posts there are counted once, and revisions and page views work.
 */
import 'fake-indexeddb/auto';
import { IDBFactory } from 'fake-indexeddb';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { StorageDriver, StoreSchema } from '../../src/store/driver.js';
import { createBlogService } from '../../src/index.js';
import { put, type BlogRecord, type PostRecord, type UserRecord } from '../../src/store/records.js';
import { STORE_SCHEMA } from '../../src/store/schema.js';
import { idbDriver } from '../../drivers/idb/index.js';
import { sqliteDriver } from '../../drivers/sqlite/index.js';

const dir = mkdtempSync(join(tmpdir(), 'blogcore-v4-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const SCHEMA_3: StoreSchema = {
  version: 3,
  collections: STORE_SCHEMA.collections.filter((c) => !['pageviews', 'labels', 'revisions'].includes(c.name)),
};

const at = new Date(Date.UTC(2025, 0, 1)).toISOString();
const user: UserRecord = { id: 'u1', displayName: 'Owner', created: at };
const blog: BlogRecord = {
  id: 'b1',
  name: 'Old',
  description: '',
  url: 'https://old.example/',
  locale: { language: 'en', country: '', variant: '' },
  ownerId: 'u1',
  published: at,
  updated: at,
};
const post = (id: string, status: PostRecord['status'], labels: string[]): PostRecord => ({
  id,
  blogId: 'b1',
  authorId: 'u1',
  title: id,
  content: '<p>hello</p>',
  published: at,
  updated: at,
  path: `/2025/01/${id}.html`,
  rev: 1,
  status,
  labels,
  readerComments: 'ALLOW',
  liveComments: 0,
  allComments: 0,
});

async function check(make: () => StorageDriver): Promise<void> {
  const old = make();
  await old.open(SCHEMA_3);
  await old.commit([
    put('users', user, 0),
    put('blogs', blog, 0),
    {
      type: 'put',
      collection: 'members',
      id: 'b1:u1',
      expect: 0,
      doc: { id: 'b1:u1', blogId: 'b1', userId: 'u1', role: 'ADMIN' },
      keys: { blog: [['b1', 'u1']], user: [['u1', 'b1']] },
    },
    put('posts', post('p1', 'LIVE', ['a', 'b']), 0),
    put('posts', post('p2', 'DRAFT', ['b', 'c']), 0),
    {
      type: 'put',
      collection: 'settings',
      id: 'storeLayout',
      expect: 0,
      doc: { id: 'storeLayout', layout: 2 },
      keys: {},
    },
  ]);
  await old.close();

  const service = createBlogService({ driver: make() });
  const counts = (await service.labels.list({ blogId: 'b1' })).items.map((l) => [l.name, l.livePosts, l.allPosts]);
  expect(counts).toEqual([
    ['a', 1, 1],
    ['b', 1, 2],
    ['c', 0, 1],
  ]);
  expect((await service.as(null).labels.list({ blogId: 'b1' })).items.map((l) => l.name)).toEqual(['a', 'b']);
  await service.posts.patch({ blogId: 'b1', postId: 'p1', body: { content: '<p>new</p>' } });
  expect((await service.posts.revisions.list({ blogId: 'b1', postId: 'p1' })).items.map((r) => r.content)).toEqual([
    '<p>hello</p>',
  ]);
  await service.pageViews.record({ blogId: 'b1' });
  expect((await service.pageViews.get({ blogId: 'b1', range: 'all' })).counts).toEqual([
    { timeRange: 'ALL_TIME', count: '1' },
  ]);
  await service.close();
}

describe('a schema-3 store from before issue 15 opens and upgrades', () => {
  it('SQLite', async () => {
    const file = join(dir, 'v3.db');
    await check(() => sqliteDriver({ filename: file }));
  });
  it('IndexedDB', async () => {
    const factory = new IDBFactory();
    await check(() => idbDriver({ name: 'v3', indexedDB: factory }));
  });
});
