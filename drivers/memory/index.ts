import {
  compareKeys,
  DriverConflict,
  mergeWalks,
  suffixInBounds,
  type Change,
  type CommitOptions,
  type CommitResult,
  type LogBounds,
  type LogPosition,
  type PruneQuery,
  type IndexedDoc,
  type IndexEntry,
  type JsonObject,
  type Key,
  type KeysQuery,
  type ListQuery,
  type RangeQuery,
  type SearchQuery,
  type StorageDriver,
  type StoredDoc,
  type StoreSchema,
  type WriteOp,
  type BlobStore,
} from '../../src/store/driver.js';
import { memoryBlobs } from './blobs.js';

/** One stored record: the frozen document plus what the driver needs to undo its index entries. */
interface Slot {
  version: number;
  doc: Readonly<JsonObject>;
  keys: Readonly<Record<string, readonly Key[]>>;
  terms?: { scope: string; tokens: readonly string[] };
}

interface Entry {
  key: Key;
  id: string;
}

interface Collection {
  slots: Map<string, Slot>;
  /** Per index: entries sorted by key (then id), so ranges are a binary search plus a walk. */
  indexes: Map<string, Entry[]>;
  unique: Map<string, Map<string, string>>;
  /** scope -> token -> ids */
  tokens: Map<string, Map<string, Set<string>>>;
}

export interface MemoryDriverOptions {
  /** Keep at most this many change-log entries (oldest dropped first). Default: unbounded. */
  maxChanges?: number;
}

const uniqueKey = (key: Key) => JSON.stringify(key);

