/**
 * The reading site (blogcore/site) on SQLite, each figure beside its raw baseline in the same run:
 *
 * - A post page in process at `--site-posts` (default 100,000; `--quick` 2,000) posts: `site(request)` →
 *   the HTML (post by path, its comments, the theme, the ETag; a page view recorded), against raw
 *   better-sqlite3 reading the same post and comments from plain tables and filling a template. Target ≤ 1 ms.
 * - Served over HTTP (node:http, autocannon 10 connections, each server in its own process): the site against
 *   a plain node:http handler sending the same page prerendered (same bytes, same headers). Target ≥ 85%.
 * - The static export of `--site-export-posts` (default 10,000; `--quick` 1,000) posts, all of it and then
 *   after 10 edits, against writing the same files with node:fs.
 *
 *   npm run bench -- --only=site [--quick] [--site-posts=N] [--site-export-posts=N] [--http-seconds=S] [--http-rounds=N]
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { sqliteDriver } from '../../drivers/sqlite/index.js';
import { folderFiles } from '../../src/cli/site.js';
import { createBlogService } from '../../src/index.js';
import { createSite, escapeHtml, exportSite } from '../../src/site/index.js';
import { generator } from '../drivers/sqlite/bench-data.js';
import { CONNECTIONS, measure, startServer, warmUp, type CannonResult } from './cannon.js';
import { printTable, timePair, type BenchContext } from './harness.js';
import { loadBlogcore } from './sqlite.bench.js';

const here = dirname(fileURLToPath(import.meta.url));

/** The raw engine: plain tables of posts (by path) and comments, and a template. */
function rawSite(
  file: string,
  posts: Array<{ path: string; title: string; content: string; labels: string[]; published: string }>,
) {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.exec(`CREATE TABLE posts (path TEXT PRIMARY KEY, title TEXT, content TEXT, labels TEXT, published TEXT, author TEXT);
    CREATE TABLE comments (path TEXT, published TEXT, author TEXT, content TEXT);
    CREATE INDEX comments_path ON comments (path, published);`);
  const ins = db.prepare('INSERT INTO posts VALUES (?, ?, ?, ?, ?, ?)');
  const com = db.prepare('INSERT INTO comments VALUES (?, ?, ?, ?)');
  db.transaction(() => {
    for (const p of posts) ins.run(p.path, p.title, p.content, JSON.stringify(p.labels), p.published, 'Bench author');
    for (let i = 0; i < 5; i++)
      com.run(posts[posts.length >> 1]!.path, `2026-01-0${i + 1}T00:00:00.000Z`, `Reader ${i}`, `<p>Comment ${i}</p>`);
  })();
  const post = db.prepare<
    [string],
    { title: string; content: string; labels: string; published: string; author: string }
  >('SELECT * FROM posts WHERE path = ?');
  const comments = db.prepare<[string], { published: string; author: string; content: string }>(
    'SELECT * FROM comments WHERE path = ? ORDER BY published LIMIT 51',
  );
  const head = readFileSync(join(here, '../../src/site/default-theme.ts'), 'utf8').slice(0, 2500); // a style sheet's worth of bytes
  return {
    db,
    page(path: string): string {
      const p = post.get(path)!;
      const labels = (JSON.parse(p.labels) as string[])
        .map((l) => `<a href="/search/label/${encodeURIComponent(l)}">${escapeHtml(l)}</a>`)
        .join(', ');
      const list = comments
        .all(path)
        .map(
          (c) =>
            `<li><p>${escapeHtml(c.author)} <time datetime="${c.published}">${c.published}</time></p>${c.content}</li>`,
        )
        .join('');
      return `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(p.title)}</title><style>${head}</style></head><body><main><article><h1>${escapeHtml(p.title)}</h1><p><time datetime="${p.published}">${p.published}</time> by ${escapeHtml(p.author)}</p>${p.content}<p>Labels: ${labels}</p></article><ol>${list}</ol></main></body></html>`;
    },
  };
}

