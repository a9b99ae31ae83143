import 'fake-indexeddb/auto';
import { IDBFactory } from 'fake-indexeddb';
import { runIdbLifecycle } from '../../browser/idb-lifecycle.js';

runIdbLifecycle('fake-indexeddb', { fresh: () => ({ factory: new IDBFactory(), name: 'blog' }) });
