/**
 * The same suite on an IndexedDB without `getAllRecords` (browsers before IndexedDB 3.0): the driver then
 * pages with cursors. This file runs in its own module graph, so hiding the method here affects nothing else.
 */
import 'fake-indexeddb/auto';
import { IDBFactory } from 'fake-indexeddb';
import { idbDriver } from '../../drivers/idb/index.js';
import { runBoundedSuite } from './bounded.js';
import { runDriverSuite } from './suite.js';

const proto = globalThis.IDBIndex.prototype as unknown as Record<string, unknown>;
delete proto.getAllRecords;
if ('getAllRecords' in proto) throw new Error('could not hide IDBIndex.getAllRecords');

runDriverSuite('idb without getAllRecords (cursor paging)', () =>
  idbDriver({ name: 'suite', indexedDB: new IDBFactory() }),
);
runBoundedSuite('idb without getAllRecords (cursor paging)', () =>
  idbDriver({ name: 'suite', indexedDB: new IDBFactory() }),
);
