/**
 * The SQLite layout of the driver. Storage migrations are numbered by their position in MIGRATIONS and
 * tracked in `PRAGMA user_version`; each runs once, in its own transaction. (The core's StoreSchema —
 * collections and indexes — is data in the `collections`/`indexes` catalog, not DDL, so a new core
 * schema version needs no migration here.)
 *
 * Layout:
 * - docs      one row per record; `keys` holds the index keys the core gave (by index number), so an
 *             update can remove exactly the entries it replaces; `terms` is a hash of the search tokens.
 * - entries   every index entry: (index number, order-preserving key bytes, doc rowid). Its primary
 *             key is the index: a list or count is one range seek, never OFFSET, never a scan.
 * - scopes    search scopes (e.g. blog ids) as small numbers, to keep FTS terms short.
 * - search    FTS5, contentless, detail=none, rowid = docs.rid. Each core token is one FTS term
 *             `<collection>s<scope no>p<token>` (or `...x<hex of UTF-8>` when the token holds ASCII
 *             other than a-z0-9, which FTS5's 'ascii' tokenizer would split or fold; `...u<hex of
 *             UTF-16>` when it holds a lone surrogate), so FTS5 stores
 *             exactly the core's tokens and a query reads only the posting lists of its own scope.
 * - terms     (migration 2) each searchable record's FTS terms as one text ' t1 t2 … ', so a walk of an
 *             ordered index can check a candidate's tokens with one row read (FTS5 itself has no cheap
 *             "does this rowid hold these tokens" probe); the FTS index answers the sparse case.
 * - changes   the change log: one row per op, (commit seq, position in the commit), with its stream
 *             (migration 3; indexed by stream, seq, pos) and commit time; its last seq is the store's
 *             (meta.seq remembers empty commits and the newest pruned seq, meta.pruned how far pruning went).
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
  /* 3: media bytes (blobs.ts) */ BLOB_TABLES,
];

