/**
 * One commit, one statement: the ops go to `commit_ops` (functions.ts) as arrays — each op's column values, its
 * tokens and its side-table rows, laid out as the collection's plan says (layout.ts) — which checks and writes
 * them atomically and logs them (the driver notifies the store's channel after); a refusal comes back as an
 * SQLSTATE this file turns into a DriverConflict.
 */
import {
  DriverConflict,
  type CommitOptions,
  type CommitResult,
  type JsonObject,
  type Key,
  type PutOp,
  type WriteOp,
} from '../../src/store/driver.js';
import { encodeKey } from '../shared/byte-keys.js';
import type { Connection } from './connect.js';
import { sideGroups } from './functions.js';
import type { CollectionPlan } from './layout.js';
import type { PgError } from './native.js';
import { storedTokenArray, storedTokens } from './search.js';
import { MOST_OPS, movedPast, type ShapedOp, shapedText, shapedValues, shapeOf } from './statement.js';
import { keyText, pgText } from './text.js';

/** What commit_ops does with an op: 0 put, 1 delete, 2 add, 3 load (a copy with its version, not logged). */
export type Kind = 0 | 1 | 2 | 3;

/**
 * An op as the store takes it (`doc` as JSON text, `tokens` as stored, or `terms` as a put gives them), for a
 * commit or a copy (migrate.ts).
 */
export interface RowOp {
  kind: Kind;
  collection: string;
  id: string;
  /** The version expected (a load: the version to give it). */
  expect: number;
  docText?: string;
  doc?: JsonObject;
  keys?: Readonly<Record<string, readonly Key[]>>;
  tokens?: readonly string[];
  /** A put's search terms (stored as `storedTokens` says). */
  terms?: PutOp['terms'];
  stream?: string;
  /** Position in the commit as the caller gave it (the change log's `pos`). */
  pos: number;
  /** An add's deltas, by counter. */
  add?: Readonly<Record<string, number>>;
}

/** One op's values: its key columns, flags and counters, and its side rows per group. */
export interface OpValues {
  values: Array<string | null>;
  sides: Map<number, Array<Array<string | Buffer>>>;
}

const fail = (p: CollectionPlan, id: string, what: string): never => {
  throw new Error(`postgres driver: ${p.name}/${id}: ${what}`);
};

/** The column values and side rows of a put: the keys laid onto the plan's columns, checked against it. */
export function valuesOf(p: CollectionPlan, groupNo: (t: string) => number, op: RowOp): OpValues {
  const cols = new Map<string, string>();
  const set = (column: string, value: string) => {
    if (column === 'id') {
      if (value !== op.id) fail(p, op.id, `key part id is ${JSON.stringify(value)}`);
      return;
    }
    const had = cols.get(column);
    if (had !== undefined && had !== value)
      fail(p, op.id, `${column} is ${JSON.stringify(had)} in one index and ${JSON.stringify(value)} in another`);
    cols.set(column, value);
  };
  const keys = op.keys ?? {};
  for (const name of Object.keys(keys)) if (!p.indexes.has(name)) throw new Error(`unknown index ${name}`);
  const sides = new Map<number, Array<Array<string | Buffer>>>();
  const rows = new Map<number, Map<string, Map<string, string>>>();
  for (const i of p.indexes.values()) {
    const list = keys[i.name] ?? [];
    if (i.kind === 'main') {
      // (A positive index's record may come without its key: the other indexes give its columns.)
      if (i.entries === 'one' && !i.positive ? list.length !== 1 : list.length > 1)
        fail(
          p,
          op.id,
          `index ${i.name} takes ${i.entries === 'one' ? 'one entry' : 'at most one entry'}, got ${list.length}`,
        );
      if (i.flag) cols.set(i.flag, list.length ? 't' : 'f');
    }
    if (i.kind === 'bytes') {
      const g = groupNo(i.table);
      sides.set(g, [...(sides.get(g) ?? []), ...list.map((k) => [encodeKey(k)])]);
      continue;
    }
    for (const key of list) {
      if (key.length !== i.parts.length)
        fail(p, op.id, `index ${i.name} keys have ${i.parts.length} parts, got ${key.length}`);
      if (i.kind === 'main') {
        key.forEach((part, k) => {
          set(i.parts[k]!, part);
        });
        continue;
      }
      const group = i.group!;
      const g = groupNo(group.table);
      const byVarying = rows.get(g) ?? new Map<string, Map<string, string>>();
      rows.set(g, byVarying);
      const vary =
        group.varying.length === 1
          ? key[i.parts.indexOf(group.varying[0]!)]!
          : JSON.stringify(group.varying.map((c) => key[i.parts.indexOf(c)]));
      const row = byVarying.get(vary) ?? new Map<string, string>();
      byVarying.set(vary, row);
      key.forEach((part, k) => {
        const c = i.parts[k]!;
        if (c === 'id') {
          if (part !== op.id) fail(p, op.id, `key part id is ${JSON.stringify(part)}`);
          return;
        }
        const had = row.get(c);
        if (had !== undefined && had !== part) fail(p, op.id, `index ${i.name}: ${c} differs between entries`);
        row.set(c, part);
      });
    }
  }
  for (const group of p.groups) {
    if (group.bytes) continue;
    const g = groupNo(group.table);
    const out: Array<Array<string | Buffer>> = [];
    for (const row of rows.get(g)?.values() ?? []) {
      if (row.size !== group.columns.length)
        fail(p, op.id, `the entries of ${group.indexes.map((i) => i.name).join(' and ')} do not pair up`);
      out.push(group.columns.map((c) => keyText(row.get(c)!)));
    }
    sides.set(g, out);
  }
  const values: Array<string | null> = p.columns.map((c) => {
    const v = cols.get(c.name);
    if (v === undefined) {
      if (c.notNull) fail(p, op.id, `no index gives ${c.name}`);
      return null;
    }
    return c.type === 'boolean' ? v : keyText(v);
  });
  if (p.counters.length) {
    const doc = op.doc ?? (JSON.parse(op.docText ?? '{}') as JsonObject);
    for (const c of p.counters) values.push(String(counterOf(p, op.id, doc[c.field])));
  }
  return { values, sides };
}

