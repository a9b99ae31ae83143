/**
 * The content-lifecycle service tests (revisions, user infos and page views) on the IndexedDB driver, over
 * fake-indexeddb: each store its own database. (Label counts run on every driver in test/service/labels.test.ts.)
 */
import 'fake-indexeddb/auto';
import { IDBFactory } from 'fake-indexeddb';
import { idbDriver } from '../../../drivers/idb/index.js';
import { useDriver } from '../../service/helpers.js';

let n = 0;
useDriver(() => idbDriver({ name: `lifecycle-${++n}`, indexedDB: new IDBFactory() }));

await import('../../service/revisions.test.js');
await import('../../service/userinfos.test.js');
