/**
 * The PostgreSQL storage driver, on node-postgres (`pg`, an optional peer dependency): several app servers
 * sharing one database. It stores what the core gives it (documents, index keys, search tokens) and decides
 * nothing; see src/store/driver.ts and schema.ts.
 */
import {
  DriverConflict,
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
import { postgresBlobs } from './blobs.js';
import { AFTER_ALL, decodeKey, EMPTY, encodeKey, prefixEnd } from '../shared/byte-keys.js';
import { Feed } from './feed.js';
import type { PgError, PgModule, PgPool, PgQueryConfig } from './pg-types.js';
import { channelOf, countSql, ident, listSql, MIGRATIONS, statements } from './schema.js';
import { decode, keysSql, matchCountSql, mergeRows, rangeCountSql, SPARSE, sparseSql, storedToken, WALK, walkSql, type Row } from './search.js';
import { fromPgText, pgText } from './text.js';

export type { PgPool } from './pg-types.js';

interface Common {
  /** The schema holding the store's tables, created when missing. Default `blogcore`. */
  schema?: string;
  /**
   * Named prepared statements (parsed once per connection). Default true. Set false behind a pooler in
   * transaction mode that cannot keep them (PgBouncer before 1.21, or without `max_prepared_statements`).
   */
  preparedStatements?: boolean;
  /**
   * Share `service.on` events with the other app servers on this store (LISTEN/NOTIFY and the change log).
   * Default true. A single server may turn it off: each write then skips storing its events for others.
   */
  shareEvents?: boolean;
}

export interface PostgresConnectionOptions extends Common {
  /** A `postgres://` URL. The driver opens a Pool on it and ends that Pool on `close()`. */
  connectionString: string;
  /** Connections in the driver's Pool. Default 10. */
  max?: number;
}

export interface PostgresPoolOptions extends Common {
  /** A `pg.Pool` owned by the host: used as given, never ended by the driver. */
  pool: PgPool;
}

export type PostgresDriverOptions = PostgresConnectionOptions | PostgresPoolOptions;

/** The storage-layout version this build writes (rows of `<schema>.migrations`). */
export const POSTGRES_STORAGE_VERSION = MIGRATIONS.length;

interface IndexInfo {
  no: number;
  name: string;
  unique: boolean;
}

interface CollectionInfo {
  no: number;
  name: string;
  indexes: Map<string, IndexInfo>;
}

/** SQLSTATEs of a connection that went away: the call failed, and whether it ran is unknown. */
const CONNECTION_LOST = /^(08|57P0)/;

/** A short, stable tag for statement names: two stores on one connection never share a name. */
function tag(s: string): string {
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619);
  return (h >>> 0).toString(36);
}

class PostgresDriver implements StorageDriver {
  private pool: PgPool | undefined;
  private readonly owned: boolean;
  private closed = false;
  readonly schema: string;
  private readonly s: string;
  private readonly sql: ReturnType<typeof statements>;
  private readonly names = new Map<string, string>();
  private readonly prefix: string;
  private byName = new Map<string, CollectionInfo>();
  private namesByNo = new Map<number, string>();
  private indexByNo = new Map<number, string>();
  private feed: Feed | undefined;
  readonly blobs: BlobStore;

  constructor(private readonly options: PostgresDriverOptions) {
    this.owned = !('pool' in options);
    this.schema = options.schema ?? 'blogcore';
    if (!this.schema || this.schema.length > 50) throw new Error('postgres driver: schema must be 1 to 50 characters');
    this.s = ident(this.schema);
    this.sql = statements(this.s);
    this.prefix = `bc${tag(this.schema)}_`;
    this.blobs = postgresBlobs({ s: this.s, run: (text, values, read) => this.run(text, values, read) });
    if (options.shareEvents !== false) this.watch = (listener) => this.follow(listener);
  }

  private async connectPool(): Promise<PgPool> {
    if (this.closed) throw new Error('postgres driver is closed');
    if (this.pool) return this.pool;
    if ('pool' in this.options) return (this.pool = this.options.pool);
    const mod = (await import('pg').catch((error: unknown) => {
      throw new Error(`blogcore/postgres needs pg (npm install pg): ${String(error)}`);
    })) as unknown as { default?: PgModule } & PgModule;
    const pg = mod.default ?? mod;
    const pool = new pg.Pool({ connectionString: this.options.connectionString, max: this.options.max ?? 10 });
    // An idle connection the server dropped must not crash the host; the next query opens a fresh one.
    pool.on('error', () => {});
    return (this.pool = pool);
  }

