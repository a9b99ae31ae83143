/**
 * The SQLite storage driver, on better-sqlite3: the embedded default. It stores what the core gives it
 * (documents, index keys, search tokens) and decides nothing; see src/store/driver.ts and schema.ts.
 */
import { createHash } from 'node:crypto';
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
import { sqliteBlobs } from './blobs.js';
import { AFTER_ALL, decodeKey, EMPTY, encodeKey, prefixEnd } from '../shared/byte-keys.js';
import { countSql, keysSql, listSql, matchCountSql, matchWalkSql, mergeSql, MIGRATIONS, searchSql, SQL } from './schema.js';
import type { SqliteDatabase, SqliteDatabaseConstructor, SqliteStatement, SqliteTransaction } from './sqlite-types.js';

export type { SqliteDatabase } from './sqlite-types.js';

export interface SqliteFileOptions {
  /** A file path, or ':memory:'. The driver opens the file and closes it on `close()`. */
  filename: string;
  /** How long a write waits for another connection's lock, in ms (PRAGMA busy_timeout). Default 5000. */
  busyTimeoutMs?: number;
  /**
   * SQLite's page cache for this connection, in KiB (PRAGMA cache_size). Default 65536 (64 MiB), taken as
   * pages are read: list pages and searches touch rows spread over the file, and the 2 MiB SQLite default
   * turns each of those into a read from the OS.
   */
  cacheSizeKb?: number;
}

export interface SqliteDatabaseOptions {
  /** An open better-sqlite3 Database owned by the host: used as configured, never closed by the driver. */
  database: SqliteDatabase;
}

export type SqliteDriverOptions = SqliteFileOptions | SqliteDatabaseOptions;

/** The storage-layout version this build writes (PRAGMA user_version after migrations). */
export const SQLITE_STORAGE_VERSION = MIGRATIONS.length;

interface IndexInfo {
  no: number;
  name: string;
  unique: boolean;
  /** JSON path of this index's keys inside docs.keys. */
  path: string;
}

interface CollectionInfo {
  no: number;
  name: string;
  indexes: Map<string, IndexInfo>;
}

type StoredKeys = Record<string, Key[]>;
type ChangeRow = [number, number, number, string, 'put' | 'delete', number, string | null, number];

const termsHash = (scope: string, tokens: readonly string[]) => createHash('sha1').update(scope).update('\0').update(tokens.join('\0')).digest('base64');

/** Tokens FTS5's 'ascii' tokenizer keeps byte for byte: a-z, 0-9 and non-ASCII (lone surrogates excluded). */
const PLAIN = /^[a-z0-9\u0080-\ud7ff\ue000-\uffff]+$/;

/** A core token as one FTS5 term, prefixed by collection and scope numbers; distinct tokens stay distinct. */
function ftsToken(prefix: string, token: string): string {
  if (PLAIN.test(token)) return `${prefix}p${token}`;
  // UTF-8 cannot carry lone surrogates, so such a token is spelled by its UTF-16 code units.
  if (/[\ud800-\udfff]/.test(token)) return `${prefix}u${Buffer.from(token, 'utf16le').toString('hex')}`;
  return `${prefix}x${Buffer.from(token, 'utf8').toString('hex')}`;
}

// Every list and count statement, built once: 2 lower × 2 upper comparisons (× 2 directions).
const LIST_SQL: Record<string, string> = {};
const KEYS_SQL: Record<string, string> = {};
const COUNT_SQL: Record<string, string> = {};
for (const lower of ['>=', '>'] as const) {
  for (const upper of ['<=', '<'] as const) {
    COUNT_SQL[`${lower}${upper}`] = countSql(lower, upper);
    for (const dir of ['ASC', 'DESC'] as const) {
      LIST_SQL[`${lower}${upper}${dir}`] = listSql(lower, upper, dir);
      KEYS_SQL[`${lower}${upper}${dir}`] = keysSql(lower, upper, dir);
    }
  }
}

/**
 * Search strategy, by the number of matches in the scope (counted by FTS5 up to SPARSE):
 * - fewer than SPARSE: every match's keys of the index (from docs.keys), sorted in JS;
 * - more: first a short walk of the ordered index checking each candidate's tokens in its `terms` row,
 *   which fills the page when matches are dense (a word in nearly every post) at the cost of a list page;
 * - else: the ordered index walked against FTS5's materialized match set (matchWalkSql), sequential reads.
 */
