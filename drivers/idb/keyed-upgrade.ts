/**
 * Layout 5's upgrade from layouts 3 and 4, which kept an index declared with many entries per record as an
 * IndexedDB multiEntry index (two entries per label): inside the versionchange transaction, the records are
 * read BATCH at a time in id order and each batch's keys in those indexes (held in the records' `k`) become a
 * segment beside the collection's search segments (key-postings.ts), merged as commits' segments are. The transaction is the unit of work: a crash or a
 * close part way leaves the database at its old layout, and the next open runs the upgrade again.
 */
import type { IDBPTransaction } from 'idb';
import type { CollectionDef } from '../../src/store/driver.js';
import type { Rec } from './schema.js';
import { addPostings, keyedDocs } from './segments.js';

/** Records read per request and written as one segment. */
const BATCH = 1000;

/** `indexes`: the keyed indexes that were IndexedDB indexes (a keyed index new to the schema starts empty). */
export async function fromRecords(
  tx: IDBPTransaction<unknown, string[], 'versionchange'>,
  def: CollectionDef,
  indexes: ReadonlySet<string>,
) {
  const store = tx.objectStore(def.name);
  for (let after: string | undefined; ; ) {
    const recs = (await store.getAll(after === undefined ? null : IDBKeyRange.lowerBound(after, true), BATCH)) as Rec[];
    const docs = recs.flatMap((rec) => keyedDocs(def, rec.id, rec.v, rec.k, indexes));
    if (docs.length) await addPostings(tx, IDBKeyRange, def.name, docs, new Map());
    if (recs.length < BATCH) return;
    after = recs[recs.length - 1]!.id;
  }
}