async function inProcess(ctx: BenchContext, dir: string, n: number) {
  const file = join(dir, 'site.db');
  const gen = generator(7);
  const t0 = performance.now();
  const { blogId, ids } = await loadBlogcore(file, gen, n);
  console.log(`\n(loaded ${n} posts through the service in ${((performance.now() - t0) / 1000).toFixed(1)} s)`);
  const service = createBlogService({ driver: sqliteDriver({ filename: file }) });
  // The measured post: the first LIVE one from the middle on (the generator makes some drafts).
  let post = await service.posts.get({ blogId, postId: ids[ids.length >> 1]! });
  for (let i = (ids.length >> 1) + 1; !post.url && i < ids.length; i++)
    post = await service.posts.get({ blogId, postId: ids[i]! });
  if (!post.url) throw new Error('no LIVE post from the middle on');
  for (let i = 0; i < 5; i++)
    await service.comments.insert({
      blogId,
      postId: post.id,
      body: { content: `<p>Comment ${i}</p>`, author: { displayName: `Reader ${i}` } },
    });
  // Rendered on every request (no page kept), as the first reader after a write gets it; then as kept.
  const site = createSite(service, { blogId, cachePages: 0 });
  const kept = createSite(service, { blogId });
  const url = post.url;
  const path = new URL(url).pathname;
  const raw = rawSite(join(dir, 'raw.db'), [
    { path, title: post.title, content: post.content ?? '', labels: post.labels ?? [], published: post.published! },
  ]);
  const rawPage = () => raw.page(path).length;
  const [a, b] = await timePair(
    async () => (await (await site(new Request(url)))!.text()).length,
    rawPage,
    ctx.budgetMs,
  );
  const [c, d] = await timePair(
    async () => (await (await kept(new Request(url)))!.text()).length,
    rawPage,
    ctx.budgetMs,
  );
  const response = (await site(new Request(url)))!;
  const text = await response.text();
  printTable(
    `Reading site: a post page in process (SQLite, ${n} posts; page ${text.length} bytes, raw template ${raw.page(path).length})`,
    [
      { op: 'post page, rendered (target ≤ 1 ms)', size: n, ours: a, raw: b },
      { op: 'post page, kept since the last write', size: n, ours: c, raw: d },
    ],
  );
  console.log(
    `rendered post page p50 ${(a.p50 / 1000).toFixed(3)} ms, mean ${(a.mean / 1000).toFixed(3)} ms: ${a.mean <= 1000 ? '≤ 1 ms ✓' : '> 1 ms ✗'}`,
  );
  const headers = Object.fromEntries([...response.headers].filter(([k]) => k !== 'content-length'));
  await service.close();
  raw.db.close();
  return { file, blogId, path, page: { headers, text } };
}

