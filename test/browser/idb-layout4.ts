/**
 * A store of posts as layouts 3 and 4 of the IndexedDB driver wrote it (every index, labels included, as
 * multiEntry IndexedDB index entries on the record's `k`, search terms in segments; layout 4 adds `~blobs`), built
 * here with raw IndexedDB calls, then opened by this build, which keeps labels as postings in the same segments as
 * the search terms (layout 5): every record is as it was, every label listing, paged by keyset, gives what the old
 * store's IndexedDB index gave, and searches find what they found. An upgrade stopped part
 * way (its transaction aborted, as a crash or a closed tab does) leaves the old store whole, and the next open
 * upgrades it. Runs on fake-indexeddb and in Chromium.
 */
import { expect, it } from 'vitest';
import { idbDriver } from '../../drivers/idb/index.js';
import { buildSegment } from '../../drivers/idb/postings.js';
import { compareKeys, type Key } from '../../src/store/driver.js';
import { put, type PostRecord } from '../../src/store/records.js';
import { STORE_SCHEMA } from '../../src/store/schema.js';

const request = <T>(r: IDBRequest<T>) =>
  new Promise<T>((resolve, reject) => {
    r.onsuccess = () => resolve(r.result);
    r.onerror = () => reject(r.error);
  });
const done = (tx: IDBTransaction) =>
  new Promise<void>((resolve, reject) => {
    tx.oncomplete = () => resolve();
    tx.onerror = () => reject(tx.error);
    tx.onabort = () => reject(tx.error ?? new Error('aborted'));
  });

const BLOGS = ['b1', 'b2'];
const LABELS = Array.from({ length: 12 }, (_, i) => `label ${i}`);
const STATUSES = ['LIVE', 'DRAFT', 'SCHEDULED'] as const;
const pad = (n: number) => String(n).padStart(6, '0');
/** A label listing's page. */
const PAGE = 50;

/** Post `i`: zero to three labels, in two blogs and three statuses. */
function post(i: number): PostRecord {
  const at = new Date(Date.UTC(2025, 0, 1) + ((i * 7919) % 100_000) * 60_000).toISOString();
  return {
    id: `p${pad(i)}`,
    blogId: BLOGS[i % 2]!,
    authorId: 'u1',
    title: `Post ${i}`,
    content: `<p>post ${i}</p>`,
    published: at,
    updated: new Date(Date.parse(at) + (i % 5) * 1000).toISOString(),
    path: `/2025/p${i}.html`,
    rev: 1,
    status: STATUSES[i % 3]!,
    labels: LABELS.filter((_, l) => (i * 31 + l * 17) % 7 === 0).slice(0, 3),
    readerComments: 'ALLOW',
    liveComments: 0,
    allComments: 0,
  };
}

type RawRecord = { id: string; v: number; doc: unknown; k: Record<string, Key[]> };

/** Layout `layout` (3 or 4) of the store's schema, holding `n` posts. */
async function oldStore(factory: IDBFactory, name: string, layout: 3 | 4, n: number): Promise<void> {
  const open = factory.open(name, STORE_SCHEMA.version * 1000 + layout);
  open.onupgradeneeded = () => {
    const db = open.result;
    for (const c of STORE_SCHEMA.collections) {
      const store = db.createObjectStore(c.name, { keyPath: 'id' });
      for (const i of c.indexes) store.createIndex(i.name, `k.${i.name}`, { unique: !!i.unique, multiEntry: true });
      if (c.search) {
        db.createObjectStore(`~seg.${c.name}`, { autoIncrement: true });
        db.createObjectStore(`~post.${c.name}`);
        db.createObjectStore(`~dead.${c.name}`);
      }
    }
    db.createObjectStore('~log', { autoIncrement: true });
    db.createObjectStore('~meta');
    db.createObjectStore('~changes').createIndex('stream', ['s', 'q', 'p']);
    if (layout === 4) db.createObjectStore('~blobs');
  };
  const db = await request(open);
  for (let from = 0; from < n; from += 1000) {
    const tx = db.transaction(['posts', '~seg.posts', '~post.posts'], 'readwrite');
    const docs = [];
    for (let i = from; i < Math.min(n, from + 1000); i++) {
      const op = put('posts', post(i), 0);
      const v = 1 + (i % 3);
      tx.objectStore('posts').put({ id: op.id, v, doc: op.doc, k: op.keys, s: op.terms?.scope });
      docs.push({ id: op.id, v, s: op.terms!.scope, key: op.keys.published![0]!, terms: op.terms!.tokens });
    }
    // The batch's search terms as one segment, as a layout-4 commit of it wrote them.
    const id = (await request(tx.objectStore('~seg.posts').add({}))) as number;
    const { head, body } = buildSegment(id, docs);
    tx.objectStore('~seg.posts').put(head, id);
    for (const [key, value] of body) tx.objectStore('~post.posts').put(value, key);
    await done(tx);
  }
  db.close();
}