const SPARSE = 500;
const WALK_CHUNK = 32;
const DENSE_WALK = (limit: number) => 4 * limit + WALK_CHUNK;

class SqliteDriver implements StorageDriver {
  private db: SqliteDatabase | undefined;
  private readonly owned: boolean;
  private closed = false;
  private byName = new Map<string, CollectionInfo>();
  /** Every collection ever declared, by number (the change log names them by number). */
  private namesByNo = new Map<number, string>();
  private cache = new Map<string, SqliteStatement>();
  private readTx: SqliteTransaction<[CollectionInfo, readonly string[]], Array<StoredDoc | undefined>> | undefined;
  private commitTx: SqliteTransaction<[readonly WriteOp[], CollectionInfo[], number], CommitResult> | undefined;
  private scopes = new Map<string, number>();
  /** True while a commit runs inside a transaction the host opened on its own Database. */
  private hostTransaction = false;
  readonly blobs: BlobStore = sqliteBlobs({ db: () => this.database(), stmt: (sql) => this.stmt(sql) });

  constructor(private readonly options: SqliteDriverOptions) {
    this.owned = !('database' in options);
  }

  async open(schema: StoreSchema): Promise<void> {
    if (this.closed) throw new Error('sqlite driver is closed');
    if (!this.db) {
      if ('database' in this.options) {
        this.db = this.options.database;
      } else {
        const mod = (await import('better-sqlite3').catch((error: unknown) => {
          throw loadError(error);
        })) as unknown as { default: SqliteDatabaseConstructor };
        let db: SqliteDatabase;
        try {
          db = new mod.default(this.options.filename);
        } catch (error) {
          throw NATIVE_LOAD.test(String(error)) ? loadError(error) : error;
        }
        // WAL: readers never wait for the writer, and a commit costs no fsync (synchronous=NORMAL); every
        // write is one transaction either way, so a killed process leaves whole commits only.
        db.pragma('journal_mode = WAL');
        db.pragma('synchronous = NORMAL');
        db.pragma('foreign_keys = ON');
        db.pragma(`busy_timeout = ${Math.max(0, Math.floor(this.options.busyTimeoutMs ?? 5000))}`);
        db.pragma(`cache_size = ${-Math.max(64, Math.floor(this.options.cacheSizeKb ?? 65536))}`);
        this.db = db;
      }
    }
    try {
      migrate(this.db);
      this.declare(schema);
    } catch (error) {
      // A store this build cannot use: let go of a connection we opened rather than leak it.
      if (this.owned) {
        this.db.close();
        this.db = undefined;
        this.cache.clear();
        this.commitTx = this.readTx = undefined;
      }
      throw error;
    }
  }

