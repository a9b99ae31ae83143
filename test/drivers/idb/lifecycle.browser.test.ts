import { layoutUpgrade } from '../../browser/idb-layout2.js';
import { runIdbLifecycle } from '../../browser/idb-lifecycle.js';

const run = `${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`;
let n = 0;
const fresh = () => ({ factory: indexedDB, name: `lifecycle-${run}-${n++}` });

runIdbLifecycle('Chromium IndexedDB', { fresh });
layoutUpgrade({ fresh });
