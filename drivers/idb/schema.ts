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
 * - `~blobs` (layout 4): media bytes as Blobs by key (blobs.ts);
 * - (layout 5) an index declared with many entries per record (`entries: 'many'`, not unique: posts by label) is
 *   no IndexedDB index but entries in the collection's segments, beside its search terms (key-postings.ts):
 *   a commit's keys in those indexes go into its one segment. Layouts 3 and 4 kept them
 *   as multiEntry index entries (two per label); opening such a database builds the segments from the
 *   records' `k` (keyed-upgrade.ts, loaded only then).
 * The database version is the core's schema version × 1000 + this layout's version. Upgrades: upgrade.ts.
 */
import type { IDBPDatabase } from 'idb';
import type { JsonObject, Key, StoredDoc, StoreSchema } from '../../src/store/driver.js';
import { DEAD, hasPostings, keyed, POST, SEG } from './ranges.js';

/** Bumped when this driver's own storage layout changes; combined with the core's schema version. */
const LAYOUT_VERSION = 5;
export { BLOBS, CHANGES, LOG, META, STREAM_INDEX } from './ranges.js';
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

/** What the database lacks of the schema (a schema changed without a version bump), as a list of names. */
export function missingLayout(db: IDBPDatabase, schema: StoreSchema): string[] {
  const missing: string[] = [];
  for (const c of schema.collections) {
    if (!db.objectStoreNames.contains(c.name)) missing.push(`store ${c.name}`);
    for (const name of hasPostings(c) ? [SEG(c.name), POST(c.name), DEAD(c.name)] : [])
      if (!db.objectStoreNames.contains(name)) missing.push(`store ${name}`);
  }
  if (missing.length === 0) {
    const tx = db.transaction(schema.collections.map((c) => c.name));
    for (const c of schema.collections) {
      const indexNames = tx.objectStore(c.name).indexNames;
      for (const i of c.indexes)
        if (!keyed(c).includes(i) && !indexNames.contains(i.name)) missing.push(`index ${c.name}.${i.name}`);
    }
  }
  return missing;
}