  /** Brings the catalog to the declared collections and indexes (new ones added, dropped indexes emptied). */
  private declare(schema: StoreSchema): void {
    const db = this.database();
    db.transaction(() => {
      const stored = Number(this.stmt(SQL.getMeta).pluck().get('schemaVersion'));
      if (stored > schema.version) {
        throw new Error(`sqlite store holds schema version ${stored}, newer than this blogcore's ${schema.version}`);
      }
      const colls = new Map<string, { no: number; search: number }>();
      for (const [no, name, search] of this.stmt(SQL.catalogCollections).raw().all() as Array<[number, string, number]>) {
        colls.set(name, { no, search });
      }
      const idx = new Map<string, { no: number; uniq: number }>();
      for (const [no, coll, name, uniq] of this.stmt(SQL.catalogIndexes).raw().all() as Array<[number, number, string, number]>) {
        idx.set(`${coll}\0${name}`, { no, uniq });
      }
      const byName = new Map<string, CollectionInfo>();
      const keep = new Set<number>();
      for (const def of schema.collections) {
        let c = colls.get(def.name);
        const search = def.search ? 1 : 0;
        if (!c) {
          c = { no: Number(this.stmt(SQL.addCollection).run(def.name, search).lastInsertRowid), search };
          colls.set(def.name, c);
        } else if (c.search !== search) {
          this.stmt(SQL.setSearch).run(search, c.no);
        }
        const info: CollectionInfo = { no: c.no, name: def.name, indexes: new Map() };
        for (const index of def.indexes) {
          let i = idx.get(`${c.no}\0${index.name}`);
          const uniq = index.unique ? 1 : 0;
          if (!i) i = { no: Number(this.stmt(SQL.addIndex).run(c.no, index.name, uniq).lastInsertRowid), uniq };
          else if (i.uniq !== uniq) this.stmt(SQL.setUnique).run(uniq, i.no);
          keep.add(i.no);
          info.indexes.set(index.name, { no: i.no, name: index.name, unique: !!index.unique, path: `$."${i.no}"` });
        }
        byName.set(def.name, info);
      }
      // An index the schema no longer declares: its entries could not be kept up to date, so they go.
      // A re-declared one gets a new number and starts empty, like a new index.
      for (const [, i] of idx) {
        if (keep.has(i.no)) continue;
        this.stmt(SQL.dropEntries).run(i.no);
        this.stmt(SQL.dropIndex).run(i.no);
      }
      this.stmt(SQL.setMeta).run(schema.version, 'schemaVersion');
      this.byName = byName;
      this.namesByNo = new Map([...colls].map(([name, c]) => [c.no, name]));
    }).immediate();
  }

  private database(): SqliteDatabase {
    if (this.closed) throw new Error('sqlite driver is closed');
    if (!this.db) throw new Error('sqlite driver is not open: call open(schema) first');
    return this.db;
  }

  /** Prepared statements, kept for the life of the connection. */
  private stmt(sql: string): SqliteStatement {
    let s = this.cache.get(sql);
    if (!s) {
      s = this.database().prepare(sql);
      this.cache.set(sql, s);
    }
    return s;
  }

  private coll(name: string): CollectionInfo {
    this.database();
    const c = this.byName.get(name);
    if (!c) throw new Error(`unknown collection ${name}`);
    return c;
  }

  private index(c: CollectionInfo, name: string): IndexInfo {
    const i = c.indexes.get(name);
    if (!i) throw new Error(`unknown index ${name}`);
    return i;
  }

  async get(collection: string, id: string): Promise<StoredDoc | undefined> {
    const c = this.coll(collection);
    return this.read(c, id);
  }

  private read(c: CollectionInfo, id: string): StoredDoc | undefined {
    const row = this.stmt(SQL.readDoc).raw().get(c.no, id) as [number, string] | undefined;
    return row && { id, version: row[0], doc: JSON.parse(row[1]) as JsonObject };
  }

  async getMany(collection: string, ids: readonly string[]): Promise<Array<StoredDoc | undefined>> {
    const c = this.coll(collection);
    if (ids.length <= 1) return ids.map((id) => this.read(c, id));
    // One read transaction, so the records come from one snapshot even with other writers on the file.
    return (this.readTx ??= this.database().transaction((c: CollectionInfo, ids: readonly string[]) => ids.map((id) => this.read(c, id))))(c, ids);
  }

  async getByIndex(collection: string, index: string, key: Key): Promise<StoredDoc | undefined> {
    const c = this.coll(collection);
    const i = this.index(c, index);
    if (!i.unique) throw new Error(`index ${index} is not unique`);
    const row = this.stmt(SQL.byKey).raw().get(i.no, encodeKey(key)) as [string, number, string] | undefined;
    return row && { id: row[0], version: row[1], doc: JSON.parse(row[2]) as JsonObject };
  }

  /** The byte range of a query: [from, to] with the comparison each end uses. */
  private range(q: RangeQuery): { ix: number; lower: '>=' | '>'; from: Buffer; upper: '<=' | '<'; to: Buffer } {
    const i = this.index(this.coll(q.collection), q.index);
    const prefix = q.prefix.length ? encodeKey(q.prefix) : EMPTY;
    const lower = q.lower ? (q.lower.open ? '>' : '>=') : '>=';
    const from = q.lower ? encodeKey([...q.prefix, ...q.lower.key]) : prefix;
    // A closed upper bound admits the bound key itself but not longer keys it prefixes: `<=` on bytes does that.
    const upper = q.upper ? (q.upper.open ? '<' : '<=') : '<';
    const to = q.upper ? encodeKey([...q.prefix, ...q.upper.key]) : q.prefix.length ? prefixEnd(prefix) : AFTER_ALL;
    return { ix: i.no, lower, from, upper, to };
  }

