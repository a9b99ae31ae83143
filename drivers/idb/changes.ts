/**
 * The change log: the `~changes` store (one record per commit and stream, key [seq, pos of its first change]:
 * a pulled page of 500 posts is one record, not 500), `~log` (one per commit) and `~meta`.
 */
import type { Change, LogBounds, LogPosition, PruneQuery } from '../../src/store/driver.js';
import type { Connection } from './connect.js';
import { CHANGES, LOG, META, STREAM_INDEX, type LogChange, type LogGroup } from './schema.js';

/** A commit's changes (in position order) as its records: one per stream (no stream: one of its own). */
export function groups(q: number, changes: ReadonlyArray<Omit<LogChange, 'q'>>): LogGroup[] {
  const byStream = new Map<string | undefined, LogGroup>();
  for (const ch of changes) {
    const group = byStream.get(ch.s);
    if (!group) byStream.set(ch.s, { q, ...ch });
    else (group.m ??= []).push([ch.p, ch.c, ch.id, ch.op, ch.v]);
  }
  return [...byStream.values()];
}

/** A record's changes (a layout-2 record is one). */
function expand(g: LogGroup): LogChange[] {
  const { m, ...first } = g;
  return [first, ...(m ?? []).map(([p, c, id, op, v]) => ({ ...first, p, c, id, op, v }))];
}

/**
 * Records' changes in log order. When the read stopped at `max` records, a commit's later records may be
 * missing, and their changes may come between those of its records here: of the last record's commit only
 * the changes up to that record's first are certain to be in order (records are keyed by their first). Every
 * record's first change stays, so `max` records still give `max` changes at least.
 */
function inOrder(recs: LogGroup[], max = Infinity): LogChange[] {
  const changes = recs.flatMap(expand).sort((a, b) => a.q - b.q || a.p - b.p);
  const last = recs[recs.length - 1];
  return recs.length < max || !last ? changes : changes.filter((ch) => ch.q < last.q || ch.p <= last.p);
}

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
  const recs: LogGroup[] = await c.read((tx) =>
    tx.objectStore(CHANGES).getAll(c.KeyRange.lowerBound([seq, Infinity], true), max),
  );
  return inOrder(recs, max).slice(0, max).map(toChange);
}

export async function streamChanges(
  c: Connection,
  stream: string,
  after: LogPosition,
  limit: number,
): Promise<Change[]> {
  const max = atLeast0(limit);
  if (max === 0) return [];
  // A stream has one record per commit: the one of commit `after.seq` may hold changes after `after.pos`.
  const range = c.KeyRange.bound([stream, after.seq], [stream, Infinity, Infinity]);
  const recs: LogGroup[] = await c.read((tx) =>
    tx
      .objectStore(CHANGES)
      .index(STREAM_INDEX)
      .getAll(range, max + 1),
  );
  // (One record per commit of a stream: every record read is whole.)
  return inOrder(recs)
    .filter((ch) => ch.q > after.seq || ch.p > after.pos)
    .slice(0, max)
    .map(toChange);
}

export async function logBounds(c: Connection): Promise<LogBounds> {
  const [last, pruned] = await c.read((tx) =>
    Promise.all([tx.objectStore(LOG).openKeyCursor(null, 'prev'), tx.objectStore(META).get('pruned')]),
  );
  return { newest: typeof last?.key === 'number' ? last.key : 0, pruned: typeof pruned === 'number' ? pruned : 0 };
}

export async function pruneChanges(c: Connection, q: PruneQuery): Promise<number> {
  const limit = atLeast0(q.limit);
  if (limit === 0) return 0;
  const tx = c.transaction([CHANGES, LOG, META], 'readwrite');
  const store = tx.objectStore(CHANGES);
  const recs: LogGroup[] = await store.getAll(null, limit);
  const changes = inOrder(recs, limit);
  let n = 0;
  while (n < changes.length && n < limit) {
    const r = changes[n]!;
    if (!((q.before !== undefined && r.t < q.before) || (q.through !== undefined && r.q <= q.through))) break;
    n++;
  }
  const writes: Array<Promise<unknown>> = [];
  if (n > 0) {
    const last = changes[n - 1]!;
    const after = (ch: LogChange) => ch.q > last.q || (ch.q === last.q && ch.p > last.p);
    for (const rec of recs) {
      const all = expand(rec);
      if (!all.some((ch) => !after(ch))) continue;
      writes.push(store.delete([rec.q, rec.p]));
      // A record pruned part way keeps the rest of its changes, under its first remaining position.
      const rest = all.filter(after);
      if (rest.length) writes.push(...groups(rec.q, rest).map((g) => store.put(g, [g.q, g.p])));
    }
    // Commit records before the last pruned one go too; that one stays, so the newest seq is always known.
    writes.push(tx.objectStore(LOG).delete(c.KeyRange.upperBound(last.q, true)));
    writes.push(tx.objectStore(META).put(last.q, 'pruned'));
  }
  await Promise.all([...writes, tx.done]);
  return n;
}