function counterOf(p: CollectionPlan, id: string, value: unknown): number {
  if (value === undefined || value === null) return 0;
  if (typeof value !== 'number' || !Number.isSafeInteger(value))
    fail(p, id, `counter ${JSON.stringify(value)} is not a whole number`);
  return value as number;
}

/** The arrays commit_ops takes, for ops in the order they run. */
export function encode(c: Connection, ops: readonly RowOp[], time: number): unknown[] {
  const groups = sideGroups(c.plans);
  const groupIndex = new Map(groups.map((g, k) => [g.table, k]));
  const groupNo = (t: string) => groupIndex.get(t)!;
  const a = {
    coll: [] as number[],
    id: [] as string[],
    cid: [] as string[],
    pos: [] as number[],
    kind: [] as number[],
    expect: [] as number[],
    /** Each op's document as JSON text ('null': none), sent as one JSON array. */
    doc: [] as string[],
    stream: [] as Array<string | null>,
    vEnd: [] as number[],
    v: [] as Array<string | null>,
    tEnd: [] as number[],
    t: [] as string[],
  };
  const g = groups.map(() => ({ end: [] as number[], values: [] as Array<string | Buffer> }));
  for (const op of ops) {
    const p = c.collection(op.collection);
    a.coll.push(p.no);
    a.id.push(keyText(op.id));
    a.cid.push(pgText(op.id));
    a.pos.push(op.pos);
    a.kind.push(op.kind);
    a.expect.push(op.expect);
    a.stream.push(op.stream !== undefined ? pgText(op.stream) : null);
    a.doc.push(op.docText ?? (op.doc ? JSON.stringify(op.doc) : 'null'));
    if (op.kind === 2) {
      // An add: a delta per counter, then (to create the record if missing) its values as a put's.
      for (const x of deltasOf(p, op)) a.v.push(String(x));
    }
    if (op.kind === 0 || op.kind === 3 || (op.kind === 2 && op.doc)) {
      const { values, sides } = valuesOf(p, groupNo, op);
      a.v.push(...values);
      for (const [k, rows] of sides) for (const row of rows) g[k]!.values.push(...row);
      if (p.search) a.t.push(...(op.tokens ?? (op.terms ? storedTokens(p.no, op.terms.scope, op.terms.tokens) : [])));
    }
    a.vEnd.push(a.v.length);
    a.tEnd.push(a.t.length);
    for (const x of g) x.end.push(x.values.length);
  }
  return [
    a.coll,
    a.id,
    a.cid,
    a.pos,
    a.kind,
    a.expect,
    `[${a.doc.join(',')}]`,
    a.stream,
    a.vEnd,
    a.v,
    a.tEnd,
    a.t,
    ...g.flatMap((x) => [x.end, x.values]),
    time,
  ];
}

