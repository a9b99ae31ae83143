/**
 * Writing together (docs/collab.md, docs/design.md §20): 10 writers in one post over loopback, each typing into the
 * shared document through `joinCollab(httpChannel(…))`, against blogcore's HTTP helper on SQLite and, in the same
 * run with the same client, a raw relay of the same wire that stores nothing (collab-server.ts, a process of its
 * own). Prints the edit-to-everyone latency (from a writer's keystroke to the moment each other writer has it)
 * p50/p95 beside raw's (target ≤ 250 ms p95), the server's CPU per edit (delivery to the nine others included),
 * and the document's stored size after 1,000 and 10,000 edits against the post's HTML (target ≤ 3×).
 *
 *   npm run bench -- --only=collab [--quick]
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import * as Y from 'yjs';
import { memoryDriver } from '../../drivers/memory/index.js';
import { createBlogService } from '../../src/index.js';
import { httpChannel, joinCollab, type CollabSession } from '../../src/collab/index.js';
import { summary } from './harness.js';
import type { BenchContext } from './harness.js';

const WRITERS = 10;
const here = dirname(fileURLToPath(import.meta.url));

async function startServer(dir: string) {
  // COLLAB_PROFILE=<dir>: the server's CPU profile (node --cpu-prof) lands there, to say where its time goes.
  const prof = process.env.COLLAB_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.COLLAB_PROFILE}`] : [];
  const child = spawn(process.execPath, [...prof, '--import', 'tsx', join(here, 'collab-server.ts'), dir], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  const next = async () => JSON.parse(String((await lines.next()).value)) as Record<string, unknown>;
  const info = (await next()) as { ours: number; raw: number; blogId: string; postId: string };
  const cpu = async () => {
    child.stdin!.write('cpu\n');
    return (await next()).cpu as number;
  };
  const stop = () => {
    child.stdin!.write('exit\n');
    // A profiled server writes its profile as it exits: give it the time.
    if (prof.length) setTimeout(() => child.kill(), 10_000).unref();
    else child.kill();
  };
  return { ...info, cpu, stop };
}

/** 10 writers typing for `ms`: each edit's delay to every other writer (ms), and the edits made. */
async function session(port: number, target: { blogId: string; postId: string }, ms: number) {
  const channel = () => httpChannel({ baseUrl: `http://127.0.0.1:${port}/v3` }, target);
  const writers: CollabSession[] = [];
  for (let i = 0; i < WRITERS; i++) writers.push(await joinCollab(channel()));
  await Promise.all(writers.map((w) => w.opened));
  const delays: number[] = [];
  // Per writer: when each of its edits was made, by its clock just after it; per receiver, how far it has each.
  const made = writers.map(() => new Map<number, number>());
  const seen = writers.map(() => writers.map(() => 0));
  writers.forEach((w, i) => {
    w.doc.on('update', () => {
      const now = performance.now();
      writers.forEach((other, j) => {
        if (j === i) return;
        const have = Y.getState(w.doc.store, other.doc.clientID);
        if (have <= seen[i]![j]!) return;
        for (const [clock, at] of made[j]!) if (clock > seen[i]![j]! && clock <= have) delays.push(now - at);
        seen[i]![j] = have;
      });
    });
  });
  let edits = 0;
  const end = performance.now() + ms;
  await Promise.all(
    writers.map(async (w, i) => {
      // Writers start apart and type one character every 200 ms, each in its own paragraph.
      await new Promise((r) => setTimeout(r, i * 20));
      const p = new Y.XmlElement('paragraph');
      const text = new Y.XmlText('');
      p.insert(0, [text]);
      w.doc.getXmlFragment('content').push([p]);
      while (performance.now() < end) {
        text.insert(text.length, 'abcdefghij'[edits % 10]!);
        made[i]!.set(Y.getState(w.doc.store, w.doc.clientID), performance.now());
        edits++;
        await new Promise((r) => setTimeout(r, 200));
      }
    }),
  );
  await new Promise((r) => setTimeout(r, 1_000));
  for (const w of writers) await w.close();
  return { delays, edits };
}

