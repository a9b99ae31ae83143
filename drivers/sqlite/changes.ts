/** The change log: the `changes` table, one row per op under (commit seq, position in the commit). */
import type { Change, LogBounds, LogPosition, PruneQuery, WriteOp } from '../../src/store/driver.js';
import { type Connection, LIMIT, PROCESS_WRITES } from './connect.js';
import { META_SQL } from './schema.js';

const CHANGE_SQL = {
  logChange: `INSERT INTO changes (seq, pos, coll, id, type, version, stream, time) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  changesSince: `SELECT seq, pos, coll, id, type, version, stream, time FROM changes WHERE seq > ? ORDER BY seq, pos ${LIMIT}`,
  streamChanges: `SELECT seq, pos, coll, id, type, version, stream, time FROM changes
    WHERE stream = ? AND (seq, pos) > (?, ?) ORDER BY stream, seq, pos ${LIMIT}`,
  oldestChanges: `SELECT seq, pos, time FROM changes ORDER BY seq, pos ${LIMIT}`,
  pruneThrough: `DELETE FROM changes WHERE (seq, pos) <= (?, ?)`,
  /** Whether a stream has an entry after a seq, or the log was pruned past it (CommitOptions.unchanged). */
  movedPast: `SELECT EXISTS (SELECT 1 FROM changes WHERE stream = ? AND seq > ?)
    OR (SELECT value FROM meta WHERE key = 'pruned') > ?`,
  /** Moves when another connection commits (this connection's own commits are counted by the driver). */
  /** The newest seq (meta keeps the seq of an empty commit, which logs nothing) and how far pruning went: one statement. */
  bounds: `SELECT max(coalesce((SELECT max(seq) FROM changes), 0), (SELECT value FROM meta WHERE key = 'seq')),
    (SELECT value FROM meta WHERE key = 'pruned')`,
} as const;

type ChangeRow = [number, number, number, string, 'put' | 'delete', number, string | null, number];

/** Logs one op of a commit (inside its transaction). */
export function logChange(
  c: Connection,
  seq: number,
  pos: number,
  coll: number,
  op: WriteOp,
  version: number,
  time: number,
): void {
  c.stmt(CHANGE_SQL.logChange).run(seq, pos, coll, op.id, op.type, version, op.stream ?? null, time);
}

const toChange = (c: Connection, [seq, pos, coll, id, type, version, stream, time]: ChangeRow): Change => ({
  seq,
  pos,
  collection: c.namesByNo.get(coll) ?? String(coll),
  id,
  type,
  version,
  ...(stream !== null ? { stream } : {}),
  time,
});

export function changesSince(c: Connection, seq: number, limit = 1000): Change[] {
  const rows = c
    .stmt(CHANGE_SQL.changesSince)
    .raw()
    .all(seq, Math.max(0, Math.floor(limit))) as ChangeRow[];
  return rows.map((row) => toChange(c, row));
}

export function streamChanges(c: Connection, stream: string, after: LogPosition, limit: number): Change[] {
  const rows = c
    .stmt(CHANGE_SQL.streamChanges)
    .raw()
    .all(stream, after.seq, after.pos, Math.max(0, Math.floor(limit))) as ChangeRow[];
  return rows.map((row) => toChange(c, row));
}

/**
 * Asked at the start of nearly every call (the core's record cache). Other connections' commits are looked for
 * (connect.ts `dataVersion`: a read of the WAL index's headers, and data_version only when they moved) once per
 * event-loop turn, and again after any commit of this process: whatever reached this process from elsewhere (a
 * request, a message, a timer) starts a turn of its own,
 * so a call sees every commit that could have come before it (docs/design.md §15). The bounds themselves are read
 * again only when this connection (`c.writes`) or another one (data_version) wrote since the last read.
 */
export function logBounds(c: Connection): Readonly<LogBounds> {
  const known = c.bounds;
  if (known && known.writes === c.writes && (c.exclusive || c.lookedThisTurn === PROCESS_WRITES.n)) {
    return known.value;
  }
  const version = c.exclusive ? 0 : c.dataVersion();
  if (!c.exclusive && !c.db.inTransaction) lookedThisTurn(c);
  if (known && known.version === version && known.writes === c.writes) return known.value;
  const [newest, pruned] = c.stmt(CHANGE_SQL.bounds).raw().get() as [number, number];
  const value = { newest: Number(newest), pruned: Number(pruned) };
  // Inside a transaction the host opened, what this reads may still roll back: nothing is kept then.
  c.bounds = c.db.inTransaction ? undefined : { version, writes: c.writes, value };
  return value;
}

/**
 * Marks this turn as looked, until a commit of this process or the turn's end: the tick queue runs once the
 * microtasks of the callback that started the turn are done (an immediate would run a loop later, after the
 * next I/O callbacks — too late).
 */
function lookedThisTurn(c: Connection): void {
  if (c.lookedThisTurn === undefined) process.nextTick(c.turnOver);
  c.lookedThisTurn = PROCESS_WRITES.n;
}

export function pruneChanges(c: Connection, q: PruneQuery): number {
  const limit = Math.max(0, Math.floor(q.limit));
  return c.db
    .transaction(() => {
      const rows = c.stmt(CHANGE_SQL.oldestChanges).raw().all(limit) as Array<[number, number, number]>;
      let n = 0;
      while (n < rows.length) {
        const [seq, , time] = rows[n]!;
        if (!((q.before !== undefined && time < q.before) || (q.through !== undefined && seq <= q.through))) break;
        n++;
      }
      if (n === 0) return 0;
      c.wrote();
      const [seq, pos] = rows[n - 1]!;
      // meta.seq keeps the counter right if the newest entries go; meta.pruned says how far the log is gone.
      c.stmt(META_SQL.raiseMeta).run(seq, 'seq');
      c.stmt(META_SQL.raiseMeta).run(seq, 'pruned');
      c.stmt(CHANGE_SQL.pruneThrough).run(seq, pos);
      return n;
    })
    .immediate();
}

/** Whether `stream` has an entry after `seq`, or the log was pruned past it (inside the commit's transaction). */
export function movedPast(c: Connection, stream: string, seq: number): boolean {
  return c.stmt(CHANGE_SQL.movedPast).pluck().get(stream, seq, seq) === 1;
}
