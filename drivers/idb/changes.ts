/** The change log: the `~changes` store (one record per op, key [seq, pos]), `~log` (one per commit) and `~meta`. */
import type { Change, LogBounds, LogPosition, PruneQuery } from '../../src/store/driver.js';
import type { Connection } from './connect.js';
import { CHANGES, LOG, META, STREAM_INDEX, type LogChange } from './schema.js';

export const toChange = (r: LogChange): Change => ({
  seq: r.q,
  pos: r.p,
  collection: r.c,
  id: r.id,
  type: r.op,
  version: r.v,
  time: r.t,
  ...(r.s !== undefined ? { stream: r.s } : {}),
});

/** A change-log read's limit: a whole number, at least 0. */
const atLeast0 = (limit: number) => Math.max(0, Math.floor(limit));

export async function changesSince(c: Connection, seq: number, limit = 1000): Promise<Change[]> {
  const max = atLeast0(limit);
  if (max === 0) return [];
  const recs: LogChange[] = await c
    .transaction([CHANGES])
    .objectStore(CHANGES)
    .getAll(c.KeyRange.lowerBound([seq, Infinity], true), max);
  return recs.map(toChange);
}

export async function streamChanges(c: Connection, stream: string, after: LogPosition, limit: number): Promise<Change[]> {
  const max = atLeast0(limit);
  if (max === 0) return [];
  const range = c.KeyRange.bound([stream, after.seq, after.pos], [stream, Infinity, Infinity], true, false);
  const recs: LogChange[] = await c.transaction([CHANGES]).objectStore(CHANGES).index(STREAM_INDEX).getAll(range, max);
  return recs.map(toChange);
}

export async function logBounds(c: Connection): Promise<LogBounds> {
  const tx = c.transaction([LOG, META]);
  const [last, pruned] = await Promise.all([tx.objectStore(LOG).openKeyCursor(null, 'prev'), tx.objectStore(META).get('pruned')]);
  return { newest: typeof last?.key === 'number' ? last.key : 0, pruned: typeof pruned === 'number' ? pruned : 0 };
}

export async function pruneChanges(c: Connection, q: PruneQuery): Promise<number> {
  const limit = atLeast0(q.limit);
  if (limit === 0) return 0;
  const tx = c.transaction([CHANGES, LOG, META], 'readwrite');
  const recs: LogChange[] = await tx.objectStore(CHANGES).getAll(null, limit);
  let n = 0;
  while (n < recs.length) {
    const r = recs[n]!;
    if (!((q.before !== undefined && r.t < q.before) || (q.through !== undefined && r.q <= q.through))) break;
    n++;
  }
  const writes: Array<Promise<unknown>> = [];
  if (n > 0) {
    const last = recs[n - 1]!;
    writes.push(tx.objectStore(CHANGES).delete(c.KeyRange.upperBound([last.q, last.p])));
    // Commit records before the last pruned one go too; that one stays, so the newest seq is always known.
    writes.push(tx.objectStore(LOG).delete(c.KeyRange.upperBound(last.q, true)));
    writes.push(tx.objectStore(META).put(last.q, 'pruned'));
  }
  await Promise.all([...writes, tx.done]);
  return n;
}
