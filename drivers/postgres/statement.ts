/**
 * A commit as one SQL statement made for its shape (the collection and kind of each op, in run order), where
 * `commit_ops` (functions.ts) walks the ops in a PL/pgSQL loop: data-modifying CTEs, one per op and side table,
 * and the change rows. PostgreSQL plans each shape once per connection (a named statement, commit.ts), and a
 * commit pays no interpreter per op. What the statement does is what the ops say, as `commit_ops` does it:
 *
 * - `b` (`commit_begin()`) runs first: every write reads it, so the writers' lock is held before the transaction
 *   has an id, as readers of the log expect (`log_end`).
 * - A put of a new record inserts it (`ON CONFLICT (id) DO NOTHING`; into a transient table plainly, its primary
 *   key refusing a record already there), a put over one updates it where its
 *   version is the one expected, a delete deletes it so; an add adds to its counters (an upsert when it may
 *   create the record). Side rows (layout.ts) are upserted by their varying parts, and the stale ones deleted:
 *   the two never touch one row, so their order inside the statement does not matter.
 * - The adds come last (commit.ts `runOrder`) and wait for everything before them (`g` counts those CTEs' rows,
 *   and the adds read the commit's row from it): the change rows of the ops before them, their side rows and the
 *   event are written first. An add's row (a label's counters) is shared by writers and held from its update
 *   to the commit's end, so what runs in between is only the other adds and their change rows. (Without the
 *   gate PostgreSQL ran the CTEs no one reads after the final SELECT: the side and change rows after the adds.)
 * - The final SELECT looks at every op's CTE in run order: one that wrote nothing refuses the whole commit
 *   (`commit_refuse`, SQLSTATE BC001 with the op's position), atomically, as any error in one statement does.
 *
 * Commits of other shapes go to `commit_ops` (commit.ts `shaped`): a load, ops that must see each other's writes
 * (two on one record, or two on a collection with a unique index), and commits of more than MOST_OPS ops.
 */
import type { CommitOptions } from '../../src/store/driver.js';
import { conflictKey, type CollectionPlan, type SideGroup } from './layout.js';
import { beginsWith } from './functions.js';
import { ident, pgText, textArray } from './text.js';

/** An op as this file takes it: commit.ts `RowOp` with its values laid out (commit.ts `valuesOf`). */
export interface ShapedOp {
  kind: 0 | 1 | 2;
  plan: CollectionPlan;
  /** The id as stored (`keyText`) and as logged (`pgText`). */
  id: string;
  cid: string;
  expect: number;
  pos: number;
  stream: string | null;
  /** A put's (or a creating add's) document as JSON text. */
  doc: string | undefined;
  /** Key columns and flags in plan order, then counters (a put's or a creating add's). */
  values: Array<string | null> | undefined;
  /** An add's deltas, by counter. */
  deltas: number[] | undefined;
  /** A put's search tokens as a text[] literal (search.ts `storedTokenArray`). */
  tokens: string | undefined;
  /** Side rows per group of the plan (by its position in `plan.groups`). */
  sides: Array<Array<Array<string | Buffer>>> | undefined;
}

/** The most ops a shaped statement takes (past it, commit_ops: a statement per shape must stay small). */
export const MOST_OPS = 24;

type Mode = 'insert' | 'update' | 'delete' | 'add' | 'create';

const modeOf = (op: ShapedOp): Mode =>
  op.kind === 1
    ? 'delete'
    : op.kind === 2
      ? op.doc !== undefined
        ? 'create'
        : 'add'
      : op.expect
        ? 'update'
        : 'insert';

/** The shape of a commit: what its statement's text depends on. */
export const shapeOf = (ops: readonly ShapedOp[]): string => ops.map((op) => `${op.plan.no}${modeOf(op)[0]}`).join(',');

/** The statement's parameters for these ops (their order is the one `shapedText` numbers them in). */
export function shapedValues(ops: readonly ShapedOp[], time: number, u?: CommitOptions['unchanged']): unknown[] {
  const out: unknown[] = u ? [time, pgText(u.stream), u.after] : [time];
  for (const op of ops) {
    const mode = modeOf(op);
    out.push(op.id, op.cid, op.pos, op.stream);
    if (mode === 'update' || mode === 'delete') out.push(op.expect);
    if (mode === 'delete') continue;
    if (mode !== 'update' && mode !== 'insert') out.push(...op.deltas!);
    if (mode === 'add') continue;
    out.push(op.doc, ...op.values!);
    // Text arrays as literals made here (text.ts `textArray`); byte arrays as pg makes them.
    if (op.plan.search && mode !== 'create') out.push(op.tokens ?? '{}');
    op.plan.groups.forEach((g, k) => {
      const rows = op.sides![k] ?? [];
      g.columns.forEach((_, j) => {
        const column = rows.map((r) => r[j]!);
        out.push(g.bytes ? column : textArray(column as string[]));
      });
    });
  }
  return out;
}

