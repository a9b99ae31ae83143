/**
 * blogcore on SQLite (createBlogService on sqliteDriver, the unscoped service) vs raw better-sqlite3 doing
 * the same statements' work, in one run on the same data.
 *
 * Raw: a plain `posts` table (indexes on (blog_id, status, published, id), (blog_id, status, updated, id),
 * unique (blog_id, path)), label tables keyed (blog_id, label, status, published|updated, post_id) — the
 * same orders and filters blogcore serves — and contentless FTS5 over title/text/labels; prepared
 * statements, explicit FTS statements, one transaction per write, rows JSON.stringify'd. No change log.
 * Both connections: WAL, synchronous=NORMAL, a 64 MiB page cache.
 *
 * Sizes: `--sizes=10000,100000` (default), `--sizes=10000,100000,1000000` for 1M (bodies of one
 * paragraph, ~620 bytes, at 1M instead of three, ~1.9 KB), `--quick`: 2000. `--sqlite-sizes` overrides
 * `--sizes` for this file only.
 *
 * Loading: every blogcore post goes through `service.posts.insert` (all the core's rules); the loader only
 * groups 500 inserts into one SQLite transaction on a host-owned connection. From `--bulk-from` posts
 * (default 1M) the records `posts.insert` would store are committed through the driver in batches instead
 * (test/bench/bulk-load.ts), or 1M posts would take hours to load. The measured service then reopens the
 * file with plain `sqliteDriver({ filename })`.
 *
 * Targets are docs/design.md §14's (test/bench/targets.ts); `npm run bench:1m` runs this file and postgres.bench.ts at
 * 10k, 100k and 1M posts.
 */
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createBlogService, type BlogService } from '../../src/index.js';
import { sqliteDriver } from '../../drivers/sqlite/index.js';
import { generator, rng, type BenchPost, type Generator } from '../drivers/sqlite/bench-data.js';
import { put, type CommentRecord, type PostRecord } from '../../src/store/records.js';
import { commentVisOf } from '../../src/rules/access.js';
import { bulkLoad } from './bulk-load.js';
import {
  formatMicros,
  printGrowth,
  printTable,
  timePair,
  verdict,
  type BenchContext,
  type Row,
  type Timing,
} from './harness.js';
import { TARGETS } from './targets.js';

const BLOG_URL = 'https://bench.example/';
/** docs/design.md §14's flat-cost rows: within TARGETS.flat from the smallest size to the largest. */
const FLAT_OPS = [
  'list first page (20)',
  'list page 50% deep (20)',
  'label filter label-30 (20)',
  'search, two words (20)',
];
const LABEL = 'label-30';
const PAGE = 20;

const RAW_SCHEMA = `
  CREATE TABLE posts (
    id TEXT PRIMARY KEY, blog_id TEXT NOT NULL, status TEXT NOT NULL, published TEXT NOT NULL, updated TEXT NOT NULL,
    path TEXT, author_id TEXT NOT NULL, title TEXT NOT NULL, content TEXT NOT NULL, labels TEXT NOT NULL
  );
  CREATE INDEX posts_published ON posts (blog_id, status, published, id);
  CREATE INDEX posts_updated ON posts (blog_id, status, updated, id);
  CREATE UNIQUE INDEX posts_path ON posts (blog_id, path);
  CREATE TABLE post_labels (
    blog_id TEXT NOT NULL, label TEXT NOT NULL, status TEXT NOT NULL, published TEXT NOT NULL, post_id TEXT NOT NULL,
    PRIMARY KEY (blog_id, label, status, published, post_id)
  ) WITHOUT ROWID;
  CREATE TABLE post_labels_updated (
    blog_id TEXT NOT NULL, label TEXT NOT NULL, status TEXT NOT NULL, updated TEXT NOT NULL, post_id TEXT NOT NULL,
    PRIMARY KEY (blog_id, label, status, updated, post_id)
  ) WITHOUT ROWID;
  CREATE VIRTUAL TABLE posts_fts USING fts5 (
    title, body, labels, content = '', contentless_delete = 1, tokenize = 'unicode61 remove_diacritics 2'
  );
`;

