/**
 * HTTP: GET one post and GET a 20-post list through the helper on node:http + blogcore + SQLite, against a
 * raw node:http handler running the same SQL on the same file (better-sqlite3) and JSON.stringify.
 * Each server runs alone in a child process; autocannon (10 connections, 127.0.0.1) runs here.
 * Targets (docs/benchmarks.md, docs/design.md §14): GET one post and a list of 20 at ≥ 85% of the raw handler's requests/s, GET with an
 * `authenticate` hook at ≥ 80%. The same reads again are kept responses (docs/http.md): a fourth row sets the one
 * post's kept answer against node:http sending the same bytes (≥ 95%), a fifth the same on a file the server's
 * process owns (`exclusive: true`), and the memory the kept responses hold is printed below the table.
 *
 *   npm run bench -- --only=http [--quick] [--http-seconds=2.5] [--http-rounds=4] [--http-posts=2000]
 */
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sqliteDriver } from '../../drivers/sqlite/index.js';
import { createBlogService } from '../../src/index.js';
import { type CannonResult, CONNECTIONS, measure, startServer, stats, warmUp } from './cannon.js';
import type { BenchContext } from './harness.js';
import { TARGETS } from './targets.js';

const here = dirname(fileURLToPath(import.meta.url));

function paragraph(i: number): string {
  const words = [
    'blog',
    'service',
    'sqlite',
    'driver',
    'publish',
    'draft',
    'label',
    'comment',
    'reader',
    'author',
    'keyset',
    'page',
  ];
  let s = '';
  for (let k = 0; k < 45; k++) s += `${words[(i * 7 + k * 3) % words.length]} `;
  return `<p>${s.trim()}.</p>`;
}

async function seed(file: string, posts: number): Promise<{ blogId: string; postId: string }> {
  const service = createBlogService({ driver: sqliteDriver({ filename: file }) });
  await service.ready();
  const user = await service.users.insert({ body: { displayName: 'Bench author' } });
  const blog = await service.blogs.insert({
    body: { name: 'HTTP bench', url: 'https://http-bench.example/' },
    ownerId: user.id,
  });
  const as = service.as({ userId: user.id });
  let postId = '';
  const start = Date.UTC(2020, 0, 1);
  for (let i = 0; i < posts; i++) {
    const post = await as.posts.insert({
      blogId: blog.id,
      isDraft: i % 17 === 0,
      body: {
        title: `Post number ${i} about ${i % 40}`,
        content: Array.from({ length: 6 }, (_, k) => paragraph(i + k)).join(''),
        labels: [`label-${i % 40}`, `topic-${i % 7}`],
        published: new Date(start + i * 3_600_000).toISOString(),
      },
    });
    if (i === Math.floor(posts / 2)) postId = post.id;
  }
  await service.close();
  return { blogId: blog.id, postId };
}

/** Starts http-server.ts in a child process. */
const startMode = (mode: 'blogcore' | 'blogcore-auth' | 'raw' | 'raw-bytes', db: string, extra: string[] = []) =>
  startServer(join(here, 'http-server.ts'), [`--mode=${mode}`, `--db=${db}`, ...extra]);

/** blogcore's answer to `url` (headers a client sees, body), for the server that sends the same bytes. */
async function answerOf(url: string): Promise<{ headers: Record<string, string>; body: string }> {
  const res = await fetch(url);
  const headers: Record<string, string> = {};
  for (const name of ['content-type', 'cache-control', 'x-content-type-options', 'etag']) {
    const value = res.headers.get(name);
    if (value !== null) headers[name] = value;
  }
  return { headers, body: await res.text() };
}

