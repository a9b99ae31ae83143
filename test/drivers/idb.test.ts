import 'fake-indexeddb/auto';
import { IDBFactory } from 'fake-indexeddb';
import { idbDriver } from '../../drivers/idb/index.js';
import { runBoundedSuite } from './bounded.js';
import { runDriverSuite } from './suite.js';
import { withKeyedTags } from './idb/keyed-schema.js';

// A fresh factory per test: every test starts from an empty IndexedDB.
runDriverSuite('idb (fake-indexeddb)', () => idbDriver({ name: 'suite', indexedDB: new IDBFactory() }));
runBoundedSuite('idb (fake-indexeddb)', () => idbDriver({ name: 'suite', indexedDB: new IDBFactory() }));
// The same suite, its many-entries index kept as postings in segments (layout 5's labels).
runDriverSuite('idb (fake-indexeddb), byTag as postings', () =>
  withKeyedTags(idbDriver({ name: 'suite', indexedDB: new IDBFactory() })),
);