  async list(q: ListQuery): Promise<IndexedDoc[]> {
    const limit = Math.max(0, Math.floor(q.limit));
    const r = this.range(q);
    if (limit === 0) return [];
    const rows = this.stmt(LIST_SQL[`${r.lower}${r.upper}${q.direction === 'desc' ? 'DESC' : 'ASC'}`]!)
      .raw()
      .all(r.ix, r.from, r.to, limit) as Array<[Buffer, string, number, string]>;
    return rows.map(([key, id, version, doc]) => ({ id, key: decodeKey(key), version, doc: JSON.parse(doc) as JsonObject }));
  }

  async count(q: RangeQuery): Promise<number> {
    const r = this.range(q);
    return Number(this.stmt(COUNT_SQL[`${r.lower}${r.upper}`]!).pluck().get(r.ix, r.from, r.to));
  }

  /** One prefix's walk in key order, keys and ids only, from `after` (exclusive) on. */
  private walkKeys(q: KeysQuery, prefix: Key, limit: number, after?: Buffer): Array<[Buffer, string, number]> {
    const r = this.range({ ...q, prefix });
    let { lower, from, upper, to } = r;
    if (after) {
      if (q.direction === 'asc') [lower, from] = ['>', after];
      else [upper, to] = ['<', after];
    }
    return this.stmt(KEYS_SQL[`${lower}${upper}${q.direction === 'desc' ? 'DESC' : 'ASC'}`]!)
      .raw()
      .all(r.ix, from, to, limit) as Array<[Buffer, string, number]>;
  }

  async keys(q: KeysQuery): Promise<IndexEntry[]> {
    const limit = Math.max(0, Math.floor(q.limit));
    if (limit === 0 || q.prefixes.length === 0) return [];
    if (q.prefixes.length === 1) return this.walkKeys(q, q.prefixes[0]!, limit).map(([key, id]) => ({ id, key: decodeKey(key) }));
    const params: Array<number | Buffer> = [];
    const ranges = q.prefixes.map((prefix) => {
      const r = this.range({ ...q, prefix });
      params.push((prefix.length ? encodeKey(prefix).length : 0) + 1, r.ix, r.from, r.to, limit);
      return r;
    });
    // The comparisons depend on the bounds only, so every member uses the same ones.
    const sql = mergeSql(q.prefixes.length, ranges[0]!.lower, ranges[0]!.upper, q.direction === 'desc' ? 'DESC' : 'ASC');
    const rows = this.stmt(sql)
      .raw()
      .all(...params, limit) as Array<[Buffer, string]>;
    return rows.map(([key, id]) => ({ id, key: decodeKey(key) }));
  }

  async search(q: SearchQuery): Promise<IndexEntry[]> {
    const c = this.coll(q.collection);
    const i = this.index(c, q.index);
    const limit = Math.max(0, Math.floor(q.limit));
    if (q.tokens.length === 0 || limit === 0 || q.prefixes.length === 0) return [];
    const scope = this.scopeNo(q.scope, false, !this.database().inTransaction);
    if (scope === undefined) return [];
    const prefix = `${c.no}s${scope}`;
    const match = [...new Set(q.tokens)].map((t) => `"${ftsToken(prefix, t)}"`).join(' ');
    const width = q.prefixes[0]!.length;
    if (Number(this.stmt(matchCountSql).pluck().get(match, SPARSE)) >= SPARSE) {
      const walks = q.prefixes.map((p) => this.walkMatches(q, p, limit) ?? this.walkMatchSet(q, p, match, limit));
      return mergeWalks(walks, width, q.direction, limit);
    }
    // Few matches: all of them, keys only, sorted here.
    const rows = JSON.parse(this.stmt(searchSql).pluck().get(i.path, match, c.no) as string) as Array<[string, Key[] | null]>;
    const byPrefix = new Map(q.prefixes.map((p, n) => [encodeKey(p).toString('latin1'), n]));
    const walks: IndexEntry[][] = q.prefixes.map(() => []);
    for (const [id, keys] of rows) {
      for (const key of keys ?? []) {
        const n = byPrefix.get(encodeKey(key.slice(0, width)).toString('latin1'));
        if (n !== undefined && key.length > width && suffixInBounds(key.slice(width), q)) walks[n]!.push({ id, key });
      }
    }
    const sign = q.direction === 'asc' ? 1 : -1;
    for (const w of walks) w.sort((a, b) => sign * compareKeys(a.key, b.key));
    return mergeWalks(walks, width, q.direction, limit);
  }

