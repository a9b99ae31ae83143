import type { SqliteDatabase } from './native.js';
import type { CollectionInfo, Connection } from './connect.js';
import type { StoreSchema } from '../../src/store/driver.js';

/**
 * The SQLite layout of the driver. Storage migrations are numbered by their position in MIGRATIONS and
 * tracked in `PRAGMA user_version`; each runs once, in its own transaction. (The core's StoreSchema —
 * collections and indexes — is data in the `collections`/`indexes` catalog, not DDL, so a new core
 * schema version needs no migration here.)
 *
 * Layout:
 * - docs      one row per record, what a read needs: its id, version, document and `terms`, a hash of the
 *             search tokens.
 * - doc_keys  (migration 6) the index keys each record holds (by index number, as the core gave them), so an
 *             update can remove exactly the entries it replaces. Only writes and the search's rank walks read
 *             them; apart from `docs` its rows are about two thirds as long, so a get reads about two thirds
 *             of the pages.
 * - entries   every index entry: (index number, order-preserving key bytes, doc rowid). Its primary
 *             key is the index: a list or count is one range seek, never OFFSET, never a scan.
 * - scopes    search scopes (e.g. blog ids) as small numbers, to keep FTS terms short.
 * - search    FTS5, contentless, detail=none, rowid = the record's rank place (migration 4: `ranks`). Each core token is one FTS term
 *             `<collection>s<scope no>p<token>` (or `...x<hex of UTF-8>` when the token holds ASCII
 *             other than a-z0-9, which FTS5's 'ascii' tokenizer would split or fold; `...u<hex of
 *             UTF-16>` when it holds a lone surrogate), so FTS5 stores
 *             exactly the core's tokens and a query reads only the posting lists of its own scope.
 * - ranks     (migration 4) where each searchable record sits in `search`: its rank (PutOp.terms.rank, the
 *             post's sort time in ms) × 1024 (search.ts SLOTS) + a slot, so FTS5's rowid order is the rank order and the newest
 *             matches of a search come first, read backwards from a bound (search.ts `rankWalk`).
 * - terms     (migration 2) each searchable record's FTS terms as one text ' t1 t2 … ', so a walk of an
 *             ordered index can check a candidate's tokens with one row read (FTS5 itself has no cheap
 *             "does this rowid hold these tokens" probe); the FTS index answers the sparse case.
 * - changes   the change log: one row per op, (commit seq, position in the commit), with its stream
 *             (migration 3; indexed by stream, seq, pos) and commit time; its last seq is the store's
 *             (meta.seq remembers empty commits and the newest pruned seq, meta.pruned how far pruning went).
 * - blobs, blob_chunks  (migration 5) media bytes in 256 KiB chunks, in the same file (blobs.ts).
 */
import { BLOB_TABLES } from './blobs.js';

