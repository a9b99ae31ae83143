/**
 * `npm run bench [-- --only=memory,sqlite --quick]`: runs every test/bench/*.bench.ts in turn.
 * Each exports `default async (ctx: BenchContext) => void` and prints its own tables.
 */
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { BenchContext } from './harness.js';

const args: Record<string, string> = {};
for (const a of process.argv.slice(2)) {
  const m = /^--([^=]+)(?:=(.*))?$/.exec(a);
  if (m) args[m[1]!] = m[2] ?? 'true';
}
const quick = args.quick === 'true';
const ctx: BenchContext = { quick, budgetMs: Number(args.budget ?? (quick ? 150 : 1000)), args };
const only = args.only?.split(',');
const here = dirname(fileURLToPath(import.meta.url));
const order = ['memory', 'sqlite', 'idb', 'http', 'bundle', 'io', 'sync', 'site', 'media'];
const files = readdirSync(here)
  .filter((f) => f.endsWith('.bench.ts'))
  .map((f) => f.replace('.bench.ts', ''))
  .filter((name) => !only || only.includes(name))
  .sort((a, b) => (order.indexOf(a) + 1 || 99) - (order.indexOf(b) + 1 || 99));

console.log(
  `# blogcore benchmarks (${quick ? 'quick' : 'full'}; node ${process.version}; ${new Date().toISOString()})`,
);
for (const name of files) {
  const mod = (await import(pathToFileURL(join(here, `${name}.bench.ts`)).href)) as {
    default: (c: BenchContext) => Promise<void>;
  };
  const t0 = performance.now();
  await mod.default(ctx);
  console.log(`\n(${name}: ${((performance.now() - t0) / 1000).toFixed(1)} s)`);
}
