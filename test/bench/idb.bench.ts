/**
 * blogcore on IndexedDB vs raw `idb` doing the same work, both in one headless Chromium page
 * (test/browser/idb-bench-page.ts). 10k posts; `--idb-size=100000` (or a comma list) for more; `--profile` adds
 * CPU profiles of a search and of inserts.
 */
import { bundlePage, launchChromium, serveScript } from '../browser/serve.js';
import type { BenchResult } from '../browser/idb-bench-page.js';
import { printTable, type BenchContext } from './harness.js';
import { pageProfiler } from './profile.js';

export default async function idbBench(ctx: BenchContext): Promise<void> {
  const sizes = (ctx.args['idb-size'] ?? (ctx.quick ? '2000' : '10000')).split(',').map(Number);
  const site = await serveScript(await bundlePage('test/browser/idb-bench-page.ts'));
  const browser = await launchChromium();
  try {
    for (const size of sizes) {
      const page = await browser.newPage();
      // --profile: CPU profiles of blogcore's side of a search and of inserts (extra runs, after the timed ones).
      const profiler = ctx.args.profile ? await pageProfiler(page) : undefined;
      const profiles: string[] = [];
      await page.exposeFunction('profile', async (phase: string, on: boolean) => {
        if (!profiler) return;
        if (on) await profiler.start();
        else profiles.push(...(await profiler.stop(`${phase}-${size}`)));
      });
      await page.goto(site.url);
      await page.waitForFunction(() => 'runIdbBench' in globalThis);
      const result = (await page.evaluate(
        ([size, budgetMs]) => (globalThis as unknown as { runIdbBench: (o: object) => Promise<unknown> }).runIdbBench({ size, budgetMs }),
        [size, ctx.budgetMs] as const,
      )) as BenchResult;
      const version = browser.version();
      printTable(`IndexedDB in Chromium ${version}: blogcore (service on idbDriver) vs raw idb, ${size} posts`, result.rows);
      // Means carry this machine's stalls; the p50 ratio is the steadier comparison.
      console.log(`- p50 ratios: ${result.rows.map((r) => `${r.op} ${(r.ours.p50 / r.raw.p50).toFixed(2)}×`).join('; ')}`);
      for (const note of result.notes) console.log(`- ${note}`);
      if (profiles.length) console.log(`\n${profiles.join('\n')}`);
      await page.close();
    }
  } finally {
    await browser.close();
    await site.close();
  }
}
