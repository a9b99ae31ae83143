/**
 * A first pull stores its posts without their search terms where the local driver can add them afterwards
 * (`addTerms`: memory, IndexedDB), and writes them right after: a search answers as if they had come with the
 * posts, whenever it is asked — right after the pull (it waits for them), after a reload that stopped the
 * writing half way, and for a post edited here before its terms were written.
 */
import { IDBFactory } from 'fake-indexeddb';
import { beforeEach, expect, it } from 'vitest';
import { idbDriver } from '../../drivers/idb/index.js';
import { memoryDriver } from '../../drivers/memory/index.js';
import { createBlogService, type BlogService, type StorageDriver, type TermsItem } from '../../src/index.js';
import { internalsOf } from '../../src/service/internals.js';
import { closedAfterEach, replicaOf, serverFor } from './replicas.js';
import type { SyncServer } from './server.js';

let s: SyncServer;
const opened = closedAfterEach(() => s);

beforeEach(async () => {
  s = await serverFor('sqlite');
});

/** 14 posts: every third has "fizz" in its title, every other "even" in its content. */
async function seed(): Promise<{ ids: string[]; fizz: string[]; even: string[] }> {
  const ids: string[] = [];
  for (let i = 0; i < 14; i++) {
    const body = { title: `Post ${i}${i % 3 ? '' : ' fizz'}`, content: `<p>${i % 2 ? 'odd' : 'even'} text</p>` };
    ids.push((await s.as('admin').posts.insert({ blogId: s.blogId, body })).id!);
  }
  return { ids, fizz: ids.filter((_, i) => i % 3 === 0), even: ids.filter((_, i) => i % 2 === 0) };
}

/** A driver whose `addTerms` counts what it is handed and waits for `gate` (or fails with `fail`) first. */
function watched(inner: StorageDriver, gate: Promise<unknown> = Promise.resolve(), fail?: Error) {
  const handed: string[] = [];
  const driver = new Proxy(inner, {
    get: (target, prop) => {
      if (prop === 'addTerms')
        return async (collection: string, items: readonly TermsItem[]) => {
          await gate;
          if (fail) throw fail;
          handed.push(...items.map((i) => i.id));
          return target.addTerms!(collection, items);
        };
      const value = Reflect.get(target, prop) as unknown;
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return { driver, handed };
}

const found = async (local: BlogService, q: string) =>
  (await local.posts.search({ blogId: s.blogId, q, maxResults: 50 })).items.map((p) => p.id).sort();

const pull = async (local: BlogService) => {
  const r = replicaOf(s, 'admin', local, undefined, { maxResults: 4 });
  opened.push(r);
  expect(await r.replica.sync()).toMatchObject({ pulled: 14 });
  return r;
};

it.each(['memory', 'idb'] as const)(
  'on %s, a search right after a first pull finds every post it brought, their terms written after them',
  async (kind) => {
    const { ids, fizz, even } = await seed();
    const inner = kind === 'memory' ? memoryDriver() : idbDriver({ name: 'replica', indexedDB: new IDBFactory() });
    const { driver, handed } = watched(inner);
    const local = createBlogService({ driver });
    await pull(local);
    expect(await found(local, 'fizz')).toEqual([...fizz].sort());
    expect(await found(local, 'even text')).toEqual([...even].sort());
    expect(await found(local, 'post')).toEqual([...ids].sort());
    // Every post's terms were handed over once, after the pull; the blog's mark is gone.
    expect([...handed].sort()).toEqual([...ids].sort());
    expect(await internalsOf(local)!.core.driver.get('settings', `terms:${s.blogId}`)).toBeUndefined();
  },
);

it('a tab closed before the terms were written: the next search there writes them first', async () => {
  const { ids, fizz } = await seed();
  const indexedDB = new IDBFactory();
  const failing = watched(idbDriver({ name: 'replica', indexedDB }), undefined, new Error('tab closed'));
  const first = createBlogService({ driver: failing.driver });
  const r = await pull(first);
  await r.replica.close();
  opened.splice(opened.indexOf(r), 1);
  await first.close();

  const { driver, handed } = watched(idbDriver({ name: 'replica', indexedDB }));
  const local = createBlogService({ driver });
  opened.push(replicaOf(s, 'admin', local));
  expect(await found(local, 'fizz')).toEqual([...fizz].sort());
  expect([...handed].sort()).toEqual([...ids].sort());
});

it('a post edited here before its terms are written is found by its new words only; the search waits for the rest', async () => {
  const { ids, fizz } = await seed();
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  const { driver } = watched(idbDriver({ name: 'replica', indexedDB: new IDBFactory() }), gate);
  const local = createBlogService({ driver });
  await pull(local);
  // Post 0 had "fizz" in its title.
  await local.posts.patch({ blogId: s.blogId, postId: ids[0]!, body: { title: 'Zebra crossing' } });
  const searched = found(local, 'fizz');
  let answered = false;
  void searched.then(() => (answered = true));
  await new Promise((r) => setTimeout(r, 50));
  expect(answered).toBe(false);
  open();
  expect(await searched).toEqual(fizz.filter((id) => id !== ids[0]).sort());
  expect(await found(local, 'zebra')).toEqual([ids[0]]);
});

it('a search while the first pull goes on, then the rest of the pull: a search after it finds every post', async () => {
  const { ids, fizz } = await seed();
  const local = createBlogService({ driver: idbDriver({ name: 'replica', indexedDB: new IDBFactory() }) });
  const r = replicaOf(s, 'admin', local, undefined, { maxResults: 4 });
  opened.push(r);
  // The search runs once the second page has come, while the pull has pages still to store.
  let pages = 0;
  let during: string[] | undefined;
  r.net.lose = async (line) => {
    if (line.includes('/changes') && ++pages === 2) during = await found(local, 'post');
    return false;
  };
  expect(await r.replica.sync()).toMatchObject({ pulled: 14 });
  expect(during!.every((id) => ids.includes(id))).toBe(true);
  expect(during!.length).toBeLessThan(ids.length);
  expect(await found(local, 'fizz')).toEqual([...fizz].sort());
  expect(await found(local, 'post')).toEqual([...ids].sort());
});

it('100 searches at once while the terms are written: one walk hands each post over once, and all answer alike', async () => {
  const { ids, fizz } = await seed();
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  const { driver, handed } = watched(idbDriver({ name: 'replica', indexedDB: new IDBFactory() }), gate);
  const local = createBlogService({ driver });
  await pull(local);
  const searches = Array.from({ length: 100 }, () => found(local, 'fizz'));
  open();
  for (const answer of await Promise.all(searches)) expect(answer).toEqual([...fizz].sort());
  expect([...handed].sort()).toEqual([...ids].sort());
});
