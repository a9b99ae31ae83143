/**
 * PostgreSQL under concurrent writers (docs/design.md §14, "PostgreSQL under concurrent writers"): 4 app
 * servers × 8 writers = 32 writers (a pool of 8 connections per server) inserting distinct posts of ~500 B with
 * two labels each, the labels shared (one on every post, one of ten), for a fixed time; inserts per second and WAL per insert
 * (`pg_current_wal_lsn()` before and after, and `pg_stat_wal`'s records, full-page images and bytes).
 *
 * Raw `pg`, 32 connections, one statement per post, in the same run and on the same server:
 * - "same rows": the rows blogcore keeps for a post, hand-written — the post row with the same columns and
 *   indexes, its label rows (two indexes), its label counters (`count = count + 1`, in label order) — the
 *   baseline of the targets;
 * - "same rows + change row + event": that, plus a change-log row and an outbox row with the event, as
 *   blogcore commits them: how much of the cost is the log and the events;
 * - "post only": one table with the columns, two btree indexes, a unique path and GIN on labels and a
 *   tsvector (the shape the issue measured first), for reference.
 * Rounds alternate blogcore and the raw runs, so load from other processes lands on both.
 */
import pg from 'pg';
import { postgresDriver } from '../../drivers/postgres/index.js';
import { createBlogService, type BlogService } from '../../src/index.js';
import { distinctWords, postWordFields } from '../../src/rules/text.js';
import type { BenchContext } from './harness.js';

const SERVERS = 4;
const WRITERS = 8;
const LABELS = Array.from({ length: 10 }, (_, i) => `topic-${i}`);
const BODY = `<p>${'Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor. '.repeat(6)}</p>`;

/** What 32 writers did in one run: inserts per second and WAL per insert. */
interface Run {
  rate: number;
  walBytes: number;
  records: number;
  fpi: number;
}

interface Post {
  title: string;
  content: string;
  labels: string[];
}

const post = (n: number): Post => ({
  title: `Post number ${n} of the writers bench`,
  content: BODY,
  labels: ['news', LABELS[n % LABELS.length]!],
});

const RAW_DDL = (s: string) => `
  DROP SCHEMA IF EXISTS ${s} CASCADE;
  CREATE SCHEMA ${s};
  CREATE TABLE ${s}.posts (
    id text COLLATE "C" PRIMARY KEY, version int NOT NULL, doc json NOT NULL,
    blog_id text COLLATE "C" NOT NULL, status text COLLATE "C" NOT NULL, published text COLLATE "C" NOT NULL,
    updated text COLLATE "C" NOT NULL, path text COLLATE "C", in_due boolean, in_moving boolean,
    live_comments bigint NOT NULL DEFAULT 0, all_comments bigint NOT NULL DEFAULT 0, tokens text[] COLLATE "C"
  );
  CREATE INDEX ON ${s}.posts (blog_id, status, published, id);
  CREATE INDEX ON ${s}.posts (blog_id, status, updated, id);
  ALTER TABLE ${s}.posts ADD UNIQUE (blog_id, path);
  CREATE INDEX ON ${s}.posts (published, id) WHERE in_due;
  CREATE INDEX ON ${s}.posts (id) WHERE in_moving;
  CREATE INDEX ON ${s}.posts USING gin (tokens);
  CREATE TABLE ${s}.posts_label (
    id text COLLATE "C" NOT NULL, label text COLLATE "C" NOT NULL, blog_id text COLLATE "C" NOT NULL,
    status text COLLATE "C" NOT NULL, published text COLLATE "C" NOT NULL, updated text COLLATE "C" NOT NULL,
    PRIMARY KEY (id, label)
  );
  CREATE INDEX ON ${s}.posts_label (blog_id, label, status, published, id);
  CREATE INDEX ON ${s}.posts_label (blog_id, label, status, updated, id);
  CREATE TABLE ${s}.labels (
    id text COLLATE "C" PRIMARY KEY, version int NOT NULL, doc json NOT NULL,
    blog_id text COLLATE "C" NOT NULL, label text COLLATE "C" NOT NULL,
    live bigint NOT NULL DEFAULT 0, "all" bigint NOT NULL DEFAULT 0,
    live_positive boolean GENERATED ALWAYS AS (live > 0) STORED,
    all_positive boolean GENERATED ALWAYS AS ("all" > 0) STORED
  );
  CREATE INDEX ON ${s}.labels (blog_id, label, id) WHERE all_positive;
  CREATE INDEX ON ${s}.labels (blog_id, label, id) WHERE live_positive;
  CREATE TABLE ${s}.changes (
    seq bigint NOT NULL, pos int NOT NULL, coll int NOT NULL, id text COLLATE "C" NOT NULL, type text NOT NULL,
    version int NOT NULL, stream text COLLATE "C", time bigint NOT NULL, PRIMARY KEY (seq, pos)
  );
  CREATE SEQUENCE ${s}.seq;
  CREATE TABLE ${s}.events (id text COLLATE "C" PRIMARY KEY, version int NOT NULL, doc json NOT NULL, time text COLLATE "C" NOT NULL);
  CREATE INDEX ON ${s}.events (time, id);
  CREATE TABLE ${s}.plain (
    id text PRIMARY KEY, blog_id text NOT NULL, status text NOT NULL, published timestamptz NOT NULL, path text NOT NULL,
    title text NOT NULL, content text NOT NULL, labels text[] NOT NULL, tsv tsvector NOT NULL
  );
  CREATE INDEX ON ${s}.plain (blog_id, published);
  CREATE INDEX ON ${s}.plain (blog_id, status, published);
  CREATE UNIQUE INDEX ON ${s}.plain (path);
  CREATE INDEX ON ${s}.plain USING gin (labels);
  CREATE INDEX ON ${s}.plain USING gin (tsv);
`;

