/**
 * The IndexedDB change log keeps one record per commit and stream (layout 3): a commit whose streams
 * interleave reads back in position order, pages and stream walks start inside a record, and pruning part of
 * a record keeps the rest.
 */
import 'fake-indexeddb/auto';
import { IDBFactory } from 'fake-indexeddb';
import { expect, it } from 'vitest';
import type { PutOp } from '../../../src/store/driver.js';
import { idbDriver } from '../../../drivers/idb/index.js';
import { itemPut, suiteSchema } from '../suite.js';

it('reads a commit of interleaved streams in order, from any position, and prunes part of a stream’s record', async () => {
  const d = idbDriver({ name: 'log', indexedDB: new IDBFactory() });
  await d.open(suiteSchema);
  const op = (id: string, stream?: string): PutOp => ({
    ...itemPut({ id, group: 'g', status: 'LIVE', time: id }),
    ...(stream ? { stream } : {}),
  });
  const { seq } = await d.commit([op('a', 'g'), op('b', 'h'), op('c', 'g'), op('d'), op('e', 'g')], { time: 1000 });
  const later = await d.commit([op('f', 'h')], { time: 5000 });
  const ids = (changes: Array<{ id: string }>) => changes.map((c) => c.id);
  expect((await d.changesSince(0)).map((c) => [c.id, c.pos, c.stream])).toEqual([
    ['a', 0, 'g'],
    ['b', 1, 'h'],
    ['c', 2, 'g'],
    ['d', 3, undefined],
    ['e', 4, 'g'],
    ['f', 0, 'h'],
  ]);
  for (let n = 1; n <= 6; n++)
    expect(ids(await d.changesSince(0, n))).toEqual(['a', 'b', 'c', 'd', 'e', 'f'].slice(0, n));
  expect(ids(await d.streamChanges('g', { seq, pos: 0 }, 10))).toEqual(['c', 'e']);
  expect(ids(await d.streamChanges('g', { seq, pos: 2 }, 1))).toEqual(['e']);
  expect(ids(await d.streamChanges('h', { seq, pos: 1 }, 10))).toEqual(['f']);
  // Three changes go: a and c of stream g's record, and b; e stays.
  expect(await d.pruneChanges({ before: 2000, limit: 3 })).toBe(3);
  expect(ids(await d.changesSince(0))).toEqual(['d', 'e', 'f']);
  expect(ids(await d.streamChanges('g', { seq: 0, pos: -1 }, 10))).toEqual(['e']);
  expect(await d.pruneChanges({ before: 2000, limit: 10 })).toBe(2);
  expect(ids(await d.changesSince(0))).toEqual(['f']);
  expect(await d.logBounds()).toEqual({ newest: later.seq, pruned: seq });
  await d.close();
});