function compareEntries(a: Entry, b: Entry): number {
  return compareKeys(a.key, b.key) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

/** First position whose entry is not before `probe` (or, with `after`, strictly after it). */
function search(entries: readonly Entry[], probe: Key, after: boolean): number {
  let lo = 0;
  let hi = entries.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const c = compareKeys(entries[mid]!.key, probe);
    if (c < 0 || (after && c === 0)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Start (inclusive) and end (exclusive) positions of a range query in a sorted entry array. */
function bounds(entries: readonly Entry[], q: RangeQuery): [number, number] {
  const start = q.lower ? search(entries, [...q.prefix, ...q.lower.key], !!q.lower.open) : search(entries, q.prefix, false);
  let end: number;
  if (q.upper) {
    end = search(entries, [...q.prefix, ...q.upper.key], !q.upper.open);
  } else {
    // Keys with the prefix are contiguous from `start`: find where they stop.
    let lo = start;
    let hi = entries.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (hasPrefix(entries[mid]!.key, q.prefix)) lo = mid + 1;
      else hi = mid;
    }
    end = lo;
  }
  return [start, Math.max(start, end)];
}

function hasPrefix(key: Key, prefix: Key): boolean {
  if (key.length < prefix.length) return false;
  for (let i = 0; i < prefix.length; i++) if (key[i] !== prefix[i]) return false;
  return true;
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

/** Documents are copied in and frozen, so neither the caller nor the core can change stored data by accident. */
const copyIn = (doc: JsonObject): Readonly<JsonObject> => deepFreeze(structuredClone(doc));

class MemoryDriver implements StorageDriver {
  private collections = new Map<string, Collection>();
  private log: Change[] = [];
  /** Per stream, its entries in log order (the same objects as in `log`). */
  private streams = new Map<string, Change[]>();
  private seq = 0;
  private pruned = 0;
  private closed = false;
  readonly blobs: BlobStore = memoryBlobs(() => {
    if (this.closed) throw new Error('memory driver is closed');
  });

  constructor(private readonly options: MemoryDriverOptions) {}

  async open(schema: StoreSchema): Promise<void> {
    for (const def of schema.collections) {
      const existing = this.collections.get(def.name);
      const c: Collection = existing ?? { slots: new Map(), indexes: new Map(), unique: new Map(), tokens: new Map() };
      for (const index of def.indexes) {
        if (!c.indexes.has(index.name)) c.indexes.set(index.name, []);
        if (index.unique && !c.unique.has(index.name)) c.unique.set(index.name, new Map());
      }
      this.collections.set(def.name, c);
    }
  }

  private coll(name: string): Collection {
    if (this.closed) throw new Error('memory driver is closed');
    const c = this.collections.get(name);
    if (!c) throw new Error(`unknown collection ${name}`);
    return c;
  }

  private index(c: Collection, name: string): Entry[] {
    const entries = c.indexes.get(name);
    if (!entries) throw new Error(`unknown index ${name}`);
    return entries;
  }

  async get(collection: string, id: string): Promise<StoredDoc | undefined> {
    const slot = this.coll(collection).slots.get(id);
    return slot && { id, version: slot.version, doc: slot.doc as JsonObject };
  }

  async getMany(collection: string, ids: readonly string[]): Promise<Array<StoredDoc | undefined>> {
    const c = this.coll(collection);
    return ids.map((id) => {
      const slot = c.slots.get(id);
      return slot && { id, version: slot.version, doc: slot.doc as JsonObject };
    });
  }

  async getByIndex(collection: string, index: string, key: Key): Promise<StoredDoc | undefined> {
    const c = this.coll(collection);
    const map = c.unique.get(index);
    if (!map) throw new Error(`index ${index} is not unique`);
    const id = map.get(uniqueKey(key));
    return id === undefined ? undefined : this.get(collection, id);
  }

  async list(q: ListQuery): Promise<IndexedDoc[]> {
    const c = this.coll(q.collection);
    const entries = this.index(c, q.index);
    const [start, end] = bounds(entries, q);
    const out: IndexedDoc[] = [];
    const limit = Math.max(0, q.limit);
    if (q.direction === 'asc') {
      for (let i = start; i < end && out.length < limit; i++) out.push(this.hit(c, entries[i]!));
    } else {
      for (let i = end - 1; i >= start && out.length < limit; i--) out.push(this.hit(c, entries[i]!));
    }
    return out;
  }

  private hit(c: Collection, e: Entry): IndexedDoc {
    const slot = c.slots.get(e.id)!;
    return { id: e.id, key: e.key, version: slot.version, doc: slot.doc as JsonObject };
  }

  async count(q: RangeQuery): Promise<number> {
    const c = this.coll(q.collection);
    const [start, end] = bounds(this.index(c, q.index), q);
    return end - start;
  }

  async keys(q: KeysQuery): Promise<IndexEntry[]> {
    const c = this.coll(q.collection);
    const entries = this.index(c, q.index);
    const limit = Math.max(0, Math.floor(q.limit));
    const walks = q.prefixes.map((prefix) => {
      const [start, end] = bounds(entries, { ...q, prefix });
      return q.direction === 'asc' ? entries.slice(start, Math.min(end, start + limit)) : entries.slice(Math.max(start, end - limit), end).reverse();
    });
    return mergeWalks(walks, q.prefixes[0]?.length ?? 0, q.direction, limit).map((e) => ({ id: e.id, key: e.key }));
  }

  /**
   * Two ways to one ordered page, whichever reads less: walk the merged index in order and test each record
   * against the token sets (cheap when matches are dense), or take the rarest token's records, keep those
   * whose index entries fall in range, and sort them (cheap when they are few). The walk gives up after as
   * many records as the rarest token has, so neither way reads more than about twice the cheaper one.
   */
  async search(q: SearchQuery): Promise<IndexEntry[]> {
    const c = this.coll(q.collection);
    const limit = Math.max(0, Math.floor(q.limit));
    const byToken = c.tokens.get(q.scope);
    if (!byToken || q.tokens.length === 0 || limit === 0) return [];
    const sets: Set<string>[] = [];
    for (const token of new Set(q.tokens)) {
      const set = byToken.get(token);
      if (!set) return [];
      sets.push(set);
    }
    sets.sort((a, b) => a.size - b.size);
    const rarest = sets[0]!;
    const matches = (id: string) => sets.every((s) => s.has(id));
    const width = q.prefixes[0]?.length ?? 0;
    const entries = this.index(c, q.index);

    // Ordered walk, one cursor per prefix, merged by suffix.
    const cursors = q.prefixes.map((prefix) => {
      const [start, end] = bounds(entries, { ...q, prefix });
      return { start, end, at: q.direction === 'asc' ? start : end - 1 };
    });
    const sign = q.direction === 'asc' ? 1 : -1;
    const out: IndexEntry[] = [];
    let last: Key | undefined;
    for (let budget = rarest.size; budget > 0 && out.length < limit; budget--) {
      let best = -1;
      for (let w = 0; w < cursors.length; w++) {
        const k = cursors[w]!;
        if (k.at < k.start || k.at >= k.end) continue;
        if (best < 0 || sign * compareKeys(entries[k.at]!.key.slice(width), entries[cursors[best]!.at]!.key.slice(width)) < 0) best = w;
      }
      if (best < 0) return out; // walked the whole range
      const e = entries[cursors[best]!.at]!;
      cursors[best]!.at += sign;
      const suffix = e.key.slice(width);
      if (last && compareKeys(suffix, last) === 0) continue;
      last = suffix;
      if (matches(e.id)) out.push({ id: e.id, key: e.key });
    }
    if (out.length >= limit) return out;

    // Too sparse for the walk: sort the rarest token's records that fall in range.
    const prefixes = new Map(q.prefixes.map((p, i) => [JSON.stringify(p), i]));
    const walks: IndexEntry[][] = q.prefixes.map(() => []);
    for (const id of rarest) {
      if (!matches(id)) continue;
      for (const key of c.slots.get(id)!.keys[q.index] ?? []) {
        const w = prefixes.get(JSON.stringify(key.slice(0, width)));
        if (w !== undefined && key.length > width && suffixInBounds(key.slice(width), q)) walks[w]!.push({ id, key });
      }
    }
    for (const walk of walks) walk.sort((a, b) => sign * compareKeys(a.key, b.key));
    return mergeWalks(walks, width, q.direction, limit);
  }

  async commit(ops: readonly WriteOp[], options: CommitOptions = {}): Promise<CommitResult> {
    // Check every precondition first, against the state as it will be when earlier ops in the batch apply.
    const pending = new Map<string, number>(); // "collection\0id" -> version after earlier ops (0: absent)
    const claimed = new Map<string, string>(); // "collection\0index\0key" -> id, for unique keys
    const released = new Set<string>();
    for (const op of ops) {
      const c = this.coll(op.collection);
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
    const seq = ++this.seq;
    const time = options.time ?? Date.now();
    let pos = 0;
    const log = (op: WriteOp, version: number) => {
      const change: Change = {
        seq,
        pos: pos++,
        collection: op.collection,
        id: op.id,
        type: op.type,
        version,
        time,
        ...(op.stream !== undefined ? { stream: op.stream } : {}),
      };
      this.log.push(change);
      if (op.stream !== undefined) {
        let list = this.streams.get(op.stream);
        if (!list) this.streams.set(op.stream, (list = []));
        list.push(change);
      }
    };
    for (const op of ops) {
      const c = this.coll(op.collection);
      const old = c.slots.get(op.id);
      if (old) this.unindex(c, op.id, old);
      if (op.type === 'put') {
        const slot: Slot = {
          version: op.expect + 1,
          doc: copyIn(op.doc),
          keys: deepFreeze(structuredClone(op.keys) as Record<string, Key[]>),
          ...(op.terms ? { terms: { scope: op.terms.scope, tokens: [...new Set(op.terms.tokens)] } } : {}),
        };
        c.slots.set(op.id, slot);
        this.indexSlot(c, op.id, slot);
        log(op, slot.version);
      } else {
        c.slots.delete(op.id);
        log(op, op.expect);
      }
    }
    const max = this.options.maxChanges;
    if (max !== undefined && this.log.length > max) this.drop(this.log.length - max);
    return { seq };
  }

  private indexSlot(c: Collection, id: string, slot: Slot): void {
    for (const [name, keys] of Object.entries(slot.keys)) {
      const entries = this.index(c, name);
      for (const key of keys) {
        const e = { key, id };
        let lo = 0;
        let hi = entries.length;
        while (lo < hi) {
          const mid = (lo + hi) >>> 1;
          if (compareEntries(entries[mid]!, e) < 0) lo = mid + 1;
          else hi = mid;
        }
        entries.splice(lo, 0, e);
        c.unique.get(name)?.set(uniqueKey(key), id);
      }
    }
    if (slot.terms) {
      let byToken = c.tokens.get(slot.terms.scope);
      if (!byToken) c.tokens.set(slot.terms.scope, (byToken = new Map()));
      for (const t of slot.terms.tokens) {
        let set = byToken.get(t);
        if (!set) byToken.set(t, (set = new Set()));
        set.add(id);
      }
    }
  }

  private unindex(c: Collection, id: string, slot: Slot): void {
    for (const [name, keys] of Object.entries(slot.keys)) {
      const entries = this.index(c, name);
      for (const key of keys) {
        const e = { key, id };
        let lo = 0;
        let hi = entries.length;
        while (lo < hi) {
          const mid = (lo + hi) >>> 1;
          if (compareEntries(entries[mid]!, e) < 0) lo = mid + 1;
          else hi = mid;
        }
        if (lo < entries.length && entries[lo]!.id === id && compareKeys(entries[lo]!.key, key) === 0) entries.splice(lo, 1);
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

  async changesSince(seq: number, limit = 1000): Promise<Change[]> {
    if (this.closed) throw new Error('memory driver is closed');
    // The log is ordered by seq, so find the first entry after `seq` by binary search.
    let lo = 0;
    let hi = this.log.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.log[mid]!.seq <= seq) lo = mid + 1;
      else hi = mid;
    }
    return this.log.slice(lo, lo + limit).map((c) => ({ ...c }));
  }

  async streamChanges(stream: string, after: LogPosition, limit: number): Promise<Change[]> {
    if (this.closed) throw new Error('memory driver is closed');
    const list = this.streams.get(stream) ?? [];
    let lo = 0;
    let hi = list.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const c = list[mid]!;
      if (c.seq < after.seq || (c.seq === after.seq && c.pos <= after.pos)) lo = mid + 1;
      else hi = mid;
    }
    return list.slice(lo, lo + Math.max(0, Math.floor(limit))).map((c) => ({ ...c }));
  }

  async logBounds(): Promise<LogBounds> {
    if (this.closed) throw new Error('memory driver is closed');
    return { newest: this.seq, pruned: this.pruned };
  }

  async pruneChanges(q: PruneQuery): Promise<number> {
    if (this.closed) throw new Error('memory driver is closed');
    let n = 0;
    const limit = Math.max(0, Math.floor(q.limit));
    while (n < Math.min(limit, this.log.length)) {
      const c = this.log[n]!;
      if (!((q.before !== undefined && c.time < q.before) || (q.through !== undefined && c.seq <= q.through))) break;
      n++;
    }
    this.drop(n);
    return n;
  }

  /** Removes the `n` oldest entries (the oldest of each stream go with them). */
  private drop(n: number): void {
    if (n <= 0) return;
    for (const c of this.log.splice(0, n)) {
      this.pruned = Math.max(this.pruned, c.seq);
      if (c.stream === undefined) continue;
      const list = this.streams.get(c.stream)!;
      list.shift();
      if (list.length === 0) this.streams.delete(c.stream);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
  }
}

/** An in-process driver: fast, and gone when the process ends. Good for tests, previews and caches. */
export function memoryDriver(options: MemoryDriverOptions = {}): StorageDriver {
  return new MemoryDriver(options);
}
