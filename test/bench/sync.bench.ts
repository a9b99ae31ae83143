/**
 * Sync (docs/design.md §16): a replica in headless Chromium (createReplica on idbDriver) against blogcore's HTTP
 * helper on node:http + SQLite at 127.0.0.1, next to a raw baseline in the same page and run (plain fetch of
 * the same change pages with raw idb puts; plain fetch PATCHes with If-Match). Targets (issues 13, 21): the first
 * pull of 10k posts ≤ 3 s and ≤ 1.5× raw, 100 queued offline edits pushed and confirmed ≤ 1 s; bytes on the
 * wire per changed post, counted at the server's sockets (requests and responses, headers included). A row times
 * a search asked at once after the first pull (it waits for the posts' terms, written after the pull). A second
 * raw line, "the floor", writes the same pull by hand in the IndexedDB driver's layout for posts (record,
 * index entries, base): what IndexedDB charges for what a replica must write, with none of blogcore's code.
 *
 * Default 2k posts (--quick 500), targets scaled to the size; `--sync-posts=10000` for the issue's size (~1.5 min).
 *
 *   npm run bench -- --only=sync [--quick] [--sync-posts=10000] [--sync-edits=100] [--profile]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sqliteDriver } from '../../drivers/sqlite/index.js';
import { createBlogService } from '../../src/index.js';
import { createHttpHandler, toNodeHandler } from '../../src/http/index.js';
import { bundlePage, launchChromium, serveScript } from '../browser/serve.js';
import type { SyncBenchInput, SyncBenchPhase } from '../browser/sync-bench-page.js';
import { generator } from '../drivers/sqlite/bench-data.js';
import type { BenchContext } from './harness.js';
import { pageProfiler } from './profile.js';

const TOKEN = 'bench';
/** The replica's default pull page (ReplicaOptions.maxResults); the raw pull fetches the same pages. */
const PAGE_SIZE = 500;

/** Counts every byte read and written on the server's sockets. */
function byteMeter(server: Server) {
  const open = new Set<Socket>();
  let closed = 0;
  server.on('connection', (socket: Socket) => {
    open.add(socket);
    socket.once('close', () => {
      open.delete(socket);
      closed += socket.bytesRead + socket.bytesWritten;
    });
  });
  return () => {
    let n = closed;
    for (const s of open) n += s.bytesRead + s.bytesWritten;
    return n;
  };
}

const ms = (us: number) => `${(us / 1000).toFixed(0)} ms`;
const int = (text: string | undefined, fallback: number) => (text === undefined ? fallback : Number(text));
const secs = (ms: number) => `${(ms / 1000).toFixed(ms < 1000 ? 2 : 1)} s`;

