/**
 * The browser bundle sizes docs/design.md §14 budgets, measured one way for `npm run bench -- --only=bundle` and for the
 * CI test (test/bundle/budget.test.ts): an app entry bundled by esbuild for the browser with code splitting,
 * minified (test/browser/bundle.ts), then measured as a browser first downloads it — each chunk that loads at
 * start gzipped on its own (gzip -9), chunks loaded on first use apart — with the one-file figure beside it
 * (the same first download gzipped as one file, as a bundler that inlines it all would serve it).
 */
import { gzipSync } from 'node:zlib';
import { splitBrowserBundle, type Chunk } from '../browser/bundle.js';

const CORE_IDB = "export * from './src/index.ts';\nexport { idbDriver } from './drivers/idb/index.ts';\n";

/** docs/design.md §14: the first download of core + idb, and of core + idb + sync, minified + gzip. KB here is 1024 bytes. */
export const BUNDLES = [
  { name: 'blogcore + blogcore/idb', budgetKb: 36, entry: CORE_IDB },
  {
    name: 'blogcore + blogcore/idb + blogcore/sync',
    budgetKb: 44,
    entry: `${CORE_IDB}export * from './src/sync/index.ts';\n`,
  },
] as const;

export const gzipSize = (code: Uint8Array): number => gzipSync(code, { level: 9 }).length;

export interface BundleSize {
  /** The chunks a browser loads at start: the entry chunk and those it imports statically. */
  first: Chunk[];
  /** Chunks fetched when code reached only through `import()` first runs. */
  lazy: Chunk[];
  /** The budgeted figure: each first-download chunk gzipped on its own, summed (bytes). */
  firstGzip: number;
  /** The same chunks concatenated and gzipped as one file (bytes). */
  firstOneFileGzip: number;
  /** Minified bytes of the first download. */
  firstMinified: number;
}

export async function measureBundle(entry: string): Promise<BundleSize> {
  const { first, lazy } = await splitBrowserBundle(entry);
  return {
    first,
    lazy,
    firstGzip: first.reduce((n, c) => n + gzipSize(c.code), 0),
    firstOneFileGzip: gzipSize(Buffer.concat(first.map((c) => c.code))),
    firstMinified: first.reduce((n, c) => n + c.code.length, 0),
  };
}
