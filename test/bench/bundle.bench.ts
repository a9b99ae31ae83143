/**
 * The browser bundle of `blogcore` + `blogcore/idb` (src/index.ts + drivers/idb/index.ts) as a browser app
 * downloads it: bundled with code splitting (esbuild, minified, ESM), the first download (the entry chunk and
 * the chunks it imports statically) against the target of docs/benchmarks.md (≤ 25 KB gzip), then each chunk loaded on
 * first use (src/util/lazy.ts) and the total of all; then the same with `blogcore/sync` (the offline editor's
 * replica, ≤ 30 KB, issue 13). Bundled for the browser platform, so a Node built-in anywhere in the core, the
 * idb driver or the replica fails this bench.
 */
import { gzipSync } from 'node:zlib';
import { splitBrowserBundle, type Chunk } from '../browser/bundle.js';
import type { BenchContext } from './harness.js';

const CORE_IDB = "export * from './src/index.ts';\nexport { idbDriver } from './drivers/idb/index.ts';\n";
/** docs/benchmarks.md / issue 13: core + idb, and core + idb + sync, minified + gzip. KB here is 1024 bytes. */
const BUNDLES = [
  { name: 'blogcore + blogcore/idb', targetKb: 25, contents: CORE_IDB },
  { name: 'blogcore + blogcore/idb + blogcore/sync', targetKb: 30, contents: `${CORE_IDB}export * from './src/sync/index.ts';\n` },
] as const;
const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;
const gzip = (code: Uint8Array) => gzipSync(code, { level: 9 }).length;
const concat = (chunks: Chunk[]) => Buffer.concat(chunks.map((c) => c.code));
const size = (chunks: Chunk[]) => chunks.reduce((n, c) => n + c.code.length, 0);
/** Each file gzipped on its own, as a server sends them one by one. */
const servedGzip = (chunks: Chunk[]) => chunks.reduce((n, c) => n + gzip(c.code), 0);
const named = (path: string) => path.replace(/^src\//, '');

export default async function bundleBench(_ctx: BenchContext): Promise<void> {
  for (const { name, targetKb, contents } of BUNDLES) await measure(name, targetKb, contents);
}

async function measure(name: string, TARGET_KB: number, contents: string): Promise<void> {
  const { first, lazy } = await splitBrowserBundle(contents);
  const firstGzip = gzip(concat(first));
  const verdict = firstGzip <= TARGET_KB * 1024 ? 'MET' : 'NOT MET';
  const all = [...first, ...lazy];
  const inputs = first.flatMap((c) => Object.entries(c.inputs)).filter(([, bytes]) => bytes > 0);
  const lines = [
    `\n## Browser bundle: ${name} (esbuild with code splitting, minified, ESM, gzip -9)`,
    '',
    `first download (entry chunk + ${first.length - 1} chunks it imports): minified ${kb(size(first))}; minified + gzip as one file **${kb(firstGzip)}** (${firstGzip} bytes) — target ≤ ${TARGET_KB} KB: **${verdict}**`,
    `the same, as esbuild's ${first.length} files gzipped one by one: ${kb(servedGzip(first))} (a bundler that puts all a first load needs in one chunk serves the one-file figure)`,
    `all chunks, first download and loaded on first use: minified ${kb(size(all))}; gzip as one file ${kb(gzip(concat(all)))}, one by one ${kb(servedGzip(all))}`,
    '',
    '| loaded on first use | holds | minified | gzip |',
    '|---|---|---|---|',
    ...lazy
      .sort((a, b) => b.code.length - a.code.length)
      .map(
        (c) =>
          `| ${c.loads ? named(c.loads) : '(shared by those)'} | ${Object.keys(c.inputs).map(named).join(', ')} | ${kb(c.code.length)} | ${kb(gzip(c.code))} |`,
      ),
    '',
    '| biggest inputs of the first download | minified |',
    '|---|---|',
    ...inputs
      .sort((a, b) => b[1] - a[1])
      .slice(0, 12)
      .map(([path, bytes]) => `| ${path} | ${kb(bytes)} |`),
  ];
  console.log(lines.join('\n'));
}