/**
 * The statement of a shape (`ops`: any commit of it). `unchanged`: it first refuses (position 0) when the log
 * holds an entry of a stream after a seq, or was pruned past it (CommitOptions.unchanged).
 */
export function shapedText(s: string, ops: readonly ShapedOp[], unchanged = false): string {
  let n = 1;
  const next = (type: string) => `$${++n}::${type}`;
  const ctes = [beginsWith(s).slice('WITH '.length)];
  const checks: string[] = [];
  if (unchanged) {
    const [stream, after] = [next('text'), next('bigint')];
    checks.push(`WHEN ${movedPast(s, stream, after)} THEN ${s}.commit_refuse(0)`);
  }
  let logged: string[] = [];
  /** What comes before the adds: the CTEs the gate waits for (`g`), and where the adds read the commit's row. */
  const written: string[] = [];
  let src = 'b';
  const log = (name: string, rows: string[]) =>
    `${name} AS (INSERT INTO ${s}.changes (seq, pos, coll, id, type, version, stream, time)
    SELECT b.seq, v.pos, v.coll, v.id, v.type, v.version, v.stream, $1::bigint FROM b,
      (VALUES ${rows.join(', ')}) AS v(pos, coll, id, type, version, stream) RETURNING 1)`;
  const push = (...more: string[]) => {
    ctes.push(...more);
    if (src === 'b') written.push(...more.map((cte) => cte.slice(0, cte.indexOf(' '))));
  };
  ops.forEach((op, k) => {
    const p = op.plan;
    const mode = modeOf(op);
    if ((mode === 'add' || mode === 'create') && src === 'b' && written.length) {
      // The first add: everything before it (and its change rows) is written first, so the counters' rows,
      // which writers share and each commit holds from its add to its end, are held the least.
      push(log('logged0', logged));
      logged = [];
      ctes.push(
        `g AS MATERIALIZED (SELECT b.seq FROM b WHERE ${written.map((c) => `(SELECT count(*) FROM ${c})`).join(' + ')} >= 0)`,
      );
      src = 'g';
    }
    const t = `${s}.${ident(p.table)}`;
    const w = `w${k}`;
    const [id, cid, pos, stream] = ['text', 'text', 'int', 'text'].map(next) as [string, string, string, string];
    // (Every parameter appears in the text: PostgreSQL must know its type.)
    const expect = mode === 'update' || mode === 'delete' ? next('int') : '0';
    let version = mode === 'insert' ? '1' : mode === 'update' ? `${expect} + 1` : expect;
    if (mode === 'delete') {
      push(`${w} AS (DELETE FROM ${t} t USING b WHERE t.id = ${id} AND t.version = ${expect} RETURNING 1)`);
      p.groups.forEach((g, j) => {
        push(`${w}s${j} AS (DELETE FROM ${s}.${ident(g.table)} e USING b WHERE e.id = ${id} RETURNING 1)`);
      });
    } else {
      const deltas = mode === 'update' || mode === 'insert' ? [] : p.counters.map(() => next('bigint'));
      const bump = p.counters.map((c, j) => `${ident(c.column)} = t.${ident(c.column)} + ${deltas[j]}`);
      if (mode === 'add')
        push(
          `${w} AS (UPDATE ${t} t SET version = t.version + 1${bump.map((x) => `, ${x}`).join('')} FROM ${src} WHERE t.id = ${id} RETURNING t.version)`,
        );
      else {
        const doc = next('json');
        const cols = p.columns.map((c) => next(c.type));
        const counters = p.counters.map(() => next('bigint'));
        // A created record's counters: as given, then added to.
        const initial = mode === 'create' ? counters.map((c, j) => `${c} + ${deltas[j]}`) : counters;
        const tokens = p.search ? [mode === 'create' ? `'{}'::text[]` : next('text[]')] : [];
        const names = [
          ...p.columns.map((c) => ident(c.name)),
          ...p.counters.map((c) => ident(c.column)),
          ...(p.search ? ['tokens'] : []),
        ];
        const vals = [...cols, ...initial, ...tokens];
        if (mode === 'update')
          push(
            `${w} AS (UPDATE ${t} t SET version = t.version + 1, doc = ${doc}${names.map((c, j) => `, ${c} = ${vals[j]}`).join('')} FROM b WHERE t.id = ${id} AND t.version = ${expect} RETURNING t.version)`,
          );
        else
          push(
            `${w} AS (INSERT INTO ${t} AS t (id, version, doc${names.map((c) => `, ${c}`).join('')}) SELECT ${id}, 1, ${doc}${vals.map((v) => `, ${v}`).join('')} FROM ${src} WHERE true${onConflict(p, mode, bump)} RETURNING t.version)`,
          );
        p.groups.forEach((g, j) => {
          push(
            ...sideRows(
              s,
              g,
              `${w}s${j}`,
              id,
              g.columns.map(() => next(`${g.bytes ? 'bytea' : 'text'}[]`)),
              mode,
              w,
            ),
          );
        });
      }
      if (mode === 'add' || mode === 'create') version = `(SELECT version FROM ${w})`;
    }
    checks.push(`WHEN NOT EXISTS (SELECT 1 FROM ${w}) THEN ${s}.commit_refuse(${pos} + 1)`);
    logged.push(`(${pos}, ${p.no}, ${cid}, '${mode === 'delete' ? 'delete' : 'put'}', ${version}, ${stream})`);
  });
  ctes.push(log('logged', logged));
  return `WITH ${ctes.join(',\n  ')}
  SELECT b.seq, b.prev, CASE ${checks.join(' ')} END FROM b`;
}