export default async function httpBench(ctx: BenchContext): Promise<void> {
  const seconds = Number(ctx.args['http-seconds'] ?? (ctx.quick ? 1.5 : 2.5));
  const rounds = Number(ctx.args['http-rounds'] ?? (ctx.quick ? 2 : 4));
  const posts = Number(ctx.args['http-posts'] ?? (ctx.quick ? 300 : 2000));
  const dir = mkdtempSync(join(tmpdir(), 'blogcore-http-bench-'));
  const db = join(dir, 'bench.db');
  const servers: Array<Awaited<ReturnType<typeof startMode>>> = [];
  try {
    const { blogId, postId } = await seed(db, posts);
    // A copy one server owns (`exclusive: true`): the other servers share `db`, as app servers share a file.
    const ownDb = join(dir, 'own.db');
    copyFileSync(db, ownDb);
    const ours = await startMode('blogcore', db);
    const oursAuth = await startMode('blogcore-auth', db);
    const raw = await startMode('raw', db);
    servers.push(ours, oursAuth, raw);
    const postUrl = `/v3/blogs/${blogId}/posts/${postId}?prettyPrint=false`;
    const bytesFile = join(dir, 'answer.json');
    writeFileSync(bytesFile, JSON.stringify(await answerOf(`http://127.0.0.1:${ours.port}${postUrl}`)));
    const rawBytes = await startMode('raw-bytes', db, [`--bytes=${bytesFile}`]);
    const oursOwn = await startMode('blogcore', ownDb, ['--exclusive=1']);
    servers.push(rawBytes, oursOwn);
    const ops = [
      // prettyPrint=false: the raw handler sends compact JSON too (Google's default, kept by the helper, indents).
      {
        op: 'GET one post',
        target: TARGETS.http,
        urls: { blogcore: `/v3/blogs/${blogId}/posts/${postId}?prettyPrint=false`, raw: `/post?id=${postId}` },
      },
      {
        op: 'GET list of 20 posts',
        target: TARGETS.http,
        urls: { blogcore: `/v3/blogs/${blogId}/posts?maxResults=20&prettyPrint=false`, raw: `/list?blog=${blogId}` },
      },
      // A real deployment has an authenticate hook: on Node it gets a RequestHead (headers read in place).
      {
        op: 'GET one post, with authenticate',
        auth: true,
        target: TARGETS.httpAuth,
        urls: { blogcore: `/v3/blogs/${blogId}/posts/${postId}?prettyPrint=false`, raw: `/post?id=${postId}` },
      },
      // Nothing changed since the first read: a kept response, against node:http sending the same bytes.
      {
        op: 'GET one post, unchanged: kept vs node:http sending the same bytes',
        bytes: true,
        target: TARGETS.httpKept,
        urls: { blogcore: postUrl, raw: postUrl },
      },
      // The same on a file the server's process owns: no look for other processes' commits (docs/drivers.md).
      {
        op: 'the same, the file one process owns (`exclusive: true`)',
        bytes: true,
        own: true,
        target: TARGETS.httpKept,
        urls: { blogcore: postUrl, raw: postUrl },
      },
    ];
    const rows: string[] = [];
    for (const { op, urls, auth, bytes, own, target } of ops) {
      const best: Record<string, CannonResult> = {};
      const cpu: Record<string, number> = {};
      const port = {
        blogcore: own ? oursOwn.port : auth ? oursAuth.port : ours.port,
        raw: bytes ? rawBytes.port : raw.port,
      };
      for (const mode of ['blogcore', 'raw'] as const) await warmUp(`http://127.0.0.1:${port[mode]}${urls[mode]}`);
      // Alternate short rounds and keep each side's best: the machine is shared, so a round can be disturbed.
      for (let r = 0; r < rounds; r++) {
        for (const mode of ['blogcore', 'raw'] as const) {
          const res = await measure(`http://127.0.0.1:${port[mode]}`, urls[mode], seconds);
          if (!best[mode] || res.requests.average > best[mode].requests.average) best[mode] = res;
          cpu[mode] = Math.min(cpu[mode] ?? Infinity, res.cpuPerRequest);
        }
      }
      const a = best.blogcore!;
      const b = best.raw!;
      const ratio = a.requests.average / b.requests.average;
      const cpuRatio = cpu.raw! / cpu.blogcore!;
      rows.push(
        `| ${op} | ${a.requests.average.toFixed(0)} | ${a.latency.p50} / ${a.latency.p99} | ${b.requests.average.toFixed(0)} | ${b.latency.p50} / ${b.latency.p99} | ${(ratio * 100).toFixed(0)}% (≥ ${target * 100}%) ${ratio >= target ? '✓' : '✗'} | ${cpu.blogcore!.toFixed(0)} / ${cpu.raw!.toFixed(0)} µs = ${(cpuRatio * 100).toFixed(0)}% |`,
      );
    }
    console.log(
      [
        `\n## HTTP on node:http + SQLite (${posts} posts; autocannon ${CONNECTIONS} connections, best of ${rounds} × ${seconds} s per side, alternating; 127.0.0.1; each server in its own child process)`,
        '',
        '| op | blogcore req/s | p50 / p99 ms | raw req/s | p50 / p99 ms | req/s blogcore / raw (target) | server CPU per request, blogcore / raw (raw ÷ blogcore) |',
        '|---|---|---|---|---|---|---|',
        ...rows,
        '',
        `Kept responses held by the helper after these runs: ${keptLine((await stats(`http://127.0.0.1:${ours.port}`)).kept)}`,
      ].join('\n'),
    );
  } finally {
    await Promise.all(servers.map((s) => s.stop()));
    rmSync(dir, { recursive: true, force: true });
  }
}

function keptLine(kept: { responses: number; bytes: number; maxBytes: number } | undefined): string {
  if (!kept) return 'none (keptResponses: false)';
  return `${kept.responses} answers, ${(kept.bytes / 1024).toFixed(1)} KiB (bound ${(kept.maxBytes / 1024 / 1024).toFixed(0)} MiB)`;
}