export const SQL = {
  userVersion: 'user_version',
  getMeta: `SELECT value FROM meta WHERE key = ?`,
  setMeta: `UPDATE meta SET value = ? WHERE key = ?`,
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

  scopeNo: `SELECT no FROM scopes WHERE name = ?`,
  addScope: `INSERT INTO scopes (name) VALUES (?)`,

  // Reads.
  readDoc: `SELECT version, doc FROM docs WHERE coll = ? AND id = ?`,
  byKey: `SELECT d.id, d.version, d.doc FROM entries e JOIN docs d ON d.rid = e.rid WHERE e.ix = ? AND e.key = ? ORDER BY e.rid LIMIT 1`,
  changesSince: `SELECT seq, pos, coll, id, type, version, stream, time FROM changes WHERE seq > ? ORDER BY seq, pos LIMIT ?`,
  streamChanges: `SELECT seq, pos, coll, id, type, version, stream, time FROM changes
    WHERE stream = ? AND (seq, pos) > (?, ?) ORDER BY stream, seq, pos LIMIT ?`,
  oldestChanges: `SELECT seq, pos, time FROM changes ORDER BY seq, pos LIMIT ?`,
  pruneThrough: `DELETE FROM changes WHERE (seq, pos) <= (?, ?)`,
  raiseMeta: `UPDATE meta SET value = max(value, ?) WHERE key = ?`,

  // Writes (inside one IMMEDIATE transaction per commit).
  current: `SELECT rid, version, terms, keys FROM docs WHERE coll = ? AND id = ?`,
  insertDoc: `INSERT INTO docs (coll, id, version, terms, keys, doc) VALUES (?, ?, ?, ?, ?, ?)`,
  updateDoc: `UPDATE docs SET version = ?, terms = ?, keys = ?, doc = ? WHERE rid = ?`,
  deleteDoc: `DELETE FROM docs WHERE rid = ?`,
  insertEntry: `INSERT OR IGNORE INTO entries (ix, key, rid) VALUES (?, ?, ?)`,
  deleteEntry: `DELETE FROM entries WHERE ix = ? AND key = ? AND rid = ?`,
  holder: `SELECT rid FROM entries WHERE ix = ? AND key = ? AND rid <> ? LIMIT 1`,
  indexTerms: `INSERT INTO search (rowid, t) VALUES (?, ?)`,
  unindexTerms: `DELETE FROM search WHERE rowid = ?`,
  putTerms: `INSERT OR REPLACE INTO terms (rid, t) VALUES (?, ?)`,
  deleteTerms: `DELETE FROM terms WHERE rid = ?`,
  readTerms: `SELECT t FROM terms WHERE rid = ?`,
  logChange: `INSERT INTO changes (seq, pos, coll, id, type, version, stream, time) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
} as const;

type Lower = '>=' | '>';
type Upper = '<=' | '<';

/** One index range walk: key bounds are bytes (see keys.ts); ties (possible only off the core's keys) by rowid. */
export const listSql = (lower: Lower, upper: Upper, dir: 'ASC' | 'DESC') =>
  `SELECT e.key, d.id, d.version, d.doc FROM entries e JOIN docs d ON d.rid = e.rid
   WHERE e.ix = ? AND e.key ${lower} ? AND e.key ${upper} ? ORDER BY e.key ${dir}, e.rid ${dir} LIMIT ?`;

export const countSql = (lower: Lower, upper: Upper) => `SELECT count(*) FROM entries WHERE ix = ? AND key ${lower} ? AND key ${upper} ?`;

/** One index range walk returning keys and ids only (no document is read). */
export const keysSql = (lower: Lower, upper: Upper, dir: 'ASC' | 'DESC') =>
  `SELECT e.key, d.id, e.rid FROM entries e JOIN docs d ON d.rid = e.rid
   WHERE e.ix = ? AND e.key ${lower} ? AND e.key ${upper} ? ORDER BY e.key ${dir}, e.rid ${dir} LIMIT ?`;

/**
 * Several prefixes' walks merged by suffix in one statement: each member walks one prefix (a seek, at most
 * `limit` keys), the suffix is the key's bytes after its prefix, GROUP BY keeps one row per suffix (the
 * lowest member number: SQLite takes bare columns from the min() row), and only the page is joined to docs.
 * Parameters per member: suffix start, index, from, to, limit; then the page limit.
 */
export const mergeSql = (members: number, lower: Lower, upper: Upper, dir: 'ASC' | 'DESC') =>
  `SELECT t.key, d.id FROM (
     SELECT s, key, rid, min(n) AS n FROM (${Array.from(
       { length: members },
       (_, n) =>
         `SELECT * FROM (SELECT substr(key, ?) AS s, key, rid, ${n} AS n FROM entries
          WHERE ix = ? AND key ${lower} ? AND key ${upper} ? ORDER BY key ${dir} LIMIT ?)`,
     ).join(' UNION ALL ')})
     GROUP BY s ORDER BY s ${dir} LIMIT ?
   ) t JOIN docs d ON d.rid = t.rid ORDER BY t.s ${dir}`;

/**
 * One prefix's walk keeping the keys whose record matches: FTS5 gives the match set once (materialized),
 * the walk reads index keys in order until the page is full (the shape raw SQL uses for an ordered search).
 */
export const matchWalkSql = (lower: Lower, upper: Upper, dir: 'ASC' | 'DESC') =>
  `SELECT e.key, d.id FROM entries e JOIN docs d ON d.rid = e.rid
   WHERE e.ix = ? AND e.key ${lower} ? AND e.key ${upper} ? AND e.rid IN (SELECT rowid FROM search WHERE search MATCH ?)
   ORDER BY e.key ${dir}, e.rid ${dir} LIMIT ?`;

/** How many records match, counted no further than the cap (FTS5 reads the posting lists that far only). */
export const matchCountSql = `SELECT count(*) FROM (SELECT 1 FROM search WHERE search MATCH ? LIMIT ?)`;

/**
 * Every match's entries of one index as one JSON text `[[id, keys|null], ...]` (`path` is `$."<index
 * number>"` into docs.keys): used only when the matches are few (see `search`), SQLite builds it in C.
 */
export const searchSql = `SELECT json_group_array(json_array(d.id, d.keys -> ?)) FROM search s JOIN docs d ON d.rid = s.rowid
   WHERE search MATCH ? AND d.coll = ?`;
