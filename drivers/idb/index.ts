/**
 * The IndexedDB driver, on the `idb` package: blogkit in the browser, offline.
 *
 * Layout (one database per `name`):
 * - one object store per collection, records `{ id, v, doc, k }` where `k` holds the core's index keys by
 *   index name; each declared index is an IDB index on key path `k.<name>` with `multiEntry`, so an array of
 *   array-keys gives one index entry per key (unique indexes are IDB-unique as well);
 * - for collections with `search`, a side store `~terms.<collection>` of small records `{ id, k, t }` whose
 *   multiEntry index `t` holds `[scope, token]` pairs — a search intersects ids per token and answers from
 *   these small records without reading any document;
 * - `~log` (the change log, key `[seq, i]`) and `~meta` (the commit sequence number).
 *
 * Every call runs in one IndexedDB transaction. `commit` reads what it must check, then writes, inside one
 * readwrite transaction over every store it touches, with no await of anything but IndexedDB requests in
 * between (a foreign await would let the transaction auto-commit half way).
 */
import { unwrap, wrap, type IDBPDatabase, type IDBPIndex, type IDBPTransaction } from 'idb';
import {
  DriverConflict,
  type Change,
  type CollectionDef,
  type CommitResult,
  type IndexedDoc,
  type IndexEntry,
  type JsonObject,
  type Key,
  type ListQuery,
  type RangeQuery,
  type SearchQuery,
  type StorageDriver,
  type StoredDoc,
  type StoreSchema,
  type WriteOp,
} from '../../src/driver.js';

export interface IdbDriverOptions {
  /** The IndexedDB database name. Default `blogkit`. */
  name?: string;
  /**
   * The IDBFactory to use. Default: the global `indexedDB`. In Node tests pass a fake-indexeddb factory
   * (`import 'fake-indexeddb/auto'` first: `idb` needs the IndexedDB classes as globals).
   */
  indexedDB?: IDBFactory;
  /** The IDBKeyRange class belonging to that factory. Default: the global `IDBKeyRange`. */
  IDBKeyRange?: typeof IDBKeyRange;
  /**
   * How long `open` waits when another connection (usually another tab on an older version of the app)
   * holds the database open and does not close it for the upgrade. Then `open` fails with
   * `IdbBlockedError` instead of hanging. Default 3000 ms.
   */
  blockedTimeoutMs?: number;
}

/** `open` could not upgrade the database because another connection keeps an older version open. */
export class IdbBlockedError extends Error {
  override readonly name = 'IdbBlockedError';
}

/** Bumped when this driver's own storage layout changes; combined with the core's schema version. */
const LAYOUT_VERSION = 1;
const META = '~meta';
const LOG = '~log';
const TERMS = (collection: string) => `~terms.${collection}`;
const TOKEN_INDEX = 't';
/** A key part that sorts after every string: `[...prefix, MAX]` bounds "everything with the prefix". */
const MAX: [] = [];
const NAME = /^[A-Za-z_$][\w$]*$/;

interface Rec {
  id: string;
  v: number;
  doc: JsonObject;
  k: Record<string, Key[]>;
}

interface TermsRec {
  id: string;
  k: Record<string, Key[]>;
  t: [string, string][];
}

interface LogRec {
  s: number;
  i: number;
  c: string;
  id: string;
  op: 'put' | 'delete';
  v: number;
}

/** `getAllRecords` (IndexedDB 3.0, Chromium 141+, fake-indexeddb 6): one request for a page in either direction. */
interface IdbRecord<V> {
  key: IDBValidKey;
  primaryKey: IDBValidKey;
  value: V;
}
type GetAllRecords = (options: { query?: IDBKeyRange; count?: number; direction?: IDBCursorDirection }) => Promise<IdbRecord<Rec>[]>;

type DB = IDBPDatabase<unknown>;
type Tx = IDBPTransaction<unknown, string[], IDBTransactionMode>;

