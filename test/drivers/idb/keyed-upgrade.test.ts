import 'fake-indexeddb/auto';
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { keyedUpgrade } from '../../browser/idb-layout4.js';

keyedUpgrade({ fresh: () => ({ factory: new IDBFactory(), name: 'layout4' }), KeyRange: IDBKeyRange, posts: 10_000 });