/** The stored document (state + pushes not yet folded) against the rendered HTML after `edits` keystrokes. */
async function sizeAfter(edits: number): Promise<{ doc: number; html: number }> {
  const service = createBlogService({ driver: memoryDriver() });
  const u = await service.users.insert({ body: { displayName: 'Ada' } });
  const blog = await service.blogs.insert({ body: { name: 'S', url: 'https://size.example/' }, ownerId: u.id });
  const post = await service.posts.insert({ blogId: blog.id, body: { title: 'Size', content: '<p>Start</p>' } });
  const target = { blogId: blog.id, postId: post.id };
  const doc = new Y.Doc();
  Y.applyUpdate(doc, (await service.collab.open(target)).update);
  let text = (doc.getXmlFragment('content').get(0) as Y.XmlElement).get(0) as Y.XmlText;
  // Typing at one place, a paragraph every 60 words, a three-letter typo taken back every seventh word.
  for (let i = 0, word = 0; i < edits; word++) {
    if (word % 60 === 59) {
      const sv = Y.encodeStateVector(doc);
      const p = new Y.XmlElement('paragraph');
      text = new Y.XmlText('');
      p.insert(0, [text]);
      doc.getXmlFragment('content').push([p]);
      await service.collab.push({ ...target, update: Y.encodeStateAsUpdate(doc, sv) });
    }
    for (const ch of ` word${word % 100}`) {
      const sv = Y.encodeStateVector(doc);
      text.insert(text.length, ch);
      await service.collab.push({ ...target, update: Y.encodeStateAsUpdate(doc, sv) });
      i++;
    }
    if (word % 7 === 6) {
      const sv = Y.encodeStateVector(doc);
      text.delete(text.length - 3, 3);
      await service.collab.push({ ...target, update: Y.encodeStateAsUpdate(doc, sv) });
      i++;
    }
  }
  // After the renders (≤ 2 s after the last edit; a burst renders batch by batch), compacted on the way.
  let last = '';
  for (let until = Date.now() + 120_000; Date.now() < until; ) {
    await new Promise((r) => setTimeout(r, 2_500));
    const now = (await service.posts.get({ blogId: blog.id, postId: post.id })).content ?? '';
    if (now === last) break;
    last = now;
  }
  const stored = (await service.collab.open(target)).update.byteLength;
  const html = Buffer.byteLength((await service.posts.get({ blogId: blog.id, postId: post.id })).content ?? '');
  await service.close();
  return { doc: stored, html };
}

export default async function collabBench(ctx: BenchContext): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'blogcore-collab-bench-'));
  const server = await startServer(dir);
  const ms = ctx.quick ? 3_000 : 10_000;
  try {
    console.log(`\n## collab: ${WRITERS} writers in one post over loopback (${ms / 1000} s of typing, 5 keys/s each)`);
    const target = { blogId: server.blogId, postId: server.postId };
    const rawCpu0 = await server.cpu();
    const raw = await session(server.raw, target, ms);
    const rawCpu = (await server.cpu()) - rawCpu0;
    const oursCpu0 = await server.cpu();
    const ours = await session(server.ours, target, ms);
    const oursCpu = (await server.cpu()) - oursCpu0;
    const o = summary(ours.delays);
    const r = summary(raw.delays);
    const p95 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * 0.95)]!;
    console.log('| | edits | deliveries | p50 ms | p95 ms | server CPU per edit |');
    console.log('|---|---|---|---|---|---|');
    for (const [name, s, t, cpu] of [
      ['blogcore (SQLite)', ours, o, oursCpu],
      ['raw relay (memory)', raw, r, rawCpu],
    ] as const) {
      console.log(
        `| ${name} | ${s.edits} | ${s.delays.length} | ${t.p50.toFixed(1)} | ${p95(s.delays).toFixed(1)} | ${(cpu / s.edits / 1000).toFixed(2)} ms |`,
      );
    }
    const ok = p95(ours.delays) <= 250;
    console.log(
      `edit-to-everyone p95 ${p95(ours.delays).toFixed(1)} ms (raw ${p95(raw.delays).toFixed(1)} ms): target ≤ 250 ms ${ok ? 'met' : 'NOT met'}`,
    );
    console.log('\n| edits | stored document | post HTML | ratio (target ≤ 3×) |');
    console.log('|---|---|---|---|');
    for (const edits of ctx.quick ? [1_000] : [1_000, 10_000]) {
      const s = await sizeAfter(edits);
      const ratio = s.doc / s.html;
      console.log(`| ${edits} | ${s.doc} B | ${s.html} B | ${ratio.toFixed(2)}× ${ratio <= 3 ? 'met' : 'NOT met'} |`);
    }
  } finally {
    server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
