/**
 * The driver as the core reads it: the same object and the same calls, seen through the collection map
 * (`Records` in records.ts), so a read of 'posts' answers `StoredDoc<PostRecord>` and a query names only an
 * index its collection has. Drivers stay untyped JSON stores (driver.ts); the one cast from JSON to records
 * is `recordStore` below, and `put` in records.ts is its write side.
 */
import type {
  IndexedDoc,
  IndexEntry,
  Key,
  KeysQuery,
  ListQuery,
  RangeQuery,
  SearchQuery,
  StorageDriver,
  StoredDoc,
} from './driver.js';
import type { Collection, Records } from './records.js';
import type { IndexName } from './schema.js';

/** A query's collection and index, named together: the index must be one of the collection's. */
type On<Q, C extends Collection> = Omit<Q, 'collection' | 'index'> & { collection: C; index: IndexName<C> };

export interface RecordStore
  extends Omit<StorageDriver, 'get' | 'getNow' | 'getMany' | 'getByIndex' | 'list' | 'count' | 'keys' | 'search'> {
  get<C extends Collection>(collection: C, id: string): Promise<StoredDoc<Records[C]> | undefined>;
  getNow?<C extends Collection>(collection: C, id: string): StoredDoc<Records[C]> | undefined;
  getMany<C extends Collection>(
    collection: C,
    ids: readonly string[],
  ): Promise<Array<StoredDoc<Records[C]> | undefined>>;
  getByIndex<C extends Collection>(
    collection: C,
    index: IndexName<C>,
    key: Key,
  ): Promise<StoredDoc<Records[C]> | undefined>;
  list<C extends Collection>(query: On<ListQuery, C>): Promise<Array<IndexedDoc<Records[C]>>>;
  count<C extends Collection>(query: On<RangeQuery, C>): Promise<number>;
  keys<C extends Collection>(query: On<KeysQuery, C>): Promise<IndexEntry[]>;
  search<C extends Collection>(query: On<SearchQuery, C>): Promise<IndexEntry[]>;
}

/** The typed view of a driver (no wrapper: what the core stored under a collection is that collection's record). */
export const recordStore = (driver: StorageDriver): RecordStore => driver as unknown as RecordStore;