export const MIGRATIONS: readonly string[] = [
  /* 1 */ `
  CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value INTEGER NOT NULL
  ) WITHOUT ROWID;
  INSERT INTO meta (key, value) VALUES ('seq', 0), ('schemaVersion', 0);

  CREATE TABLE collections (
    no     INTEGER PRIMARY KEY,
    name   TEXT NOT NULL UNIQUE,
    search INTEGER NOT NULL DEFAULT 0
  );

  CREATE TABLE indexes (
    no    INTEGER PRIMARY KEY,
    coll  INTEGER NOT NULL REFERENCES collections (no),
    name  TEXT NOT NULL,
    uniq  INTEGER NOT NULL DEFAULT 0,
    UNIQUE (coll, name)
  );

  CREATE TABLE docs (
    rid     INTEGER PRIMARY KEY,
    coll    INTEGER NOT NULL REFERENCES collections (no),
    id      TEXT NOT NULL,
    version INTEGER NOT NULL,
    terms   TEXT,
    keys    TEXT NOT NULL,
    doc     TEXT NOT NULL
  );
  CREATE UNIQUE INDEX docs_by_id ON docs (coll, id);

  CREATE TABLE entries (
    ix  INTEGER NOT NULL,
    key BLOB NOT NULL,
    rid INTEGER NOT NULL,
    PRIMARY KEY (ix, key, rid)
  ) WITHOUT ROWID;

  CREATE TABLE scopes (
    no   INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE
  );

  CREATE VIRTUAL TABLE search USING fts5 (
    t, content = '', contentless_delete = 1, detail = none, tokenize = 'ascii'
  );

  CREATE TABLE changes (
    seq     INTEGER NOT NULL,
    pos     INTEGER NOT NULL,
    coll    INTEGER NOT NULL,
    id      TEXT NOT NULL,
    type    TEXT NOT NULL,
    version INTEGER NOT NULL,
    PRIMARY KEY (seq, pos)
  ) WITHOUT ROWID;
  `,
  /* 2: the terms table. Tokens were only in the contentless FTS index, so it is emptied and every record's
     terms hash cleared: the core rewrites its searchable records once on open (store-schema version 2). */ `
  CREATE TABLE terms (
    rid INTEGER PRIMARY KEY,
    t   TEXT NOT NULL
  );
  INSERT INTO search (search) VALUES ('delete-all');
  UPDATE docs SET terms = NULL WHERE terms IS NOT NULL;
  `,
  /* 3: the change log keeps each change's stream (blog id) and commit time, walkable per stream, and
     prunable (meta.pruned: the highest seq pruned). Older entries get time 0: the first to go. */ `
  ALTER TABLE changes ADD COLUMN stream TEXT;
  ALTER TABLE changes ADD COLUMN time INTEGER NOT NULL DEFAULT 0;
  CREATE INDEX changes_by_stream ON changes (stream, seq, pos) WHERE stream IS NOT NULL;
  INSERT INTO meta (key, value) VALUES ('pruned', 0);
  `,
  /* 4: the full-text index in rank order (ranks). Its rowids were record numbers, so it is emptied and every
     record's terms hash cleared: the core writes its searchable records again once on open, with their rank
     (store layout 4). */ `
  CREATE TABLE ranks (
    frid INTEGER PRIMARY KEY,
    rid  INTEGER NOT NULL UNIQUE
  );
  INSERT INTO search (search) VALUES ('delete-all');
  UPDATE docs SET terms = NULL WHERE terms IS NOT NULL;
  `,
  /* 5: media bytes (blobs.ts) */ BLOB_TABLES,
  /* 6: the index keys apart from the documents (doc_keys), docs rebuilt without them so its rows pack tight. */ `
  CREATE TABLE doc_keys (
    rid  INTEGER PRIMARY KEY,
    keys TEXT NOT NULL
  );
  INSERT INTO doc_keys (rid, keys) SELECT rid, keys FROM docs;
  CREATE TABLE docs_packed (
    rid     INTEGER PRIMARY KEY,
    coll    INTEGER NOT NULL REFERENCES collections (no),
    id      TEXT NOT NULL,
    version INTEGER NOT NULL,
    terms   TEXT,
    doc     TEXT NOT NULL
  );
  INSERT INTO docs_packed (rid, coll, id, version, terms, doc) SELECT rid, coll, id, version, terms, doc FROM docs;
  DROP TABLE docs;
  ALTER TABLE docs_packed RENAME TO docs;
  CREATE UNIQUE INDEX docs_by_id ON docs (coll, id);
  `,
];

/** The meta rows (the seq counter, the schema version, how far pruning went) and the collection catalog. */
export const META_SQL = {
  userVersion: 'user_version',
  getMeta: `SELECT value FROM meta WHERE key = ?`,
  setMeta: `UPDATE meta SET value = ? WHERE key = ?`,
  raiseMeta: `UPDATE meta SET value = max(value, ?) WHERE key = ?`,
  // The last seq is the change log's newest row (meta keeps the seq of an empty commit, which logs nothing),
  // so a commit writes no counter row.
  nextSeq: `SELECT max(coalesce((SELECT max(seq) FROM changes), 0), (SELECT value FROM meta WHERE key = 'seq')) + 1`,
  setSeq: `UPDATE meta SET value = ? WHERE key = 'seq'`,

  catalogCollections: `SELECT no, name, search FROM collections`,
  catalogIndexes: `SELECT no, coll, name, uniq FROM indexes`,
  addCollection: `INSERT INTO collections (name, search) VALUES (?, ?)`,
  setSearch: `UPDATE collections SET search = ? WHERE no = ?`,
  addIndex: `INSERT INTO indexes (coll, name, uniq) VALUES (?, ?, ?)`,
  setUnique: `UPDATE indexes SET uniq = ? WHERE no = ?`,
  dropIndex: `DELETE FROM indexes WHERE no = ?`,
  dropEntries: `DELETE FROM entries WHERE ix = ?`,
} as const;

