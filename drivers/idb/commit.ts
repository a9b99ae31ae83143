/**
 * One commit, one readwrite transaction over every store it touches: it reads what it must check, then
 * writes, with no await of anything but this transaction's own requests in between (a foreign await would
 * let IndexedDB auto-commit half way). The commit's sequence number is the key `~log` gives its record.
 */
import { unwrap } from 'idb';
import {
  addAsPut,
  DriverConflict,
  heldKeys,
  type CommitResult,
  type DeleteOp,
  type Key,
  type PutOp,
  type StoredDoc,
  type WriteOp,
} from '../../src/store/driver.js';
import type { Connection } from './connect.js';
import { groups } from './changes.js';
import { loadedPostings, loadPostings } from './lazy-postings.js';
import { CHANGES, LOG, type LogChange, type Rec } from './schema.js';
import { DEAD, hasPostings, POST, SEG } from './ranges.js';
import type { PostingDoc } from './segments.js';

type WriteTx = ReturnType<typeof writeTx>;
const writeTx = (c: Connection, stores: string[]) => c.transaction(stores, 'readwrite');

const refOf = (collection: string, id: string) => `${collection}\0${id}`;
const uniqueRef = (collection: string, index: string, key: Key) => `${collection}\0${index}\0${JSON.stringify(key)}`;

/**
 * A record written with `expect: 0` (an insert) needs no read: `add` refuses an existing id and IndexedDB
 * refuses a taken unique key, so the transaction does that checking; when it refuses, the batch runs again
 * with `read`, to name the precondition that failed. Every other op reads its record (and the holders of the
 * unique keys it claims) first. So a pulled page of new records is written without reading them.
 */
