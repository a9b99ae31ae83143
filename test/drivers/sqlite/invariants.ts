/**
 * Storage-level checks of a blogcore SQLite file, read with better-sqlite3 directly: the file is sound,
 * and every record's index entries and search row are exactly the ones its last commit wrote.
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
    const integrity = (db.pragma('integrity_check') as Array<{ integrity_check: string }>).map((r) => r.integrity_check).join('; ');
    const problems: string[] = [];
    const expected = new Set<string>();
    const withTerms = new Set<number>();
    const docs = db.prepare('SELECT rid, coll, id, terms, keys FROM docs').raw().all() as Array<[number, number, string, string | null, string]>;
    for (const [rid, , , terms, keys] of docs) {
      for (const [ix, list] of Object.entries(JSON.parse(keys) as Record<string, string[][]>)) {
        for (const key of list) expected.add(`${ix}:${rid}:${encodeKey(key).toString('hex')}`);
      }
      if (terms !== null) withTerms.add(rid);
    }
    const live = new Set((db.prepare('SELECT no FROM indexes').pluck().all() as number[]).map(String));
    let entries = 0;
    for (const [ix, key, rid] of db.prepare('SELECT ix, key, rid FROM entries').raw().all() as Array<[number, Buffer, number]>) {
      entries++;
      const ref = `${ix}:${rid}:${key.toString('hex')}`;
      if (!expected.delete(ref)) problems.push(`stray index entry ${ref}`);
    }
    for (const ref of expected) if (live.has(ref.split(':')[0]!)) problems.push(`missing index entry ${ref}`);
    for (const rid of db.prepare('SELECT rowid FROM search').pluck().all() as number[]) {
      if (!withTerms.delete(rid)) problems.push(`stray search row ${rid}`);
    }
    for (const rid of withTerms) problems.push(`missing search row ${rid}`);
    return { integrity, docs: docs.length, entries, problems };
  } finally {
    db.close();
  }
}
