/**
 * The page behind `test/bench/idb.bench.ts`. In one Chromium page it loads the same posts into blogcore
 * (createBlogService on idbDriver) and into a hand-written raw `idb` store, then times the same work on
 * both: get, insert, first page of 20, a page 50% deep by keyset, a two-word search. Timings are taken
 * here (performance.now, cross-origin isolated); Node prints them.
 */
import { openDB, type IDBPDatabase } from 'idb';
import { idbDriver } from '../../drivers/idb/index.js';
import { createBlogService } from '../../src/index.js';
import { put, type PostRecord } from '../../src/store/records.js';
import type { Timing } from '../bench/harness.js';
import { rng, type Generator } from '../drivers/sqlite/bench-data.js';
import { bulkLoad } from '../bench/bulk-load.js';

export interface BenchRow {
  op: string;
  size: number;
  ours: Timing;
  raw: Timing;
  target?: number;
}

export interface BenchResult {
  rows: BenchRow[];
  notes: string[];
}

declare global {
  /** With `--profile`: starts (`on`) or stops a CPU profile of this page around blogcore's side of an operation. */
  function profile(phase: string, on: boolean): Promise<void>;
}

/**
 * Runs blogcore's side of an operation 200 times more, under the profiler (a no-op without `--profile`), on
 * calls `from`… (inserts: posts the timed run does not insert again, whose URLs would be taken).
 */
async function profiled(phase: string, ours: (i: number) => unknown, from = 1_000_000): Promise<void> {
  await profile(phase, true);
  for (let i = 0; i < 200; i++) await ours(from + i);
  await profile(phase, false);
}

// --- deterministic data ------------------------------------------------------------------------

const SYLLABLES = ['ka', 'lo', 'mi', 'ne', 'ru', 'ta', 'so', 'vi', 'de', 'pa', 'zu', 'be', 'fi', 'go', 'hu', 'je'];
/** 4,000 distinct pseudo-words (2–4 syllables), Zipf-weighted. */
const VOCAB: string[] = [];
for (let i = 0; VOCAB.length < 4000; i++) {
  let n = i;
  let w = '';
  do {
    w += SYLLABLES[n % 16];
    n = Math.floor(n / 16);
  } while (n > 0);
  if (w.length >= 4) VOCAB.push(w);
}
const zipf = (weights: number[]) => {
  const cum: number[] = [];
  let s = 0;
  for (const w of weights) cum.push((s += w));
  return (r: number) => {
    const x = r * s;
    let lo = 0;
    let hi = cum.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cum[mid]! < x) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
};
const pickWord = zipf(VOCAB.map((_, i) => 1 / (i + 1)));
const LABELS = Array.from({ length: 40 }, (_, i) => `label-${String(i).padStart(2, '0')}`);
const pickLabel = zipf(LABELS.map((_, i) => 1 / (i + 1)));
/** Two words each on about 10–15% of posts, both on about 1.5% (like the baselines' "common" query). */
export const QUERY = [VOCAB[200]!, VOCAB[300]!];

interface PostInput {
  title: string;
  content: string;
  labels: string[];
  published: string;
}

function makePost(i: number): PostInput {
  const r = rng(i + 1);
  const words = (n: number) => Array.from({ length: n }, () => VOCAB[pickWord(r())]!).join(' ');
  const paragraphs = Array.from({ length: 5 }, () => `<p>${words(55)}</p>`).join('\n');
  const labels = [...new Set(Array.from({ length: 1 + Math.floor(r() * 3) }, () => LABELS[pickLabel(r())]!))];
  const published = new Date(Date.UTC(2020, 0, 1) + i * 60_000).toISOString();
  return { title: words(6), content: paragraphs, labels, published };
}

// --- the raw baseline: what a hand-written app on idb would do -----------------------------------

interface RawPost {
  id: string;
  blogId: string;
  status: string;
  published: string;
  updated: string;
  title: string;
  content: string;
  labels: string[];
  url: string;
  author: { id: string; displayName: string };
  tokens: string[];
}

const tokenize = (text: string) => [
  ...new Set(
    text
      .replace(/<[^>]*>/g, ' ')
      .toLowerCase()
      .match(/[\p{L}\p{N}]+/gu) ?? [],
  ),
];
const rawId = (i: number) => `p${String(i).padStart(8, '0')}`;

function rawPost(blogId: string, i: number, p: PostInput): RawPost {
  return {
    id: rawId(i),
    blogId,
    status: 'LIVE',
    published: p.published,
    updated: p.published,
    title: p.title,
    content: p.content,
    labels: p.labels,
    url: `https://bench.example/2020/01/post-${i}.html`,
    author: { id: 'u1', displayName: 'Bench' },
    tokens: tokenize(`${p.title} ${p.content} ${p.labels.join(' ')}`),
  };
}