export async function commit(
  c: Connection,
  given: readonly WriteOp[],
  time: number,
  read = false,
): Promise<CommitResult> {
  const stores = new Set<string>([LOG, CHANGES]);
  for (const op of given) {
    const def = c.collection(op.collection);
    stores.add(op.collection);
    if (hasPostings(def))
      for (const store of [SEG(op.collection), POST(op.collection), DEAD(op.collection)]) stores.add(store);
    if (op.type !== 'delete') {
      for (const name of Object.keys(op.keys)) {
        if (!def.indexes.some((i) => i.name === name)) throw new Error(`unknown index ${name}`);
      }
    }
  }
  // The postings code, loaded before the transaction starts (awaiting it inside would end the transaction).
  const seg = given.some((op) => hasPostings(c.collection(op.collection)))
    ? (loadedPostings() ?? (await loadPostings()))
    : undefined;
  /** An insert trusted to the transaction's own refusal (a second one of an id in the batch is refused too). */
  const trusted = (op: Lowered) => !read && op.type === 'put' && op.expect === 0;
  const tx = writeTx(c, [...stores]);
  const ops = await lower(c, tx, given);
  // The checks' reads go first and the writes right behind them, unawaited: requests run in order, so the
  // reads see the store as it was, and a failed check aborts the transaction, writes and all. So a commit sent
  // while another is still being written builds its requests meanwhile, not once that one is done.
  const checked = ops.every(trusted) ? undefined : check(c, tx, ops, trusted);

  // Write. The records go out as plain requests (idb's `unwrap`): a page of 500 posts is 500 requests, and a
  // promise for each costs more than the request. A refused one (a taken id or unique key) aborts the
  // transaction, whose `done` rejects with its error; the other promises are awaited with it.
  const writes: Array<Promise<unknown>> = [];
  const raw = new Map<string, IDBObjectStore>();
  const plain = (name: string) => raw.get(name) ?? raw.set(name, unwrap(tx.objectStore(name))).get(name)!;
  // Which request was refused, and why (not every IndexedDB names it in the transaction's error).
  let refused: DOMException | null = null;
  const noteRefusal = function (this: IDBRequest) {
    refused ??= this.error;
  };
  const changes: Array<Omit<LogChange, 'q'>> = [];
  // Per collection with postings: the documents (one new segment: search terms and keyed indexes' entries
  // together), and the versions written over.
  const postings = new Map<
    string,
    { docs: PostingDoc[]; dead: Map<string, number>; deleted: Set<string>; inserted: Set<string> }
  >();
  for (const op of ops) {
    const store = plain(op.collection);
    const def = c.collection(op.collection);
    let p = postings.get(op.collection);
    if (seg && hasPostings(def)) {
      if (!p) postings.set(op.collection, (p = { docs: [], dead: new Map(), deleted: new Set(), inserted: new Set() }));
      if (op.expect > 0) p.dead.set(op.id, op.expect);
      else p.inserted.add(op.id);
      if (op.type === 'delete') p.deleted.add(op.id);
    }
    if (op.type === 'put') {
      const rec: Rec = {
        id: op.id,
        v: op.expect + 1,
        doc: op.doc,
        k: op.keys as Record<string, Key[]>,
        ...(op.terms && def.search ? { s: op.terms.scope } : {}),
      };
      (trusted(op) ? store.add(rec) : store.put(rec)).onerror = noteRefusal;
      p?.docs.push(...seg!.docsOf(def, op.id, rec.v, op.keys, op.terms));
    } else {
      store.delete(op.id).onerror = noteRefusal;
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
  for (const [collection, { docs, dead, deleted, inserted }] of postings)
    writes.push(seg!.addPostings(tx, c.KeyRange, collection, docs, dead, deleted, inserted));
  // One log record per commit; its auto-incremented key is the commit's sequence number, which the
  // changes are filed under as soon as it is known (still inside the transaction): one record per stream.
  const logged = tx
    .objectStore(LOG)
    .add({ t: time })
    .then(async (key) => {
      const q = key as number;
      const store = tx.objectStore(CHANGES);
      await Promise.all(groups(q, changes).map((group) => store.add(group, [q, group.p])));
      return q;
    });
  if (checked) {
    // (Should the check fail, the writes' and the transaction's failures that follow the abort are its own.)
    for (const p of [logged, ...writes, tx.done]) p.catch(() => {});
    const conflict = await checked;
    if (conflict) {
      abort(tx);
      throw conflict;
    }
  }
  try {
    const [seq] = await Promise.all([logged, ...writes, tx.done]);
    return { seq };
  } catch (e) {
    const error = (refused as Error | null) ?? (e as Error);
    if (error?.name === 'ConstraintError') {
      if (!read) return commit(c, given, time, true);
      // After reads, not expected (check saw every key this transaction claims), but never a crash.
      throw new DriverConflict('unique', ops[0]!.collection, ops[0]!.id);
    }
    throw error;
  }
}

type Lowered = PutOp | DeleteOp;

/**
 * Adds as the puts they amount to, on the records as the batch's earlier ops leave them (read in this
 * transaction: awaiting its own requests keeps it open), and every put's keys as the record holds them.
 */
async function lower(c: Connection, tx: WriteTx, ops: readonly WriteOp[]): Promise<Lowered[]> {
  const stored = new Map<string, StoredDoc | undefined>();
  await Promise.all(
    ops
      .filter((op) => op.type === 'add')
      .map(async (op) => {
        const rec = (await tx.objectStore(op.collection).get(op.id)) as Rec | undefined;
        stored.set(refOf(op.collection, op.id), rec && { id: rec.id, version: rec.v, doc: rec.doc });
      }),
  );
  const pending = new Map<string, StoredDoc | undefined>();
  return ops.map((op) => {
    const def = c.collection(op.collection);
    const ref = refOf(op.collection, op.id);
    const out = op.type === 'add' ? addAsPut(def, op, pending.has(ref) ? pending.get(ref) : stored.get(ref)) : op;
    if (out.type === 'delete') {
      pending.set(ref, undefined);
      return out;
    }
    pending.set(ref, { id: out.id, version: out.expect + 1, doc: out.doc });
    return { ...out, keys: heldKeys(def, out.doc, out.keys) };
  });
}

/**
 * Checks every precondition in batch order, as the state will be when earlier ops apply. A `trusted` insert
 * reads nothing (the transaction refuses it if its id or a unique key it claims is taken).
 */
async function check(
  c: Connection,
  tx: WriteTx,
  ops: readonly Lowered[],
  trusted: (op: Lowered) => boolean,
): Promise<DriverConflict | undefined> {
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
      if (!trusted(op)) reads.push(store.get(op.id).then((rec?: Rec) => rec && current.set(ref, rec)));
    }
    if (op.type !== 'put' || trusted(op)) continue;
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
