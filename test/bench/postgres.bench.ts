/**
 * blogcore on PostgreSQL (createBlogService on postgresDriver, the unscoped service) vs raw `pg` doing the
 * same work with hand-written statements, in one run on one server, call by call in alternation.
 *
 * Raw: a plain `posts` table (ISO text times, `COLLATE "C"`, index (blog_id, status, published, id)), a
 * `post_labels` side table keyed (blog_id, label, status, published, post_id), the core's search tokens
 * as a `text[]` with a GIN index (the same tokens blogcore matches), a change-log row per write, and with
 * events shared an outbox row holding the event (the oldest beyond 1,000 deleted in the same statement);
 * named prepared statements, rows JSON.stringify'd. Writes: an insert is one statement (post + labels + change
 * row + outbox, a data-modifying CTE); a patch reads the row, then one statement (compare-and-set UPDATE of the
 * title and its search tokens + change row + outbox).
 *
 * Sizes: `--pg-sizes` (or `--sizes`) `=10000,100000` (default), add 1000000 for 1M (bodies of one paragraph
 * at 1M, loaded in bulk through the driver from `--bulk-from` posts: test/bench/bulk-load.ts), `--quick`:
 * 2000. `--pg-url=postgres://…` uses that server (tables in schemas `bench_blogcore`, `bench_raw`, dropped);
 * without it a throwaway server is started with PostgreSQL's default durability (fsync on).
 * Writes are measured twice: with events shared across app servers (the default) and with
 * `shareEvents: false` (one server). HTTP: `--only=postgres` also runs GET one post and a 20-post list
 * through the HTTP helper with 1 and 2 app processes on the one server (autocannon, 10 connections).
 * Targets are docs/design.md §14's (test/bench/targets.ts). Then 32 concurrent writers and the WAL per insert
 * against raw `pg` on a server of their own (postgres-writers.ts; `--pg-writers=false` leaves them out,
 * `--pg-writers-ms` sets the length of a run).
 */
import pg from 'pg';
import { postgresDriver } from '../../drivers/postgres/index.js';
import { createBlogService, type BlogService } from '../../src/index.js';
import { distinctWords, postWordFields } from '../../src/rules/text.js';
import { startPostgres } from '../drivers/postgres/server.js';
import { generator, rng, type BenchPost, type Generator } from '../drivers/sqlite/bench-data.js';
import { bulkLoad } from './bulk-load.js';
import { printGrowth, printTable, timePair, type BenchContext, type Row, type Timing } from './harness.js';
import { TARGETS } from './targets.js';
import { httpRows } from './postgres-http.js';
import { writersRows } from './postgres-writers.js';

const PAGE = 20;
const LABEL = 'label-30';
const LOADERS = 8;

const slug = (title: string) =>
  title
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .slice(0, 40);

/** Raw's tables: a hand-written PostgreSQL blog's (also postgres-parts.ts's). */
export const RAW_SCHEMA = (s: string) => `
  DROP SCHEMA IF EXISTS ${s} CASCADE;
  CREATE SCHEMA ${s};
  CREATE TABLE ${s}.posts (
    id text COLLATE "C" PRIMARY KEY, blog_id text COLLATE "C" NOT NULL, status text COLLATE "C" NOT NULL,
    published text COLLATE "C" NOT NULL, updated text COLLATE "C" NOT NULL, path text, author_id text NOT NULL,
    title text NOT NULL, content text NOT NULL, labels text[] NOT NULL, tokens text[] NOT NULL, version int NOT NULL
  );
  CREATE INDEX posts_published ON ${s}.posts (blog_id, status, published, id);
  CREATE UNIQUE INDEX posts_path ON ${s}.posts (blog_id, path);
  CREATE INDEX posts_tokens ON ${s}.posts USING gin (tokens);
  CREATE TABLE ${s}.post_labels (
    blog_id text COLLATE "C" NOT NULL, label text COLLATE "C" NOT NULL, status text COLLATE "C" NOT NULL,
    published text COLLATE "C" NOT NULL, post_id text COLLATE "C" NOT NULL,
    PRIMARY KEY (blog_id, label, status, published, post_id)
  );
  CREATE TABLE ${s}.changes (seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, post_id text NOT NULL, version int NOT NULL);
  CREATE TABLE ${s}.events (id bigint PRIMARY KEY, doc text NOT NULL);
`;

