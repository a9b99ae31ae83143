/**
 * Writes package.json's `exports`, `typesVersions`, `main`, `module` and `types` from scripts/entries.ts, so every
 * subpath resolves the same way (ESM + CJS with their own .d.ts, and `typesVersions` for TypeScript's node10
 * resolution). `--check` only compares and fails when package.json is out of date (run in CI).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { ENTRIES, distName } from './entries.js';

const file = new URL('../package.json', import.meta.url);
const text = readFileSync(file, 'utf8');
const pkg = JSON.parse(text) as Record<string, unknown>;

const exportsField: Record<string, unknown> = {};
const typesVersions: Record<string, string[]> = {};
for (const subpath of Object.keys(ENTRIES)) {
  const name = distName(subpath);
  exportsField[subpath === '.' ? '.' : `./${subpath}`] = {
    import: { types: `./dist/${name}.d.ts`, default: `./dist/${name}.js` },
    require: { types: `./dist/${name}.d.cts`, default: `./dist/${name}.cjs` },
  };
  if (subpath !== '.') typesVersions[subpath] = [`./dist/${name}.d.cts`];
}
exportsField['./package.json'] = './package.json';

// Keep the fields where they are in the file; only their values change.
Object.assign(pkg, {
  main: './dist/index.cjs',
  module: './dist/index.js',
  types: './dist/index.d.cts',
  typesVersions: { '*': typesVersions },
  exports: exportsField,
});
const next = `${JSON.stringify(pkg, null, 2)}\n`;

if (process.argv.includes('--check')) {
  if (next !== text) {
    console.error('package.json exports are out of date with scripts/entries.ts: run `npm run exports`');
    process.exit(1);
  }
} else if (next !== text) {
  writeFileSync(file, next);
  console.log('package.json: exports and typesVersions updated');
}
