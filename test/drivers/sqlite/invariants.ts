/**
 * Storage-level checks of a blogcore SQLite file, read with better-sqlite3 directly: the file is sound,
 * and every record's index entries, search row and its place are exactly the ones its last commit wrote.
 */
import Database from 'better-sqlite3';
import { encodeKey } from '../../../drivers/shared/byte-keys.js';

export interface StoreCheck {
  integrity: string;
  docs: number;
  entries: number;
  /** Human-readable problems; empty when the store is consistent. */
  problems: string[];
}

export function checkStore(filename: string): StoreCheck {
  const db = new Database(filename, { readonly: true });
  try {
    const integrity = (db.pragma('integrity_check') as Array<{ integrity_check: string }>)
      .map((r) => r.integrity_check)
      .join('; ');
    const problems: string[] = [];
    const expected = new Set<string>();
    const withTerms = new Set<number>();
    // Every record's keys sit in doc_keys (schema.ts), one row per record and none without one.
    const stray = db
      .prepare('SELECT count(*) FROM doc_keys k WHERE NOT EXISTS (SELECT 1 FROM docs d WHERE d.rid = k.rid)')
      .pluck()
      .get() as number;
    if (stray) problems.push(`${stray} key rows of no record`);
    const docs = db
      .prepare('SELECT d.rid, d.coll, d.id, d.terms, k.keys FROM docs d LEFT JOIN doc_keys k ON k.rid = d.rid')
      .raw()
      .all() as Array<[number, number, string, string | null, string | null]>;
    for (const [rid, , , terms, keys] of docs) {
      if (keys === null) problems.push(`record ${rid} without its keys`);
      for (const [ix, list] of Object.entries(JSON.parse(keys ?? '{}') as Record<string, string[][]>)) {
        for (const key of list) expected.add(`${ix}:${rid}:${encodeKey(key).toString('hex')}`);
      }
      if (terms !== null) withTerms.add(rid);
    }
    const live = new Set((db.prepare('SELECT no FROM indexes').pluck().all() as number[]).map(String));
    let entries = 0;
    for (const [ix, key, rid] of db.prepare('SELECT ix, key, rid FROM entries').raw().all() as Array<
      [number, Buffer, number]
    >) {
      entries++;
      const ref = `${ix}:${rid}:${key.toString('hex')}`;
      if (!expected.delete(ref)) problems.push(`stray index entry ${ref}`);
    }
    for (const ref of expected) if (live.has(ref.split(':')[0]!)) problems.push(`missing index entry ${ref}`);
    // A search row sits at its record's place (schema.ts `ranks`): one place per record with terms, one row per place.
    const places = new Map(db.prepare('SELECT frid, rid FROM ranks').raw().all() as Array<[number, number]>);
    for (const place of db.prepare('SELECT rowid FROM search').pluck().all() as number[]) {
      const rid = places.get(place);
      places.delete(place);
      if (rid === undefined || !withTerms.delete(rid)) problems.push(`stray search row ${place}`);
    }
    for (const [place, rid] of places) problems.push(`place ${place} of record ${rid} without a search row`);
    for (const rid of withTerms) problems.push(`missing search row ${rid}`);
    return { integrity, docs: docs.length, entries, problems };
  } finally {
    db.close();
  }
}