/** Events kept in the raw outbox, as blogcore keeps its last 1,000 per server. */
const KEEP = 1000;

const COLS = 'id, blog_id, status, published, updated, path, author_id, title, content, labels, version';

/** The raw engine: what a hand-written PostgreSQL blog would run for the same operations. */
class Raw {
  private event = 0;
  constructor(
    readonly pool: pg.Pool,
    private readonly s: string,
  ) {}

  /** The outbox part of a write statement ($n: the event's id, $n+1: its text): one row in, the oldest beyond KEEP out. */
  private outbox(n: number) {
    return `, ev AS (INSERT INTO ${this.s}.events (id, doc) VALUES ($${n}, $${n + 1})),
      gone AS (DELETE FROM ${this.s}.events WHERE id = $${n} - ${KEEP})`;
  }

  private q(name: string, text: string, values: unknown[]) {
    return this.pool.query({ name: `raw_${name}`, text, values });
  }

  private row(p: BenchPost, id: string, blogId: string, when: string) {
    const status = p.draft ? 'DRAFT' : 'LIVE';
    const path = p.draft ? null : `/${when.slice(0, 4)}/${when.slice(5, 7)}/${slug(p.title)}-${id}.html`;
    return [
      id,
      blogId,
      status,
      when,
      when,
      path,
      'author',
      p.title,
      p.content,
      p.labels,
      distinctWords(postWordFields(p)),
    ];
  }

  async load(blogId: string, posts: Array<[string, BenchPost]>): Promise<void> {
    const rows = posts.map(([id, p]) => this.row(p, id, blogId, p.published));
    const col = (i: number) => rows.map((r) => r[i]);
    await this.pool.query(
      `INSERT INTO ${this.s}.posts (id, blog_id, status, published, updated, path, author_id, title, content, labels, tokens, version)
       SELECT id, b, st, pu, up, pa, au, ti, co, string_to_array(la, chr(1)), string_to_array(tk, chr(1)), 1
       FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::text[], $11::text[])
         AS x(id, b, st, pu, up, pa, au, ti, co, la, tk)`,
      [
        ...[0, 1, 2, 3, 4, 5, 6, 7, 8].map(col),
        col(9).map((l) => (l as string[]).join('\x01')),
        col(10).map((t) => (t as string[]).join('\x01')),
      ],
    );
    await this.pool.query(
      `INSERT INTO ${this.s}.post_labels SELECT blog_id, unnest(labels), status, published, id FROM ${this.s}.posts WHERE id = ANY($1::text[])`,
      [col(0)],
    );
  }

