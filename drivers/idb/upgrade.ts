/**
 * The upgrade of an IndexedDB database to this driver's layout (schema.ts) for a schema, run inside the
 * versionchange transaction: loaded only when an open needs one (a new database, a new schema version, an
 * older layout), as are the builders of an older layout's segments (segments.ts, keyed-upgrade.ts).
 */
import type { IDBPDatabase, IDBPTransaction } from 'idb';
import type { CollectionDef, StoreSchema } from '../../src/store/driver.js';
import { BLOBS, CHANGES, DEAD, KEYED, keyed, LOG, META, POST, SEG, STREAM_INDEX } from './ranges.js';

type UpgradeTx = IDBPTransaction<unknown, string[], 'versionchange'>;
/**
 * The builders of an older layout's segments: segments.ts's from layout 2's terms, keyed-upgrade.ts's of keyed
 * indexes from layouts 3 and 4's records; loaded only for such a database (`loadBuilders`).
 */
let builders: [typeof import('./segments.js'), typeof import('./keyed-upgrade.js')] | undefined;
export const loadBuilders = async () => {
  builders ??= await Promise.all([import('./segments.js'), import('./keyed-upgrade.js')]);
};

/** Layout 2's token store, read once by the upgrade. */
const TERMS = (collection: string) => `~terms.${collection}`;

/**
 * Brings the stores and indexes in line with the schema, inside the versionchange transaction `tx`, as
 * IndexedDB hands it: idb's wrapper would promise its end, and that promise would reject unheard when `open`
 * aborts the upgrade (below). Indexes are derived data and are rebuilt by IndexedDB from the stored `k` keys;
 * collection stores are never deleted (data is not dropped because a schema forgot a collection). Building
 * segments from layout 2 needs the postings code (`postings`), and building keyed indexes' postings from layouts
 * 3 and 4 `fromIndexes`, which load lazily: without them this answers false before changing anything, and `open`
 * loads them and opens again.
 */
export function upgrade(
  db: IDBPDatabase,
  schema: StoreSchema,
  tx: IDBTransaction,
  wrap: (tx: IDBTransaction) => unknown,
): boolean {
  const [postings, fromIndexes] = builders ?? [];
  const has = (name: string) => db.objectStoreNames.contains(name);
  // A keyed index that is still an IndexedDB index: its keys become postings, built from the records' `k`.
  const rebuild = (c: CollectionDef) =>
    has(c.name) && keyed(c).some((i) => tx.objectStore(c.name).indexNames.contains(i.name));
  const layout2 = schema.collections.some((c) => c.search && has(TERMS(c.name)));
  if ((layout2 && !postings) || (!fromIndexes && schema.collections.some(rebuild))) return false;
  const wrapped = () => {
    const w = wrap(tx) as unknown as UpgradeTx;
    // (An aborted upgrade is reported by `open`.)
    w.done.catch(() => {});
    return w;
  };
  // A failed build aborts the upgrade, which `open` reports (unless it was aborted already: a crash, a close).
  const then = (build: Promise<void>, done: () => void = () => {}) =>
    void build.then(done, () => {
      try {
        tx.abort();
      } catch {}
    });
  if (!has(LOG)) db.createObjectStore(LOG, { autoIncrement: true });
  if (!has(META)) db.createObjectStore(META);
  if (!has(BLOBS)) db.createObjectStore(BLOBS);
  if (!has(CHANGES)) {
    db.createObjectStore(CHANGES).createIndex(STREAM_INDEX, ['s', 'q', 'p']);
    // Layout 1 kept each commit's changes in its ~log record. They had no reader but in-process events, so
    // they go (the key generator, the seq, goes on); the bundle stays small for what every browser loads.
    // (A failure aborts the upgrade, which `open` reports.)
    tx.objectStore(LOG).clear();
  }
  for (const c of schema.collections) {
    const build = rebuild(c);
    const store: IDBObjectStore = has(c.name)
      ? tx.objectStore(c.name)
      : (db.createObjectStore(c.name, { keyPath: 'id' }) as unknown as IDBObjectStore);
    const asPostings = keyed(c);
    const wanted = new Map(c.indexes.filter((i) => !asPostings.includes(i)).map((i) => [i.name, !!i.unique]));
    for (const existing of [...store.indexNames]) {
      const index = store.index(existing);
      if (wanted.get(existing) !== index.unique || index.keyPath !== `k.${existing}` || !index.multiEntry)
        store.deleteIndex(existing);
    }
    for (const [name, unique] of wanted) {
      if (!store.indexNames.contains(name)) store.createIndex(name, `k.${name}`, { unique, multiEntry: true });
    }
    postingStores(db, c.name, !!c.search, has);
    if (c.search && has(TERMS(c.name)))
      then(postings!.fromLayout2(wrapped(), c, TERMS(c.name)), () => db.deleteObjectStore(TERMS(c.name)));
    else if (!c.search && has(TERMS(c.name))) db.deleteObjectStore(TERMS(c.name));
    // An index kept as postings that is new to the store starts empty, as a new IndexedDB index does.
    const fresh = postingStores(db, KEYED(c.name), asPostings.length > 0, has);
    if (build && fresh) then(fromIndexes!.fromRecords(wrapped(), c));
  }
  return true;
}

/** Creates or drops a postings name's three stores; whether they were created now. */
function postingStores(db: IDBPDatabase, name: string, wanted: boolean, has: (name: string) => boolean): boolean {
  const stores = [SEG(name), POST(name), DEAD(name)];
  if (wanted === has(SEG(name))) return false;
  if (!wanted) {
    for (const store of stores) if (has(store)) db.deleteObjectStore(store);
    return false;
  }
  db.createObjectStore(SEG(name), { autoIncrement: true });
  db.createObjectStore(POST(name));
  db.createObjectStore(DEAD(name));
  return true;
}
