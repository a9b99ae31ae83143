/** `blogcore/io` bundles for browsers: importing and exporting need no Node built-ins (reading a file is the caller's). */
import { build } from 'esbuild';
import { expect, it } from 'vitest';
import { root } from '../browser/serve.js';

it('bundles src/io for the browser platform without Node built-ins', async () => {
  const result = await build({
    stdin: { contents: "export * from './src/io/index.ts';\n", resolveDir: root, loader: 'ts' },
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
  expect(inputs).toContain('src/io/xml.ts');
  expect(inputs.filter((path) => /^node:|^(fs|path|os|crypto|url|http|stream|buffer|util|string_decoder|events)$/.test(path))).toEqual([]);
});