type RawDB = IDBPDatabase<unknown>;

/** The raw baseline's database: posts by id, a (blog, status, published, id) index and a multiEntry token index. */
const openRaw = (name: string): Promise<RawDB> =>
  openDB(name, 1, {
    upgrade(db) {
      const store = db.createObjectStore('posts', { keyPath: 'id' });
      store.createIndex('published', ['blogId', 'status', 'published', 'id']);
      store.createIndex('tokens', 'tokens', { multiEntry: true });
    },
  });

/** The raw baseline's load: the same posts, put in transactions of 1,000. */
async function putRawPosts(raw: RawDB, blogId: string, size: number): Promise<void> {
  for (let start = 0; start < size; start += 1000) {
    const tx = raw.transaction('posts', 'readwrite');
    for (let i = start; i < Math.min(size, start + 1000); i++) void tx.store.put(rawPost(blogId, i, makePost(i)));
    await tx.done;
  }
}
type GetAllRecords = (o: {
  query: IDBKeyRange;
  count: number;
  direction: IDBCursorDirection;
}) => Promise<Array<{ value: RawPost; key: IDBValidKey }>>;

/** Newest `count` LIVE posts of a blog below `before` (exclusive), like a keyset list page. */
async function rawPage(
  db: RawDB,
  blogId: string,
  count: number,
  before?: IDBValidKey,
): Promise<Array<{ value: RawPost; key: IDBValidKey }>> {
  const index = db.transaction('posts').store.index('published');
  const range = before
    ? IDBKeyRange.bound([blogId, 'LIVE'], before, false, true)
    : IDBKeyRange.bound([blogId, 'LIVE'], [blogId, 'LIVE', []]);
  const getAllRecords = (index as unknown as { getAllRecords?: GetAllRecords }).getAllRecords;
  if (typeof getAllRecords === 'function') return getAllRecords.call(index, { query: range, count, direction: 'prev' });
  const out: Array<{ value: RawPost; key: IDBValidKey }> = [];
  for await (const c of index.iterate(range, 'prev')) {
    out.push({ value: c.value as RawPost, key: c.key });
    if (out.length >= count) break;
  }
  return out;
}

/** Posts holding every word, newest first, 20 of them: count, read the rarest word's posts, filter, sort. */
async function rawSearch(db: RawDB, words: string[]): Promise<RawPost[]> {
  const index = db.transaction('posts').store.index('tokens');
  const counts = await Promise.all(words.map((w) => index.count(w)));
  const order = words.map((w, i) => [w, counts[i]!] as const).sort((a, b) => a[1] - b[1]);
  const candidates = (await index.getAll(order[0]![0])) as RawPost[];
  const rest = order.slice(1).map(([w]) => w);
  return candidates
    .filter((p) => rest.every((w) => p.tokens.includes(w)))
    .sort((a, b) => (a.published === b.published ? (a.id < b.id ? 1 : -1) : a.published < b.published ? 1 : -1))
    .slice(0, 20);
}

async function deleteDb(name: string) {
  await new Promise<void>((resolve) => {
    const r = indexedDB.deleteDatabase(name);
    r.onsuccess = r.onerror = () => resolve();
  });
}

// --- timing ----------------------------------------------------------------------------------

/**
 * Times blogcore and raw call by call, alternating which goes first, for `budgetMs` each: on a shared
 * machine, background work (other processes, LevelDB compaction) then slows both sides alike.
 * Same statistics as the harness's `time` (microseconds).
 */
async function timePair(
  ours: (i: number) => unknown,
  raw: (i: number) => unknown,
  budgetMs: number,
): Promise<{ ours: Timing; raw: Timing }> {
  for (let i = 0; i < 20; i++) {
    await raw(i);
    await ours(i);
  }
  const a: number[] = [];
  const b: number[] = [];
  const end = performance.now() + 2 * budgetMs;
  for (let i = 20; performance.now() < end || a.length < 20; i++) {
    const order: Array<[(i: number) => unknown, number[]]> =
      i % 2
        ? [
            [ours, a],
            [raw, b],
          ]
        : [
            [raw, b],
            [ours, a],
          ];
    for (const [fn, samples] of order) {
      const t0 = performance.now();
      await fn(i);
      samples.push((performance.now() - t0) * 1000);
    }
  }
  const stats = (samples: number[]): Timing => {
    samples.sort((x, y) => x - y);
    const mean = samples.reduce((s, x) => s + x, 0) / samples.length;
    return {
      mean,
      p50: samples[Math.floor(samples.length / 2)]!,
      p99: samples[Math.floor(samples.length * 0.99)]!,
      ops: samples.length,
    };
  };
  return { ours: stats(a), raw: stats(b) };
}

