/**
 * The memory driver's layout: per collection, its records (frozen copies) and, per index, its entries kept
 * sorted by key then id, so a range is a binary search plus a walk; unique keys and search tokens in maps.
 * The Store holds the collections and the change log, and answers the collection and index lookups.
 */
import {
  compareKeys,
  type CollectionDef,
  type JsonObject,
  type Key,
  type StoreSchema,
} from '../../src/store/driver.js';
import { ChangeLog } from './changes.js';

/** One stored record: the frozen document plus what the driver needs to undo its index entries. */
export interface Slot {
  version: number;
  doc: Readonly<JsonObject>;
  keys: Readonly<Record<string, readonly Key[]>>;
  terms?: { scope: string; tokens: readonly string[] };
}

export interface Entry {
  key: Key;
  id: string;
}

export interface Collection {
  /** As the schema declares it (counters, and indexes held while a counter is positive). */
  def: CollectionDef;
  slots: Map<string, Slot>;
  /** Per index: entries sorted by key (then id), so ranges are a binary search plus a walk. */
  indexes: Map<string, Entry[]>;
  unique: Map<string, Map<string, string>>;
  /** scope -> token -> ids */
  tokens: Map<string, Map<string, Set<string>>>;
}

export const uniqueKey = (key: Key) => JSON.stringify(key);

export function compareEntries(a: Entry, b: Entry): number {
  return compareKeys(a.key, b.key) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

export function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

/** Documents are copied in and frozen, so neither the caller nor the core can change stored data by accident. */
export const copyIn = (doc: JsonObject): Readonly<JsonObject> => deepFreeze(structuredClone(doc));

export class Store {
  readonly collections = new Map<string, Collection>();
  readonly log: ChangeLog;
  /** Who hears the messages told on this store (`tell`/`hear`: every service on it, e.g. collab's presence). */
  readonly hearers = new Set<(message: string) => void>();
  closed = false;

  constructor(maxChanges: number | undefined) {
    this.log = new ChangeLog(maxChanges);
  }

  /** Adds the collections and indexes the schema declares (what is stored already stays). */
  declare(schema: StoreSchema): void {
    for (const def of schema.collections) {
      const c: Collection = this.collections.get(def.name) ?? {
        def,
        slots: new Map(),
        indexes: new Map(),
        unique: new Map(),
        tokens: new Map(),
      };
      c.def = def;
      for (const index of def.indexes) {
        if (!c.indexes.has(index.name)) c.indexes.set(index.name, []);
        if (index.unique && !c.unique.has(index.name)) c.unique.set(index.name, new Map());
      }
      this.collections.set(def.name, c);
    }
  }

  collection(name: string): Collection {
    const c = this.collections.get(name);
    if (!c) throw new Error(`unknown collection ${name}`);
    return c;
  }

  index(c: Collection, name: string): Entry[] {
    const entries = c.indexes.get(name);
    if (!entries) throw new Error(`unknown index ${name}`);
    return entries;
  }
}