/** A driver op as commit_ops takes it. */
export function rowOp(op: WriteOp, pos: number): RowOp {
  if (op.type === 'add') return row(2, op, pos, 0, op.create, op.keys, undefined, op.add);
  if (op.type === 'delete') return row(1, op, pos, op.expect, undefined, undefined, undefined, undefined);
  return row(0, op, pos, op.expect, op.doc, op.keys, op.terms, undefined);
}

/** A RowOp with every field present (absent ones undefined): the ops of every kind share one shape. */
const row = (
  kind: Kind,
  op: WriteOp,
  pos: number,
  expect: number,
  doc: JsonObject | undefined,
  keys: RowOp['keys'],
  terms: RowOp['terms'],
  add: RowOp['add'],
): RowOp => ({
  kind,
  collection: op.collection,
  id: op.id,
  expect,
  docText: undefined,
  doc,
  keys,
  tokens: undefined,
  terms,
  stream: op.stream,
  pos,
  add,
});

/**
 * The order the ops run in: adds last (each holds its counter's row lock until the commit ends, so the less of
 * the commit comes after it, the less writers sharing a counter wait), in the order of their records (so commits
 * adding to the same counters lock them in one order, and never wait on each other in a circle), unless a record
 * has both an add and another op in the batch (then as given). Each keeps its position in the log.
 */
export function runOrder(rows: RowOp[]): RowOp[] {
  const adds = rows.filter((r) => r.kind === 2);
  if (!adds.length) return rows;
  const others = rows.filter((r) => r.kind !== 2);
  const key = (r: RowOp) => `${r.collection}\0${r.id}`;
  const touched = new Set(others.map(key));
  if (adds.some((r) => touched.has(key(r)))) return rows;
  return [...others, ...adds.sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0))];
}

/**
 * The ops as statement.ts takes them, or undefined for a commit it has no statement for (commit_ops takes it):
 * a load, or ops that must see each other's writes — two on one record, or two on a collection with a unique
 * index (one batch may move a key from one record to another).
 */
function shaped(c: Connection, rows: readonly RowOp[]): ShapedOp[] | undefined {
  if (rows.length > MOST_OPS) return undefined;
  const seen = new Set<string>();
  const out: ShapedOp[] = [];
  for (const op of rows) {
    const p = c.collection(op.collection);
    const { unique, groupNo } = planned(p);
    const key = unique ? op.collection : `${op.collection}\0${op.id}`;
    if (op.kind === 3 || seen.has(key)) return undefined;
    seen.add(key);
    const writes = op.kind === 0 || (op.kind === 2 && op.doc !== undefined);
    const laid = writes ? valuesOf(p, groupNo, op) : undefined;
    out.push({
      kind: op.kind,
      plan: p,
      id: keyText(op.id),
      cid: pgText(op.id),
      expect: op.expect,
      pos: op.pos,
      stream: op.stream !== undefined ? pgText(op.stream) : null,
      doc: writes ? (op.docText ?? JSON.stringify(op.doc)) : undefined,
      values: laid?.values,
      deltas: op.kind === 2 ? deltasOf(p, op) : undefined,
      // (Tokens as given: a repeated one does no harm, a GIN index keeps each key of a row once.)
      tokens: op.terms && p.search ? storedTokenArray(p.no, op.terms.scope, op.terms.tokens) : undefined,
      sides: laid ? p.groups.map((_, k) => laid.sides.get(k) ?? []) : undefined,
    });
  }
  return out;
}

const plannedOf = new WeakMap<CollectionPlan, { unique: boolean; groupNo: (table: string) => number }>();

/** What `shaped` asks of a collection's plan each op: whether it has a unique index; a side table's group number. */
function planned(p: CollectionPlan) {
  let found = plannedOf.get(p);
  if (!found) {
    const groups = new Map(p.groups.map((g, k) => [g.table, k]));
    found = { unique: [...p.indexes.values()].some((i) => i.unique), groupNo: (t) => groups.get(t)! };
    plannedOf.set(p, found);
  }
  return found;
}

/** An add's deltas, one per counter of the collection (0 where it adds nothing). */
function deltasOf(p: CollectionPlan, op: RowOp): number[] {
  for (const field of Object.keys(op.add ?? {}))
    if (!p.counters.some((x) => x.field === field)) throw new Error(`${p.name} has no counter ${field}`);
  return p.counters.map((x) => counterOf(p, op.id, op.add?.[x.field] ?? 0));
}