/**
 * How a new record meets one already there: a creating add adds to it, a put of a new record writes nothing (its
 * CTE's empty answer refuses the commit). A transient table's put inserts plainly: a record already there is a
 * unique violation of its partition's primary key, which commit.ts turns into the same refusal. (ON CONFLICT on
 * a partitioned table costs a partition's arbiter and conflict state each statement: 12–20 µs of an insert's
 * 410–470, docs/benchmarks.md.)
 */
function onConflict(p: CollectionPlan, mode: Mode, bump: string[]): string {
  if (mode === 'create')
    return ` ON CONFLICT (${conflictKey(p)}) DO UPDATE SET version = t.version + 1${bump.map((x) => `, ${x}`).join('')}`;
  return p.slab === undefined ? ` ON CONFLICT (${conflictKey(p)}) DO NOTHING` : '';
}

/**
 * Whether the log holds an entry of `stream` after seq `after`, or was pruned past it (SQL; both parameters). As
 * the stream's newest seq, read down `changes_by_stream` in any plan: the stream as a range of one value, so no
 * plan can take it for a constant and walk the primary key backwards instead. (`EXISTS (… seq > after)` let a
 * generic plan guess a third of the log matches and scan it whole for the first match: 24 ms a commit at 100k
 * posts. `max(seq) … WHERE stream = $1` let it walk `changes_pkey` down from the newest entry, filtering on the
 * stream, once most of the log was one blog's stream: 183 ms a commit at 1M posts.)
 */
export const movedPast = (s: string, stream: string, after: string) =>
  `((SELECT seq FROM ${s}.changes WHERE stream >= ${stream} AND stream <= ${stream} ORDER BY stream DESC, seq DESC LIMIT 1) > ${after} OR (SELECT value FROM ${s}.meta WHERE key = 'pruned') > ${after})`;

/**
 * A put's side rows of one group: upserted by their varying parts (a copied part that moved is rewritten,
 * an unchanged row left alone), and, over an existing record, the rows whose varying parts are gone deleted.
 * A creating add writes them only when it created the record (its version is 1).
 */
function sideRows(
  s: string,
  g: SideGroup,
  name: string,
  id: string,
  arrays: string[],
  mode: Mode,
  w: string,
): string[] {
  const gt = `${s}.${ident(g.table)}`;
  const cols = g.columns.map(ident);
  const copied = g.columns.filter((c) => !g.varying.includes(c)).map(ident);
  const rows = `unnest(${arrays.join(', ')}) AS x(${cols.join(', ')})`;
  const from = mode === 'create' ? `${w}, ${rows} WHERE ${w}.version = 1` : `b, ${rows} WHERE true`;
  const out = [
    `${name} AS (INSERT INTO ${gt} AS e (id, ${cols.join(', ')}) SELECT ${id}, x.* FROM ${from} ON CONFLICT (id, ${g.varying.map(ident).join(', ')}) ${
      copied.length
        ? `DO UPDATE SET ${copied.map((c) => `${c} = excluded.${c}`).join(', ')} WHERE (${copied.map((c) => `e.${c}`).join(', ')}) IS DISTINCT FROM (${copied.map((c) => `excluded.${c}`).join(', ')})`
        : 'DO NOTHING'
    } RETURNING 1)`,
  ];
  if (mode === 'update') {
    const at = g.varying.map((c) => arrays[g.columns.indexOf(c)]!);
    out.push(
      `${name}d AS (DELETE FROM ${gt} e USING b WHERE e.id = ${id} AND NOT EXISTS (SELECT 1 FROM unnest(${at.join(', ')}) AS x(${g.varying.map(ident).join(', ')}) WHERE ${g.varying.map((c) => `e.${ident(c)} = x.${ident(c)}`).join(' AND ')}) RETURNING 1)`,
    );
  }
  return out;
}
