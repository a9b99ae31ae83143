/**
 * An IndexedDB database as blogcore 0.2.0's driver left it (version 1001: schema 1, driver layout 1, search words
 * in `~terms.posts`, the change log in `~log`), opened by this build in Node, where fake-indexeddb stands in for
 * the browser. Its upgrade first stops for want of the postings code and opens again (drivers/idb/connect.ts):
 * the stopped attempt must not leave a rejected promise nobody hears, which ends a Node process.
 */
import 'fake-indexeddb/auto';
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { afterEach, expect, it } from 'vitest';
import { createBlogService } from '../../../src/index.js';
import { idbDriver } from '../../../drivers/idb/index.js';

/** 0.2.0's collections and indexes (store-schema.ts at 0.2.0). */
const COLLECTIONS: Record<string, ReadonlyArray<[string, boolean]>> = {
  users: [],
  blogs: [['url', true]],
  members: [
    ['blog', false],
    ['user', false],
  ],
  posts: [
    ['published', false],
    ['updated', false],
    ['labelPublished', false],
    ['labelUpdated', false],
    ['path', true],
    ['due', false],
  ],
  pages: [
    ['published', false],
    ['path', true],
  ],
  comments: [
    ['post', false],
    ['blog', false],
  ],
  settings: [],
};

function make020(factory: IDBFactory): Promise<void> {
  return new Promise((resolve, reject) => {
    const request = factory.open('blogcore', 1001);
    request.onupgradeneeded = () => {
      const db = request.result;
      db.createObjectStore('~log', { autoIncrement: true });
      for (const [name, indexes] of Object.entries(COLLECTIONS)) {
        const store = db.createObjectStore(name, { keyPath: 'id' });
        for (const [index, unique] of indexes) store.createIndex(index, `k.${index}`, { unique, multiEntry: true });
      }
      db.createObjectStore('~terms.posts', { keyPath: 'id' }).createIndex('t', 't', { multiEntry: true });
      const doc = { id: 'ada', displayName: 'Ada', created: '2026-11-24T10:00:00.000Z' };
      request.transaction!.objectStore('users').put({ id: 'ada', v: 1, doc, k: {} });
    };
    request.onsuccess = () => {
      request.result.close();
      resolve();
    };
    request.onerror = () => reject(request.error);
  });
}

const unheard: unknown[] = [];
const listen = (reason: unknown) => void unheard.push(reason);
process.on('unhandledRejection', listen);
afterEach(() => void process.off('unhandledRejection', listen));

it('opens a 0.2.0 database: upgraded to 9005 (layout 5), its records read, no rejection left unheard', async () => {
  const factory = new IDBFactory();
  await make020(factory);
  const service = createBlogService({ driver: idbDriver({ indexedDB: factory, IDBKeyRange }) });
  expect((await service.users.get({ userId: 'ada' })).displayName).toBe('Ada');
  await new Promise((r) => setTimeout(r, 50)); // a rejection is reported after the turn it was left in
  expect(unheard).toEqual([]);
  await service.close();
  expect((await factory.databases()).find((d) => d.name === 'blogcore')?.version).toBe(9005);
});
