import { afterAll } from 'vitest';
import { postgresDriver } from '../../drivers/postgres/index.js';
import type { StorageDriver, StoreSchema } from '../../src/store/driver.js';
import { runBoundedSuite } from './bounded.js';
import { runDriverSuite } from './suite.js';
import { dropOwnSchemas, freshSchema, pgUrl } from './postgres/env.js';

afterAll(() => dropOwnSchemas());

const driver = () => postgresDriver({ connectionString: pgUrl(), schema: freshSchema('suite'), max: 4 });

// The suite's schema names no key parts, so its indexes keep byte keys; blogcore's schema (the bounded suite)
// names them all, so its indexes are columns and native indexes.
runDriverSuite('postgres', driver);
runBoundedSuite('postgres', driver);

/** The suite's own schema with its key parts named: the same suite, unchanged, on native columns and side tables. */
const FIELDS: Record<string, Pick<StoreSchema['collections'][number]['indexes'][number], 'fields' | 'entries'>> = {
  byTime: { fields: ['group', 'status', 'time', 'id'], entries: 'one' },
  byTag: { fields: ['group', 'tag', 'time', 'id'], entries: 'many' },
  bySlug: { fields: ['group', 'slug'], entries: 'optional' },
  byItem: { fields: ['item', 'id'], entries: 'one' },
};
const named = (schema: StoreSchema): StoreSchema => ({
  ...schema,
  collections: schema.collections.map((c) => ({
    ...c,
    indexes: c.indexes.map((i) => ({ ...i, ...FIELDS[i.name] })),
  })),
});
runDriverSuite('postgres (named key parts)', () => {
  const d: StorageDriver = driver();
  const open = d.open.bind(d);
  d.open = (schema) => open(named(schema));
  return d;
});
