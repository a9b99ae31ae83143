import 'fake-indexeddb/auto';
import { IDBFactory } from 'fake-indexeddb';
import { layoutUpgrade } from '../../browser/idb-layout2.js';
import { runIdbLifecycle } from '../../browser/idb-lifecycle.js';

runIdbLifecycle('fake-indexeddb', { fresh: () => ({ factory: new IDBFactory(), name: 'blog' }) });
layoutUpgrade({ fresh: () => ({ factory: new IDBFactory(), name: 'layout2' }) });
