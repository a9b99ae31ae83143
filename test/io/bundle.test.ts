/** `blogcore/io` bundles for browsers: importing and exporting need no Node built-ins (reading a file is the caller's). */
import { expect, it } from 'vitest';
import { browserBundleInputs, NODE_BUILTIN } from '../browser/bundle.js';

it('bundles src/io for the browser platform without Node built-ins', async () => {
  const { errors, inputs } = await browserBundleInputs("export * from './src/io/index.ts';\n");
  expect(errors).toEqual([]);
  expect(inputs).toContain('src/io/xml.ts');
  expect(inputs.filter((path) => NODE_BUILTIN.test(path))).toEqual([]);
});