  async get(id: string) {
    return JSON.stringify((await this.q('get', `SELECT ${COLS} FROM ${this.s}.posts WHERE id = $1`, [id])).rows[0]);
  }
  async first(blogId: string) {
    const sql = `SELECT ${COLS} FROM ${this.s}.posts WHERE blog_id = $1 AND status = 'LIVE' ORDER BY published DESC, id DESC LIMIT ${PAGE}`;
    return JSON.stringify((await this.q('first', sql, [blogId])).rows);
  }
  async after(blogId: string, published: string, id: string) {
    const sql = `SELECT ${COLS} FROM ${this.s}.posts WHERE blog_id = $1 AND status = 'LIVE' AND (published, id) < ($2, $3)
                 ORDER BY published DESC, id DESC LIMIT ${PAGE}`;
    return JSON.stringify((await this.q('after', sql, [blogId, published, id])).rows);
  }
  async at(blogId: string, offset: number): Promise<{ published: string; id: string }> {
    const sql = `SELECT published, id FROM ${this.s}.posts WHERE blog_id = $1 AND status = 'LIVE' ORDER BY published DESC, id DESC OFFSET $2 LIMIT 1`;
    return (await this.pool.query(sql, [blogId, offset])).rows[0];
  }
  async byLabel(blogId: string, label: string) {
    const sql = `SELECT p.id, p.blog_id, p.status, p.published, p.updated, p.path, p.author_id, p.title, p.content, p.labels, p.version
                 FROM ${this.s}.post_labels l JOIN ${this.s}.posts p ON p.id = l.post_id
                 WHERE l.blog_id = $1 AND l.label = $2 AND l.status = 'LIVE' ORDER BY l.published DESC, l.post_id DESC LIMIT ${PAGE}`;
    return JSON.stringify((await this.q('label', sql, [blogId, label])).rows);
  }
  async search(blogId: string, tokens: string[]) {
    const sql = `SELECT ${COLS} FROM ${this.s}.posts WHERE tokens @> $2::text[] AND blog_id = $1 AND status = 'LIVE'
                 ORDER BY published DESC, id DESC LIMIT ${PAGE}`;
    return JSON.stringify((await this.q('search', sql, [blogId, tokens])).rows);
  }
  async matches(tokens: string[]): Promise<number> {
    return (
      await this.pool.query(`SELECT count(*)::int AS n FROM ${this.s}.posts WHERE tokens @> $1::text[]`, [tokens])
    ).rows[0].n;
  }
  async live(blogId: string): Promise<number> {
    return (
      await this.pool.query(`SELECT count(*)::int AS n FROM ${this.s}.posts WHERE blog_id = $1 AND status = 'LIVE'`, [
        blogId,
      ])
    ).rows[0].n;
  }
  /** An insert; with `events`, its event goes into the outbox in the same statement. */
  async insert(blogId: string, id: string, p: BenchPost, now: string, events: boolean) {
    const row = this.row(p, id, blogId, now);
    const sql = `WITH p AS (
        INSERT INTO ${this.s}.posts (id, blog_id, status, published, updated, path, author_id, title, content, labels, tokens, version)
        VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, 1) RETURNING id, blog_id, status, published, labels),
      l AS (INSERT INTO ${this.s}.post_labels SELECT blog_id, unnest(labels), status, published, id FROM p)${events ? this.outbox(12) : ''}
      INSERT INTO ${this.s}.changes (post_id, version) SELECT id, 1 FROM p`;
    const values = events ? [...row, ++this.event, JSON.stringify({ type: 'post.inserted', id, resource: row })] : row;
    await this.q(events ? 'insertEv' : 'insert', sql, values);
  }
  async patch(id: string, title: string, now: string, events: boolean) {
    const row = (await this.q('get', `SELECT ${COLS} FROM ${this.s}.posts WHERE id = $1`, [id])).rows[0];
    const after = { ...row, title, updated: now };
    // The title's words go into the search tokens, as blogcore's do (a title edit a search would not find is
    // not the same rows); the GIN index on them makes the update a full one, not heap-only.
    const tokens = distinctWords(postWordFields({ title, content: row.content, labels: row.labels }));
    const sql = `WITH u AS (UPDATE ${this.s}.posts SET title = $2, updated = $3, tokens = $5, version = version + 1 WHERE id = $1 AND version = $4 RETURNING id, version)${
      events ? this.outbox(6) : ''
    }
      INSERT INTO ${this.s}.changes (post_id, version) SELECT id, version FROM u`;
    const values = [id, title, now, row.version, tokens];
    if (events) values.push(++this.event, JSON.stringify({ type: 'post.updated', id, resource: after }));
    await this.q(events ? 'patchEv' : 'patch', sql, values);
    return JSON.stringify(after);
  }
}

/**
 * Loads `n` posts through the service (every core rule), LOADERS at a time, or in bulk through the driver from
 * `bulkFrom` posts (test/bench/bulk-load.ts); answers the blog and post ids.
 */