const refOf = (collection: string, id: string) => `${collection}\0${id}`;
const uniqueRef = (collection: string, index: string, key: Key) => `${collection}\0${index}\0${JSON.stringify(key)}`;

class IdbDriver implements StorageDriver {
  private readonly name: string;
  private readonly factory: IDBFactory;
  private readonly KeyRange: typeof IDBKeyRange;
  private readonly blockedTimeoutMs: number;
  private db: DB | undefined;
  private defs = new Map<string, CollectionDef>();
  /** Why the connection is gone (closed by us, upgraded or deleted elsewhere, or dropped by the browser). */
  private lost: string | undefined = 'idb driver is not open: call open(schema) first';
  /** Whether indexes have `getAllRecords`; found out on the first list. */
  private hasGetAllRecords: boolean | undefined;

  constructor(options: IdbDriverOptions) {
    const g = globalThis as { indexedDB?: IDBFactory; IDBKeyRange?: typeof IDBKeyRange };
    const factory = options.indexedDB ?? g.indexedDB;
    const KeyRange = options.IDBKeyRange ?? g.IDBKeyRange;
    if (!factory || !KeyRange) {
      throw new Error('idbDriver: IndexedDB is not available here (in Node, import "fake-indexeddb/auto" or pass { indexedDB, IDBKeyRange })');
    }
    this.name = options.name ?? 'blogkit';
    this.factory = factory;
    this.KeyRange = KeyRange;
    this.blockedTimeoutMs = options.blockedTimeoutMs ?? 3000;
  }

  async open(schema: StoreSchema): Promise<void> {
    if (!Number.isInteger(schema.version) || schema.version < 1) throw new Error(`idb driver: bad schema version ${schema.version}`);
    for (const c of schema.collections) {
      if (!NAME.test(c.name)) throw new Error(`idb driver: collection name ${JSON.stringify(c.name)} must be an identifier`);
      for (const i of c.indexes) {
        if (!NAME.test(i.name)) throw new Error(`idb driver: index name ${JSON.stringify(i.name)} must be an identifier (it is a key path)`);
      }
    }
    const db = await this.connect(schema);
    this.checkLayout(db, schema);
    this.defs = new Map(schema.collections.map((c) => [c.name, c]));
    this.db = db;
    this.lost = undefined;
  }

  /** Opens (and if needed upgrades) the database; never waits forever on another tab. */
  private connect(schema: StoreSchema): Promise<DB> {
    const version = schema.version * 1000 + LAYOUT_VERSION;
    return new Promise<DB>((resolve, reject) => {
      let settled = false;
      let timer: ReturnType<typeof setTimeout> | undefined;
      const fail = (error: Error) => {
        if (settled) return;
        settled = true;
        if (timer !== undefined) clearTimeout(timer);
        reject(error);
      };
      let request: IDBOpenDBRequest;
      try {
        request = this.factory.open(this.name, version);
      } catch (e) {
        fail(e as Error);
        return;
      }
      request.onupgradeneeded = () => {
        try {
          upgrade(wrap(request.result) as DB, schema, wrap(request.transaction!) as unknown as IDBPTransaction<unknown, string[], 'versionchange'>);
        } catch (e) {
          request.transaction?.abort();
          fail(new Error(`idb driver: upgrading ${this.name} to schema version ${schema.version} failed: ${(e as Error).message}`));
        }
      };
      request.onblocked = (event) => {
        timer ??= setTimeout(
          () =>
            fail(
              new IdbBlockedError(
                `IndexedDB database "${this.name}" is open at version ${event.oldVersion} in another tab or window that does not ` +
                  `close it, so it cannot be upgraded to ${version}. Close or reload the other tabs of this app and try again.`,
              ),
            ),
          this.blockedTimeoutMs,
        );
      };
      request.onerror = (event) => {
        event.preventDefault();
        const e = request.error;
        if (e?.name === 'VersionError') {
          fail(new Error(`IndexedDB database "${this.name}" was written by a newer version of this app (wanted version ${version}); update or reload the app`));
        } else if (!settled) {
          fail(new Error(`idb driver: cannot open IndexedDB database "${this.name}": ${e?.name ?? 'Error'}: ${e?.message ?? 'unknown error'}`));
        }
      };
      request.onsuccess = () => {
        const raw = request.result;
        if (settled) {
          // We already gave up (blocked); the other tab closed later. Do not keep a connection nobody uses.
          raw.close();
          return;
        }
        settled = true;
        if (timer !== undefined) clearTimeout(timer);
        // Another tab wants a newer version (or deletes the database): let it, and fail our calls clearly.
        raw.onversionchange = (event) => {
          raw.close();
          this.lost =
            event.newVersion === null
              ? `IndexedDB database "${this.name}" was deleted by another tab or window`
              : `IndexedDB database "${this.name}" was upgraded by another tab or window (to version ${event.newVersion}); reload this page`;
        };
        // The browser dropped the connection (storage cleared, disk error).
        raw.onclose = () => {
          this.lost = `IndexedDB database "${this.name}" was closed by the browser (storage cleared or failed)`;
        };
        resolve(wrap(raw) as DB);
      };
    });
  }

