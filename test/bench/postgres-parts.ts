/**
 * What each part of a post insert's statement costs PostgreSQL, against raw `pg`'s statement (issue 35): the
 * statements of `--warm` + `--n` sequential `posts.insert` (the profile's seeded posts) are recorded, then
 * replayed in turn into schemas of their own, one per variant: the statement as it is (`base`), or with one part
 * made a plain SELECT of its parameters, or an index dropped; raw's statement with the same posts beside. Each
 * call's server time comes from auto_explain (`log_analyze` off: the executor's own time, no instrumentation);
 * the median of the calls after `--warm` leaves out the GIN pending-list merges (40–150 ms now and then, in raw's
 * table as in ours), counted apart. The replay runs with `synchronous_commit = off` (a statement's time holds no
 * commit). Run: `node --import tsx test/bench/postgres-parts.ts [--n=1000] [--warm=1500] [--only=noevent,…]`.
 */
import pg from 'pg';
import { postgresDriver } from '../../drivers/postgres/index.js';
import { createBlogService } from '../../src/index.js';
import { distinctWords, postWordFields } from '../../src/rules/text.js';
import { startPostgres } from '../drivers/postgres/server.js';
import { generator } from '../drivers/sqlite/bench-data.js';
import { RAW_SCHEMA } from './postgres.bench.js';

const arg = (name: string, dflt: string) =>
  process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? dflt;
const N = Number(arg('n', '1000'));
const WARM = Number(arg('warm', '1500'));
const ONLY = arg('only', '');

const RAW_INSERT = (s: string) => `WITH p AS (
    INSERT INTO ${s}.posts (id, blog_id, status, published, updated, path, author_id, title, content, labels, tokens, version)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, 1) RETURNING id, blog_id, status, published, labels),
  l AS (INSERT INTO ${s}.post_labels SELECT blog_id, unnest(labels), status, published, id FROM p),
  ev AS (INSERT INTO ${s}.events (id, doc) VALUES ($12, $13)),
  gone AS (DELETE FROM ${s}.events WHERE id = $12 - 1000)
  INSERT INTO ${s}.changes (post_id, version) SELECT id, 1 FROM p`;