/** One raw insert of post `n`: the same rows (and optionally the change rows and event) in one statement. */
function rawInsert(s: string, blogId: string, log: boolean) {
  const sql = `WITH p AS (
      INSERT INTO ${s}.posts (id, version, doc, blog_id, status, published, updated, path, in_due, in_moving, tokens)
      VALUES ($1, 1, $2, $3, 'LIVE', $4, $4, $5, false, false, $6)),
    l AS (INSERT INTO ${s}.posts_label SELECT $1, x, $3, 'LIVE', $4, $4 FROM unnest($7::text[]) x),
    c AS (INSERT INTO ${s}.labels (id, version, doc, blog_id, label, live, "all")
      SELECT $3 || ':' || x, 1, json_build_object('id', $3 || ':' || x, 'blogId', $3, 'label', x, 'live', 0, 'all', 0), $3, x, 1, 1
      FROM unnest($7::text[]) x ORDER BY 1
      ON CONFLICT (id) DO UPDATE SET live = ${s}.labels.live + 1, "all" = ${s}.labels."all" + 1, version = ${s}.labels.version + 1)${
        log
          ? `,
    e AS (INSERT INTO ${s}.events VALUES ($1, 1, $8, $4)),
    q AS (SELECT nextval('${s}.seq') AS seq)
    INSERT INTO ${s}.changes SELECT q.seq, k - 1, 1, x, 'put', 1, $3, 0
      FROM q, unnest(ARRAY[$1] || array(SELECT $3 || ':' || l FROM unnest($7::text[]) l) || ARRAY['ev' || $1]) WITH ORDINALITY u(x, k)`
          : ' SELECT 1'
      }`;
  return (pool: pg.Pool, n: number) => {
    const p = post(n);
    const id = `raw${log ? 'l' : ''}${String(n).padStart(22, '0')}`;
    const now = new Date().toISOString();
    const doc = { id, blogId, status: 'LIVE', ...p, published: now, updated: now, path: `/2026/11/${id}.html` };
    const values: unknown[] = [
      id,
      JSON.stringify(doc),
      blogId,
      now,
      doc.path,
      distinctWords(postWordFields(p)),
      [...p.labels].sort(),
    ];
    if (log) values.push(JSON.stringify({ events: [{ type: 'post.inserted', id, resource: doc }] }));
    return pool.query({ text: sql, values });
  };
}

function plainInsert(s: string, blogId: string) {
  const sql = `INSERT INTO ${s}.plain VALUES ($1, $2, 'LIVE', now(), $3, $4, $5, $6, to_tsvector('simple', $4 || ' ' || $5))`;
  return (pool: pg.Pool, n: number) => {
    const p = post(n);
    const id = `plain${String(n).padStart(20, '0')}`;
    return pool.query({ text: sql, values: [id, blogId, `/2026/11/${id}.html`, p.title, p.content, p.labels] });
  };
}

async function walNow(admin: pg.Pool): Promise<{ lsn: string; records: number; fpi: number; bytes: number }> {
  const { rows } = await admin.query(
    `SELECT pg_current_wal_lsn()::text AS lsn, wal_records::float8 AS records, wal_fpi::float8 AS fpi, wal_bytes::float8 AS bytes FROM pg_stat_wal`,
  );
  return rows[0];
}

