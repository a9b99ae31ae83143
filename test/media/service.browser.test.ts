/** The service media suite, unchanged, on real IndexedDB in headless Chromium. */
import { idbDriver } from '../../drivers/idb/index.js';
import { runMediaSuite } from './suite.js';

const run = `${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`;
let n = 0;

runMediaSuite('idb (Chromium IndexedDB)', () => idbDriver({ name: `media-${run}-${n++}` }));
