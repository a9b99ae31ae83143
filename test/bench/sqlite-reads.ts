/**
 * `node --import tsx test/bench/sqlite-reads.ts [--n=10000] [--dir=/tmp/x] [--rounds=30] [--calls=500]`: CPU per call
 * of the SQLite read rows (get, first page, label filter) through the service and raw better-sqlite3, rounds of
 * `calls` in alternation, the lowest and median round. `--dir` keeps the loaded files for the next run.
 * `--prof`: a V8 CPU profile of the service's calls alone (node --cpu-prof writes it), summed here.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createBlogService } from '../../src/index.js';
import { sqliteDriver } from '../../drivers/sqlite/index.js';
import { generator, rng } from '../drivers/sqlite/bench-data.js';
import { deepToken, loadBlogcore, Raw } from './sqlite.bench.js';

const args: Record<string, string> = {};
for (const a of process.argv.slice(2)) {
  const m = /^--([^=]+)(?:=(.*))?$/.exec(a);
  if (m) args[m[1]!] = m[2] ?? 'true';
}
const n = Number(args.n ?? 10_000);
const dir = args.dir ?? `/tmp/blogcore-reads-${n}`;
const rounds = Number(args.rounds ?? 30);
const calls = Number(args.calls ?? 500);
mkdirSync(dir, { recursive: true });
const meta = join(dir, 'meta.json');
const gen = generator(1, 3);
if (!existsSync(meta)) {
  const { blogId, ids } = await loadBlogcore(join(dir, 'blogcore.db'), gen, n);
  const raw = new Raw(join(dir, 'raw.db'));
  for (let i = 0; i < n; i += 10_000)
    raw.load(
      blogId,
      ids.slice(i, i + 10_000).map((id, k) => [id, gen.post(i + k)]),
    );
  raw.db.close();
  writeFileSync(meta, JSON.stringify({ blogId, ids }));
}
const { blogId, ids } = JSON.parse(readFileSync(meta, 'utf8')) as { blogId: string; ids: string[] };
const raw = new Raw(join(dir, 'raw.db'), true);
const service = createBlogService({ driver: sqliteDriver({ filename: join(dir, 'blogcore.db') }) });
await service.ready();
const pick = (seed: number) => {
  const r = rng(seed);
  return () => ids[Math.floor(r() * ids.length)]!;
};
const live = raw.live(blogId);
const token = await deepToken(service, blogId, live);
const mid = raw.at(blogId, Math.floor(live / 2) - 1);
// Cold pages: 20 posts before a random publish time (a page the record cache has not kept).
const times = (raw.db.prepare(`SELECT published FROM posts WHERE status = 'LIVE'`).pluck().all() as string[]).sort();
const rt = rng(2);
const rtRaw = rng(2);
const ga = pick(1);
const gb = pick(1);
// The full path beside the one-step get (src/resources/post-now.ts): the same file through a driver without `getNow`.
const inner = sqliteDriver({ filename: join(dir, 'blogcore.db') });
const fullPath = createBlogService({
  driver: new Proxy(inner, { get: (t, k) => (k === 'getNow' ? undefined : Reflect.get(t, k, t)) }),
});
await fullPath.ready();
const gc = pick(1);
const ops: Array<[string, () => unknown, () => unknown]> = [
  ['get', () => service.posts.get({ blogId, postId: ga() }), () => raw.get(gb())],
  ['list first page (20)', () => service.posts.list({ blogId, maxResults: 20 }), () => raw.first(blogId)],
  [
    'list page 50% deep (20)',
    () => service.posts.list({ blogId, maxResults: 20, pageToken: token }),
    () => raw.after(blogId, mid.published, mid.id),
  ],
  [
    'list a random page (20)',
    () => service.posts.list({ blogId, maxResults: 20, endDate: times[Math.floor(rt() * times.length)] }),
    () => raw.after(blogId, times[Math.floor(rtRaw() * times.length)]!, ''),
  ],
  [
    'label filter (20)',
    () => service.posts.list({ blogId, labels: 'label-30', maxResults: 20 }),
    () => raw.byLabel(blogId, 'label-30'),
  ],
];
const only = args.only?.split(',');
const cpu = async (fn: () => unknown): Promise<number> => {
  const t = process.cpuUsage();
  for (let i = 0; i < calls; i++) await fn();
  const d = process.cpuUsage(t);
  return (d.user + d.system) / calls;
};
const stats = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return { min: s[0]!, med: s[Math.floor(s.length / 2)]! };
};
if (!args.prof && (!only || only.includes('get'))) {
  // The one-step get, the full path and raw in alternation, round by round.
  const one: number[] = [];
  const full: number[] = [];
  const r: number[] = [];
  const raws = pick(1);
  for (let k = 0; k < rounds; k++) {
    one.push(await cpu(() => service.posts.get({ blogId, postId: ga() })));
    full.push(await cpu(() => fullPath.posts.get({ blogId, postId: gc() })));
    r.push(await cpu(() => raw.get(raws())));
  }
  const [o, f, w] = [stats(one), stats(full), stats(r)];
  console.log(
    `get A/B: one step min ${o.min.toFixed(1)} med ${o.med.toFixed(1)} µs (${(o.med / w.med).toFixed(2)}× raw) | full path min ${f.min.toFixed(1)} med ${f.med.toFixed(1)} µs (${(f.med / w.med).toFixed(2)}×) | raw min ${w.min.toFixed(1)} med ${w.med.toFixed(1)} µs`,
  );
}
for (const [name, ours, rawFn] of ops) {
  if (only && !only.some((o) => name.startsWith(o))) continue;
  if (args.prof) {
    for (let r = 0; r < rounds; r++) await cpu(ours);
    continue;
  }
  const a: number[] = [];
  const b: number[] = [];
  await cpu(ours);
  await cpu(rawFn);
  for (let r = 0; r < rounds; r++) {
    a.push(await cpu(ours));
    b.push(await cpu(rawFn));
  }
  const o = stats(a);
  const w = stats(b);
  console.log(
    `${name.padEnd(22)} ours min ${o.min.toFixed(1)} med ${o.med.toFixed(1)} µs | raw min ${w.min.toFixed(1)} med ${w.med.toFixed(1)} µs | ratio min ${(o.min / w.min).toFixed(2)}× med ${(o.med / w.med).toFixed(2)}×`,
  );
}
await service.close();
await fullPath.close();
raw.db.close();