/** `writers` loops of `insert` for `ms`; inserts per second and the WAL they wrote per insert. */
async function run(
  admin: pg.Pool,
  ms: number,
  writers: Array<(n: number) => Promise<unknown>>,
  counter: { n: number },
): Promise<Run> {
  // The vacuum earlier runs' tables are due goes first: autovacuum would write it inside this run's window
  // (the raw one-table run's GIN and heap were vacuumed inside blogcore's next run: 2.8 KB per insert of its WAL).
  await admin.query('VACUUM');
  await admin.query('CHECKPOINT');
  const before = await walNow(admin);
  let done = 0;
  const end = performance.now() + ms;
  const t0 = performance.now();
  await Promise.all(
    writers.map(async (write) => {
      while (performance.now() < end) {
        await write(counter.n++);
        done++;
      }
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  // Backends report their WAL statistics about once a second: wait for them before reading pg_stat_wal.
  await new Promise((r) => setTimeout(r, 1500));
  const after = await walNow(admin);
  const lsnBytes = Number(
    (await admin.query(`SELECT pg_wal_lsn_diff($1, $2)::float8 AS d`, [after.lsn, before.lsn])).rows[0].d,
  );
  return {
    rate: done / seconds,
    walBytes: lsnBytes / done,
    records: (after.records - before.records) / done,
    fpi: (after.fpi - before.fpi) / done,
  };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/**
 * Where blogcore's WAL went in one more run, by relation (pg_walinspect, when the server has it): the profile
 * of the cost against raw.
 */
async function walProfile(
  admin: pg.Pool,
  ms: number,
  writers: Array<(n: number) => Promise<unknown>>,
  counter: { n: number },
) {
  try {
    await admin.query('CREATE EXTENSION IF NOT EXISTS pg_walinspect');
  } catch {
    return ['- (no pg_walinspect on this server: no WAL profile)'];
  }
  await admin.query('VACUUM');
  await admin.query('CHECKPOINT');
  const start = (await admin.query('SELECT pg_current_wal_lsn()::text AS l')).rows[0].l as string;
  const first = counter.n;
  await run(admin, ms, writers, counter);
  const stop = (await admin.query('SELECT pg_current_wal_lsn()::text AS l')).rows[0].l as string;
  const inserts = counter.n - first;
  const { rows } = await admin.query(
    `SELECT coalesce(c.relname, 'other') AS rel, sum(r.len)::float8 / $3 AS bytes FROM (
       SELECT DISTINCT ON (b.start_lsn) b.start_lsn, b.relfilenode, b.record_length AS len
       FROM pg_get_wal_block_info($1, $2) b ORDER BY b.start_lsn, b.block_id) r
     LEFT JOIN pg_class c ON c.relfilenode = r.relfilenode GROUP BY 1 ORDER BY 2 DESC LIMIT 14`,
    [start, stop, inserts],
  );
  return [
    '',
    `Where blogcore's WAL goes per insert (pg_walinspect, one more run; a record counted once, under its first block's relation): ${rows
      .map((r) => `${r.rel} ${Number(r.bytes).toFixed(0)} B`)
      .join(', ')}`,
  ];
}

/**
 * Where the writers wait, in one more run of a side: the client backends of this database sampled every 10 ms
 * (`pg_stat_activity`), by state and wait event ("CPU": active, waiting on nothing; "idle": the app's turn).
 */
async function waitProfile(
  admin: pg.Pool,
  ms: number,
  name: string,
  writers: Array<(n: number) => Promise<unknown>>,
  counter: { n: number },
): Promise<string> {
  const seen = new Map<string, number>();
  let samples = 0;
  let running = true;
  const sampler = (async () => {
    while (running) {
      const { rows } = await admin.query(
        `SELECT CASE WHEN state = 'active' THEN coalesce(wait_event_type || ':' || wait_event, 'CPU') ELSE state END AS w,
                count(*)::int AS n
         FROM pg_stat_activity
         WHERE datname = current_database() AND backend_type = 'client backend' AND pid <> pg_backend_pid()
         GROUP BY 1`,
      );
      for (const r of rows) seen.set(r.w, (seen.get(r.w) ?? 0) + r.n);
      samples++;
      await new Promise((r) => setTimeout(r, 10));
    }
  })();
  await run(admin, ms, writers, counter);
  running = false;
  await sampler;
  const total = [...seen.values()].reduce((a, b) => a + b, 0) || 1;
  const top = [...seen].sort((a, b) => b[1] - a[1]).slice(0, 8);
  return `- where ${name}'s connections are (${samples} samples of pg_stat_activity): ${top
    .map(([w, n]) => `${w} ${((100 * n) / total).toFixed(0)}%`)
    .join(', ')}`;
}

/** Runs the writers rows on the server at `url`; answers the lines to print. */
export async function writersRows(url: string, ctx: BenchContext): Promise<string[]> {
  const ms = Number(ctx.args['pg-writers-ms'] ?? (ctx.quick ? 2000 : 6000));
  const rounds = ctx.quick ? 1 : 3;
  const admin = new pg.Pool({ connectionString: url, max: 2 });
  const ours = 'bench_writers';
  const raw = 'bench_raw_writers';
  await admin.query(`DROP SCHEMA IF EXISTS ${ours} CASCADE`);
  await admin.query(RAW_DDL(raw));
  const services: BlogService[] = Array.from({ length: SERVERS }, () =>
    createBlogService({ driver: postgresDriver({ connectionString: url, schema: ours, max: WRITERS }) }),
  );
  const owner = await services[0]!.users.insert({ body: { displayName: 'Writers' } });
  const blogId = (
    await services[0]!.blogs.insert({ body: { name: 'Writers', url: 'https://writers.example/' }, ownerId: owner.id! })
  ).id!;
  await Promise.all(services.map((s) => s.ready()));
  const rawPool = new pg.Pool({ connectionString: url, max: SERVERS * WRITERS });
  const sides: Record<string, { writers: Array<(n: number) => Promise<unknown>>; runs: Run[] }> = {
    blogcore: {
      writers: services.flatMap((s) =>
        Array.from({ length: WRITERS }, () => (n: number) => s.posts.insert({ blogId, body: post(n) })),
      ),
      runs: [],
    },
    'raw, same rows': {
      writers: Array.from(
        { length: SERVERS * WRITERS },
        () => (n: number) => rawInsert(raw, blogId, false)(rawPool, n),
      ),
      runs: [],
    },
    'raw, same rows + change row + event': {
      writers: Array.from({ length: SERVERS * WRITERS }, () => (n: number) => rawInsert(raw, blogId, true)(rawPool, n)),
      runs: [],
    },
    'raw, post only (one table)': {
      writers: Array.from({ length: SERVERS * WRITERS }, () => (n: number) => plainInsert(raw, blogId)(rawPool, n)),
      runs: [],
    },
  };
  const counter = { n: 0 };
  // Warm-up: the pools' connections open and the statements are planned before any run counts.
  for (const side of Object.values(sides)) await Promise.all(side.writers.map((w) => w(counter.n++)));
  for (let r = 0; r < rounds; r++)
    for (const side of Object.values(sides)) side.runs.push(await run(admin, ms, side.writers, counter));
  const profile = await walProfile(admin, ms, sides.blogcore!.writers, counter);
  const waits = [
    await waitProfile(admin, ms, 'blogcore', sides.blogcore!.writers, counter),
    await waitProfile(
      admin,
      ms,
      'raw (same rows + change row + event)',
      sides['raw, same rows + change row + event']!.writers,
      counter,
    ),
  ];
  await Promise.all(services.map((s) => s.close()));
  await rawPool.end();
  if (!ctx.args['pg-keep']) {
    await admin.query(`DROP SCHEMA IF EXISTS ${ours} CASCADE`);
    await admin.query(`DROP SCHEMA IF EXISTS ${raw} CASCADE`);
  }
  await admin.end();
  const of = (name: string) => {
    const runs = sides[name]!.runs;
    return {
      rate: median(runs.map((x) => x.rate)),
      walBytes: median(runs.map((x) => x.walBytes)),
      records: median(runs.map((x) => x.records)),
      fpi: median(runs.map((x) => x.fpi)),
    };
  };
  const base = of('raw, same rows');
  const lines = [
    `\n## PostgreSQL: ${SERVERS} app servers × ${WRITERS} writers = ${SERVERS * WRITERS} writers inserting distinct posts (two labels each, shared), ${ms / 1000} s per run, median of ${rounds}`,
    '',
    '| writer | inserts/s | share of raw (same rows) | WAL per insert (lsn) | WAL records / FPIs per insert (pg_stat_wal) | WAL vs raw (same rows) |',
    '|---|---|---|---|---|---|',
  ];
  for (const name of Object.keys(sides)) {
    const x = of(name);
    lines.push(
      `| ${name} | ${x.rate.toFixed(0)} | ${((x.rate / base.rate) * 100).toFixed(0)}% | ${x.walBytes.toFixed(0)} B | ${x.records.toFixed(1)} / ${x.fpi.toFixed(2)} | ${(x.walBytes / base.walBytes).toFixed(2)}× |`,
    );
  }
  const o = of('blogcore');
  const share = o.rate / base.rate;
  const wal = o.walBytes / base.walBytes;
  lines.push(
    '',
    `- ${SERVERS * WRITERS} concurrent writers: ${(share * 100).toFixed(0)}% of raw — target ≥ 80%: ${share >= 0.8 ? '✓' : '✗'}`,
    `- WAL per post insert: ${o.walBytes.toFixed(0)} B, ${wal.toFixed(2)}× raw's ${base.walBytes.toFixed(0)} B — target ≤ 2×: ${wal <= 2 ? '✓' : '✗'}`,
    ...profile,
    ...waits,
  );
  return lines;
}