  /** The first `limit` matches of one prefix in index order, or undefined when too few turn up in a short walk. */
  private walkMatches(q: SearchQuery, prefix: Key, limit: number): IndexEntry[] | undefined {
    const read = this.stmt(SQL.readTerms).pluck();
    const wanted = [...new Set(q.tokens)].map((t) => ` ${ftsToken('', t)} `);
    const out: IndexEntry[] = [];
    let after: Buffer | undefined;
    for (let checked = 0; checked < DENSE_WALK(limit); ) {
      const chunk = this.walkKeys(q, prefix, WALK_CHUNK, after);
      for (const [key, id, rid] of chunk) {
        checked++;
        const terms = read.get(rid) as string | undefined;
        if (terms !== undefined && wanted.every((w) => terms.includes(w))) out.push({ id, key: decodeKey(key) });
        if (out.length >= limit) return out;
      }
      if (chunk.length < WALK_CHUNK) return out;
      after = chunk[chunk.length - 1]![0];
    }
    return undefined;
  }

  /** The first `limit` matches of one prefix: the ordered index walked against FTS5's match set. */
  private walkMatchSet(q: SearchQuery, prefix: Key, match: string, limit: number): IndexEntry[] {
    const r = this.range({ ...q, prefix });
    const rows = this.stmt(matchWalkSql(r.lower, r.upper, q.direction === 'desc' ? 'DESC' : 'ASC'))
      .raw()
      .all(r.ix, r.from, r.to, match, limit) as Array<[Buffer, string]>;
    return rows.map(([key, id]) => ({ id, key: decodeKey(key) }));
  }

  async commit(ops: readonly WriteOp[], options: CommitOptions = {}): Promise<CommitResult> {
    const db = this.database();
    // Resolve names first: an unknown collection or index is a programming error, not a conflict.
    const resolved = ops.map((op) => {
      const c = this.coll(op.collection);
      if (op.type === 'put') for (const name of Object.keys(op.keys)) this.index(c, name);
      return c;
    });
    this.hostTransaction = db.inTransaction;
    // IMMEDIATE takes the write lock before reading the versions, so another connection cannot slip in
    // between. (Inside a host's own transaction better-sqlite3 uses a savepoint instead.)
    return (this.commitTx ??= db.transaction((ops: readonly WriteOp[], resolved: CollectionInfo[], time: number) => {
      const seq = Number(this.stmt(SQL.nextSeq).pluck().get());
      if (ops.length === 0) this.stmt(SQL.setSeq).run(seq);
      for (const [pos, op] of ops.entries()) this.apply(resolved[pos]!, op, seq, pos, time);
      return { seq };
    })).immediate(ops, resolved, Math.floor(options.time ?? Date.now()));
  }

