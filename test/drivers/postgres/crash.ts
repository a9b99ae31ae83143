/**
 * The crash test's store: batches of 20 records, each with several index entries and search tokens, in native
 * tables (`items` with its `group` and `slug` columns, `items_tag` with five rows per record).
 */
import type { StoreSchema, WriteOp } from '../../../src/store/driver.js';

export const crashSchema: StoreSchema = {
  version: 1,
  collections: [
    {
      name: 'items',
      search: true,
      indexes: [
        { name: 'byBatch', fields: ['group', 'id'], entries: 'one' },
        { name: 'byTag', fields: ['tag', 'group', 'id'], entries: 'many' },
        { name: 'bySlug', unique: true, fields: ['slug'], entries: 'one' },
      ],
    },
  ],
};

export const BATCH = 20;

export function crashBatch(pid: number, batch: number): WriteOp[] {
  const group = `${pid}-${batch}`;
  return Array.from({ length: BATCH }, (_, i): WriteOp => {
    const id = `${group}-${i}`;
    return {
      type: 'put',
      collection: 'items',
      id,
      expect: 0,
      doc: { id, group, body: 'x'.repeat(2000 + i) },
      keys: {
        byBatch: [[group, id]],
        byTag: ['a', 'b', 'c', 'd', 'e'].map((t) => [t, group, id]),
        bySlug: [[`slug-${id}`]],
      },
      terms: { scope: 's', tokens: ['alpha', `w${i}`, `g${batch}`] },
    };
  });
}