/** Runs the storage migrations the file has not had yet, each once, under the write lock. */
export function migrate(db: SqliteDatabase): void {
  db.transaction(() => {
    const current = Number(db.pragma(META_SQL.userVersion, { simple: true }));
    if (current > MIGRATIONS.length) {
      throw new Error(`sqlite file has storage version ${current}; this blogcore knows up to ${MIGRATIONS.length}`);
    }
    for (let v = current; v < MIGRATIONS.length; v++) db.exec(MIGRATIONS[v]!);
    if (current !== MIGRATIONS.length) db.pragma(`user_version = ${MIGRATIONS.length}`);
  }).immediate();
}

/** Brings the catalog to the declared collections and indexes (new ones added, dropped indexes emptied). */
export function declare(c: Connection, schema: StoreSchema): void {
  c.db
    .transaction(() => {
      const stored = Number(c.stmt(META_SQL.getMeta).pluck().get('schemaVersion'));
      if (stored > schema.version) {
        throw new Error(`sqlite store holds schema version ${stored}, newer than this blogcore's ${schema.version}`);
      }
      const colls = new Map<string, { no: number; search: number }>();
      for (const [no, name, search] of c.stmt(META_SQL.catalogCollections).raw().all() as Array<
        [number, string, number]
      >) {
        colls.set(name, { no, search });
      }
      const idx = new Map<string, { no: number; uniq: number }>();
      for (const [no, coll, name, uniq] of c.stmt(META_SQL.catalogIndexes).raw().all() as Array<
        [number, number, string, number]
      >) {
        idx.set(`${coll}\0${name}`, { no, uniq });
      }
      const byName = new Map<string, CollectionInfo>();
      const keep = new Set<number>();
      for (const def of schema.collections) {
        let coll = colls.get(def.name);
        const search = def.search ? 1 : 0;
        if (!coll) {
          coll = { no: Number(c.stmt(META_SQL.addCollection).run(def.name, search).lastInsertRowid), search };
          colls.set(def.name, coll);
        } else if (coll.search !== search) {
          c.stmt(META_SQL.setSearch).run(search, coll.no);
        }
        const info: CollectionInfo = { no: coll.no, name: def.name, indexes: new Map(), def };
        for (const index of def.indexes) {
          let i = idx.get(`${coll.no}\0${index.name}`);
          const uniq = index.unique ? 1 : 0;
          if (!i) i = { no: Number(c.stmt(META_SQL.addIndex).run(coll.no, index.name, uniq).lastInsertRowid), uniq };
          else if (i.uniq !== uniq) c.stmt(META_SQL.setUnique).run(uniq, i.no);
          keep.add(i.no);
          info.indexes.set(index.name, { no: i.no, name: index.name, unique: !!index.unique, path: `$."${i.no}"` });
        }
        byName.set(def.name, info);
      }
      // An index the schema no longer declares: its entries could not be kept up to date, so they go.
      // A re-declared one gets a new number and starts empty, like a new index.
      for (const [, i] of idx) {
        if (keep.has(i.no)) continue;
        c.stmt(META_SQL.dropEntries).run(i.no);
        c.stmt(META_SQL.dropIndex).run(i.no);
      }
      c.stmt(META_SQL.setMeta).run(schema.version, 'schemaVersion');
      c.byName = byName;
      c.namesByNo = new Map([...colls].map(([name, coll]) => [coll.no, name]));
    })
    .immediate();
}
