/** The shared driver suite, unchanged, on real IndexedDB in headless Chromium. */
import { afterEach } from 'vitest';
import { idbDriver } from '../../drivers/idb/index.js';
import { runBoundedSuite } from './bounded.js';
import { runDriverSuite } from './suite.js';
import { withKeyedTags } from './idb/keyed-schema.js';

const run = `${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`;
let n = 0;
let current = '';

runDriverSuite('idb (Chromium IndexedDB)', () => idbDriver({ name: (current = `suite-${run}-${n++}`) }));
// The same suite, its many-entries index kept as postings in segments (layout 5's labels).
runDriverSuite('idb (Chromium IndexedDB), byTag as postings', () =>
  withKeyedTags(idbDriver({ name: (current = `suite-${run}-${n++}`) })),
);
runBoundedSuite('idb (Chromium IndexedDB)', () => idbDriver({ name: (current = `suite-${run}-${n++}`) }));

// Runs after the suite's own afterEach has closed the driver: leave no databases behind. (Chromium may fire
// `blocked` while the closed connection's last transaction finishes; the delete still completes.)
afterEach(async () => {
  await new Promise<void>((resolve, reject) => {
    const r = indexedDB.deleteDatabase(current);
    r.onsuccess = () => resolve();
    r.onerror = () => reject(r.error);
  });
});
