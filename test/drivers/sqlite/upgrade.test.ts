/**
 * A store written by the previous layout (store schema 1, SQLite storage 1) opened by this build: the driver
 * adds its terms table and rebuilds its token index, the core refiles every comment by its post's visibility
 * and re-gives every post's tokens, once. Reads through the public service must then be what they were.
 */
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import type { JsonObject, StoreSchema, WriteOp } from '../../../src/store/driver.js';
import { createBlogService } from '../../../src/index.js';
import { STORE_SCHEMA } from '../../../src/store/schema.js';
import { sqliteDriver } from '../../../drivers/sqlite/index.js';
import { checkStore } from './invariants.js';

const dir = mkdtempSync(join(tmpdir(), 'blogcore-sqlite-upgrade-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The store schema of layout 1: no comments.move, no posts.moving. */
const LEGACY: StoreSchema = {
  version: 1,
  collections: STORE_SCHEMA.collections.map((c) => ({
    ...c,
    indexes: c.indexes.filter((i) => i.name !== 'move' && i.name !== 'moving'),
  })),
};

it('upgrades a layout-1 store once: comments hidden by the index, search answering again', async () => {
  const f = join(dir, 'legacy.db');
  const service = createBlogService({ driver: sqliteDriver({ filename: f }) });
  const owner = (await service.users.insert({ body: { displayName: 'Owner' } })).id!;
  const blogId = (
    await service.blogs.insert({
      body: { name: 'Old', url: 'https://old.example/' },
      ownerId: owner,
    })
  ).id!;
  const open = await service.posts.insert({
    blogId,
    body: { title: 'Hello world', content: '<p>greetings</p>' },
  });
  const hiding = await service.posts.insert({
    blogId,
    body: { title: 'Quiet', content: '<p>nothing</p>' },
  });
  await service.comments.insert({
    blogId,
    postId: open.id!,
    body: { content: 'shown' },
  });
  for (let i = 0; i < 3; i++)
    await service.comments.insert({
      blogId,
      postId: hiding.id!,
      body: { content: `hidden ${i}` },
    });
  await service.posts.patch({
    blogId,
    postId: hiding.id!,
    body: { readerComments: 'DONT_ALLOW_HIDE_EXISTING' },
  });
  await service.close();

  // Rewrite it as layout 1 wrote it: 4-part blog keys and no filing class, no layout marker, no terms table.
  const raw = new Database(f);
  raw.prepare(`UPDATE meta SET value = 1 WHERE key = 'schemaVersion'`).run();
  raw.close();
  const legacy = sqliteDriver({ filename: f });
  await legacy.open(LEGACY);
  const ops: WriteOp[] = [];
  const comments = await legacy.list({
    collection: 'comments',
    index: 'post',
    prefix: [],
    direction: 'asc',
    limit: 100,
  });
  for (const c of comments) {
    const { vis: _vis, ...doc } = c.doc as JsonObject & {
      blogId: string;
      postId: string;
      status: string;
      published: string;
    };
    ops.push({
      type: 'put',
      collection: 'comments',
      id: c.id,
      expect: c.version,
      doc,
      keys: {
        post: [[doc.blogId, doc.postId, doc.status, doc.published, c.id]],
        blog: [[doc.blogId, doc.status, doc.published, c.id]],
      },
    });
  }
  const marker = (await legacy.get('settings', 'storeLayout'))!;
  ops.push({
    type: 'delete',
    collection: 'settings',
    id: 'storeLayout',
    expect: marker.version,
  });
  await legacy.commit(ops);
  await legacy.close();
  const db = new Database(f);
  db.exec('DROP TABLE terms');
  // Nor migration 4's rank places.
  db.exec('DROP TABLE ranks');
  // Nor layout 3's change-log columns.
  db.exec(
    "DROP INDEX changes_by_stream; ALTER TABLE changes DROP COLUMN stream; ALTER TABLE changes DROP COLUMN time; DELETE FROM meta WHERE key = 'pruned'",
  );
  // Nor migration 5's media bytes.
  db.exec('DROP TABLE blob_chunks; DROP TABLE blobs');
  // Nor migration 6's keys apart from the documents.
  db.exec(
    "ALTER TABLE docs ADD COLUMN keys TEXT NOT NULL DEFAULT '{}'; UPDATE docs SET keys = (SELECT k.keys FROM doc_keys k WHERE k.rid = docs.rid); DROP TABLE doc_keys",
  );
  db.pragma('user_version = 1');
  db.close();

  const upgraded = createBlogService({ driver: sqliteDriver({ filename: f }) });
  const anon = upgraded.as(null);
  expect((await anon.comments.listByBlog({ blogId })).items!.map((c) => c.content)).toEqual(['shown']);
  expect((await upgraded.comments.listByBlog({ blogId })).items).toHaveLength(4);
  expect((await anon.posts.search({ blogId, q: 'hello' })).items!.map((p) => p.id)).toEqual([open.id]);
  expect((await anon.posts.search({ blogId, q: 'nothing' })).items!.map((p) => p.id)).toEqual([hiding.id]);
  await upgraded.close();
  expect(checkStore(f)).toMatchObject({ integrity: 'ok', problems: [] });
});
