/**
 * The catalog the SQLite driver keeps of a store: its collections and indexes by name, each with the number the
 * store knows it by, and the lookups every part of a driver starts from. (PostgreSQL's is its layout:
 * drivers/postgres/layout.ts.)
 */
import type { CollectionDef, RangeQuery } from '../../src/store/driver.js';
import { byteRange, type ByteRange } from './byte-keys.js';

export interface IndexInfo {
  no: number;
  name: string;
  unique: boolean;
}

export interface CollectionInfo<I extends IndexInfo = IndexInfo> {
  no: number;
  name: string;
  indexes: Map<string, I>;
  /** As the schema declares it (counters, and indexes held while a counter is positive). */
  def: CollectionDef;
}

export class Catalog<I extends IndexInfo = IndexInfo> {
  /** The declared collections by name (filled by each driver's schema.ts `declare`). */
  byName = new Map<string, CollectionInfo<I>>();
  /** Every collection ever declared, by number (the change log names them by number). */
  namesByNo = new Map<number, string>();

  collection(name: string): CollectionInfo<I> {
    const c = this.byName.get(name);
    if (!c) throw new Error(`unknown collection ${name}`);
    return c;
  }

  index(c: CollectionInfo<I>, name: string): I {
    const i = c.indexes.get(name);
    if (!i) throw new Error(`unknown index ${name}`);
    return i;
  }

  /** The byte range of a query on its index. */
  range(q: RangeQuery): ByteRange & { ix: number } {
    return { ix: this.index(this.collection(q.collection), q.index).no, ...byteRange(q) };
  }
}
