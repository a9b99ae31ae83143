/**
 * One commit, one readwrite transaction over every store it touches: it reads what it must check, then
 * writes, with no await of anything but this transaction's own requests in between (a foreign await would
 * let IndexedDB auto-commit half way). The commit's sequence number is the key `~log` gives its record.
 */
import { DriverConflict, type CommitResult, type Key, type WriteOp } from '../../src/store/driver.js';
import type { Connection } from './connect.js';
import { CHANGES, LOG, TERMS, type LogChange, type Rec, type TermsRec } from './schema.js';
import { termKeys } from './search.js';

type WriteTx = ReturnType<typeof writeTx>;
const writeTx = (c: Connection, stores: string[]) => c.transaction(stores, 'readwrite');

const refOf = (collection: string, id: string) => `${collection}\0${id}`;
const uniqueRef = (collection: string, index: string, key: Key) => `${collection}\0${index}\0${JSON.stringify(key)}`;

/**
 * Pure inserts of distinct records need no read: `add` refuses an existing id and IndexedDB refuses a
 * taken unique key, so the transaction does the checking; when it refuses, the batch runs again with
 * `read`, to name the precondition that failed. Anything else reads versions first.
 */
export async function commit(c: Connection, ops: readonly WriteOp[], time: number, read = false): Promise<CommitResult> {
  const stores = new Set<string>([LOG, CHANGES]);
  // (Two inserts of one id in a batch: the second `add` is refused, and the rerun names the conflict.)
  let insertsOnly = !read;
  for (const op of ops) {
    const def = c.collection(op.collection);
    stores.add(op.collection);
    if (def.search) stores.add(TERMS(op.collection));
    if (op.type === 'put') {
      for (const name of Object.keys(op.keys)) {
        if (!def.indexes.some((i) => i.name === name)) throw new Error(`unknown index ${name}`);
      }
    }
    if (op.type !== 'put' || op.expect !== 0) insertsOnly = false;
  }
  const tx = writeTx(c, [...stores]);
  if (!insertsOnly) {
    const conflict = await check(c, tx, ops);
    if (conflict) {
      abort(tx);
      throw conflict;
    }
  }

  // Write: every request's promise and the transaction's `done` are awaited together, so a refused one
  // (a taken id or unique key) rejects the commit, and no rejection goes unhandled.
  const writes: Array<Promise<unknown>> = [];
  const changes: Array<Omit<LogChange, 'q'>> = [];
  for (const op of ops) {
    const store = tx.objectStore(op.collection);
    const search = c.collection(op.collection).search;
    const terms = search ? tx.objectStore(TERMS(op.collection)) : undefined;
    if (op.type === 'put') {
      const rec: Rec = {
        id: op.id,
        v: op.expect + 1,
        doc: op.doc,
        k: op.keys as Record<string, Key[]>,
        ...(op.terms && search ? { s: op.terms.scope } : {}),
      };
      writes.push(insertsOnly ? store.add(rec) : store.put(rec));
      if (terms && op.terms) writes.push(terms.put({ id: op.id, t: termKeys(op.terms.scope, op.terms.tokens) } satisfies TermsRec));
      else if (terms && !insertsOnly) writes.push(terms.delete(op.id));
    } else {
      writes.push(store.delete(op.id));
      if (terms) writes.push(terms.delete(op.id));
    }
    changes.push({
      p: changes.length,
      c: op.collection,
      id: op.id,
      op: op.type,
      v: op.type === 'put' ? op.expect + 1 : op.expect,
      t: time,
      ...(op.stream !== undefined ? { s: op.stream } : {}),
    });
  }
  // One log record per commit; its auto-incremented key is the commit's sequence number, which the
  // changes are filed under as soon as it is known (still inside the transaction).
  const logged = tx
    .objectStore(LOG)
    .add({ t: time })
    .then(async (key) => {
      const q = key as number;
      const store = tx.objectStore(CHANGES);
      await Promise.all(changes.map((change) => store.add({ q, ...change } satisfies LogChange, [q, change.p])));
      return q;
    });
  try {
    const [seq] = await Promise.all([logged, ...writes, tx.done]);
    return { seq };
  } catch (e) {
    const error = e as Error;
    if (error?.name === 'ConstraintError') {
      if (insertsOnly) return commit(c, ops, time, true);
      // After reads, not expected (check saw every key this transaction claims), but never a crash.
      throw new DriverConflict('unique', ops[0]!.collection, ops[0]!.id);
    }
    throw error;
  }
}

/** Checks every precondition in batch order, as the state will be when earlier ops apply. */
async function check(c: Connection, tx: WriteTx, ops: readonly WriteOp[]): Promise<DriverConflict | undefined> {
  // All reads at once: current records (absent: version 0, no keys), and the holders of the unique keys
  // that puts claim. (A failed read aborts the transaction.)
  const current = new Map<string, { v: number; k: Record<string, Key[]> }>();
  const holders = new Map<string, string | null>();
  const reads: Array<Promise<unknown>> = [];
  for (const op of ops) {
    const ref = refOf(op.collection, op.id);
    const store = tx.objectStore(op.collection);
    if (!current.has(ref)) {
      current.set(ref, { v: 0, k: {} });
      reads.push(store.get(op.id).then((rec?: Rec) => rec && current.set(ref, rec)));
    }
    if (op.type !== 'put') continue;
    for (const index of c.collection(op.collection).indexes) {
      for (const key of index.unique ? (op.keys[index.name] ?? []) : []) {
        const u = uniqueRef(op.collection, index.name, key);
        if (holders.has(u)) continue;
        holders.set(u, null);
        reads.push(
          store
            .index(index.name)
            .getKey([...key])
            .then((id) => id !== undefined && holders.set(u, id as string)),
        );
      }
    }
  }
  await Promise.all(reads);
  for (const op of ops) {
    const ref = refOf(op.collection, op.id);
    const state = current.get(ref)!;
    if (state.v !== op.expect) return new DriverConflict('version', op.collection, op.id);
    const uniques = c.collection(op.collection).indexes.filter((i) => i.unique);
    // The record's current unique keys are released, then its new ones claimed.
    for (const index of uniques) {
      for (const key of state.k[index.name] ?? []) {
        const u = uniqueRef(op.collection, index.name, key);
        if (holders.get(u) === op.id) holders.set(u, null);
      }
    }
    if (op.type === 'put') {
      for (const index of uniques) {
        for (const key of op.keys[index.name] ?? []) {
          const u = uniqueRef(op.collection, index.name, key);
          const holder = holders.get(u);
          if (holder != null && holder !== op.id) return new DriverConflict('unique', op.collection, op.id, index.name);
          holders.set(u, op.id);
        }
      }
    }
    current.set(ref, op.type === 'put' ? { v: op.expect + 1, k: op.keys as Record<string, Key[]> } : { v: 0, k: {} });
  }
  return undefined;
}

function abort(tx: WriteTx): void {
  try {
    tx.abort();
  } catch {
    // Already finished or aborting.
  }
}