  /** Refuses a database whose stores do not match the schema (a schema changed without a version bump). */
  private checkLayout(db: DB, schema: StoreSchema): void {
    const missing: string[] = [];
    const names = [...db.objectStoreNames];
    for (const c of schema.collections) {
      if (!names.includes(c.name)) missing.push(`store ${c.name}`);
      if (c.search && !names.includes(TERMS(c.name))) missing.push(`store ${TERMS(c.name)}`);
    }
    if (missing.length === 0) {
      const tx = db.transaction(schema.collections.map((c) => c.name));
      for (const c of schema.collections) {
        const indexNames = [...tx.objectStore(c.name).indexNames];
        for (const i of c.indexes) if (!indexNames.includes(i.name)) missing.push(`index ${c.name}.${i.name}`);
      }
    }
    if (missing.length > 0) {
      db.close();
      throw new Error(`idb driver: database "${this.name}" lacks ${missing.join(', ')} at schema version ${schema.version}; bump the schema version when changing collections`);
    }
  }

  private conn(): DB {
    if (this.lost !== undefined || !this.db) throw new Error(this.lost ?? 'idb driver is closed');
    return this.db;
  }

  private def(collection: string): CollectionDef {
    const def = this.defs.get(collection);
    if (!def) throw new Error(`unknown collection ${collection}`);
    return def;
  }

  async get(collection: string, id: string): Promise<StoredDoc | undefined> {
    this.def(collection);
    const rec = (await this.conn().transaction(collection).objectStore(collection).get(id)) as Rec | undefined;
    return rec && { id: rec.id, version: rec.v, doc: rec.doc };
  }

  async getMany(collection: string, ids: readonly string[]): Promise<Array<StoredDoc | undefined>> {
    this.def(collection);
    if (ids.length === 0) return [];
    const store = this.conn().transaction(collection).objectStore(collection);
    const recs = (await Promise.all(ids.map((id) => store.get(id)))) as Array<Rec | undefined>;
    return recs.map((rec) => rec && { id: rec.id, version: rec.v, doc: rec.doc });
  }

  async getByIndex(collection: string, index: string, key: Key): Promise<StoredDoc | undefined> {
    this.def(collection);
    const rec = (await this.conn().transaction(collection).objectStore(collection).index(index).get([...key])) as Rec | undefined;
    return rec && { id: rec.id, version: rec.v, doc: rec.doc };
  }

