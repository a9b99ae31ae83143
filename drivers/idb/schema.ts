/**
 * The IndexedDB layout of the driver (one database per `name`) and its upgrades:
 * - one object store per collection, records `{ id, v, doc, k }` where `k` holds the core's index keys by
 *   index name; each declared index is an IDB index on key path `k.<name>` with `multiEntry`, so an array of
 *   array-keys gives one index entry per key (unique indexes are IDB-unique as well);
 * - for collections with `search` (layout 3), the search postings as segments (postings.ts, segments.ts):
 *   `~seg.<collection>` heads, `~post.<collection>` bodies, `~dead.<collection>` replaced versions (under the
 *   id) and, for deleted records, the newest segment at the delete (under ['b', id]). Layout 2
 *   kept one multiEntry index entry per (document, token) in `~terms.<collection>` instead — 160 IndexedDB
 *   entries for a 2 KB post; opening such a database builds its segments from them, once;
 * - `~log`: one record `{ t }` per commit under an auto-incremented key, which is the commit's sequence
 *   number (so no counter has to be read and written per commit); pruning keeps the newest;
 * - `~changes`, the change log (changes.ts): since layout 3 one record per commit and stream, under the key
 *   [seq, pos of its first change], its other changes in `m` (layout 2 had one record per op, the same shape
 *   without `m`, read as it is), with an index `stream` on [s, q, p] (stream, seq, pos) that walks one
 *   stream's changes alone; `~meta` holds `pruned`, the highest seq pruning removed;
 * - `~blobs` (layout 4): media bytes as Blobs by key (blobs.ts).
 * The database version is the core's schema version × 1000 + this layout's version.
 */
import { type IDBPDatabase, type IDBPTransaction, wrap } from 'idb';
import type { CollectionDef, JsonObject, Key, StoredDoc, StoreSchema } from '../../src/store/driver.js';
import { DEAD, POST, SEG } from './ranges.js';

/** segments.ts's upgrade from layout 2, handed in once its code is loaded (lazy-postings.ts). */
interface SegmentBuilder {
  fromLayout2(
    tx: IDBPTransaction<unknown, string[], 'versionchange'>,
    def: CollectionDef,
    terms: string,
  ): Promise<void>;
}

/** Bumped when this driver's own storage layout changes; combined with the core's schema version. */
const LAYOUT_VERSION = 4;
export const LOG = '~log';
export const CHANGES = '~changes';
export const META = '~meta';
export const BLOBS = '~blobs';
export const STREAM_INDEX = 'stream';
/** Layout 2's token store, read once by the upgrade. */
const TERMS = (collection: string) => `~terms.${collection}`;
const NAME = /^[A-Za-z_$][\w$]*$/;

/** The IndexedDB version of a schema version, and back: room for driver layout changes under each. */
export const idbVersion = (schemaVersion: number) => schemaVersion * 1000 + LAYOUT_VERSION;
export const schemaVersion = (version: number) => Math.floor(version / 1000);

/** A record of a collection's store. */
export interface Rec {
  id: string;
  v: number;
  doc: JsonObject;
  k: Record<string, Key[]>;
  /** The search scope, for records with terms. */
  s?: string;
}

/** One change of the change log (key: [seq, pos]). */
export interface LogGroup extends LogChange {
  /** The commit's other changes in the same stream: [pos, collection, id, op, version]. */
  m?: Array<[number, string, string, 'put' | 'delete', number]>;
}

export interface LogChange {
  q: number;
  p: number;
  c: string;
  id: string;
  op: 'put' | 'delete';
  v: number;
  t: number;
  s?: string;
}

export const stored = (rec: Rec | undefined): StoredDoc | undefined =>
  rec && { id: rec.id, version: rec.v, doc: rec.doc };

/** Collection and index names become store names and key paths: identifiers only. */
export function checkNames(schema: StoreSchema): void {
  if (!Number.isInteger(schema.version) || schema.version < 1)
    throw new Error(`idb driver: bad schema version ${schema.version}`);
  for (const c of schema.collections) {
    if (!NAME.test(c.name))
      throw new Error(`idb driver: collection name ${JSON.stringify(c.name)} must be an identifier`);
    for (const i of c.indexes) {
      if (!NAME.test(i.name))
        throw new Error(`idb driver: index name ${JSON.stringify(i.name)} must be an identifier (it is a key path)`);
    }
  }
}