/** What the old store holds: its records, and each label prefix's ids in the order of its IndexedDB index. */
async function snapshot(factory: IDBFactory, name: string) {
  const db = await request(factory.open(name));
  const tx = db.transaction('posts');
  const finished = done(tx);
  const posts = tx.objectStore('posts');
  const records = (await request(posts.getAll())) as RawRecord[];
  const listings = new Map<string, string[]>();
  const reads: Array<Promise<unknown>> = [];
  if (posts.indexNames.contains('labelPublished')) {
    for (const index of ['labelPublished', 'labelUpdated'])
      for (const prefix of prefixes()) {
        const range = IDBKeyRange.bound(prefix, [...prefix, []]);
        reads.push(
          request(posts.index(index).getAllKeys(range)).then((ids) =>
            listings.set(`${index} ${prefix.join('/')}`, ids as string[]),
          ),
        );
      }
  }
  await Promise.all(reads);
  // (Closed once its reads are over: Chromium says `blocked` to an upgrade while a closed connection's transaction runs.)
  await finished;
  const version = db.version;
  const stores = [...db.objectStoreNames];
  db.close();
  return { records, listings, version, stores };
}

function prefixes(): string[][] {
  return BLOGS.flatMap((b) => LABELS.flatMap((l) => STATUSES.map((s) => [b, l, s])));
}

/** A factory whose upgrades of `name` are aborted `afterMs` into the first one that does real work. */
function crashing(factory: IDBFactory, afterMs: number): { factory: IDBFactory; crashed: () => boolean } {
  let crashed = false;
  const open = (name: string, version?: number) => {
    const r = factory.open(name, version);
    r.addEventListener('upgradeneeded', () => {
      const tx = r.transaction!;
      setTimeout(() => {
        if (crashed) return;
        try {
          tx.abort();
          crashed = true;
        } catch {
          // Already over (an upgrade that stopped at once for want of its code).
        }
      }, afterMs);
    });
    return r;
  };
  return {
    factory: new Proxy(factory, {
      get: (target, key) => (key === 'open' ? open : Reflect.get(target, key, target)),
    }) as IDBFactory,
    crashed: () => crashed,
  };
}

