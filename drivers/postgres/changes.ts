/**
 * The change log: the `changes` table, one row per op under (commit seq, position in the commit), and the meta
 * rows. Reads of "what came after" stop at the log's safe end (functions.ts `log_end`): commits run side by
 * side and finish in any order, and a seq read past one still running would skip it when it lands.
 */
import type { Change, LogBounds, LogPosition, PruneQuery } from '../../src/store/driver.js';
import type { Connection } from './connect.js';
import { fromPgText, pgText } from './text.js';

const changeSql = (s: string) => ({
  changesSince: `SELECT seq, pos, coll, id, type, version, stream, time FROM ${s}.changes_since($1, $2)`,
  streamChanges: `SELECT seq, pos, coll, id, type, version, stream, time FROM ${s}.changes
      WHERE stream = $1 AND (seq, pos) > ($2::bigint, $3::bigint) ORDER BY stream, seq, pos LIMIT $4`,
  // log_end()'s first case in plain SQL, on the statement's one snapshot: when the newest commit visible is older
  // than every transaction still running, it is the end (no older commit can land later); only otherwise does
  // log_end() run (a PL/pgSQL call and its queries, some 20 µs of a read's look). `OFFSET 0` keeps `x` a
  // subquery: pulled up, each use of m and pruned ran its own scan (three of `changes`, 7 µs more a look).
  bounds: `SELECT CASE WHEN x.m IS NULL OR x.m < pg_snapshot_xmin(pg_current_snapshot())::text::bigint + x.base
        THEN greatest(coalesce(x.m, 0), x.pruned) ELSE ${s}.log_end() END, x.pruned
      FROM (SELECT (SELECT max(seq) FROM ${s}.changes) AS m, (SELECT value FROM ${s}.meta WHERE key = 'seqBase') AS base,
        (SELECT value FROM ${s}.meta WHERE key = 'pruned') AS pruned OFFSET 0) x`,
  // One statement: the oldest entries up to the limit, the longest run of them that qualifies, deleted,
  // and meta.pruned raised to the last seq deleted (log_end never answers below it).
  prune: `WITH oldest AS (
        SELECT seq, pos, (time < $1 OR seq <= $2) AS ok, row_number() OVER (ORDER BY seq, pos) AS n
        FROM (SELECT seq, pos, time FROM ${s}.changes ORDER BY seq, pos LIMIT $3) o
      ), run AS (
        SELECT seq, pos FROM oldest WHERE n < coalesce((SELECT min(n) FROM oldest WHERE NOT ok), $3 + 1)
      ), gone AS (
        DELETE FROM ${s}.changes c USING run WHERE c.seq = run.seq AND c.pos = run.pos RETURNING c.seq
      ), raised AS (
        UPDATE ${s}.meta SET value = greatest(value, (SELECT max(seq) FROM gone)) WHERE key = 'pruned' AND EXISTS (SELECT 1 FROM gone)
      )
      SELECT count(*)::int FROM gone`,
});

type ChangeRow = [string, number, number, string, 'put' | 'delete', number, string | null, string];

const toChange = (c: Connection, [seq, pos, coll, id, type, version, stream, time]: ChangeRow): Change => ({
  seq: Number(seq),
  pos,
  collection: c.namesByNo.get(coll) ?? String(coll),
  id: fromPgText(id),
  type,
  version,
  ...(stream !== null ? { stream: fromPgText(stream) } : {}),
  time: Number(time),
});

export async function changesSince(c: Connection, seq: number, limit = 1000): Promise<Change[]> {
  const rows = (await c.run(c.sql(changeSql).changesSince, [seq, Math.max(0, Math.floor(limit))])) as ChangeRow[];
  return rows.map((row) => toChange(c, row));
}

export async function streamChanges(
  c: Connection,
  stream: string,
  after: LogPosition,
  limit: number,
): Promise<Change[]> {
  const rows = (await c.run(c.sql(changeSql).streamChanges, [
    pgText(stream),
    after.seq,
    after.pos,
    Math.max(0, Math.floor(limit)),
  ])) as ChangeRow[];
  return rows.map((row) => toChange(c, row));
}

export async function logBounds(c: Connection): Promise<LogBounds> {
  const [[newest, pruned]] = (await c.run(c.sql(changeSql).bounds, [])) as [[string, string]];
  return { newest: Number(newest), pruned: Number(pruned) };
}

export async function pruneChanges(c: Connection, q: PruneQuery): Promise<number> {
  const limit = Math.max(0, Math.floor(q.limit));
  if (limit === 0) return 0;
  // Infinity has no bigint: a bound past every time and seq.
  const bound = (x: number | undefined, none: number) =>
    x === undefined ? none : Math.max(-1, Math.min(Number.MAX_SAFE_INTEGER, Math.floor(x)));
  const rows = await c.run(c.sql(changeSql).prune, [bound(q.before, -1), bound(q.through, -1), limit], false);
  return Number(rows[0]![0]);
}
