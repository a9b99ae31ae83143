/**
 * The browser bundle budgets of docs/design.md §13, guarded in CI: the first download of core + idb (and with sync),
 * each start-up chunk gzipped on its own, measured by test/bench/bundle-size.ts exactly as the bundle bench
 * prints it. Sizes, not speed: bytes are the same on every machine.
 */
import { expect, it } from 'vitest';
import { BUNDLES, measureBundle } from '../bench/bundle-size.js';

for (const { name, budgetKb, entry } of BUNDLES) {
  it(`${name}: the first download stays within ${budgetKb} KB gzip`, async () => {
    const size = await measureBundle(entry);
    expect(size.first.length).toBeGreaterThan(0);
    // The budgeted figure is the chunk-by-chunk one, never smaller than the one-file figure printed beside it.
    expect(size.firstGzip).toBeGreaterThanOrEqual(size.firstOneFileGzip);
    expect(size.firstGzip, `${size.firstGzip} bytes`).toBeLessThanOrEqual(budgetKb * 1024);
  });
}
