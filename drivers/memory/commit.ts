/**
 * One commit: every precondition is checked first, against the state as it will be when earlier ops in the
 * batch apply; then the ops apply, each record's old index entries and tokens out and its new ones in, and
 * the change log grows by one entry per op.
 */
import {
  addAsPut,
  compareKeys,
  DriverConflict,
  heldKeys,
  type Change,
  type CommitOptions,
  type CommitResult,
  type DeleteOp,
  type Key,
  type PutOp,
  type StoredDoc,
  type TermsItem,
  type WriteOp,
} from '../../src/store/driver.js';
import { compareEntries, copyIn, deepFreeze, uniqueKey, type Collection, type Slot, type Store } from './schema.js';

export function commit(store: Store, given: readonly WriteOp[], options: CommitOptions): CommitResult {
  const u = options.unchanged;
  if (u && store.log.movedPast(u.stream, u.after)) throw new DriverConflict('stale', '', u.stream);
  const ops = lower(store, given);
  check(store, ops);
  const seq = ++store.log.seq;
  const time = options.time ?? Date.now();
  ops.forEach((op, pos) => {
    const c = store.collection(op.collection);
    const old = c.slots.get(op.id);
    if (old) unindex(store, c, op.id, old);
    let version = op.expect;
    if (op.type === 'put') {
      const slot: Slot = {
        version: op.expect + 1,
        doc: copyIn(op.doc),
        keys: deepFreeze(structuredClone(op.keys) as Record<string, Key[]>),
        ...(op.terms ? { terms: termsIn(op.terms) } : {}),
      };
      c.slots.set(op.id, slot);
      index(store, c, op.id, slot);
      version = slot.version;
    } else {
      c.slots.delete(op.id);
    }
    const change: Change = {
      seq,
      pos,
      collection: op.collection,
      id: op.id,
      type: op.type,
      version,
      time,
      ...(op.stream !== undefined ? { stream: op.stream } : {}),
    };
    store.log.append(change);
  });
  store.log.trim();
  return { seq };
}

/**
 * Adds as the puts they amount to (on the record as the batch's earlier ops leave it), and every put's keys as
 * the record holds them (`positive` indexes).
 */
function lower(store: Store, ops: readonly WriteOp[]): Array<PutOp | DeleteOp> {
  const pending = new Map<string, StoredDoc | undefined>();
  return ops.map((op) => {
    const c = store.collection(op.collection);
    const ref = `${op.collection}\0${op.id}`;
    const slot = c.slots.get(op.id);
    const now = pending.has(ref) ? pending.get(ref) : slot && { id: op.id, version: slot.version, doc: slot.doc };
    const out = op.type === 'add' ? addAsPut(c.def, op, now) : op;
    if (out.type === 'delete') {
      pending.set(ref, undefined);
      return out;
    }
    pending.set(ref, { id: op.id, version: out.expect + 1, doc: out.doc });
    return { ...out, keys: heldKeys(c.def, out.doc, out.keys) };
  });
}

/** Throws the first precondition that fails, in batch order. */
function check(store: Store, ops: ReadonlyArray<PutOp | DeleteOp>): void {
  const pending = new Map<string, number>(); // "collection\0id" -> version after earlier ops (0: absent)
  const claimed = new Map<string, string>(); // "collection\0index\0key" -> id, for unique keys
  const released = new Set<string>();
  for (const op of ops) {
    const c = store.collection(op.collection);
    const ref = `${op.collection}\0${op.id}`;
    const current = pending.has(ref) ? pending.get(ref)! : (c.slots.get(op.id)?.version ?? 0);
    if (current !== op.expect) throw new DriverConflict('version', op.collection, op.id);
    const old = c.slots.get(op.id);
    if (old && !pending.has(ref)) {
      for (const name of c.unique.keys()) {
        for (const key of old.keys[name] ?? []) released.add(`${op.collection}\0${name}\0${uniqueKey(key)}`);
      }
    }
    if (op.type === 'put') {
      for (const [name, map] of c.unique) {
        for (const key of op.keys[name] ?? []) {
          const ref2 = `${op.collection}\0${name}\0${uniqueKey(key)}`;
          const holder = claimed.get(ref2) ?? (released.has(ref2) ? undefined : map.get(uniqueKey(key)));
          if (holder !== undefined && holder !== op.id) throw new DriverConflict('unique', op.collection, op.id, name);
          claimed.set(ref2, op.id);
        }
      }
      for (const name of Object.keys(op.keys)) if (!c.indexes.has(name)) throw new Error(`unknown index ${name}`);
      pending.set(ref, op.expect + 1);
    } else {
      pending.set(ref, 0);
    }
  }
}

/** Where an entry goes in its index's sorted entries. */
function slotOf(entries: readonly { key: Key; id: string }[], e: { key: Key; id: string }): number {
  let lo = 0;
  let hi = entries.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (compareEntries(entries[mid]!, e) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

const termsIn = (terms: NonNullable<PutOp['terms']>) => ({ scope: terms.scope, tokens: [...new Set(terms.tokens)] });

/** Adds a record's index entries, unique keys and tokens. */
function index(store: Store, c: Collection, id: string, slot: Slot): void {
  for (const [name, keys] of Object.entries(slot.keys)) {
    const entries = store.index(c, name);
    for (const key of keys) {
      const e = { key, id };
      entries.splice(slotOf(entries, e), 0, e);
      c.unique.get(name)?.set(uniqueKey(key), id);
    }
  }
  if (slot.terms) indexTerms(c, id, slot.terms);
}

function indexTerms(c: Collection, id: string, terms: NonNullable<Slot['terms']>): void {
  let byToken = c.tokens.get(terms.scope);
  if (!byToken) c.tokens.set(terms.scope, (byToken = new Map()));
  for (const t of terms.tokens) {
    let set = byToken.get(t);
    if (!set) byToken.set(t, (set = new Set()));
    set.add(id);
  }
}

/** StorageDriver.addTerms: records still at the version named and without terms get them; nothing else changes. */
export function addTerms(store: Store, collection: string, items: readonly TermsItem[]): void {
  const c = store.collection(collection);
  for (const { id, version, terms } of items) {
    const slot = c.slots.get(id);
    if (!slot || slot.version !== version || slot.terms) continue;
    const withTerms = { ...slot, terms: termsIn(terms) };
    c.slots.set(id, withTerms);
    indexTerms(c, id, withTerms.terms);
  }
}

/** Removes a record's index entries, unique keys and tokens. */
function unindex(store: Store, c: Collection, id: string, slot: Slot): void {
  for (const [name, keys] of Object.entries(slot.keys)) {
    const entries = store.index(c, name);
    for (const key of keys) {
      const at = slotOf(entries, { key, id });
      if (at < entries.length && entries[at]!.id === id && compareKeys(entries[at]!.key, key) === 0)
        entries.splice(at, 1);
      const map = c.unique.get(name);
      if (map && map.get(uniqueKey(key)) === id) map.delete(uniqueKey(key));
    }
  }
  if (slot.terms) {
    const byToken = c.tokens.get(slot.terms.scope);
    for (const t of slot.terms.tokens) {
      const set = byToken?.get(t);
      set?.delete(id);
      if (set && set.size === 0) byToken!.delete(t);
    }
  }
}
