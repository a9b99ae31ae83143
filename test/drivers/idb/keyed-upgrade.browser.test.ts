import { keyedUpgrade } from '../../browser/idb-layout4.js';

const run = `${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`;
let n = 0;
keyedUpgrade({
  fresh: () => ({ factory: indexedDB, name: `layout4-${run}-${n++}` }),
  KeyRange: IDBKeyRange,
  posts: 10_000,
});
