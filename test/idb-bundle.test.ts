/** `blogcore` + `blogcore/idb` must bundle for the browser: no Node built-ins anywhere in the core or the driver. */
import { expect, it } from 'vitest';
import { browserBundleInputs, NODE_BUILTIN } from './browser/bundle.js';

it('bundles src/index.ts + drivers/idb for the browser platform without Node built-ins', async () => {
  const { errors, inputs } = await browserBundleInputs("export * from './src/index.ts';\nexport * from './drivers/idb/index.ts';\n");
  expect(errors).toEqual([]);
  expect(inputs).toContain('drivers/idb/index.ts');
  expect(inputs.filter((path) => NODE_BUILTIN.test(path))).toEqual([]);
});
