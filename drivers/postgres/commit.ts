/**
 * One commit, one statement: the ops, their index entries and tokens go as arrays to `commit_ops`
 * (functions.ts), which checks and writes them atomically and logs them (the driver notifies the store's
 * channel after); a refusal comes back as an SQLSTATE this file turns into a DriverConflict.
 */
import { DriverConflict, type CommitOptions, type CommitResult, type WriteOp } from '../../src/store/driver.js';
import { encodeKey } from '../shared/byte-keys.js';
import type { Connection } from './connect.js';
import type { PgError } from './native.js';
import { storedToken } from './search.js';
import { pgText } from './text.js';

const commitSql = (
  s: string,
) => `SELECT ${s}.commit_ops($1::int[], $2::text[], $3::int[], $4::boolean[], $5::text[], $6::text[],
      $7::text[], $8::int[], $9::int[], $10::bytea[], $11::boolean[], $12::int[], $13::text[], $14::bigint)`;

export async function commit(c: Connection, ops: readonly WriteOp[], options: CommitOptions): Promise<CommitResult> {
  const oStream: Array<string | null> = ops.map((op) => (op.stream !== undefined ? pgText(op.stream) : null));
  const oColl: number[] = [];
  const oId: string[] = [];
  const oExpect: number[] = [];
  const oDel: boolean[] = [];
  const oDoc: Array<string | null> = [];
  const oScope: Array<string | null> = [];
  const eOp: number[] = [];
  const eIx: number[] = [];
  const eKey: Buffer[] = [];
  const eU: boolean[] = [];
  const tTok: string[] = [];
  /** Where each op's entries and tokens end (1-based, inclusive): commit_ops takes slices up to there. */
  const oE: number[] = [];
  const oT: number[] = [];
  // Resolve names first: an unknown collection or index is a programming error, not a conflict.
  ops.forEach((op, k) => {
    const coll = c.collection(op.collection);
    oColl.push(coll.no);
    oId.push(pgText(op.id));
    oExpect.push(op.expect);
    oDel.push(op.type === 'delete');
    if (op.type === 'delete') {
      oDoc.push(null);
      oScope.push(null);
      oE.push(eIx.length);
      oT.push(tTok.length);
      return;
    }
    oDoc.push(JSON.stringify(op.doc));
    for (const [name, keys] of Object.entries(op.keys)) {
      const i = c.index(coll, name);
      for (const key of keys) {
        eOp.push(k + 1);
        eIx.push(i.no);
        eKey.push(encodeKey(key));
        eU.push(i.unique);
      }
    }
    oScope.push(op.terms ? pgText(op.terms.scope) : null);
    if (op.terms) for (const t of new Set(op.terms.tokens)) tTok.push(storedToken(coll.no, op.terms.scope, t));
    oE.push(eIx.length);
    oT.push(tTok.length);
  });
  try {
    const rows = await c.run(
      c.sql(commitSql),
      [
        oColl,
        oId,
        oExpect,
        oDel,
        oDoc,
        oScope,
        oStream,
        oE,
        eIx,
        eKey,
        eU,
        oT,
        tTok,
        Math.floor(options.time ?? Date.now()),
      ],
      false,
    );
    return { seq: Number(rows[0]![0]) };
  } catch (error) {
    throw conflict(c, error, ops, eOp, eIx) ?? error;
  }
}

/** The DriverConflict a failed commit stands for, if it is one. */
function conflict(
  c: Connection,
  error: unknown,
  ops: readonly WriteOp[],
  eOp: number[],
  eIx: number[],
): DriverConflict | undefined {
  const e = (error instanceof Error && 'cause' in error && error.cause ? error.cause : error) as PgError;
  const at = (n: number) => ops[Math.max(0, n - 1)] ?? ops[0]!;
  switch (e.code) {
    case 'BC001': {
      const op = at(Number(e.detail));
      return new DriverConflict('version', op.collection, op.id);
    }
    case 'BC002': {
      const [n, ix] = (e.detail ?? '').split(':').map(Number);
      const op = at(n!);
      return new DriverConflict('unique', op.collection, op.id, c.indexByNo.get(ix!));
    }
    case '23505': {
      // A race the checks in commit_ops could not see: two commits inserting one record or one unique key.
      if (e.constraint === 'docs_id') return new DriverConflict('version', ops[0]!.collection, ops[0]!.id);
      const ix = Number(/\(ix, key\)=\((\d+),/.exec(e.detail ?? '')?.[1]);
      const k = eIx.indexOf(ix);
      const op = at(k >= 0 ? eOp[k]! : 1);
      return new DriverConflict('unique', op.collection, op.id, c.indexByNo.get(ix));
    }
    case '40P01': // deadlock: two commits locking the same records in another order; one retries
    case '40001':
      return new DriverConflict('version', ops[0]!.collection, ops[0]!.id);
    default:
      return undefined;
  }
}