type RawRow = {
  id: string;
  blog_id: string;
  status: string;
  published: string;
  updated: string;
  path: string | null;
  author_id: string;
  title: string;
  content: string;
  labels: string;
};

const stripTags = (html: string) => html.replace(/<[^>]*>/g, ' ');
const slug = (title: string) =>
  title
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .slice(0, 40);

/** The raw engine: the statements a hand-written SQLite blog would run for the same operations. */
export class Raw {
  readonly db: Database.Database;
  private s;
  /** `existing`: a file loaded by an earlier run (test/bench/sqlite-reads.ts), whose tables are there. */
  constructor(file: string, existing = false) {
    this.db = new Database(file);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = NORMAL');
    this.db.pragma('cache_size = -65536'); // the same page cache as sqliteDriver's default
    if (!existing) this.db.exec(RAW_SCHEMA);
    const db = this.db;
    this.runTx = db.transaction((fn: () => unknown) => fn());
    this.s = {
      get: db.prepare<[string], RawRow>('SELECT * FROM posts WHERE id = ?'),
      getWithRowid: db.prepare<[string], RawRow & { rowid: number }>('SELECT rowid, * FROM posts WHERE id = ?'),
      insert: db.prepare(
        'INSERT INTO posts (id, blog_id, status, published, updated, path, author_id, title, content, labels) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
      ),
      label: db.prepare('INSERT INTO post_labels (blog_id, label, status, published, post_id) VALUES (?, ?, ?, ?, ?)'),
      labelUpdated: db.prepare(
        'INSERT INTO post_labels_updated (blog_id, label, status, updated, post_id) VALUES (?, ?, ?, ?, ?)',
      ),
      labelUpdatedDelete: db.prepare(
        'DELETE FROM post_labels_updated WHERE blog_id = ? AND label = ? AND status = ? AND updated = ? AND post_id = ?',
      ),
      fts: db.prepare('INSERT INTO posts_fts (rowid, title, body, labels) VALUES (?, ?, ?, ?)'),
      ftsDelete: db.prepare('DELETE FROM posts_fts WHERE rowid = ?'),
      update: db.prepare('UPDATE posts SET title = ?, updated = ? WHERE id = ?'),
      first: db.prepare<[string], RawRow>(
        `SELECT * FROM posts WHERE blog_id = ? AND status = 'LIVE' ORDER BY published DESC, id DESC LIMIT ${PAGE}`,
      ),
      after: db.prepare<[string, string, string], RawRow>(
        `SELECT * FROM posts WHERE blog_id = ? AND status = 'LIVE' AND (published, id) < (?, ?) ORDER BY published DESC, id DESC LIMIT ${PAGE}`,
      ),
      at: db.prepare<[string, number], { published: string; id: string }>(
        `SELECT published, id FROM posts WHERE blog_id = ? AND status = 'LIVE' ORDER BY published DESC, id DESC LIMIT 1 OFFSET ?`,
      ),
      byLabel: db.prepare<[string, string], RawRow>(
        `SELECT p.* FROM post_labels l JOIN posts p ON p.id = l.post_id WHERE l.blog_id = ? AND l.label = ? AND l.status = 'LIVE'
         ORDER BY l.published DESC, l.post_id DESC LIMIT ${PAGE}`,
      ),
      search: db.prepare<[string, string], RawRow>(
        `SELECT p.* FROM posts p WHERE p.rowid IN (SELECT rowid FROM posts_fts WHERE posts_fts MATCH ?) AND p.blog_id = ? AND p.status = 'LIVE'
         ORDER BY p.published DESC, p.id DESC LIMIT ${PAGE}`,
      ),
      countMatches: db.prepare<[string], number>('SELECT count(*) FROM posts_fts WHERE posts_fts MATCH ?').pluck(),
      liveCount: db
        .prepare<[string], number>(`SELECT count(*) FROM posts WHERE blog_id = ? AND status = 'LIVE'`)
        .pluck(),
    };
  }

