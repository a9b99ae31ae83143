/**
 * Import and export (`npm run bench -- --only=io`): a generated WordPress WXR and a Blogger export of 10k
 * posts (2 comments each) imported into SQLite through `importBlog`, beside the raw baseline (the same WXR
 * through saxes alone into plain better-sqlite3 tables, a transaction per post); peak RSS of each run (every
 * run in its own process, so the figure is that run's); export of the 10k-post blog in each format.
 * `--quick`: 2k posts. `--io-large`: also 100k posts (~130 MB of WXR). Memory: peak RSS includes V8's lazily
 * collected garbage and SQLite's page cache (up to 64 MiB); "heap after GC" is what the import still holds
 * (essentially the report and its redirect map), the figure that must stay flat in the file's size.
 * Target (docs/benchmarks.md, docs/design.md §14): a 10k-post import ≤ 30 s into SQLite; memory flat in the file's size.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BenchContext } from './harness.js';

interface Run {
  ms: number;
  cpuMs: number;
  items: number;
  bytes: number;
  peakMb: number;
  growthMb: number;
  /** JS heap in use after a full GC at the end of an import (the report, with its redirect map, included). */
  retainedMb: number;
}

function child(what: string, posts: number, db: string): Run {
  const out = execFileSync(
    process.execPath,
    ['--expose-gc', '--import', 'tsx', 'test/bench/io-child.ts', what, String(posts), db],
    {
      encoding: 'utf8',
      maxBuffer: 1 << 20,
    },
  );
  return JSON.parse(out.trim().split('\n').pop()!) as Run;
}

export default async function ioBench(ctx: BenchContext): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'blogcore-io-bench-'));
  const sizes = ctx.quick ? [2_000] : ctx.args['io-large'] ? [10_000, 100_000] : [10_000];
  const lines = [
    '\n## import into SQLite (generated files, 2 comments per post; each run in its own process)',
    '',
    '| run | posts | records | wall | CPU | records/s | peak RSS | RSS growth | heap after GC | vs raw (wall) | target |',
    '|---|---|---|---|---|---|---|---|---|---|---|',
  ];
  console.log(lines.join('\n'));
  // Each row as soon as its run ends: the large sizes take minutes.
  const row = (name: string, posts: number, r: Run, raw?: Run, target = '') =>
    console.log(
      `| ${name} | ${posts} | ${r.items} | ${(r.ms / 1000).toFixed(1)} s | ${(r.cpuMs / 1000).toFixed(1)} s | ${Math.round(r.items / (r.ms / 1000))} | ${r.peakMb.toFixed(0)} MB | ${r.growthMb.toFixed(0)} MB | ${r.retainedMb ? `${r.retainedMb.toFixed(0)} MB` : ''} | ${raw ? `${(r.ms / raw.ms).toFixed(1)}×` : ''} | ${target} |`,
    );
  try {
    for (const posts of sizes) {
      const raw = child('raw-wxr', posts, join(dir, `raw-${posts}.db`));
      row('raw: saxes + better-sqlite3', posts, raw);
      const wxr = child('wxr', posts, join(dir, `wxr-${posts}.db`));
      row('importBlog WXR', posts, wxr, raw, posts === 10_000 ? `≤ 30 s ${wxr.ms <= 30_000 ? '✓' : '✗'}` : '');
      const blogger = child('blogger', posts, join(dir, `blogger-${posts}.db`));
      row(
        'importBlog Blogger Atom',
        posts,
        blogger,
        raw,
        posts === 10_000 ? `≤ 30 s ${blogger.ms <= 30_000 ? '✓' : '✗'}` : '',
      );
    }
    const posts = sizes[0]!;
    const out = [
      '\n## export of the imported blog (streamed; bytes counted, not kept)',
      '',
      '| format | posts | wall | CPU | MB out | peak RSS |',
      '|---|---|---|---|---|---|',
    ];
    for (const format of ['blogcore-json', 'wxr', 'blogger-atom']) {
      const r = child(`export-${format}`, posts, join(dir, `wxr-${posts}.db`));
      out.push(
        `| ${format} | ${r.items} | ${(r.ms / 1000).toFixed(1)} s | ${(r.cpuMs / 1000).toFixed(1)} s | ${(r.bytes / 2 ** 20).toFixed(1)} | ${r.peakMb.toFixed(0)} MB |`,
      );
    }
    console.log(out.join('\n'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
