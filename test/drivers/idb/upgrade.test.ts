/**
 * An IndexedDB store written under store schema 1 opened by this build: IndexedDB creates the new indexes
 * (empty), and the core refiles every comment by its post's visibility, once.
 */
import 'fake-indexeddb/auto';
import { IDBFactory } from 'fake-indexeddb';
import { expect, it } from 'vitest';
import type { PutOp, StoreSchema } from '../../../src/store/driver.js';
import { createBlogService } from '../../../src/index.js';
import {
  put,
  type BlogRecord,
  type CommentRecord,
  type PostRecord,
  type Records,
  type UserRecord,
} from '../../../src/store/records.js';
import { STORE_SCHEMA } from '../../../src/store/schema.js';
import { idbDriver } from '../../../drivers/idb/index.js';

const LEGACY: StoreSchema = {
  version: 1,
  collections: STORE_SCHEMA.collections.map((c) => ({
    ...c,
    indexes: c.indexes.filter((i) => i.name !== 'move' && i.name !== 'moving'),
  })),
};

/** A put as layout 1 made it: comments keyed [blogId, status, published, id], no filing class. */
function legacyPut<C extends 'users' | 'blogs' | 'posts' | 'comments'>(collection: C, record: Records[C]): PutOp {
  const op = put(collection, record, 0);
  const keys = { ...op.keys };
  delete keys.moving;
  delete keys.move;
  if (collection === 'comments') {
    const c = record as CommentRecord;
    keys.blog = [[c.blogId, c.status, c.published, c.id]];
  }
  return { ...op, keys };
}

it('upgrades a schema-1 IndexedDB store once: a reader never sees the comments of a post that hides them', async () => {
  const factory = new IDBFactory();
  const at = (i: number) => new Date(Date.UTC(2025, 0, 1, 0, 0, i)).toISOString();
  const user: UserRecord = { id: 'u1', displayName: 'Owner', created: at(0) };
  const blog: BlogRecord = {
    id: 'b1',
    name: 'Old',
    description: '',
    url: 'https://old.example/',
    locale: { language: 'en', country: '', variant: '' },
    ownerId: 'u1',
    published: at(0),
    updated: at(0),
  };
  const post = (id: string, readerComments: PostRecord['readerComments'], comments: number): PostRecord => ({
    id,
    blogId: 'b1',
    authorId: 'u1',
    title: id,
    content: '<p>hello</p>',
    published: at(1),
    updated: at(1),
    path: `/2025/01/${id}.html`,
    rev: 1,
    status: 'LIVE',
    labels: [],
    readerComments,
    liveComments: comments,
    allComments: comments,
  });
  const comment = (id: string, postId: string, i: number): CommentRecord => ({
    id,
    blogId: 'b1',
    postId,
    status: 'LIVE',
    content: id,
    published: at(10 + i),
    updated: at(10 + i),
    authorName: 'R',
  });
  const legacy = idbDriver({ name: 'old', indexedDB: factory });
  await legacy.open(LEGACY);
  await legacy.commit([
    legacyPut('users', user),
    legacyPut('blogs', blog),
    legacyPut('posts', post('open', 'ALLOW', 1)),
    legacyPut('posts', post('quiet', 'DONT_ALLOW_HIDE_EXISTING', 2)),
    legacyPut('comments', comment('shown', 'open', 0)),
    legacyPut('comments', comment('h1', 'quiet', 1)),
    legacyPut('comments', comment('h2', 'quiet', 2)),
  ]);
  await legacy.close();

  const service = createBlogService({
    driver: idbDriver({ name: 'old', indexedDB: factory }),
  });
  expect((await service.as(null).comments.listByBlog({ blogId: 'b1' })).items!.map((c) => c.id)).toEqual(['shown']);
  expect((await service.comments.listByBlog({ blogId: 'b1' })).items!.map((c) => c.id)).toEqual(['h2', 'h1', 'shown']);
  await service.close();
});
