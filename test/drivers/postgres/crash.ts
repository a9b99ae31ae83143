/** The crash test's store: batches of 20 records, each with several index entries and search tokens. */
import type { StoreSchema, WriteOp } from '../../../src/store/driver.js';

export const crashSchema: StoreSchema = {
  version: 1,
  collections: [
    {
      name: 'items',
      search: true,
      indexes: [{ name: 'byBatch' }, { name: 'byTag' }, { name: 'bySlug', unique: true }],
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