/**
 * A commit's statement and parameters: the statement of its shape (statement.ts), else the call of commit_ops;
 * `wrapped`: the answer is commit_ops's array (in the row's first column). `base`: the log position of its first
 * op (a commit after others in one transaction, group-commit.ts).
 */
export function commitStatement(
  c: Connection,
  ops: readonly WriteOp[],
  time: number,
  u?: CommitOptions['unchanged'],
  base = 0,
): { text: string; values: unknown[]; wrapped: boolean } {
  // Resolve names first: an unknown collection or index is a programming error, not a conflict.
  const rows = runOrder(ops.map((op, k) => rowOp(op, base + k)));
  const shapedOps = shaped(c, rows);
  if (!shapedOps) return { text: c.commitSql, values: encode(c, rows, time), wrapped: true };
  return {
    text: c.shaped(`${u ? 'u:' : ''}${shapeOf(shapedOps)}`, () => shapedText(c.s, shapedOps, !!u)),
    values: shapedValues(shapedOps, time, u),
    wrapped: false,
  };
}

export async function commit(c: Connection, ops: readonly WriteOp[], options: CommitOptions): Promise<CommitResult> {
  const u = options.unchanged;
  const { text, values, wrapped } = commitStatement(c, ops, Math.floor(options.time ?? Date.now()), u);
  try {
    // commit_ops takes no check: the log is looked at just before it (as a look before the call would).
    if (u && wrapped) {
      const look = `SELECT ${movedPast(c.s, '$1::text', '$2::bigint')}`;
      if ((await c.run(look, [pgText(u.stream), u.after], false))[0]![0])
        throw new DriverConflict('stale', '', u.stream);
    }
    return answer((await c.run(text, values, false))[0]!, wrapped);
  } catch (error) {
    throw conflict(c, error, ops, u) ?? error;
  }
}

/** What a commit statement answered (its one row), as the commit's result. */
export function answer(row: unknown[], wrapped: boolean): CommitResult {
  const [seq, previous] = (wrapped ? row[0] : row) as [string, string | null];
  return { seq: Number(seq), ...(previous !== null ? { previous: Number(previous) } : {}) };
}

/** The DriverConflict a failed commit stands for, if it is one. */
function conflict(
  c: Connection,
  error: unknown,
  ops: readonly WriteOp[],
  u?: CommitOptions['unchanged'],
): DriverConflict | undefined {
  const e = (error instanceof Error && 'cause' in error && error.cause ? error.cause : error) as PgError;
  const at = (n: number) => ops[Math.max(0, n - 1)] ?? ops[0]!;
  switch (e.code) {
    case 'BC001': {
      // Position 0: the log moved past `unchanged` (statement.ts).
      if (u && e.detail === '0') return new DriverConflict('stale', '', u.stream);
      const op = at(Number(e.detail));
      return new DriverConflict('version', op.collection, op.id);
    }
    case '23505': {
      // A transient table's primary key (it has no other unique index): a put of a record already there, which
      // its statement inserts without ON CONFLICT (statement.ts `onConflict`); refused as any other op's would be.
      const held = c.plans.find((p) => p.slab !== undefined && e.table?.startsWith(`${p.table}$`));
      if (held) {
        const puts = ops.filter((o) => o.type === 'put' && o.collection === held.name);
        const op = puts.find((o) => e.detail?.startsWith(`Key (id, slot)=(${keyText(o.id)}, `)) ?? puts[0] ?? ops[0]!;
        return new DriverConflict('version', op.collection, op.id);
      }
      // A unique key taken: the index is the constraint's; the op, the first that gives that index a key.
      const found = c.byConstraint(e.constraint ?? '');
      if (!found) return new DriverConflict('version', ops[0]!.collection, ops[0]!.id);
      const op =
        ops.find(
          (o) => o.type === 'put' && o.collection === found.collection && (o.keys[found.index]?.length ?? 0) > 0,
        ) ?? ops[0]!;
      return new DriverConflict('unique', op.collection, op.id, found.index);
    }
    case '40P01': // deadlock: two commits locking the same records in another order; one retries
    case '40001':
      return new DriverConflict('version', ops[0]!.collection, ops[0]!.id);
    default:
      return undefined;
  }
}