export default async function syncBench(ctx: BenchContext): Promise<void> {
  // Seeding the server costs ~3 ms a post here, so the default is 2k posts and the targets are scaled to the
  // size (3 s per 10k); --sync-posts=10000 measures at the issue's own size.
  const posts = int(ctx.args['sync-posts'], ctx.quick ? 500 : 2000);
  const edits = int(ctx.args['sync-edits'], 100);
  const dir = mkdtempSync(join(tmpdir(), 'blogcore-sync-bench-'));
  const service = createBlogService({ driver: sqliteDriver({ filename: join(dir, 'blog.db') }) });
  let server: Server | undefined;
  const site = await serveScript(await bundlePage('test/browser/sync-bench-page.ts'));
  const browser = await launchChromium();
  try {
    // --- the server: one blog of `posts` posts (~2 KB bodies), 1 in 17 a draft
    const t0 = performance.now();
    const user = await service.users.insert({ body: { displayName: 'Bench author' } });
    const blog = await service.blogs.insert({
      body: { name: 'Sync bench', url: 'https://sync-bench.example/' },
      ownerId: user.id,
    });
    const as = service.as({ userId: user.id });
    const gen = generator(1, 3);
    const ids: string[] = [];
    for (let i = 0; i < posts; i++) {
      const p = gen.post(i);
      const post = await as.posts.insert({
        blogId: blog.id,
        isDraft: p.draft,
        body: { title: p.title, content: p.content, labels: p.labels, ...(p.draft ? {} : { published: p.published }) },
      });
      ids.push(post.id);
    }
    const seeded = ((performance.now() - t0) / 1000).toFixed(1);
    const handler = createHttpHandler(service, {
      cors: true,
      authenticate: (req) => (req.headers.get('authorization') === `Bearer ${TOKEN}` ? { userId: user.id } : null),
    });
    server = createServer(toNodeHandler(handler));
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const meter = byteMeter(server);
    const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v3`;

    const page = await browser.newPage();
    await page.exposeFunction('meter', () => meter());
    // --profile: a CPU profile of the replica's side of each phase (the profiler's own cost is in the figures then).
    const profiler = ctx.args.profile ? await pageProfiler(page) : undefined;
    const profiles: string[] = [];
    await page.exposeFunction('profile', async (phase: string, on: boolean) => {
      if (!profiler) return;
      if (on) await profiler.start();
      else profiles.push(...(await profiler.stop(phase)));
    });
    await page.exposeFunction('serverStep', async () => {
      // Someone else edits `edits` posts on the server: the next pull brings them.
      for (const postId of ids.slice(2 * edits, 3 * edits)) {
        const post = await as.posts.get({ blogId: blog.id, postId });
        await as.posts.patch({
          blogId: blog.id,
          postId,
          ifMatch: post.etag,
          body: { title: `${post.title} (edited on the server)` },
        });
      }
    });
    await page.goto(site.url);
    await page.waitForFunction(() => 'runSyncBench' in globalThis);
    const input: SyncBenchInput = {
      baseUrl,
      token: TOKEN,
      blogId: blog.id,
      mine: ids.slice(0, edits),
      raw: ids.slice(edits, 2 * edits),
      pageSize: PAGE_SIZE,
      query: gen.query,
    };
    const phases = (await page.evaluate(
      (i) =>
        (globalThis as unknown as { runSyncBench: (i: SyncBenchInput) => Promise<SyncBenchPhase[]> }).runSyncBench(i),
      input,
    )) as SyncBenchPhase[];

    const lines = [
      `\n## Sync in Chromium ${browser.version()}: replica (createReplica on idbDriver) vs raw fetch + idb, ${posts} posts (server: HTTP helper + SQLite on 127.0.0.1, seeded in ${seeded} s)`,
      '',
      '| op | replica | raw | ratio | target | bytes per item (replica / raw) |',
      '|---|---|---|---|---|---|',
    ];
    for (const p of phases) {
      const ratio = p.ours.mean / p.raw.mean;
      const targets = [
        ...(p.targetMs === undefined ? [] : [{ text: `≤ ${secs(p.targetMs)}`, met: p.ours.mean / 1000 <= p.targetMs }]),
        ...(p.targetRatio === undefined ? [] : [{ text: `≤ ${p.targetRatio}× raw`, met: ratio <= p.targetRatio }]),
      ];
      const missed = targets.filter((t) => !t.met).map((t) => t.text);
      const verdict = missed.length ? `NOT MET (${missed.join(', ')})` : 'MET';
      const met = targets.length ? `${targets.map((t) => t.text).join(' and ')}: ${verdict}` : '';
      const per = (b: number) => (p.size ? Math.round(b / p.size).toLocaleString('en-US') : '–');
      lines.push(
        `| ${p.op} | ${ms(p.ours.mean)} | ${ms(p.raw.mean)} | ${ratio.toFixed(2)}× | ${met} | ${per(p.oursBytes)} / ${per(p.rawBytes)} B |`,
      );
    }
    console.log(lines.join('\n'));
    if (profiles.length) console.log(`\n${profiles.join('\n')}`);
    await page.close();
  } finally {
    await browser.close();
    await site.close();
    if (server) {
      server.closeAllConnections();
      await new Promise((r) => server!.close(r));
    }
    await service.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