  /** The IDBKeyRange of a query, or undefined when the range is empty. */
  private range(q: RangeQuery): IDBKeyRange | undefined {
    const lower: unknown[] = q.lower ? [...q.prefix, ...q.lower.key] : [...q.prefix];
    const upper: unknown[] = q.upper ? [...q.prefix, ...q.upper.key] : [...q.prefix, MAX];
    const lowerOpen = !!q.lower?.open;
    const upperOpen = !!q.upper?.open;
    const c = this.factory.cmp(lower, upper);
    if (c > 0 || (c === 0 && (lowerOpen || upperOpen))) return undefined;
    return this.KeyRange.bound(lower, upper, lowerOpen, upperOpen);
  }

  private index(collection: string, index: string): IDBPIndex<unknown, string[], string, string, 'readonly'> {
    this.def(collection);
    return this.conn().transaction(collection).objectStore(collection).index(index);
  }

  async list(q: ListQuery): Promise<IndexedDoc[]> {
    const index = this.index(q.collection, q.index);
    const range = this.range(q);
    const limit = Math.floor(q.limit);
    if (!range || !(limit > 0)) return [];
    const direction: IDBCursorDirection = q.direction === 'asc' ? 'next' : 'prev';
    this.hasGetAllRecords ??= typeof (unwrap(index) as IDBIndex & { getAllRecords?: unknown }).getAllRecords === 'function';
    if (this.hasGetAllRecords) {
      // One request for the whole page, with the index key of each entry.
      const recs = await (index as unknown as { getAllRecords: GetAllRecords }).getAllRecords({ query: range, count: limit, direction });
      return recs.map((r) => ({ id: r.value.id, key: r.key as string[], version: r.value.v, doc: r.value.doc }));
    }
    const out: IndexedDoc[] = [];
    let cursor = await index.openCursor(range, direction);
    while (cursor && out.length < limit) {
      const rec = cursor.value as Rec;
      out.push({ id: rec.id, key: cursor.key as string[], version: rec.v, doc: rec.doc });
      if (out.length < limit) cursor = await cursor.continue();
    }
    return out;
  }

  async count(q: RangeQuery): Promise<number> {
    const index = this.index(q.collection, q.index);
    const range = this.range(q);
    return range ? index.count(range) : 0;
  }

  async search(q: SearchQuery): Promise<IndexEntry[]> {
    const def = this.def(q.collection);
    if (!def.search) throw new Error(`collection ${q.collection} is not searchable`);
    const tokens = [...new Set(q.tokens)];
    if (tokens.length === 0) return [];
    const store = this.conn().transaction(TERMS(q.collection)).objectStore(TERMS(q.collection));
    const byToken = store.index(TOKEN_INDEX);
    let rarest = tokens[0]!;
    let others: string[] = [];
    if (tokens.length > 1) {
      // Count first (cheap), then read small records for the rarest token and only ids for the rest.
      const counts = await Promise.all(tokens.map((t) => byToken.count([q.scope, t])));
      if (counts.some((n) => n === 0)) return [];
      const order = tokens.map((t, i) => [t, counts[i]!] as const).sort((a, b) => a[1] - b[1]);
      rarest = order[0]![0];
      others = order.slice(1).map(([t]) => t);
    }
    const [candidates, ...idLists] = await Promise.all([
      byToken.getAll([q.scope, rarest]) as Promise<TermsRec[]>,
      ...others.map((t) => byToken.getAllKeys([q.scope, t]) as Promise<string[]>),
    ]);
    const sets = idLists.map((ids) => new Set(ids));
    const out: IndexEntry[] = [];
    for (const rec of candidates as TermsRec[]) {
      if (!sets.every((s) => s.has(rec.id))) continue;
      for (const key of rec.k[q.index] ?? []) out.push({ id: rec.id, key });
    }
    return out;
  }

