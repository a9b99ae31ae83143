/**
 * The IndexedDB surface the driver uses beyond `idb`'s types: IndexedDB 3.0's options form of `getAllKeys` and
 * `getAllRecords` (Chromium 141+, fake-indexeddb 6; not in TypeScript's DOM types or idb's yet). Called through
 * idb's proxies, they answer promises like every other request.
 */
import type { IDBPIndex } from 'idb';

/** One entry of `getAllRecords`: the index key, the record's key and the record. */
export interface IdbRecord<V> {
  key: IDBValidKey;
  primaryKey: IDBValidKey;
  value: V;
}

/** IndexedDB 3.0's options argument: one request for a page in either direction. */
export interface GetAllOptions {
  query: IDBKeyRange;
  count: number;
  direction: IDBCursorDirection;
}

/** An index as the driver reads it: idb's wrapper with IndexedDB 3.0's page requests. */
export type Index3 = IDBPIndex<unknown, string[], string, string> & {
  getAllRecords?: <V>(options: GetAllOptions) => Promise<Array<IdbRecord<V>>>;
  getAllKeys(options: GetAllOptions): Promise<string[]>;
};
