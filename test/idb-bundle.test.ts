/** `blogcore` + `blogcore/idb` must bundle for the browser: no Node built-ins anywhere in the core or the driver. */
import { build } from 'esbuild';
import { expect, it } from 'vitest';
import { root } from './browser/serve.js';

it('bundles src/index.ts + drivers/idb for the browser platform without Node built-ins', async () => {
  const result = await build({
    stdin: { contents: "export * from './src/index.ts';\nexport * from './drivers/idb/index.ts';\n", resolveDir: root, loader: 'ts' },
    absWorkingDir: root,
    bundle: true,
    format: 'esm',
    platform: 'browser',
    write: false,
    metafile: true,
    logLevel: 'silent',
  });
  expect(result.errors).toEqual([]);
  const inputs = Object.keys(result.metafile.inputs);
  expect(inputs).toContain('drivers/idb/index.ts');
  expect(inputs.filter((path) => /^node:|^(fs|path|os|crypto|url|http|stream|buffer|util)$/.test(path))).toEqual([]);
  // ids come from the ulid package: its browser build (Web Crypto), not the Node one that imports node:crypto.
  expect(inputs.filter((path) => path.includes('node_modules/ulid/'))).toEqual(['node_modules/ulid/dist/browser/index.js']);
});