  async commit(ops: readonly WriteOp[]): Promise<CommitResult> {
    const db = this.conn();
    const stores = new Set<string>([META, LOG]);
    for (const op of ops) {
      const def = this.def(op.collection);
      stores.add(op.collection);
      if (def.search) stores.add(TERMS(op.collection));
      if (op.type === 'put') {
        for (const name of Object.keys(op.keys)) {
          if (!def.indexes.some((i) => i.name === name)) throw new Error(`unknown index ${name}`);
        }
      }
    }
    const tx = db.transaction([...stores], 'readwrite');
    const done = tx.done;
    done.catch(() => undefined); // awaited below; a refused commit aborts on purpose

    // Phase 1, all requests at once: current records, current holders of the unique keys that puts claim, seq.
    const refs = new Map<string, { collection: string; id: string }>();
    const probes = new Map<string, { collection: string; index: string; key: Key }>();
    for (const op of ops) {
      refs.set(refOf(op.collection, op.id), { collection: op.collection, id: op.id });
      if (op.type !== 'put') continue;
      for (const index of this.def(op.collection).indexes) {
        if (!index.unique) continue;
        for (const key of op.keys[index.name] ?? []) probes.set(uniqueRef(op.collection, index.name, key), { collection: op.collection, index: index.name, key });
      }
    }
    let seqNow: number | undefined;
    const current = new Map<string, { v: number; k: Record<string, Key[]> | null }>();
    const holders = new Map<string, string | null>();
    try {
      await Promise.all([
        tx.objectStore(META).get('seq').then((s) => void (seqNow = s as number | undefined)),
        ...[...refs].map(([ref, { collection, id }]) =>
          tx
            .objectStore(collection)
            .get(id)
            .then((rec) => void current.set(ref, rec ? { v: (rec as Rec).v, k: (rec as Rec).k } : { v: 0, k: null })),
        ),
        ...[...probes].map(([ref, p]) =>
          tx
            .objectStore(p.collection)
            .index(p.index)
            .getKey([...p.key])
            .then((id) => void holders.set(ref, (id as string | undefined) ?? null)),
        ),
      ]);
    } catch (e) {
      abort(tx);
      throw e;
    }

    // Phase 2: check every precondition in batch order, as the state will be when earlier ops apply.
    let conflict: DriverConflict | undefined;
    for (const op of ops) {
      const ref = refOf(op.collection, op.id);
      const state = current.get(ref)!;
      if (state.v !== op.expect) {
        conflict = new DriverConflict('version', op.collection, op.id);
        break;
      }
      const uniques = this.def(op.collection).indexes.filter((i) => i.unique);
      // The record's current unique keys are released, then its new ones claimed.
      if (state.k) {
        for (const index of uniques) {
          for (const key of state.k[index.name] ?? []) {
            const u = uniqueRef(op.collection, index.name, key);
            if (holders.get(u) === op.id) holders.set(u, null);
          }
        }
      }
      if (op.type === 'put') {
        for (const index of uniques) {
          for (const key of op.keys[index.name] ?? []) {
            const u = uniqueRef(op.collection, index.name, key);
            const holder = holders.get(u);
            if (holder != null && holder !== op.id) {
              conflict = new DriverConflict('unique', op.collection, op.id, index.name);
              break;
            }
            holders.set(u, op.id);
          }
          if (conflict) break;
        }
        if (conflict) break;
        current.set(ref, { v: op.expect + 1, k: op.keys as Record<string, Key[]> });
      } else {
        current.set(ref, { v: 0, k: null });
      }
    }
    if (conflict) {
      abort(tx);
      throw conflict;
    }

    // Phase 3: write. Plain requests on the raw stores (no promise per request); the transaction reports.
    const seq = (seqNow ?? 0) + 1;
    const raw = unwrap(tx) as IDBTransaction;
    const log = raw.objectStore(LOG);
    ops.forEach((op, i) => {
      const store = raw.objectStore(op.collection);
      const search = this.def(op.collection).search;
      if (op.type === 'put') {
        const rec: Rec = { id: op.id, v: op.expect + 1, doc: op.doc, k: op.keys as Record<string, Key[]> };
        store.put(rec);
        if (search) {
          const terms = raw.objectStore(TERMS(op.collection));
          if (op.terms) {
            const t: TermsRec = { id: op.id, k: rec.k, t: [...new Set(op.terms.tokens)].map((token) => [op.terms!.scope, token]) };
            terms.put(t);
          } else {
            terms.delete(op.id);
          }
        }
      } else {
        store.delete(op.id);
        if (search) raw.objectStore(TERMS(op.collection)).delete(op.id);
      }
      const entry: LogRec = { s: seq, i, c: op.collection, id: op.id, op: op.type, v: op.type === 'put' ? op.expect + 1 : op.expect };
      log.put(entry);
    });
    raw.objectStore(META).put(seq, 'seq');
    try {
      await done;
    } catch (e) {
      // Preconditions were checked inside this transaction, so this is a storage failure (quota, disk) —
      // or a unique key the checks missed, which IndexedDB still refuses.
      const error = raw.error ?? (e as Error);
      if (error?.name === 'ConstraintError') {
        const op = ops.find((o) => o.type === 'put' && this.def(o.collection).indexes.some((i) => i.unique && (o.keys[i.name]?.length ?? 0) > 0));
        throw new DriverConflict('unique', op?.collection ?? ops[0]!.collection, op?.id ?? ops[0]!.id);
      }
      throw error;
    }
    return { seq };
  }

