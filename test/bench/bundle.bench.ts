/**
 * The browser bundle of `blogcore` + `blogcore/idb` (src/index.ts + drivers/idb/index.ts): minified and
 * gzipped size, and what dominates it. Bundled for the browser platform, so a Node built-in anywhere in the
 * core or the idb driver fails this bench.
 */
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { root } from '../browser/serve.js';
import type { BenchContext } from './harness.js';

const kb = (n: number) => `${(n / 1024).toFixed(1)} KiB`;

export default async function bundleBench(_ctx: BenchContext): Promise<void> {
  const result = await build({
    stdin: {
      contents: "export * from './src/index.ts';\nexport { idbDriver } from './drivers/idb/index.ts';\n",
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
  const gz = gzipSync(code, { level: 9 }).length;
  const output = Object.values(result.metafile.outputs)[0]!;
  const inputs = Object.entries(output.inputs).map(([path, { bytesInOutput }]) => ({ path, bytes: bytesInOutput }));
  const byPackage = new Map<string, number>();
  for (const { path, bytes } of inputs) {
    const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path);
    const group = m ? m[1]! : path.startsWith('drivers/') ? 'blogcore (drivers/idb)' : 'blogcore (src)';
    byPackage.set(group, (byPackage.get(group) ?? 0) + bytes);
  }
  const lines = [
    '\n## Browser bundle: blogcore + blogcore/idb (esbuild, minified, ESM)',
    '',
    `min: ${kb(code.length)}; min+gzip: ${kb(gz)}`,
    '',
    '| package | minified bytes | share |',
    '|---|---|---|',
    ...[...byPackage].sort((a, b) => b[1] - a[1]).map(([name, bytes]) => `| ${name} | ${bytes} | ${((100 * bytes) / code.length).toFixed(1)}% |`),
    '',
    '| top inputs | minified bytes |',
    '|---|---|',
    ...inputs
      .sort((a, b) => b.bytes - a.bytes)
      .slice(0, 12)
      .map(({ path, bytes }) => `| ${path} | ${bytes} |`),
  ];
  console.log(lines.join('\n'));
}
