/**
 * The browser bundle of `blogcore` + `blogcore/idb` (src/index.ts + drivers/idb/index.ts): minified and
 * gzipped size against the DESIGN §9 target (≤ 25 KB), and what makes it up; then the same with
 * `blogcore/sync` (the offline editor's replica, ≤ 30 KB). Bundled for the browser platform, so a Node
 * built-in anywhere in the core, the idb driver or the replica fails this bench.
 */
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { root } from '../browser/serve.js';
import type { BenchContext } from './harness.js';

/** DESIGN §9 / issue 13: core + idb, and core + idb + sync, minified + gzip. KB here is 1024 bytes. */
const BUNDLES = [
  { name: 'blogcore + blogcore/idb', targetKb: 25, contents: "export * from './src/index.ts';\nexport { idbDriver } from './drivers/idb/index.ts';\n" },
  {
    name: 'blogcore + blogcore/idb + blogcore/sync',
    targetKb: 30,
    contents: "export * from './src/index.ts';\nexport { idbDriver } from './drivers/idb/index.ts';\nexport * from './src/sync/index.ts';\n",
  },
] as const;
const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;
const gzip = (code: string | Uint8Array) => gzipSync(code, { level: 9 }).length;

export default async function bundleBench(_ctx: BenchContext): Promise<void> {
  for (const bundle of BUNDLES) await measure(bundle.name, bundle.targetKb, bundle.contents);
}

async function measure(name: string, TARGET_KB: number, contents: string): Promise<void> {
  const result = await build({
    stdin: {
      contents,
      resolveDir: root,
      sourcefile: 'blogcore-browser-entry.ts',
      loader: 'ts',
    },
    absWorkingDir: root,
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    write: false,
    metafile: true,
    logLevel: 'silent',
  });
  const code = result.outputFiles[0]!.contents;
  const total = gzip(code);
  const output = Object.values(result.metafile.outputs)[0]!;
  const inputs = Object.entries(output.inputs).map(([path, { bytesInOutput }]) => ({ path, bytes: bytesInOutput }));
  const byPackage = new Map<string, number>();
  for (const { path, bytes } of inputs) {
    const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path);
    const group = m ? m[1]! : path.startsWith('drivers/') ? 'blogcore (drivers/idb)' : path.startsWith('src/sync/') ? 'blogcore (src/sync)' : 'blogcore (src)';
    byPackage.set(group, (byPackage.get(group) ?? 0) + bytes);
  }
  // Gzip shares are estimated from the minified shares: gzip sizes of parts do not add up to the whole.
  const share = (bytes: number) => `${((100 * bytes) / code.length).toFixed(1)}%`;
  const verdict = total <= TARGET_KB * 1024 ? 'MET' : 'NOT MET';
  const lines = [
    `\n## Browser bundle: ${name} (esbuild, minified, ESM, gzip -9)`,
    '',
    `minified ${kb(code.length)}; minified + gzip **${kb(total)}** — target ≤ ${TARGET_KB} KB: **${verdict}**`,
    '',
    '| package | minified | share | ≈ gzip |',
    '|---|---|---|---|',
    ...[...byPackage].sort((a, b) => b[1] - a[1]).map(([name, bytes]) => `| ${name} | ${kb(bytes)} | ${share(bytes)} | ${kb((total * bytes) / code.length)} |`),
    `| **total** | **${kb(code.length)}** | 100% | **${kb(total)}** |`,
    '',
    '| biggest inputs | minified | share |',
    '|---|---|---|',
    ...inputs
      .sort((a, b) => b.bytes - a.bytes)
      .slice(0, 12)
      .map(({ path, bytes }) => `| ${path} | ${kb(bytes)} | ${share(bytes)} |`),
  ];
  console.log(lines.join('\n'));
}