async function loadBlogcore(
  url: string,
  schema: string,
  gen: Generator,
  n: number,
  bulkFrom: number,
): Promise<{ blogId: string; ids: string[] }> {
  const service = createBlogService({
    driver: postgresDriver({ connectionString: url, schema, max: LOADERS, shareEvents: false }),
  });
  if (n >= bulkFrom) {
    const loaded = await bulkLoad(
      service,
      gen,
      n,
      100,
      (done) => done % 100_000 === 0 && console.error(`  postgres ${n}: ${done} posts loaded`),
    );
    await service.close();
    return loaded;
  }
  const owner = await service.users.insert({ body: { displayName: 'Bench author' } });
  const blogId = (
    await service.blogs.insert({ body: { name: 'Bench', url: `https://bench-${schema}.example/` }, ownerId: owner.id! })
  ).id!;
  const ids: string[] = new Array(n);
  let next = 0;
  await Promise.all(
    Array.from({ length: LOADERS }, async () => {
      for (let k = next++; k < n; k = next++) {
        const p = gen.post(k);
        const post = await service.posts.insert({
          blogId,
          body: { title: p.title, content: p.content, labels: p.labels, published: p.published },
          isDraft: p.draft,
        });
        ids[k] = post.id!;
      }
    }),
  );
  await service.close();
  return { blogId, ids };
}