  private insertOne(blogId: string, id: string, p: BenchPost, when: string): void {
    const status = p.draft ? 'DRAFT' : 'LIVE';
    const published = when;
    const updated = when;
    const path = p.draft ? null : `/${published.slice(0, 4)}/${published.slice(5, 7)}/${slug(p.title)}-${id}.html`;
    const { lastInsertRowid } = this.s.insert.run(
      id,
      blogId,
      status,
      published,
      updated,
      path,
      'author',
      p.title,
      p.content,
      JSON.stringify(p.labels),
    );
    for (const l of p.labels) {
      this.s.label.run(blogId, l, status, published, id);
      this.s.labelUpdated.run(blogId, l, status, updated, id);
    }
    this.s.fts.run(lastInsertRowid, p.title, stripTags(p.content), p.labels.join(' '));
  }

  load(blogId: string, posts: Array<[string, BenchPost]>): void {
    this.tx(() => {
      for (const [id, p] of posts) this.insertOne(blogId, id, p, p.published);
    });
  }

  insert(blogId: string, id: string, p: BenchPost, now: string): void {
    this.tx(() => this.insertOne(blogId, id, p, now));
  }

  patch(id: string, title: string, now: string): string {
    return this.tx(() => {
      const row = this.s.getWithRowid.get(id)!;
      this.s.update.run(title, now, id);
      for (const l of JSON.parse(row.labels) as string[]) {
        this.s.labelUpdatedDelete.run(row.blog_id, l, row.status, row.updated, id);
        this.s.labelUpdated.run(row.blog_id, l, row.status, now, id);
      }
      this.s.ftsDelete.run(row.rowid);
      this.s.fts.run(row.rowid, title, stripTags(row.content), (JSON.parse(row.labels) as string[]).join(' '));
      return JSON.stringify({ ...row, title, updated: now });
    });
  }

  /** One transaction (better-sqlite3's wrapper, created once). */
  private tx<R>(fn: () => R): R {
    return this.runTx(fn) as R;
  }
  private runTx!: (fn: () => unknown) => unknown;

  get = (id: string) => JSON.stringify(this.s.get.get(id));
  first = (blogId: string) => JSON.stringify(this.s.first.all(blogId));
  after = (blogId: string, published: string, id: string) => JSON.stringify(this.s.after.all(blogId, published, id));
  at = (blogId: string, offset: number) => this.s.at.get(blogId, offset)!;
  byLabel = (blogId: string, label: string) => JSON.stringify(this.s.byLabel.all(blogId, label));
  search = (blogId: string, q: string) => JSON.stringify(this.s.search.all(q, blogId));
  matches = (q: string) => this.s.countMatches.get(q)!;
  live = (blogId: string) => this.s.liveCount.get(blogId)!;
}

/** Loads `n` posts through the service, 500 to a SQLite transaction (or in bulk, from `bulkFrom` posts); answers the blog id and post ids. */
export async function loadBlogcore(
  file: string,
  gen: Generator,
  n: number,
  bulkFrom = Number.POSITIVE_INFINITY,
): Promise<{ blogId: string; ids: string[] }> {
  if (n >= bulkFrom) {
    const service = createBlogService({ driver: sqliteDriver({ filename: file }) });
    const loaded = await bulkLoad(
      service,
      gen,
      n,
      1000,
      (done) => done % 100_000 === 0 && console.error(`  sqlite ${n}: ${done} posts loaded`),
    );
    await service.close();
    return loaded;
  }
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  const service = createBlogService({ driver: sqliteDriver({ database: db }) });
  const owner = await service.users.insert({ body: { displayName: 'Bench author' } });
  const blogId = (await service.blogs.insert({ body: { name: 'Bench', url: BLOG_URL }, ownerId: owner.id! })).id!;
  const ids: string[] = [];
  for (let i = 0; i < n; i += 500) {
    db.exec('BEGIN IMMEDIATE');
    for (let k = i; k < Math.min(n, i + 500); k++) {
      const p = gen.post(k);
      const post = await service.posts.insert({
        blogId,
        body: { title: p.title, content: p.content, labels: p.labels, published: p.published },
        isDraft: p.draft,
      });
      ids.push(post.id!);
    }
    db.exec('COMMIT');
  }
  await service.close();
  db.close();
  return { blogId, ids };
}

