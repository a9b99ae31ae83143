import { playwright } from '@vitest/browser-playwright';
import { defineConfig } from 'vitest/config';

import { chromiumArgs, chromiumPath } from './test/browser/chromium.js';

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'node',
          include: ['test/**/*.test.ts', 'examples/**/*.test.ts'],
          exclude: ['**/node_modules/**', 'test/**/*.browser.test.ts'],
          environment: 'node',
          // A throwaway PostgreSQL for the PostgreSQL suites (or BLOGCORE_TEST_PG_URL's server).
          globalSetup: ['test/drivers/postgres/global-setup.ts'],
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
      {
        // Real IndexedDB in headless Chromium: the driver suite and the idb-specific tests.
        test: {
          name: 'browser',
          include: ['test/**/*.browser.test.ts'],
          testTimeout: 60_000,
          hookTimeout: 60_000,
          browser: {
            enabled: true,
            headless: true,
            screenshotFailures: false,
            provider: playwright({
              launchOptions: { executablePath: chromiumPath, args: chromiumArgs },
            }),
            instances: [{ browser: 'chromium' }],
          },
        },
      },
    ],
  },
});
