/**
 * The browser bundles of `blogcore` + `blogcore/idb`, and with `blogcore/sync` (the offline editor's replica),
 * as a browser app downloads them (test/bench/bundle-size.ts, the same measure the CI test guards): the first
 * download against its docs/design.md §14 budget, the one-file figure beside it, then each chunk loaded on first use
 * (src/util/lazy.ts, the comment sanitizer). Bundled for the browser platform, so a Node built-in anywhere in
 * the core, the idb driver or the replica fails this bench.
 */
import { BUNDLES, gzipSize, measureBundle } from './bundle-size.js';
import type { BenchContext } from './harness.js';

const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;
const named = (path: string) => path.replace(/^src\//, '');

export default async function bundleBench(_ctx: BenchContext): Promise<void> {
  for (const { name, budgetKb, entry } of BUNDLES) {
    const size = await measureBundle(entry);
    const { first, lazy } = size;
    const verdict = size.firstGzip <= budgetKb * 1024 ? 'MET' : 'NOT MET';
    const inputs = first.flatMap((c) => Object.entries(c.inputs)).filter(([, bytes]) => bytes > 0);
    const lines = [
      `\n## Browser bundle: ${name} (esbuild with code splitting, minified, ESM, gzip -9)`,
      '',
      `first download, as a browser loads it (the entry chunk + the ${first.length - 1} chunks it imports, each gzipped on its own): **${kb(size.firstGzip)}** (${size.firstGzip} bytes) — budget ≤ ${budgetKb} KB: **${verdict}**`,
      `the same as one file: minified ${kb(size.firstMinified)}, gzip ${kb(size.firstOneFileGzip)} (${size.firstOneFileGzip} bytes)`,
      `chunks loaded on first use: ${lazy.length}, gzip ${kb(lazy.reduce((n, c) => n + gzipSize(c.code), 0))} one by one`,
      '',
      '| loaded on first use | holds | minified | gzip |',
      '|---|---|---|---|',
      ...lazy
        .sort((a, b) => b.code.length - a.code.length)
        .map(
          (c) =>
            `| ${c.loads ? named(c.loads) : '(shared by those)'} | ${Object.keys(c.inputs).map(named).join(', ')} | ${kb(c.code.length)} | ${kb(gzipSize(c.code))} |`,
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
}