/** A CTE's body made a SELECT of the same parameters (each must stay in the text, typed) giving one row. */
function plain(text: string, name: string): string {
  const start = text.indexOf(`${name} AS (`);
  if (start < 0) return text;
  const open = text.indexOf('(', start);
  let depth = 0;
  let i = open;
  for (; i < text.length; i++) {
    if (text[i] === '(') depth++;
    else if (text[i] === ')' && --depth === 0) break;
  }
  const params = [...new Set(text.slice(open + 1, i).match(/\$\d+::[a-z[\]]+/g) ?? [])];
  return `${text.slice(0, open + 1)}SELECT 1 AS version${params.map((p) => `, ${p}`).join('')}${text.slice(i)}`;
}
const adds = (text: string) => [...text.matchAll(/(w\d+) AS \(INSERT INTO "[^"]+"\."labels"/g)].map((m) => m[1]!);

/** Each variant: the statement's text as it runs there, and what its schema drops first. */
const VARIANTS: Record<string, { text?: (t: string) => string; ddl?: (s: string) => string }> = {
  base: {},
  nobegin: {
    text: (t) =>
      t.replace(
        /SELECT seq, prev FROM "[^"]+"\.commit_begin\(\)/,
        'SELECT pg_current_xact_id()::text::bigint AS seq, NULL::bigint AS prev',
      ),
  },
  nogate: {
    text: (t) =>
      t.replace(/g AS MATERIALIZED \(SELECT b\.seq FROM b WHERE .*? >= 0\)/, 'g AS MATERIALIZED (SELECT b.seq FROM b)'),
  },
  nopost: { text: (t) => plain(t, 'w0') },
  nolabelrows: { text: (t) => plain(t, 'w0s0') },
  noevent: { text: (t) => plain(t, 'w1') },
  nocounters: { text: (t) => adds(t).reduce((x, w) => plain(x, w), t) },
  nochanges: { text: (t) => plain(plain(t, 'logged0'), 'logged') },
  nocheck: {
    text: (t) =>
      t.replace(
        /WHEN \(EXISTS .*? THEN "[^"]+"\.commit_refuse\(0\) /,
        'WHEN $2::text IS NULL AND $3::bigint IS NULL THEN 0 ',
      ),
  },
  noupdated: { ddl: (s) => `DROP INDEX ${s}.posts_updated; DROP INDEX ${s}.posts_label_updated` },
  nogin: { ddl: (s) => `DROP INDEX ${s}.posts_tokens` },
  raw: {},
};

async function main() {
  const server = await startPostgres({
    durable: true,
    flags: ['-c', 'shared_preload_libraries=auto_explain', '-c', 'synchronous_commit=off'],
  });
  const admin = new pg.Pool({ connectionString: server.url, max: 1 });
  admin.on('error', () => {});
  const open = (schema: string) =>
    createBlogService({ driver: postgresDriver({ connectionString: server.url, schema, max: 2 }) });

  // The statements of ours, as sent (only those that succeeded: a retried path sends its first try too).
  const recorded: Array<{ text: string; values: unknown[] }> = [];
  const query = pg.Client.prototype.query;
  pg.Client.prototype.query = function (this: pg.Client, ...a: unknown[]) {
    const c = a[0] as { text?: string; values?: unknown[] };
    const sent = (query as (...x: unknown[]) => unknown).apply(this, a);
    if (typeof c === 'object' && c.text?.startsWith('WITH b AS') && c.text.includes('INTO "ours"."posts"'))
      return (sent as Promise<unknown>).then((r) => {
        recorded.push({ text: c.text!, values: c.values! });
        return r;
      });
    return sent;
  } as typeof query;
  const service = open('ours');
  const owner = await service.users.insert({ body: { displayName: 'A' } });
  const blogId = (await service.blogs.insert({ body: { name: 'B', url: 'https://b.example/' }, ownerId: owner.id! }))
    .id!;
  const gen = generator(7);
  for (let i = 0; i < WARM + N; i++) {
    const p = gen.post(i);
    await service.posts.insert({ blogId, body: { title: p.title, content: p.content, labels: p.labels } });
  }
  pg.Client.prototype.query = query;
  await service.close();

  const names = Object.keys(VARIANTS).filter(
    (v) => !ONLY || v === 'base' || v === 'raw' || ONLY.split(',').includes(v),
  );
  for (const v of names) {
    if (v === 'raw') {
      await admin.query(RAW_SCHEMA('raw'));
      continue;
    }
    const made = open(v);
    await made.users.insert({ body: { displayName: 'A' } });
    await made.close();
    const ddl = VARIANTS[v]!.ddl;
    if (ddl) await admin.query(ddl(`"${v}"`));
  }
  const client = new pg.Client({ connectionString: server.url });
  await client.connect();
  let last = Number.NaN;
  client.on('notice', (m) => {
    const d = /duration: ([\d.]+) ms/.exec(m.message ?? '');
    if (d) last = Number(d[1]) * 1000;
  });
  await client.query(`SET auto_explain.log_level = notice`);
  await client.query(`SET auto_explain.log_min_duration = 0`);
  await client.query(`SET auto_explain.log_format = json`);
  const times = new Map<string, number[]>(names.map((v) => [v, []]));
  const names2 = new Map<string, string>();
  for (let i = 0; i < recorded.length; i++) {
    const r = recorded[i]!;
    // Alternating order, so no variant always runs right after the same one.
    for (const v of i % 2 ? names : [...names].reverse()) {
      last = Number.NaN;
      if (v === 'raw') {
        const p = gen.post(i);
        const id = `R${String(i).padStart(25, '0')}`;
        const now = new Date().toISOString();
        const path = `/2026/11/x-${id}.html`;
        const words = distinctWords(postWordFields(p));
        const row = [id, blogId, 'LIVE', now, now, path, 'author', p.title, p.content, p.labels, words];
        const doc = JSON.stringify({ type: 'post.inserted', id, resource: row });
        await client.query({ name: 'raw', text: RAW_INSERT('raw'), values: [...row, i + 1, doc] });
      } else {
        const text = (VARIANTS[v]!.text ?? ((t: string) => t))(r.text.replaceAll('"ours".', `"${v}".`));
        let name = names2.get(text);
        if (!name) names2.set(text, (name = `s${names2.size}`));
        // The look at the log (`unchanged`) runs, and never refuses: this schema's log is another.
        const values = text.includes('commit_refuse(0)')
          ? [r.values[0], r.values[1], '9000000000000000', ...r.values.slice(3)]
          : r.values;
        await client.query({ name, text, values });
      }
      if (i >= WARM) times.get(v)!.push(last);
    }
  }
  const median = (v: string) => {
    const a = [...times.get(v)!].sort((x, y) => x - y);
    return a[a.length >> 1]!;
  };
  const base = median('base');
  console.log(`server time per insert, ${N} inserts after ${WARM} (µs; merges: calls over 5 ms)`);
  for (const v of names) {
    const a = times.get(v)!;
    const slow = a.filter((t) => t > 5000);
    const mean = a.reduce((x, y) => x + y, 0) / a.length;
    console.log(
      `${v.padEnd(12)} median ${median(v).toFixed(0).padStart(4)} (${median(v) - base >= 0 ? '+' : ''}${(median(v) - base).toFixed(0)}), mean ${mean.toFixed(0)}, merges ${slow.length} (${(slow.reduce((x, y) => x + y, 0) / 1000).toFixed(0)} ms)`,
    );
  }
  await client.end();
  await admin.end();
  await server.stop();
}

await main();
