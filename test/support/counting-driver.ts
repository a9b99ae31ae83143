/**
 * A driver that forwards every call to a real driver and counts the records each call hands out
 * (documents, index entries, change-log entries): the measure of the bound of docs/design.md §10 on one request's work.
 */
import type { StorageDriver } from '../../src/store/driver.js';

export interface CountingDriver extends StorageDriver {
  /** Records handed out since the last `reset()`. */
  readonly handedOut: number;
  /** `count` calls since the last `reset()` (each a query of its own). */
  readonly counts: number;
  reset(): void;
}

export function countingDriver(inner: StorageDriver): CountingDriver {
  let n = 0;
  let counts = 0;
  const counted = async <T>(p: Promise<T>, size: (x: T) => number): Promise<T> => {
    const x = await p;
    n += size(x);
    return x;
  };
  const one = (x: unknown) => (x === undefined ? 0 : 1);
  const many = (xs: ReadonlyArray<unknown>) => xs.filter((x) => x !== undefined).length;
  return {
    get handedOut() {
      return n;
    },
    get counts() {
      return counts;
    },
    reset: () => {
      n = 0;
      counts = 0;
    },
    open: (schema) => inner.open(schema),
    get: (c, id) => counted(inner.get(c, id), one),
    getMany: (c, ids) => counted(inner.getMany(c, ids), many),
    getByIndex: (c, i, k) => counted(inner.getByIndex(c, i, k), one),
    list: (q) => counted(inner.list(q), many),
    count: (q) => {
      counts++;
      return inner.count(q);
    },
    keys: (q) => counted(inner.keys(q), many),
    search: (q) => counted(inner.search(q), many),
    commit: (ops, o) => inner.commit(ops, o),
    changesSince: (s, l) => counted(inner.changesSince(s, l), many),
    streamChanges: (s, a, l) => counted(inner.streamChanges(s, a, l), many),
    logBounds: () => inner.logBounds(),
    pruneChanges: (q) => inner.pruneChanges(q),
    blobs: inner.blobs,
    close: () => inner.close(),
  };
}