  async changesSince(seq: number, limit = 1000): Promise<Change[]> {
    const db = this.conn();
    if (!(limit > 0)) return [];
    // Log keys are [seq, i]: [seq + 1] sorts before every entry of the next commit.
    const from = Number.isFinite(seq) ? Math.floor(seq) + 1 : seq > 0 ? Infinity : -Infinity;
    const recs = (await db.transaction(LOG).objectStore(LOG).getAll(this.KeyRange.lowerBound([from]), Math.floor(limit))) as LogRec[];
    return recs.map((r) => ({ seq: r.s, collection: r.c, id: r.id, type: r.op, version: r.v }));
  }

  async close(): Promise<void> {
    this.db?.close();
    this.db = undefined;
    this.lost = 'idb driver is closed';
  }
}

function abort(tx: Tx): void {
  try {
    tx.abort();
  } catch {
    // Already finished or aborting.
  }
}

/**
 * Brings the stores and indexes in line with the schema, inside the versionchange transaction.
 * Indexes are derived data and are rebuilt by IndexedDB from the stored `k` keys; collection stores are
 * never deleted (data is not dropped because a schema forgot a collection).
 */
function upgrade(db: DB, schema: StoreSchema, tx: IDBPTransaction<unknown, string[], 'versionchange'>): void {
  const names = () => [...db.objectStoreNames];
  if (!names().includes(META)) db.createObjectStore(META);
  if (!names().includes(LOG)) db.createObjectStore(LOG, { keyPath: ['s', 'i'] });
  for (const c of schema.collections) {
    const store = names().includes(c.name) ? tx.objectStore(c.name) : db.createObjectStore(c.name, { keyPath: 'id' });
    const wanted = new Map(c.indexes.map((i) => [i.name, !!i.unique]));
    for (const existing of [...store.indexNames]) {
      const index = store.index(existing);
      if (wanted.get(existing) !== index.unique || index.keyPath !== `k.${existing}` || !index.multiEntry) store.deleteIndex(existing);
    }
    for (const [name, unique] of wanted) {
      if (!store.indexNames.contains(name)) store.createIndex(name, `k.${name}`, { unique, multiEntry: true });
    }
    const terms = TERMS(c.name);
    if (c.search && !names().includes(terms)) {
      db.createObjectStore(terms, { keyPath: 'id' }).createIndex(TOKEN_INDEX, TOKEN_INDEX, { multiEntry: true });
    } else if (!c.search && names().includes(terms)) {
      db.deleteObjectStore(terms);
    }
  }
}

/** An IndexedDB-backed driver for browsers (and Node with fake-indexeddb). */
export function idbDriver(options: IdbDriverOptions = {}): StorageDriver {
  return new IdbDriver(options);
}