/**
 * Brings the stores and indexes in line with the schema, inside the versionchange transaction `tx`, as
 * IndexedDB hands it: idb's wrapper would promise its end, and that promise would reject unheard when `open`
 * aborts the upgrade (below). Indexes are derived data and are rebuilt by IndexedDB from the stored `k` keys;
 * collection stores are never deleted (data is not dropped because a schema forgot a collection). Building
 * segments from layout 2 needs the postings code (`postings`), which loads lazily: without it this throws
 * PostingsNeeded before changing anything, and `open` loads it and opens again.
 */
export function upgrade(
  db: IDBPDatabase,
  schema: StoreSchema,
  tx: IDBTransaction,
  postings: SegmentBuilder | undefined,
): void {
  const has = (name: string) => db.objectStoreNames.contains(name);
  if (!postings && schema.collections.some((c) => c.search && has(TERMS(c.name)))) throw new PostingsNeeded();
  if (!has(LOG)) db.createObjectStore(LOG, { autoIncrement: true });
  if (!has(META)) db.createObjectStore(META);
  if (!has(BLOBS)) db.createObjectStore(BLOBS);
  if (!has(CHANGES)) {
    db.createObjectStore(CHANGES).createIndex(STREAM_INDEX, ['s', 'q', 'p']);
    // Layout 1 kept each commit's changes in its ~log record. They had no reader but in-process events, so
    // they go (the key generator, the seq, goes on); the bundle stays small for what every browser loads.
    // (A failure aborts the upgrade, which `open` reports.)
    tx.objectStore(LOG).clear();
  }
  for (const c of schema.collections) {
    const store: IDBObjectStore = has(c.name)
      ? tx.objectStore(c.name)
      : (db.createObjectStore(c.name, { keyPath: 'id' }) as unknown as IDBObjectStore);
    const wanted = new Map(c.indexes.map((i) => [i.name, !!i.unique]));
    for (const existing of [...store.indexNames]) {
      const index = store.index(existing);
      if (wanted.get(existing) !== index.unique || index.keyPath !== `k.${existing}` || !index.multiEntry)
        store.deleteIndex(existing);
    }
    for (const [name, unique] of wanted) {
      if (!store.indexNames.contains(name)) store.createIndex(name, `k.${name}`, { unique, multiEntry: true });
    }
    const stores = [SEG(c.name), POST(c.name), DEAD(c.name)];
    if (c.search && !has(SEG(c.name))) {
      db.createObjectStore(SEG(c.name), { autoIncrement: true });
      db.createObjectStore(POST(c.name));
      db.createObjectStore(DEAD(c.name));
      // (A failure aborts the upgrade, which `open` reports.)
      if (has(TERMS(c.name)))
        void postings!
          .fromLayout2(wrap(tx) as unknown as IDBPTransaction<unknown, string[], 'versionchange'>, c, TERMS(c.name))
          .then(
            () => db.deleteObjectStore(TERMS(c.name)),
            () => tx.abort(),
          );
    } else if (!c.search) {
      for (const name of [...stores, TERMS(c.name)]) if (has(name)) db.deleteObjectStore(name);
    }
  }
}

/** An upgrade from layout 2 needs the postings code, not loaded yet. */
export class PostingsNeeded extends Error {}

/** What the database lacks of the schema (a schema changed without a version bump), as a list of names. */
export function missingLayout(db: IDBPDatabase, schema: StoreSchema): string[] {
  const missing: string[] = [];
  for (const c of schema.collections) {
    if (!db.objectStoreNames.contains(c.name)) missing.push(`store ${c.name}`);
    for (const name of c.search ? [SEG(c.name), POST(c.name), DEAD(c.name)] : [])
      if (!db.objectStoreNames.contains(name)) missing.push(`store ${name}`);
  }
  if (missing.length === 0) {
    const tx = db.transaction(schema.collections.map((c) => c.name));
    for (const c of schema.collections) {
      const indexNames = tx.objectStore(c.name).indexNames;
      for (const i of c.indexes) if (!indexNames.contains(i.name)) missing.push(`index ${c.name}.${i.name}`);
    }
  }
  return missing;
}
