/**
 * The conformance suite's schema with its many-entries index (`byTag`: one entry per tag) declared `entries:
 * 'many'`, which the IndexedDB driver keeps as postings (drivers/idb/key-postings.ts) instead of an IndexedDB
 * index: the suite runs unchanged over a driver opened this way, so both of its layouts meet the contract.
 */
import type { StorageDriver, StoreSchema } from '../../../src/store/driver.js';

export const keyedTags = (schema: StoreSchema): StoreSchema => ({
  ...schema,
  collections: schema.collections.map((c) => ({
    ...c,
    indexes: c.indexes.map((i) => (i.name === 'byTag' ? { ...i, entries: 'many' as const } : i)),
  })),
});

/** `driver`, opening every schema with `byTag` declared many. */
export function withKeyedTags(driver: StorageDriver): StorageDriver {
  const open = driver.open.bind(driver);
  return Object.assign(driver, { open: (schema: StoreSchema) => open(keyedTags(schema)) });
}