  /** One op inside the commit transaction; throwing DriverConflict rolls the whole commit back. */
  private apply(c: CollectionInfo, op: WriteOp, seq: number, pos: number, time: number): void {
    const row = this.stmt(SQL.current).raw().get(c.no, op.id) as [number, number, string | null, string] | undefined;
    const version = row?.[1] ?? 0;
    if (version !== op.expect) throw new DriverConflict('version', op.collection, op.id);
    const rid = row?.[0];
    const oldTerms = row?.[2] ?? null;
    // Old entries, keyed by index number + key bytes, so an update rewrites only what changed.
    const old = new Map<string, [number, Buffer]>();
    if (row) {
      const stored = JSON.parse(row[3]) as StoredKeys;
      for (const [ixNo, keys] of Object.entries(stored)) {
        for (const key of keys) {
          const bytes = encodeKey(key);
          old.set(`${ixNo}:${bytes.toString('latin1')}`, [Number(ixNo), bytes]);
        }
      }
    }

    if (op.type === 'delete') {
      for (const [ix, bytes] of old.values()) this.stmt(SQL.deleteEntry).run(ix, bytes, rid!);
      if (oldTerms !== null) {
        this.stmt(SQL.unindexTerms).run(rid!);
        this.stmt(SQL.deleteTerms).run(rid!);
      }
      this.stmt(SQL.deleteDoc).run(rid!);
      this.stmt(SQL.logChange).run(seq, pos, c.no, op.id, 'delete', version, op.stream ?? null, time);
      return;
    }

    const stored: StoredKeys = {};
    const fresh = new Map<string, [IndexInfo, Buffer]>();
    for (const [name, keys] of Object.entries(op.keys)) {
      const i = this.index(c, name);
      if (keys.length === 0) continue;
      stored[i.no] = keys.map((k) => [...k]);
      for (const key of keys) {
        const bytes = encodeKey(key);
        fresh.set(`${i.no}:${bytes.toString('latin1')}`, [i, bytes]);
      }
    }
    for (const [ref, [ix, bytes]] of old) if (!fresh.has(ref)) this.stmt(SQL.deleteEntry).run(ix, bytes, rid!);

    const terms = op.terms ? termsHash(op.terms.scope, op.terms.tokens) : null;
    const keysJson = JSON.stringify(stored);
    const docJson = JSON.stringify(op.doc);
    let id: number;
    if (rid === undefined) {
      id = Number(this.stmt(SQL.insertDoc).run(c.no, op.id, op.expect + 1, terms, keysJson, docJson).lastInsertRowid);
    } else {
      id = rid;
      this.stmt(SQL.updateDoc).run(op.expect + 1, terms, keysJson, docJson, rid);
    }
    for (const [ref, [i, bytes]] of fresh) {
      if (old.has(ref)) continue;
      if (i.unique && this.stmt(SQL.holder).pluck().get(i.no, bytes, id) !== undefined) {
        throw new DriverConflict('unique', op.collection, op.id, i.name);
      }
      this.stmt(SQL.insertEntry).run(i.no, bytes, id);
    }
    if (terms !== oldTerms) {
      if (oldTerms !== null) this.stmt(SQL.unindexTerms).run(id);
      if (op.terms) {
        const prefix = `${c.no}s${this.scopeNo(op.terms.scope, true, !this.hostTransaction)!}`;
        const tokens = [...new Set(op.terms.tokens)];
        this.stmt(SQL.indexTerms).run(id, tokens.map((t) => ftsToken(prefix, t)).join(' '));
        this.stmt(SQL.putTerms).run(id, ` ${tokens.map((t) => ftsToken('', t)).join(' ')} `);
      } else {
        this.stmt(SQL.deleteTerms).run(id);
      }
    }
    this.stmt(SQL.logChange).run(seq, pos, c.no, op.id, 'put', op.expect + 1, op.stream ?? null, time);
  }

  /**
   * The number of a search scope; with `create`, assigned on first use (inside the commit transaction).
   * A committed number never changes, so it is cached; one given inside a commit is not (the commit may
   * still roll back) until a later call finds it, nor one read inside a transaction the host opened.
   */
  private scopeNo(name: string, create: boolean, cacheable: boolean): number | undefined {
    const known = this.scopes.get(name);
    if (known !== undefined) return known;
    const no = this.stmt(SQL.scopeNo).pluck().get(name) as number | undefined;
    if (no !== undefined) {
      if (cacheable) this.scopes.set(name, no);
      return no;
    }
    return create ? Number(this.stmt(SQL.addScope).run(name).lastInsertRowid) : undefined;
  }

  async changesSince(seq: number, limit = 1000): Promise<Change[]> {
    return this.changes(
      this.stmt(SQL.changesSince)
        .raw()
        .all(seq, Math.max(0, Math.floor(limit))) as ChangeRow[],
    );
  }

