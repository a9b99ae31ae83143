import 'fake-indexeddb/auto';
import { IDBFactory } from 'fake-indexeddb';
import { idbDriver } from '../../drivers/idb/index.js';
import { runBoundedSuite } from './bounded.js';
import { runDriverSuite } from './suite.js';

// A fresh factory per test: every test starts from an empty IndexedDB.
runDriverSuite('idb (fake-indexeddb)', () => idbDriver({ name: 'suite', indexedDB: new IDBFactory() }));
runBoundedSuite('idb (fake-indexeddb)', () => idbDriver({ name: 'suite', indexedDB: new IDBFactory() }));