async function overHttp(ctx: BenchContext, dir: string, served: Awaited<ReturnType<typeof inProcess>>) {
  const seconds = Number(ctx.args['http-seconds'] ?? (ctx.quick ? 1.5 : 2.5));
  const rounds = Number(ctx.args['http-rounds'] ?? (ctx.quick ? 2 : 4));
  const pageFile = join(dir, 'page.json');
  writeFileSync(pageFile, JSON.stringify(served.page));
  const site = await startServer(join(here, 'site-server.ts'), [
    '--mode=site',
    `--db=${served.file}`,
    `--blog=${served.blogId}`,
  ]);
  const raw = await startServer(join(here, 'site-server.ts'), ['--mode=raw', `--page=${pageFile}`]);
  try {
    const origin = { site: `http://127.0.0.1:${site.port}`, raw: `http://127.0.0.1:${raw.port}` };
    for (const o of Object.values(origin)) await warmUp(o + served.path);
    const best: Record<string, CannonResult> = {};
    const cpu: Record<string, number> = {};
    for (let r = 0; r < rounds; r++) {
      for (const mode of ['site', 'raw'] as const) {
        const res = await measure(origin[mode], served.path, seconds);
        if (!best[mode] || res.requests.average > best[mode].requests.average) best[mode] = res;
        cpu[mode] = Math.min(cpu[mode] ?? Infinity, res.cpuPerRequest);
      }
    }
    const ratio = best.site!.requests.average / best.raw!.requests.average;
    console.log(
      [
        `\n## Reading site over HTTP (node:http; autocannon ${CONNECTIONS} connections, best of ${rounds} × ${seconds} s per side, alternating; page ${served.page.text.length} bytes)`,
        '',
        '| op | site req/s | p50 / p99 ms | raw req/s | p50 / p99 ms | site / raw (target) | server CPU per request, site / raw |',
        '|---|---|---|---|---|---|---|',
        `| GET a post page | ${best.site!.requests.average.toFixed(0)} | ${best.site!.latency.p50} / ${best.site!.latency.p99} | ${best.raw!.requests.average.toFixed(0)} | ${best.raw!.latency.p50} / ${best.raw!.latency.p99} | ${(ratio * 100).toFixed(0)}% (≥ 85%) ${ratio >= 0.85 ? '✓' : '✗'} | ${cpu.site!.toFixed(0)} / ${cpu.raw!.toFixed(0)} µs |`,
      ].join('\n'),
    );
  } finally {
    await Promise.all([site.stop(), raw.stop()]);
  }
}

/** Writes files as a raw baseline would: the same paths and bytes with node:fs. */
async function writeAll(root: string, files: Map<string, string>) {
  const t0 = performance.now();
  for (const [path, text] of files) {
    const file = join(root, path);
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, text);
  }
  return performance.now() - t0;
}

async function staticExport(ctx: BenchContext, dir: string) {
  const n = Number(ctx.args['site-export-posts'] ?? (ctx.quick ? 1000 : 10_000));
  const file = join(dir, 'export.db');
  const { blogId, ids } = await loadBlogcore(file, generator(11), n);
  const service = createBlogService({ driver: sqliteDriver({ filename: file }) });
  const out = join(dir, 'out');
  // What was written, kept in memory so the raw baseline writes the same bytes.
  const written = new Map<string, string>();
  const fsFiles = folderFiles(out);
  const files = {
    write: (p: string, t: string) => {
      written.set(p, t);
      return fsFiles.write(p, t);
    },
    remove: fsFiles.remove,
  };
  let t0 = performance.now();
  const full = await exportSite(service, { blogId, files });
  const fullMs = performance.now() - t0;
  const rawFull = await writeAll(join(dir, 'raw-full'), written);
  written.clear();
  for (let i = 0; i < 10; i++) {
    const postId = ids[Math.floor(((i + 0.5) * ids.length) / 10)]!;
    await service.posts.patch({ blogId, postId, body: { title: `Edited title ${i}` } });
  }
  t0 = performance.now();
  const inc = await exportSite(service, { blogId, files, previous: full.manifest });
  const incMs = performance.now() - t0;
  const rawInc = await writeAll(join(dir, 'raw-inc'), written);
  await service.close();
  const row = (op: string, ms: number, raw: number, count: number) =>
    `| ${op} | ${(ms / 1000).toFixed(2)} s | ${count} | ${(raw / 1000).toFixed(2)} s | ${(ms / raw).toFixed(1)}× |`;
  console.log(
    [
      `\n## Reading site: static export (SQLite, ${n} posts; raw: node:fs writing the same files)`,
      '',
      '| op | blogcore | files written | raw | ratio |',
      '|---|---|---|---|---|',
      row('full export', fullMs, rawFull, full.written.length),
      row('incremental after 10 edits', incMs, rawInc, inc.written.length),
    ].join('\n'),
  );
}

export default async function siteBench(ctx: BenchContext): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'blogcore-site-bench-'));
  try {
    const n = Number(ctx.args['site-posts'] ?? (ctx.quick ? 2000 : 100_000));
    const served = await inProcess(ctx, dir, n);
    await overHttp(ctx, dir, served);
    await staticExport(ctx, dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