  async streamChanges(stream: string, after: LogPosition, limit: number): Promise<Change[]> {
    return this.changes(
      this.stmt(SQL.streamChanges)
        .raw()
        .all(stream, after.seq, after.pos, Math.max(0, Math.floor(limit))) as ChangeRow[],
    );
  }

  private changes(rows: ChangeRow[]): Change[] {
    return rows.map(([seq, pos, coll, id, type, version, stream, time]) => ({
      seq,
      pos,
      collection: this.namesByNo.get(coll) ?? String(coll),
      id,
      type,
      version,
      ...(stream !== null ? { stream } : {}),
      time,
    }));
  }

  async logBounds(): Promise<LogBounds> {
    const newest = Number(this.stmt(SQL.nextSeq).pluck().get()) - 1;
    return { newest, pruned: Number(this.stmt(SQL.getMeta).pluck().get('pruned')) };
  }

  async pruneChanges(q: PruneQuery): Promise<number> {
    const limit = Math.max(0, Math.floor(q.limit));
    return this.database()
      .transaction(() => {
        const rows = this.stmt(SQL.oldestChanges).raw().all(limit) as Array<[number, number, number]>;
        let n = 0;
        while (n < rows.length) {
          const [seq, , time] = rows[n]!;
          if (!((q.before !== undefined && time < q.before) || (q.through !== undefined && seq <= q.through))) break;
          n++;
        }
        if (n === 0) return 0;
        const [seq, pos] = rows[n - 1]!;
        // meta.seq keeps the counter right if the newest entries go; meta.pruned says how far the log is gone.
        this.stmt(SQL.raiseMeta).run(seq, 'seq');
        this.stmt(SQL.raiseMeta).run(seq, 'pruned');
        this.stmt(SQL.pruneThrough).run(seq, pos);
        return n;
      })
      .immediate();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.cache.clear();
    this.scopes.clear();
    this.commitTx = this.readTx = undefined;
    if (this.owned && this.db?.open) this.db.close();
    this.db = undefined;
  }
}

/** Runs the storage migrations the file has not had yet, each once, under the write lock. */
function migrate(db: SqliteDatabase): void {
  db.transaction(() => {
    const current = Number(db.pragma(SQL.userVersion, { simple: true }));
    if (current > MIGRATIONS.length) {
      throw new Error(`sqlite file has storage version ${current}; this blogcore knows up to ${MIGRATIONS.length}`);
    }
    for (let v = current; v < MIGRATIONS.length; v++) db.exec(MIGRATIONS[v]!);
    if (current !== MIGRATIONS.length) db.pragma(`user_version = ${MIGRATIONS.length}`);
  }).immediate();
}

/** better-sqlite3's native addon could not be found or loaded (typically: bundled into a server build). */
const NATIVE_LOAD = /bindings file|better_sqlite3\.node|NODE_MODULE_VERSION|did not self-register|ERR_DLOPEN_FAILED/;

function loadError(error: unknown): Error {
  const missing = (error as { code?: string }).code === 'ERR_MODULE_NOT_FOUND' || /Cannot find (module|package) 'better-sqlite3'/.test(String(error));
  return new Error(
    missing
      ? `blogcore/sqlite needs better-sqlite3: npm install better-sqlite3 (${String(error)})`
      : 'blogcore/sqlite could not load better-sqlite3 and its native addon. If you bundle your server, keep better-sqlite3 out of the bundle: ' +
          "esbuild --external:better-sqlite3 (or external: ['better-sqlite3']), webpack externals: { 'better-sqlite3': 'commonjs better-sqlite3' }, " +
          `Vite ssr.external: ['better-sqlite3'] — and install it beside the bundle. (${String(error)})`,
    { cause: error },
  );
}

/**
 * `sqliteDriver({ filename })` opens (and on close, closes) a file or ':memory:';
 * `sqliteDriver({ database })` uses a host's open better-sqlite3 Database and leaves it open on close.
 */
export function sqliteDriver(options: SqliteDriverOptions): StorageDriver {
  if (typeof options !== 'object' || options === null) {
    throw new TypeError(`sqliteDriver takes an options object: sqliteDriver({ filename: ${JSON.stringify(options)} }) or sqliteDriver({ database })`);
  }
  return new SqliteDriver(options);
}
