import { defineConfig } from 'tsup';
import { ENTRIES, distName } from './scripts/entries.js';

const entry = Object.fromEntries(Object.entries(ENTRIES).map(([subpath, source]) => [distName(subpath), source]));

export default defineConfig([
  {
    entry,
    format: ['esm', 'cjs'],
    dts: true,
    clean: true,
    // Maps name the files and lines of src/ without carrying its text (that was 59% of the package): a stack
    // trace still points at src/<file>:<line>, which the repository holds (docs/design.md §24).
    sourcemap: true,
    esbuildOptions(options) {
      options.sourcesContent = false;
    },
    target: 'es2022',
    splitting: true,
    treeshake: true,
  },
  {
    // The command imports the library by its own package name ('blogcore', 'blogcore/sqlite', …): Node resolves
    // that to this package's dist/ entry points, so dist/cli.js holds only the command, not a second core.
    entry: { cli: 'src/cli/main.ts' },
    format: ['esm'],
    platform: 'node',
    target: 'node20',
    external: [/^blogcore(\/|$)/],
    banner: { js: '#!/usr/bin/env node' },
  },
]);