async function deepToken(service: BlogService, blogId: string, live: number): Promise<string> {
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

export default async function postgresBench(ctx: BenchContext): Promise<void> {
  const sizes = (ctx.args['pg-sizes'] ?? ctx.args.sizes ?? (ctx.quick ? '2000' : '10000,100000'))
    .split(',')
    .map(Number);
  const bulkFrom = Number(ctx.args['bulk-from'] ?? 1_000_000);
  const server = ctx.args['pg-url']
    ? undefined
    : await startPostgres({ durable: true, flags: ['-c', 'shared_buffers=1GB', '-c', 'jit=off'] });
  const url = ctx.args['pg-url'] ?? server!.url;
  const admin = new pg.Pool({ connectionString: url, max: 2 });
  const rows: Row[] = [];
  const ours: Record<string, Array<[number, Timing]>> = {};
  const raws: Record<string, Array<[number, Timing]>> = {};
  const notes: string[] = [];
  const record = (op: string, n: number, o: Timing, r: Timing, target?: number) => {
    rows.push({ op, size: n, ours: o, raw: r, ...(target ? { target } : {}) });
    (ours[op] ??= []).push([n, o]);
    (raws[op] ??= []).push([n, r]);
  };
  try {
    for (const n of sizes) {
      const ourSchema = `bench_blogcore_${n}`;
      const rawSchema = `bench_raw_${n}`;
      await admin.query(`DROP SCHEMA IF EXISTS ${ourSchema} CASCADE`);
      await admin.query(RAW_SCHEMA(rawSchema));
      const gen = generator(1, n >= 1_000_000 ? 1 : 3);
      const t0 = performance.now();
      const { blogId, ids } = await loadBlogcore(url, ourSchema, gen, n, bulkFrom);
      const loadOurs = performance.now() - t0;
      const rawPool = new pg.Pool({ connectionString: url, max: 1 });
      const raw = new Raw(rawPool, rawSchema);
      const t1 = performance.now();
      for (let i = 0; i < n; i += 2000)
        await raw.load(
          blogId,
          ids.slice(i, i + 2000).map((id, k) => [id, gen.post(i + k)]),
        );
      const loadRaw = performance.now() - t1;
      await admin.query(`VACUUM ANALYZE`);
      await admin.query(`CHECKPOINT`);
      const qTokens = distinctWords(postWordFields({ title: gen.query, content: '', labels: [] }));
      notes.push(
        `${n}: loaded in ${(loadOurs / 1000).toFixed(1)} s ${n >= bulkFrom ? 'in bulk through the driver' : `through the service (${LOADERS} at a time)`} (${((loadOurs * 1000) / n).toFixed(0)} µs/post), ` +
          `${(loadRaw / 1000).toFixed(1)} s raw (multi-row inserts); "${gen.query}" matches ${await raw.matches(qTokens)} posts`,
      );

      // The measured services use a pool of 2: a list reads its page and looks for due scheduled posts at once.
      const service = createBlogService({
        driver: postgresDriver({ connectionString: url, schema: ourSchema, max: 2 }),
      });
      const single = createBlogService({
        driver: postgresDriver({ connectionString: url, schema: ourSchema, max: 2, shareEvents: false }),
      });
      await service.ready();
      await single.ready();
      const live = await raw.live(blogId);
      const token = await deepToken(service, blogId, live);
      const mid = await raw.at(blogId, Math.floor(live / 2) - 1);
      const pick = (seed: number) => {
        const r = rng(seed);
        return () => ids[Math.floor(r() * ids.length)]!;
      };
      const pair = (o: (i: number) => unknown, r: (i: number) => unknown) => timePair(o, r, ctx.budgetMs);
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
          () => raw.search(blogId, qTokens),
        )),
      );

      let k = 0;
      // Each insert row its own posts: a title another row already used takes its path, and the insert retries.
      let ours = 0;
      const insert = (s: BlogService, events: boolean) =>
        pair(
          () => {
            const p = gen.post(n + 2 * ours++);
            return s.posts.insert({ blogId, body: { title: p.title, content: p.content, labels: p.labels } });
          },
          () =>
            raw.insert(
              blogId,
              `R${String(k).padStart(25, '0')}`,
              { ...gen.post(n + 2 * k++ + 1), draft: false },
              new Date().toISOString(),
              events,
            ),
        );
      record('insert (events shared)', n, ...(await insert(service, true)), TARGETS.write);
      const patch = (s: BlogService, seed: number, events: boolean) => {
        const pa = pick(seed);
        const pb = pick(seed);
        return pair(
          (i) => s.posts.patch({ blogId, postId: pa(), body: { title: `Edited title ${i}` } }),
          (i) => raw.patch(pb(), `Edited title ${i}`, new Date().toISOString(), events),
        );
      };
      record('patch title (events shared)', n, ...(await patch(service, n + 1, true)), TARGETS.write);
      // One server: the events-sharing one closed first, or its LISTEN has every commit NOTIFY it and read the log.
      await service.close();
      record('insert (shareEvents: false)', n, ...(await insert(single, false)), TARGETS.write);
      record('patch title (shareEvents: false)', n, ...(await patch(single, n + 2, false)), TARGETS.write);
      await single.close();
      if (n === sizes[0] && ctx.args['pg-http'] !== 'false')
        notes.push(...(await httpRows(url, ourSchema, blogId, ids[Math.floor(n / 2)]!, ctx)));
      await rawPool.end();
      if (!ctx.args['pg-keep']) {
        await admin.query(`DROP SCHEMA IF EXISTS ${ourSchema} CASCADE`);
        await admin.query(`DROP SCHEMA IF EXISTS ${rawSchema} CASCADE`);
      }
    }
  } finally {
    await admin.end();
    await server?.stop();
  }
  // The writers rows get a server of their own (WAL per insert counts everything the cluster writes meanwhile).
  const writers: string[] = [];
  if (ctx.args['pg-writers'] !== 'false') {
    const own = ctx.args['pg-url']
      ? undefined
      : await startPostgres({ durable: true, flags: ['-c', 'shared_buffers=1GB', '-c', 'jit=off'] });
    try {
      writers.push(...(await writersRows(ctx.args['pg-url'] ?? own!.url, ctx)));
    } finally {
      await own?.stop();
    }
  }
  printTable('PostgreSQL: blogcore (service on postgresDriver) vs raw pg', rows);
  for (const note of notes) console.log(`- ${note}`);
  printGrowth('blogcore on PostgreSQL: cost by size', ours, {
    ops: ['list first page (20)', 'list page 50% deep (20)', `label filter ${LABEL} (20)`, 'search, two words (20)'],
    target: TARGETS.flat,
  });
  printGrowth('raw pg: cost by size', raws);
  if (writers.length) console.log(writers.join('\n'));
}
