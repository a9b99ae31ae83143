import type { PutOp, StoreSchema } from '../../../src/store/driver.js';

/** The driver-level crash test's store: posts with label entries and search tokens, notes that belong to a post. */
export const crashSchema: StoreSchema = {
  version: 1,
  collections: [
    { name: 'posts', search: true, indexes: [{ name: 'time' }, { name: 'label' }] },
    { name: 'notes', indexes: [{ name: 'post' }] },
  ],
};

export interface CrashPost {
  id: string;
  time: string;
  labels: string[];
  words: string[];
}

export const postPut = (p: CrashPost, expect: number): PutOp => ({
  type: 'put',
  collection: 'posts',
  id: p.id,
  expect,
  doc: { ...p },
  keys: { time: [['b', p.time, p.id]], label: p.labels.map((l) => ['b', l, p.time, p.id]) },
  terms: { scope: 'b', tokens: p.words },
});

export const notePut = (postId: string, id: string): PutOp => ({
  type: 'put',
  collection: 'notes',
  id,
  expect: 0,
  doc: { id, postId },
  keys: { post: [[postId, id]] },
});