/** The page token of the page that starts halfway down the LIVE posts, newest first. */
export async function deepToken(service: BlogService, blogId: string, live: number): Promise<string> {
  let skipped = 0;
  let token: string | undefined;
  const half = Math.floor(live / 2);
  while (skipped < half) {
    const page = await service.posts.list({
      blogId,
      maxResults: Math.min(500, half - skipped),
      fetchBodies: false,
      pageToken: token,
    });
    skipped += page.items?.length ?? 0;
    token = page.nextPageToken;
    if (!token) throw new Error('ran out of pages before 50%');
  }
  return token!;
}

export default async function sqliteBench(ctx: BenchContext): Promise<void> {
  const sizes = (ctx.args['sqlite-sizes'] ?? ctx.args.sizes ?? (ctx.quick ? '2000' : '10000,100000'))
    .split(',')
    .map(Number);
  const bulkFrom = Number(ctx.args['bulk-from'] ?? 1_000_000);
  const rows: Row[] = [];
  const ours: Record<string, Array<[number, Timing]>> = {};
  const raws: Record<string, Array<[number, Timing]>> = {};
  const notes: string[] = [];
  /**
   * A word in every post against a list page, by size: as issue 34 defines it (the search row's mean
   * over the list row's, each timed beside its raw call), and, for information only, the two timed in alternation
   * the search row over a list page timed beside raw's search, and raw's own list page timed there over raw's list
   * row (what that place costs raw's code; raw's search has just read the rows raw's list page reads).
   */
  const everyPerList: Array<[number, number, number, number, number]> = [];
  const record = (op: string, n: number, o: Timing, r: Timing, target?: number, judged?: Row['judged']) => {
    rows.push({ op, size: n, ours: o, raw: r, ...(target ? { target } : {}), ...(judged ? { judged } : {}) });
    (ours[op] ??= []).push([n, o]);
    (raws[op] ??= []).push([n, r]);
  };

  for (const n of sizes) {
    const dir = mkdtempSync(join(tmpdir(), 'blogcore-sqlite-bench-'));
    try {
      const gen = generator(1, n >= 1_000_000 ? 1 : 3);
      const t0 = performance.now();
      const { blogId, ids } = await loadBlogcore(join(dir, 'blogcore.db'), gen, n, bulkFrom);
      const loadOurs = performance.now() - t0;
      const raw = new Raw(join(dir, 'raw.db'));
      const t1 = performance.now();
      for (let i = 0; i < n; i += 10_000) {
        raw.load(
          blogId,
          ids.slice(i, i + 10_000).map((id, k) => [id, gen.post(i + k)]),
        );
      }
      const loadRaw = performance.now() - t1;
      notes.push(
        `${n}: loaded in ${(loadOurs / 1000).toFixed(1)} s ${n >= bulkFrom ? 'in bulk through the driver' : 'through the service'} (${((loadOurs * 1000) / n).toFixed(0)} µs/post), ` +
          `${(loadRaw / 1000).toFixed(1)} s raw; "${gen.query}" matches ${raw.matches(gen.query)} posts`,
      );

      const service = createBlogService({ driver: sqliteDriver({ filename: join(dir, 'blogcore.db') }) });
      await service.ready();
      const live = raw.live(blogId);
      const token = await deepToken(service, blogId, live);
      const mid = raw.at(blogId, Math.floor(live / 2) - 1);
      const pick = (seed: number) => {
        const r = rng(seed);
        return () => ids[Math.floor(r() * ids.length)]!;
      };
      const b = ctx.budgetMs;

      // Reads first, so the writes below do not change what they read. Both sides get the same ids.
      const pair = (ours: (i: number) => unknown, rawFn: (i: number) => unknown) => timePair(ours, rawFn, b);
      const ga = pick(n);
      const gb = pick(n);
      record(
        'get',
        n,
        ...(await pair(
          () => service.posts.get({ blogId, postId: ga() }),
          () => raw.get(gb()),
        )),
        TARGETS.read,
      );
      // As a server's requests come: each call in a turn of its own, so each one looks for other processes' writes.
      record(
        'get, each call in its own turn',
        n,
        ...(await timePair(
          () => service.posts.get({ blogId, postId: ga() }),
          () => raw.get(gb()),
          b,
          true,
        )),
        TARGETS.read,
      );
      record(
        'list first page (20)',
        n,
        ...(await pair(
          () => service.posts.list({ blogId, maxResults: PAGE }),
          () => raw.first(blogId),
        )),
        TARGETS.read,
      );
      record(
        'list page 50% deep (20)',
        n,
        ...(await pair(
          () => service.posts.list({ blogId, maxResults: PAGE, pageToken: token }),
          () => raw.after(blogId, mid.published, mid.id),
        )),
        TARGETS.read,
      );
      record(
        `label filter ${LABEL} (20)`,
        n,
        ...(await pair(
          () => service.posts.list({ blogId, labels: LABEL, maxResults: PAGE }),
          () => raw.byLabel(blogId, LABEL),
        )),
        TARGETS.read,
      );
      record(
        'search, two words (20)',
        n,
        ...(await pair(
          () => service.posts.search({ blogId, q: gen.query, maxResults: PAGE }),
          () => raw.search(blogId, gen.query),
        )),
        TARGETS.searchRaw,
      );
      // The most common word of the vocabulary is in (nearly) every post: search must cost what a list costs.
      const every = gen.vocabulary[0]!;
      notes.push(`${n}: "${every}" is in ${raw.matches(every)} of ${n} posts`);
      const [everyOurs, everyRaw] = await pair(
        () => service.posts.search({ blogId, q: every, maxResults: PAGE }),
        () => raw.search(blogId, every),
      );
      // Judged as the target is defined: this row's mean over the list row's (each beside its own raw call).
      // Also shown, not judged: the two timed in alternation with each other (raw's search of every match leaves
      // the next call cold caches, which the defined measure charges to the search).
      const listRow = ours['list first page (20)']!.at(-1)![1];
      const perList = everyOurs.mean / listRow.mean;
      const [everyAgain, listAgain] = await pair(
        () => service.posts.search({ blogId, q: every, maxResults: PAGE }),
        () => service.posts.list({ blogId, maxResults: PAGE }),
      );
      const alternating = everyAgain.mean / listAgain.mean;
      // And a list page timed beside raw's search, as the search row is: what those cold caches cost any call.
      const [listBeside] = await pair(
        () => service.posts.list({ blogId, maxResults: PAGE }),
        () => raw.search(blogId, every),
      );
      const beside = everyOurs.mean / listBeside.mean;
      // Raw's own list page timed where our search is, over raw's list row: what that place costs raw's code.
      const [rawListBeside] = await pair(
        () => raw.first(blogId),
        () => raw.search(blogId, every),
      );
      const rawFloor = rawListBeside.mean / raws['list first page (20)']!.at(-1)![1].mean;
      everyPerList.push([n, perList, alternating, beside, rawFloor]);
      record('search, a word in every post (20)', n, everyOurs, everyRaw, undefined, {
        target: `≤ ${TARGETS.everyWord}× a list page (${perList.toFixed(2)}×; not judged: in alternation ${alternating.toFixed(2)}×, over a list page beside raw's search ${beside.toFixed(2)}×, raw's list page there over raw's list row ${rawFloor.toFixed(2)}×)`,
        met: perList <= TARGETS.everyWord,
      });

      // Writes: new posts (published now), then title patches of random existing posts.
      let k = 0;
      record(
        'insert',
        n,
        ...(await pair(
          (i) => {
            const p = gen.post(n + 2 * i);
            return service.posts.insert({ blogId, body: { title: p.title, content: p.content, labels: p.labels } });
          },
          (i) =>
            raw.insert(
              blogId,
              `R${String(k++).padStart(25, '0')}`,
              { ...gen.post(n + 2 * i + 1), draft: false },
              new Date().toISOString(),
            ),
        )),
        TARGETS.write,
      );
      const pa = pick(n + 1);
      const pb = pick(n + 1);
      record(
        'patch (title)',
        n,
        ...(await pair(
          (i) => service.posts.patch({ blogId, postId: pa(), body: { title: `Edited title ${i}` } }),
          (i) => raw.patch(pb(), `Edited title ${i}`, new Date().toISOString()),
        )),
        TARGETS.write,
      );
      await service.close();
      raw.db.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  printTable('SQLite: blogcore (service on sqliteDriver) vs raw better-sqlite3', rows);
  for (const note of notes) console.log(`- ${note}`);
  printGrowth('blogcore on SQLite: cost by size', ours, { ops: FLAT_OPS, target: TARGETS.flat });
  printGrowth('raw better-sqlite3: cost by size', raws);
  console.log('');
  for (const [n, t] of ours['search, two words (20)'] ?? []) {
    if (n < 1_000_000) continue;
    verdict(
      `two-word search, 20 results, ${n} posts`,
      `${formatMicros(t.mean)} mean (${formatMicros(t.p50)} p50)`,
      `≤ ${TARGETS.searchMs} ms`,
      t.mean <= TARGETS.searchMs * 1000,
    );
  }
  for (const [n, ratio, alternating, beside, rawFloor] of everyPerList) {
    verdict(
      `a word in every post / list first page, ${n} posts`,
      `${ratio.toFixed(2)}× (not judged: in alternation with a list page ${alternating.toFixed(2)}×; over a list page timed beside raw's search ${beside.toFixed(2)}×; raw's own list page timed there over raw's list row ${rawFloor.toFixed(2)}×)`,
      `costs what a list costs (≤ ${TARGETS.everyWord}×)`,
      ratio <= TARGETS.everyWord,
    );
  }
  await adversarial(ctx);
}

/**
 * The requests of issue 11 that made one request's work grow with the data: 20 labels of posts that carry 100
 * (500 results, no bodies) against one label, and an anonymous blog-wide comment list over a post whose
 * 20k comments are hidden against the admin's same call. Same run as raw SQL doing the same page.
 */
async function adversarial(ctx: BenchContext): Promise<void> {
  const posts = Number(ctx.args['label-posts'] ?? (ctx.quick ? 100 : 300));
  const hiddenComments = Number(ctx.args['hidden-comments'] ?? (ctx.quick ? 2000 : 20_000));
  const dir = mkdtempSync(join(tmpdir(), 'blogcore-sqlite-adv-'));
  const rows: Row[] = [];
  try {
    const driver = sqliteDriver({ filename: join(dir, 'blogcore.db') });
    const service = createBlogService({ driver });
    const owner = await service.users.insert({ body: { displayName: 'Bench author' } });
    const blogId = (await service.blogs.insert({ body: { name: 'Adversarial', url: BLOG_URL }, ownerId: owner.id! }))
      .id!;
    const raw = new Raw(join(dir, 'raw.db'));
    const labels = Array.from({ length: 100 }, (_, i) => `label-${String(i).padStart(2, '0')}`);
    const body = `<p>${'lorem ipsum dolor sit amet '.repeat(740)}</p>`; // ~20 KB
    const ids: string[] = [];
    for (let i = 0; i < posts; i++) {
      const published = new Date(Date.parse('2020-01-01T00:00:00Z') + i * 60_000).toISOString();
      const p = await service.posts.insert({ blogId, body: { title: `Post ${i}`, content: body, labels, published } });
      ids.push(p.id!);
      raw.load(blogId, [[p.id!, { title: `Post ${i}`, content: body, labels, published, draft: false }]]);
    }
    const twenty = labels.slice(0, 20);
    const rawLabels = raw.db.prepare<string[], unknown>(
      `SELECT p.id, p.title, p.published, p.updated, p.labels FROM posts p WHERE p.id IN (
         SELECT post_id FROM post_labels WHERE blog_id = ? AND label IN (${twenty.map(() => '?').join(',')}) AND status = 'LIVE')
       ORDER BY p.published DESC, p.id DESC LIMIT 500`,
    );
    const rawOne = raw.db.prepare<string[], unknown>(
      `SELECT p.id, p.title, p.published, p.updated, p.labels FROM post_labels l JOIN posts p ON p.id = l.post_id
       WHERE l.blog_id = ? AND l.label = ? AND l.status = 'LIVE' ORDER BY l.published DESC, l.post_id DESC LIMIT 500`,
    );
    const many = () => service.posts.list({ blogId, labels: twenty.join(','), maxResults: 500, fetchBodies: false });
    const one = () => service.posts.list({ blogId, labels: labels[0]!, maxResults: 500, fetchBodies: false });
    const rssBefore = process.memoryUsage().rss;
    let rssPeak = rssBefore;
    const [m, mr] = await timePair(
      async () => {
        await many();
        rssPeak = Math.max(rssPeak, process.memoryUsage().rss);
      },
      () => JSON.stringify(rawLabels.all(blogId, ...twenty)),
      ctx.budgetMs,
    );
    const [o, or] = await timePair(one, () => JSON.stringify(rawOne.all(blogId, labels[0]!)), ctx.budgetMs);
    rows.push(
      { op: '20 of 100 labels, 500 results, no bodies', size: posts, ours: m, raw: mr },
      { op: '1 label, 500 results, no bodies', size: posts, ours: o, raw: or },
    );

    // Comments: one visible post with 3 comments, one post hiding 20k newer ones (filed as the service files them).
    const open = await service.posts.insert({ blogId, body: { title: 'Open', content: '<p>open</p>' } });
    for (let i = 0; i < 3; i++)
      await service.comments.insert({ blogId, postId: open.id!, body: { content: `visible ${i}` } });
    const hiding = await service.posts.insert({ blogId, body: { title: 'Hiding', content: '<p>hiding</p>' } });
    const stored = (await driver.get('posts', hiding.id!))!;
    const hidePost = { ...(stored.doc as unknown as PostRecord), readerComments: 'DONT_ALLOW_HIDE_EXISTING' as const };
    const start = Date.now();
    const comments: CommentRecord[] = Array.from({ length: hiddenComments }, (_, i) => ({
      id: `c${String(i).padStart(8, '0')}`,
      blogId,
      postId: hidePost.id,
      status: 'LIVE',
      content: 'hidden',
      published: new Date(start + i).toISOString(),
      updated: new Date(start + i).toISOString(),
      authorName: 'Reader',
      vis: commentVisOf(hidePost),
    }));
    await driver.commit([
      put(
        'posts',
        { ...hidePost, liveComments: hiddenComments, allComments: hiddenComments, commentsVis: commentVisOf(hidePost) },
        stored,
      ),
    ]);
    for (let i = 0; i < comments.length; i += 5000)
      await driver.commit(comments.slice(i, i + 5000).map((c) => put('comments', c, 0)));
    raw.db.exec(`CREATE TABLE comments (id TEXT PRIMARY KEY, blog_id TEXT, post_id TEXT, status TEXT, published TEXT, content TEXT);
      CREATE INDEX comments_blog ON comments (blog_id, status, published, id);`);
    const ins = raw.db.prepare('INSERT INTO comments VALUES (?, ?, ?, ?, ?, ?)');
    raw.db.transaction(() => {
      for (const c of comments) ins.run(c.id, blogId, c.postId, c.status, c.published, c.content);
    })();
    const rawComments = raw.db.prepare(
      `SELECT * FROM comments WHERE blog_id = ? AND status = 'LIVE' ORDER BY published DESC, id DESC LIMIT 1`,
    );
    const anon = service.as(null);
    const [a, ar] = await timePair(
      () => anon.comments.listByBlog({ blogId, maxResults: 1 }),
      () => JSON.stringify(rawComments.all(blogId)),
      ctx.budgetMs,
    );
    const [ad, adr] = await timePair(
      () => service.comments.listByBlog({ blogId, maxResults: 1 }),
      () => JSON.stringify(rawComments.all(blogId)),
      ctx.budgetMs,
    );
    rows.push(
      { op: `comments.listByBlog, anonymous, ${hiddenComments} hidden`, size: posts, ours: a, raw: ar },
      { op: `comments.listByBlog, admin, ${hiddenComments} hidden`, size: posts, ours: ad, raw: adr },
    );
    printTable('SQLite: requests whose work once grew with the data (issue 11)', rows);
    console.log(
      `20 labels / 1 label: ${(m.mean / o.mean).toFixed(2)}× (target ≤ 3×); RSS growth during the 20-label runs: ${((rssPeak - rssBefore) / 2 ** 20).toFixed(1)} MB (target ≤ 50 MB)`,
    );
    console.log(`anonymous / admin hidden-comments list: ${(a.mean / ad.mean).toFixed(2)}× (target ≤ 3×)`);
    await service.close();
    raw.db.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
