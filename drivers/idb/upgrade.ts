/**
 * The upgrade of an IndexedDB database to this driver's layout (schema.ts) for a schema, run inside the
 * versionchange transaction: loaded only when an open needs one (a new database, a new schema version, an
 * older layout), as are the builders of an older layout's segments (segments.ts, keyed-upgrade.ts).
 */
import type { IDBPDatabase, IDBPTransaction } from 'idb';
import type { CollectionDef, StoreSchema } from '../../src/store/driver.js';
import { BLOBS, CHANGES, DEAD, hasPostings, keyed, LOG, META, POST, SEG, SIZE, STREAM_INDEX } from './ranges.js';

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
  // The keyed indexes that are still IndexedDB indexes: their keys become postings, built from the records' `k`.
  const rebuild = (c: CollectionDef) =>
    new Set(
      has(c.name) ? keyed(c).flatMap((i) => (tx.objectStore(c.name).indexNames.contains(i.name) ? i.name : [])) : [],
    );
  const layout2 = schema.collections.some((c) => c.search && has(TERMS(c.name)));
  if ((layout2 && !postings) || (!fromIndexes && schema.collections.some((c) => rebuild(c).size))) return false;
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
    postingStores(db, c.name, hasPostings(c), has);
    // (Layouts 3 and 4 had no index of heads by size.)
    const heads = has(SEG(c.name)) ? tx.objectStore(SEG(c.name)) : undefined;
    if (heads && !heads.indexNames.contains(SIZE)) heads.createIndex(SIZE, SIZE);
    // Layout 2's terms, then the keyed indexes' keys, one after the other: both add segments to the same stores
    // and merge them.
    const terms = c.search && has(TERMS(c.name));
    if (!c.search && has(TERMS(c.name))) db.deleteObjectStore(TERMS(c.name));
    if (terms || build.size)
      then(
        (async (w: UpgradeTx) => {
          if (terms) await postings!.fromLayout2(w, c, TERMS(c.name));
          if (build.size) await fromIndexes!.fromRecords(w, c, build);
        })(wrapped()),
        () => terms && db.deleteObjectStore(TERMS(c.name)),
      );
  }
  return true;
}

/** Creates or drops a collection's three postings stores. */
function postingStores(db: IDBPDatabase, name: string, wanted: boolean, has: (name: string) => boolean): void {
  const stores = [SEG(name), POST(name), DEAD(name)];
  if (wanted === has(SEG(name))) return;
  if (!wanted) {
    for (const store of stores) if (has(store)) db.deleteObjectStore(store);
    return;
  }
  db.createObjectStore(SEG(name), { autoIncrement: true }).createIndex(SIZE, SIZE);
  db.createObjectStore(POST(name));
  db.createObjectStore(DEAD(name));
}