export function keyedUpgrade(env: {
  fresh(): { factory: IDBFactory; name: string };
  KeyRange: typeof IDBKeyRange;
  /** Posts in the big store (10k unless the environment is slow). */
  posts: number;
}): void {
  const check = async (factory: IDBFactory, name: string, layout: 3 | 4, n: number, crash: boolean) => {
    await oldStore(factory, name, layout, n);
    const before = await snapshot(factory, name);
    expect(before.version).toBe(STORE_SCHEMA.version * 1000 + layout);
    expect(before.records).toHaveLength(n);
    if (crash) {
      const c = crashing(factory, 5);
      await expect(
        idbDriver({ name, indexedDB: c.factory, IDBKeyRange: env.KeyRange }).open(STORE_SCHEMA),
      ).rejects.toThrow();
      expect(c.crashed()).toBe(true);
      // The old store, whole: same layout, same records, the labels still IndexedDB index entries.
      const after = await snapshot(factory, name);
      expect(after.version).toBe(before.version);
      expect(after.stores).not.toContain('~seg.posts~k');
      expect(after.records).toEqual(before.records);
      expect(after.listings).toEqual(before.listings);
    }
    const d = idbDriver({ name, indexedDB: factory, IDBKeyRange: env.KeyRange });
    await d.open(STORE_SCHEMA);
    // Every record as it was, read back through the driver and raw.
    const ids = before.records.map((r) => r.id);
    const got = await d.getMany('posts', ids);
    got.forEach((doc, i) => {
      const r = before.records[i]!;
      expect(doc).toEqual({ id: r.id, version: r.v, doc: r.doc });
    });
    // Every label listing, paged by keyset (PAGE at a time), as the old IndexedDB index gave it.
    const byId = new Map(before.records.map((r) => [r.id, r]));
    let listed = 0;
    for (const index of ['labelPublished', 'labelUpdated']) {
      for (const prefix of prefixes()) {
        const ids: string[] = [];
        let lower: { key: Key; open: true } | undefined;
        for (;;) {
          const page = await d.list({
            collection: 'posts',
            index,
            prefix,
            direction: 'asc',
            limit: PAGE,
            ...(lower ? { lower } : {}),
          });
          for (const e of page) {
            expect(compareKeys(e.key.slice(0, 3), prefix)).toBe(0);
            expect((byId.get(e.id)?.k[index] ?? []).some((k) => compareKeys(k, e.key) === 0)).toBe(true);
          }
          ids.push(...page.map((e) => e.id));
          if (page.length < PAGE) break;
          lower = { key: page[page.length - 1]!.key.slice(3), open: true };
        }
        expect(ids, `${index} ${prefix.join('/')}`).toEqual(before.listings.get(`${index} ${prefix.join('/')}`));
        listed += ids.length;
      }
    }
    expect(listed).toBe(before.records.reduce((n, r) => n + r.k.labelPublished!.length + r.k.labelUpdated!.length, 0));
    // The newest posts of two labels at once, as the service asks.
    const two = await d.keys({
      collection: 'posts',
      index: 'labelPublished',
      prefixes: [
        ['b1', LABELS[0]!, 'LIVE'],
        ['b1', LABELS[3]!, 'LIVE'],
      ],
      direction: 'desc',
      limit: 25,
    });
    const expected = before.records
      .flatMap((r) =>
        r.k.labelPublished!.filter(
          (k) => k[0] === 'b1' && k[2] === 'LIVE' && (k[1] === LABELS[0] || k[1] === LABELS[3]),
        ),
      )
      .map((k) => k.slice(3))
      .sort((a, b) => -compareKeys(a, b))
      .filter((k, i, all) => i === 0 || compareKeys(k, all[i - 1]!) !== 0)
      .slice(0, 25);
    expect(two.map((e) => e.key.slice(3))).toEqual(expected);
    // Searches in the segments the labels now share: a word in every post, a rare one, and among a label's posts.
    const newest = (keys: Key[], limit: number) =>
      keys
        .sort((a, b) => -compareKeys(a, b))
        .slice(0, limit)
        .map((k) => k[k.length - 1]);
    for (const [tokens, limit] of [
      [['post'], 20],
      [['9'], 5],
    ] as const) {
      const found = await d.search({
        collection: 'posts',
        index: 'published',
        prefixes: [['b2', 'LIVE']],
        direction: 'desc',
        limit,
        scope: 'b2',
        tokens: [...tokens],
      });
      const words = (r: RawRecord) => put('posts', structuredClone(r.doc) as PostRecord, 0).terms!.tokens;
      const want = before.records
        .filter((r) => words(r).includes(tokens[0]))
        .flatMap((r) => r.k.published!.filter((k) => k[0] === 'b2' && k[1] === 'LIVE'));
      expect(found.map((e) => e.id)).toEqual(newest(want, limit));
    }
    const label = await d.search({
      collection: 'posts',
      index: 'labelPublished',
      prefixes: [['b1', LABELS[0]!, 'LIVE']],
      direction: 'desc',
      limit: 10,
      scope: 'b1',
      tokens: ['post'],
    });
    const inLabel = before.records.flatMap((r) =>
      r.k.labelPublished!.filter((k) => k[0] === 'b1' && k[1] === LABELS[0] && k[2] === 'LIVE'),
    );
    expect(label.map((e) => e.id)).toEqual(newest(inLabel, 10));
    await d.close();
    const after = await snapshot(factory, name);
    expect(after.version).toBe(STORE_SCHEMA.version * 1000 + 5);
    expect(after.records).toEqual(before.records);
    await request(factory.deleteDatabase(name));
  };

  it(`upgrades a layout-4 store of ${env.posts} posts to labels as postings, after a crash part way`, async () => {
    const { factory, name } = env.fresh();
    await check(factory, name, 4, env.posts, true);
  }, 240_000); // 10k posts written, upgraded and listed on fake-indexeddb: ~50 s on a loaded machine

  it('upgrades a small layout-3 store to labels as postings', async () => {
    const { factory, name } = env.fresh();
    await check(factory, name, 3, 300, false);
  });
}