// --- the run ------------------------------------------------------------------------------------

export async function runIdbBench(options: { size: number; budgetMs: number }): Promise<BenchResult> {
  const { size, budgetMs } = options;
  const notes: string[] = [];
  const tag = `${size}-${Date.now().toString(36)}`;
  await deleteDb(`bk-${tag}`);
  await deleteDb(`raw-${tag}`);

  const driver = idbDriver({ name: `bk-${tag}` });
  const service = createBlogService({ driver });
  await service.ready();
  const user = await service.users.insert({ body: { displayName: 'Bench', id: 'u1' } });
  const blog = await service.blogs.insert({ body: { name: 'Bench', url: 'https://bench.example/' }, ownerId: user.id });
  const blogId = blog.id as string;

  const raw = await openRaw(`raw-${tag}`);

  // Load: blogcore through its public API, one insert per post, 8 in flight; raw in transactions of 1,000.
  const ids: string[] = new Array(size);
  let t0 = performance.now();
  const LANES = 8;
  await Promise.all(
    Array.from({ length: LANES }, async (_, lane) => {
      for (let i = lane; i < size; i += LANES) {
        const p = makePost(i);
        const post = await service.posts.insert({
          blogId,
          body: { title: p.title, content: p.content, labels: p.labels, published: p.published },
        });
        ids[i] = post.id as string;
      }
    }),
  );
  const loadOurs = performance.now() - t0;
  t0 = performance.now();
  await putRawPosts(raw, blogId, size);
  const loadRaw = performance.now() - t0;
  notes.push(
    `load ${size} posts: blogcore ${(loadOurs / 1000).toFixed(1)} s (posts.insert, 8 in flight: ${((loadOurs * 1000) / size).toFixed(0)} µs per post); raw ${(loadRaw / 1000).toFixed(1)} s (puts in transactions of 1,000)`,
  );

  // Let the storage settle after the load (LevelDB compaction) before timing anything.
  await new Promise((resolve) => setTimeout(resolve, 3000));

  const pick = (i: number) => (i * 7919) % size;
  const rows: BenchRow[] = [];
  const pair = async (op: string, ours: (i: number) => unknown, rawFn: (i: number) => unknown, target?: number) => {
    const { ours: o, raw: r } = await timePair(ours, rawFn, budgetMs);
    rows.push({ op, size, ours: o, raw: r, ...(target !== undefined ? { target } : {}) });
  };

  // get by id
  await pair(
    'posts.get',
    (i) => service.posts.get({ blogId, postId: ids[pick(i)]! }),
    (i) => raw.get('posts', rawId(pick(i))),
    2,
  );
  await pair(
    'driver.get (no core)',
    (i) => driver.get('posts', ids[pick(i)]!),
    (i) => raw.get('posts', rawId(pick(i))),
  );

  // first page of 20, newest first
  const first = await service.posts.list({ blogId, maxResults: 20 });
  if ((first.items as unknown[] | undefined)?.length !== 20) throw new Error('blogcore first page is not 20 posts');
  await pair(
    'posts.list first 20',
    () => service.posts.list({ blogId, maxResults: 20 }),
    () => rawPage(raw, blogId, 20),
    2,
  );

  const livePrefix = [blogId, 'LIVE'];
  await pair(
    'driver.list first 20 (no core)',
    () => driver.list({ collection: 'posts', index: 'published', prefix: livePrefix, direction: 'desc', limit: 20 }),
    () => rawPage(raw, blogId, 20),
  );

  // a page 50% deep: walk there by page token (blogcore) and by keyset (raw), then time that one page
  let token: string | undefined;
  for (let seen = 0; seen < size / 2; seen += 100) {
    const page: { nextPageToken?: string } = await service.posts.list({
      blogId,
      maxResults: 100,
      fetchBodies: false,
      ...(token ? { pageToken: token } : {}),
    });
    token = page.nextPageToken;
  }
  const middle = (await rawPage(raw, blogId, Math.floor(size / 2))).at(-1)!.key;
  await pair(
    'posts.list page @50% (keyset)',
    () => service.posts.list({ blogId, maxResults: 20, pageToken: token }),
    () => rawPage(raw, blogId, 20, middle),
    2,
  );

  // search for two words, first page of 20
  const q = QUERY.join(' ');
  const found = await service.posts.search({ blogId, q, maxResults: 20 });
  const rawFound = await rawSearch(raw, QUERY);
  const matches = (await raw.transaction('posts').store.index('tokens').getAllKeys(QUERY[0])).length;
  notes.push(
    `search "${q}": blogcore returned ${(found.items as unknown[] | undefined)?.length ?? 0} posts, raw ${rawFound.length}; "${QUERY[0]}" alone is on ${matches} posts`,
  );
  const search = () => service.posts.search({ blogId, q, maxResults: 20 });
  await pair('posts.search two words, 20', search, () => rawSearch(raw, QUERY));
  await profiled('idb-search', search);

  // insert (after the reads, so they ran on exactly `size` posts)
  // New posts are made before timing; each side inserts its own copy of the same posts.
  const fresh = Array.from({ length: 4000 }, (_, j) => makePost(size + j));
  const rawFresh = fresh.map((p, j) => rawPost(blogId, size + j, p));
  const insert = (i: number) => {
    const p = fresh[i % fresh.length]!;
    return service.posts.insert({
      blogId,
      body: { title: p.title, content: p.content, labels: p.labels, published: p.published },
    });
  };
  await profiled('idb-insert', insert, fresh.length - 200);
  await pair(
    'posts.insert',
    insert,
    async (i) => {
      const tx = raw.transaction('posts', 'readwrite');
      void tx.store.put({ ...rawFresh[i % rawFresh.length]!, id: `n${i}` });
      await tx.done;
    },
    1.5,
  );

  // The driver alone on the same inserts: the commits the core would send, built before timing.
  const template = (await driver.get('posts', ids[0]!))!.doc as unknown as PostRecord;
  const ops = fresh.slice(0, 3000).map((p, j) =>
    put(
      'posts',
      {
        ...template,
        id: `d${j}`,
        path: `${template.path}-d${j}`,
        title: p.title,
        content: p.content,
        labels: p.labels,
        published: p.published,
      },
      0,
    ),
  );
  await pair(
    'driver.commit insert (no core)',
    (i) => driver.commit([ops[i]!]), // each op once: ~1 ms or more per commit, so the budget never runs out of ops
    async (i) => {
      const tx = raw.transaction('posts', 'readwrite');
      void tx.store.put({ ...rawFresh[i % rawFresh.length]!, id: `m${i}` });
      await tx.done;
    },
  );

  await service.close();
  raw.close();
  await deleteDb(`bk-${tag}`);
  await deleteDb(`raw-${tag}`);
  return { rows, notes };
}