  private live(): PgPool {
    if (this.closed) throw new Error('postgres driver is closed');
    if (!this.pool || this.byName.size === 0) throw new Error('postgres driver is not open: call open(schema) first');
    return this.pool;
  }

  /**
   * One statement on any pooled connection, rows as arrays. A read whose connection was lost (a restarted
   * server, a killed backend) is tried once more on a fresh one; a commit is not (it may have happened).
   */
  async run(text: string, values: readonly unknown[], read = true): Promise<unknown[][]> {
    const pool = this.live();
    const config: PgQueryConfig = { text, values, rowMode: 'array' };
    if (this.options.preparedStatements !== false) {
      let name = this.names.get(text);
      if (!name) this.names.set(text, (name = `${this.prefix}${this.names.size}`));
      config.name = name;
    }
    try {
      return (await pool.query<unknown[]>(config)).rows;
    } catch (error) {
      if (read && lostConnection(error)) {
        try {
          return (await pool.query<unknown[]>(config)).rows;
        } catch (again) {
          throw clearError(again);
        }
      }
      throw clearError(error);
    }
  }

  async open(schema: StoreSchema): Promise<void> {
    const pool = await this.connectPool();
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      // One migrator at a time per store, across every app server; released at COMMIT/ROLLBACK.
      await client.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [`blogcore:${this.schema}`]);
      await client.query(`CREATE SCHEMA IF NOT EXISTS ${this.s}`);
      await client.query(`CREATE TABLE IF NOT EXISTS ${this.s}.migrations (version int PRIMARY KEY, at timestamptz NOT NULL DEFAULT now())`);
      const { rows } = await client.query<[number]>({ text: `SELECT coalesce(max(version), 0)::int FROM ${this.s}.migrations`, rowMode: 'array' });
      const current = rows[0]![0];
      if (current > MIGRATIONS.length) {
        throw new Error(`postgres schema ${this.schema} has storage version ${current}; this blogcore knows up to ${MIGRATIONS.length}`);
      }
      for (let v = current; v < MIGRATIONS.length; v++) {
        await client.query(MIGRATIONS[v]!(this.s, this.schema));
        await client.query(`INSERT INTO ${this.s}.migrations (version) VALUES ($1)`, [v + 1]);
      }
      await this.declare(schema, (text, values) => client.query<unknown[]>({ text, values, rowMode: 'array' }).then((r) => r.rows));
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      client.release();
      if (this.owned) {
        await pool.end().catch(() => undefined);
        this.pool = undefined;
      }
      throw clearError(error);
    }
    client.release();
  }

  /** Brings the catalog to the declared collections and indexes (new ones added, dropped indexes emptied). */
  private async declare(schema: StoreSchema, q: (text: string, values?: unknown[]) => Promise<unknown[][]>): Promise<void> {
    const sql = this.sql;
    const stored = Number((await q(sql.getMeta, ['schemaVersion']))[0]![0]);
    if (stored > schema.version) {
      throw new Error(`postgres store holds schema version ${stored}, newer than this blogcore's ${schema.version}`);
    }
    const colls = new Map<string, { no: number; search: boolean }>();
    for (const [no, name, s] of (await q(sql.catalogCollections)) as Array<[number, string, boolean]>) colls.set(name, { no, search: s });
    const idx = new Map<string, { no: number; uniq: boolean }>();
    for (const [no, coll, name, uniq] of (await q(sql.catalogIndexes)) as Array<[number, number, string, boolean]>) {
      idx.set(`${coll}\0${name}`, { no, uniq });
    }
    const byName = new Map<string, CollectionInfo>();
    const indexByNo = new Map<number, string>();
    const keep = new Set<number>();
    for (const def of schema.collections) {
      let c = colls.get(def.name);
      const searchable = !!def.search;
      if (!c) {
        c = { no: Number((await q(sql.addCollection, [def.name, searchable]))[0]![0]), search: searchable };
        colls.set(def.name, c);
      } else if (c.search !== searchable) {
        await q(sql.setSearch, [searchable, c.no]);
      }
      const info: CollectionInfo = { no: c.no, name: def.name, indexes: new Map() };
      for (const index of def.indexes) {
        let i = idx.get(`${c.no}\0${index.name}`);
        const uniq = !!index.unique;
        if (!i) i = { no: Number((await q(sql.addIndex, [c.no, index.name, uniq]))[0]![0]), uniq };
        else if (i.uniq !== uniq) await q(sql.setUnique, [uniq, i.no]);
        keep.add(i.no);
        info.indexes.set(index.name, { no: i.no, name: index.name, unique: uniq });
        indexByNo.set(i.no, index.name);
      }
      byName.set(def.name, info);
    }
    // An index the schema no longer declares: its entries could not be kept up to date, so they go.
    for (const [, i] of idx) {
      if (keep.has(i.no)) continue;
      await q(sql.dropEntries, [i.no]);
      await q(sql.dropIndex, [i.no]);
    }
    await q(sql.setMeta, [schema.version, 'schemaVersion']);
    this.byName = byName;
    this.indexByNo = indexByNo;
    this.namesByNo = new Map([...colls].map(([name, c]) => [c.no, name]));
  }

  private coll(name: string): CollectionInfo {
    this.live();
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
    const row = (await this.run(this.sql.get, [c.no, pgText(id)]))[0] as [number, string] | undefined;
    return row && { id, version: row[0], doc: JSON.parse(row[1]) as JsonObject };
  }

  async getMany(collection: string, ids: readonly string[]): Promise<Array<StoredDoc | undefined>> {
    const c = this.coll(collection);
    if (ids.length === 0) return [];
    if (ids.length === 1) return [await this.get(collection, ids[0]!)];
    const rows = (await this.run(this.sql.getMany, [c.no, ids.map(pgText)])) as Array<[string, number, string]>;
    const found = new Map(rows.map(([id, version, doc]) => [fromPgText(id), { version, doc }]));
    return ids.map((id) => {
      const f = found.get(id);
      // Each record gets its own parse, so a caller changing one answer never changes another.
      return f && { id, version: f.version, doc: JSON.parse(f.doc) as JsonObject };
    });
  }

  async getByIndex(collection: string, index: string, key: Key): Promise<StoredDoc | undefined> {
    const c = this.coll(collection);
    const i = this.index(c, index);
    if (!i.unique) throw new Error(`index ${index} is not unique`);
    const row = (await this.run(this.sql.byKey, [i.no, encodeKey(key)]))[0] as [string, number, string] | undefined;
    return row && { id: fromPgText(row[0]), version: row[1], doc: JSON.parse(row[2]) as JsonObject };
  }

  /** The byte range of a query: [from, to] with the comparison each end uses. */
  private range(q: RangeQuery): { ix: number; lower: '>=' | '>'; from: Buffer; upper: '<=' | '<'; to: Buffer } {
    const i = this.index(this.coll(q.collection), q.index);
    const prefix = q.prefix.length ? encodeKey(q.prefix) : EMPTY;
    const lower = q.lower?.open ? '>' : '>=';
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
    const rows = (await this.run(listSql(this.s, r.lower, r.upper, q.direction === 'desc' ? 'DESC' : 'ASC'), [r.ix, r.from, r.to, limit])) as Array<
      [Buffer, string, number, string]
    >;
    return rows.map(([key, id, version, doc]) => ({ id: fromPgText(id), key: decodeKey(key), version, doc: JSON.parse(doc) as JsonObject }));
  }

  async count(q: RangeQuery): Promise<number> {
    const r = this.range(q);
    return Number((await this.run(countSql(this.s, r.lower, r.upper), [r.ix, r.from, r.to]))[0]![0]);
  }

  /** The per-prefix byte ranges of a merged walk, as the array parameters of search.ts's statements. */
  private ranges(q: KeysQuery) {
    let ix = 0;
    let lower: '>=' | '>' = '>=';
    let upper: '<=' | '<' = '<';
    const lo: Buffer[] = [];
    const hi: Buffer[] = [];
    const w: number[] = [];
    for (const prefix of q.prefixes) {
      const r = this.range({ ...q, prefix });
      ({ ix, lower, upper } = r);
      lo.push(r.from);
      hi.push(r.to);
      w.push(encodeKey(prefix).length + 1);
    }
    return { ix, lower, upper, lo, hi, w, dir: q.direction === 'desc' ? ('DESC' as const) : ('ASC' as const) };
  }

  async keys(q: KeysQuery): Promise<IndexEntry[]> {
    const limit = Math.max(0, Math.floor(q.limit));
    if (limit === 0 || q.prefixes.length === 0) return [];
    const r = this.ranges(q);
    const rows = (await this.run(keysSql(this.s, r.lower, r.upper, r.dir), [r.ix, r.lo, r.hi, r.w, limit])) as Array<[Buffer, string]>;
    return rows.map(([key, id]) => ({ id: fromPgText(id), key: decodeKey(key) }));
  }

  async search(q: SearchQuery): Promise<IndexEntry[]> {
    const c = this.coll(q.collection);
    const limit = Math.max(0, Math.floor(q.limit));
    if (q.tokens.length === 0 || limit === 0 || q.prefixes.length === 0) return [];
    const r = this.ranges(q);
    const tokens = [...new Set(q.tokens)].map((t) => storedToken(c.no, q.scope, t));
    const params = [r.ix, r.lo, r.hi, r.w, limit, tokens];
    const matches = Number((await this.run(matchCountSql(this.s), [tokens, SPARSE]))[0]![0]);
    let rows: Row[] | undefined;
    if (matches >= SPARSE) {
      const budget = WALK * limit;
      const found = (await this.run(walkSql(this.s, r.lower, r.upper, r.dir), [...params, budget])) as Array<[Buffer, string, number, Buffer]>;
      const per = new Map<number, number>();
      for (const row of found) per.set(row[2], (per.get(row[2]) ?? 0) + 1);
      // A prefix that came back short is complete only if its walk ran out of range before the budget did.
      let complete = true;
      for (let n = 1; n <= q.prefixes.length && complete; n++) {
        if ((per.get(n) ?? 0) >= limit) continue;
        const held = Number((await this.run(rangeCountSql(this.s, r.lower, r.upper), [r.ix, r.lo[n - 1], r.hi[n - 1], budget]))[0]![0]);
        complete = held < budget;
      }
      if (complete) rows = mergeRows(found, r.dir, limit);
    }
    rows ??= ((await this.run(sparseSql(this.s, r.lower, r.upper, r.dir), params)) as Array<[Buffer, string]>).map(([key, id]) => ({ key, id }));
    return decode(rows).map((e) => ({ id: fromPgText(e.id), key: e.key }));
  }

  async commit(ops: readonly WriteOp[], options: CommitOptions = {}): Promise<CommitResult> {
    const oStream: Array<string | null> = ops.map((op) => (op.stream !== undefined ? pgText(op.stream) : null));
    const oColl: number[] = [];
    const oId: string[] = [];
    const oExpect: number[] = [];
    const oDel: boolean[] = [];
    const oDoc: Array<string | null> = [];
    const oScope: Array<string | null> = [];
    const eOp: number[] = [];
    const eIx: number[] = [];
    const eKey: Buffer[] = [];
    const eU: boolean[] = [];
    const tOp: number[] = [];
    const tTok: string[] = [];
    // Resolve names first: an unknown collection or index is a programming error, not a conflict.
    ops.forEach((op, k) => {
      const c = this.coll(op.collection);
      oColl.push(c.no);
      oId.push(pgText(op.id));
      oExpect.push(op.expect);
      oDel.push(op.type === 'delete');
      if (op.type === 'delete') {
        oDoc.push(null);
        oScope.push(null);
        return;
      }
      oDoc.push(JSON.stringify(op.doc));
      for (const [name, keys] of Object.entries(op.keys)) {
        const i = this.index(c, name);
        for (const key of keys) {
          eOp.push(k + 1);
          eIx.push(i.no);
          eKey.push(encodeKey(key));
          eU.push(i.unique);
        }
      }
      oScope.push(op.terms ? pgText(op.terms.scope) : null);
      if (op.terms) {
        for (const t of new Set(op.terms.tokens)) {
          tOp.push(k + 1);
          tTok.push(storedToken(c.no, op.terms.scope, t));
        }
      }
    });
    try {
      const rows = await this.run(
        this.sql.commit,
        [oColl, oId, oExpect, oDel, oDoc, oScope, eOp, eIx, eKey, eU, tOp, tTok, oStream, Math.floor(options.time ?? Date.now())],
        false,
      );
      return { seq: Number(rows[0]![0]) };
    } catch (error) {
      throw this.conflict(error, ops, eOp, eIx) ?? error;
    }
  }

  /** The DriverConflict a failed commit stands for, if it is one. */
  private conflict(error: unknown, ops: readonly WriteOp[], eOp: number[], eIx: number[]): DriverConflict | undefined {
    const e = (error instanceof Error && 'cause' in error && error.cause ? error.cause : error) as PgError;
    const at = (n: number) => ops[Math.max(0, n - 1)] ?? ops[0]!;
    switch (e.code) {
      case 'BC001': {
        const op = at(Number(e.detail));
        return new DriverConflict('version', op.collection, op.id);
      }
      case 'BC002': {
        const [n, ix] = (e.detail ?? '').split(':').map(Number);
        const op = at(n!);
        return new DriverConflict('unique', op.collection, op.id, this.indexByNo.get(ix!));
      }
      case '23505': {
        // A race the checks in commit_ops could not see: two commits inserting one record or one unique key.
        if (e.constraint === 'docs_id') return new DriverConflict('version', ops[0]!.collection, ops[0]!.id);
        const ix = Number(/\(ix, key\)=\((\d+),/.exec(e.detail ?? '')?.[1]);
        const k = eIx.indexOf(ix);
        const op = at(k >= 0 ? eOp[k]! : 1);
        return new DriverConflict('unique', op.collection, op.id, this.indexByNo.get(ix));
      }
      case '40P01': // deadlock: two commits locking the same records in another order; one retries
      case '40001':
        return new DriverConflict('version', ops[0]!.collection, ops[0]!.id);
      default:
        return undefined;
    }
  }

  async changesSince(seq: number, limit = 1000): Promise<Change[]> {
    return this.changes(await this.run(this.sql.changesSince, [seq, Math.max(0, Math.floor(limit))]));
  }

  async streamChanges(stream: string, after: LogPosition, limit: number): Promise<Change[]> {
    return this.changes(await this.run(this.sql.streamChanges, [pgText(stream), after.seq, after.pos, Math.max(0, Math.floor(limit))]));
  }

  private changes(rows: unknown[][]): Change[] {
    return (rows as Array<[string, number, number, string, 'put' | 'delete', number, string | null, string]>).map(
      ([seq, pos, coll, id, type, version, stream, time]) => ({
        seq: Number(seq),
        pos,
        collection: this.namesByNo.get(coll) ?? String(coll),
        id: fromPgText(id),
        type,
        version,
        ...(stream !== null ? { stream: fromPgText(stream) } : {}),
        time: Number(time),
      }),
    );
  }

  async logBounds(): Promise<LogBounds> {
    const [[newest], [pruned]] = (await Promise.all([this.run(this.sql.lastSeq, []), this.run(this.sql.pruned, [])])) as [unknown[][], unknown[][]];
    return { newest: Number(newest), pruned: Number(pruned) };
  }

  async pruneChanges(q: PruneQuery): Promise<number> {
    const limit = Math.max(0, Math.floor(q.limit));
    if (limit === 0) return 0;
    // Infinity has no bigint: a bound past every time and seq.
    const bound = (x: number | undefined, none: number) => (x === undefined ? none : Math.max(-1, Math.min(Number.MAX_SAFE_INTEGER, Math.floor(x))));
    const rows = await this.run(this.sql.prune, [bound(q.before, -1), bound(q.through, -1), limit], false);
    return Number(rows[0]![0]);
  }

  /**
   * Calls `listener` after commits of this store by any app server (LISTEN on the store's channel), and
   * now and then without a notification, so a missed one (a dropped connection) only delays it.
   * Absent with `shareEvents: false`.
   */
  readonly watch?: (listener: () => void) => () => void;

  private follow(listener: () => void): () => void {
    const pool = this.live();
    this.feed ??= new Feed(pool, channelOf(this.schema));
    return this.feed.add(listener);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.feed?.stop();
    this.feed = undefined;
    if (this.owned && this.pool) await this.pool.end();
    this.pool = undefined;
  }
}

function lostConnection(error: unknown): boolean {
  const e = error as PgError;
  return !!(e?.code && CONNECTION_LOST.test(e.code)) || /Connection terminated|ECONNRESET|ECONNREFUSED|EPIPE/.test(String(e?.message));
}

/** A lost connection, said plainly: the statement may or may not have run. */
function clearError(error: unknown): unknown {
  const e = error as PgError;
  if (!lostConnection(error)) return error;
  return new Error(`blogcore/postgres: the database connection was lost (${e.message}); the call may not have completed, retry it`, {
    cause: error,
  });
}

/**
 * `postgresDriver({ connectionString, schema? })` opens (and on close, ends) a Pool;
 * `postgresDriver({ pool, schema? })` uses a host's Pool and never ends it.
 */
export function postgresDriver(options: PostgresDriverOptions): StorageDriver {
  return new PostgresDriver(options);
}