/**
 * Two-word search at a bigger size (docs/design.md §14: ≤ 10 ms at 100k posts). blogcore's store is loaded through the
 * core in commits of 500 posts (the records `posts.insert` stores, bench/bulk-load.ts), as a replica's first
 * pull writes it: loading 100k posts one `posts.insert` at a time would take most of an hour. Raw loads the
 * same posts as for 10k (transactions of 1,000, a multiEntry token index), and both answer the same query.
 */
export async function runSearchAtScale(options: { size: number; budgetMs: number }): Promise<BenchResult> {
  const { size, budgetMs } = options;
  const tag = `search-${size}-${Date.now().toString(36)}`;
  const service = createBlogService({ driver: idbDriver({ name: `bk-${tag}` }) });
  let t0 = performance.now();
  const gen: Generator = {
    vocabulary: VOCAB,
    labels: LABELS,
    query: QUERY.join(' '),
    post: (i) => ({ ...makePost(i), draft: false }),
  };
  const { blogId } = await bulkLoad(service, gen, size, 500);
  const loadOurs = performance.now() - t0;
  const raw = await openRaw(`raw-${tag}`);
  t0 = performance.now();
  await putRawPosts(raw, blogId, size);
  const loadRaw = performance.now() - t0;
  await new Promise((resolve) => setTimeout(resolve, 3000));
  const q = QUERY.join(' ');
  const search = () => service.posts.search({ blogId, q, maxResults: 20 });
  const t1 = performance.now();
  const found = await search();
  const cold = performance.now() - t1;
  const rawFound = await rawSearch(raw, QUERY);
  const { ours, raw: r } = await timePair(search, () => rawSearch(raw, QUERY), budgetMs);
  await profiled('idb-search', search);
  await service.close();
  raw.close();
  await deleteDb(`bk-${tag}`);
  await deleteDb(`raw-${tag}`);
  return {
    rows: [{ op: 'posts.search two words, 20', size, ours, raw: r }],
    notes: [
      `load ${size} posts: blogcore ${(loadOurs / 1000).toFixed(1)} s (through the core in commits of 500); raw ${(loadRaw / 1000).toFixed(1)} s (puts in transactions of 1,000)`,
      `search "${q}" at ${size}: blogcore returned ${found.items?.length ?? 0} posts, raw ${rawFound.length}; the first search after the load took ${cold.toFixed(1)} ms`,
    ],
  };
}

(globalThis as { runIdbBench?: typeof runIdbBench }).runIdbBench = runIdbBench;
(globalThis as { runSearchAtScale?: typeof runSearchAtScale }).runSearchAtScale = runSearchAtScale;
