/**
 * One commit, one IMMEDIATE transaction: the write lock is taken before the versions are read, so another
 * connection cannot slip in between; each op is checked and applied in turn, and a DriverConflict rolls the
 * whole commit back. (Inside a host's own transaction better-sqlite3 uses a savepoint instead.)
 */
import { createHash } from 'node:crypto';
import {
  addAsPut,
  DriverConflict,
  heldKeys,
  type CommitOptions,
  type CommitResult,
  type JsonObject,
  type Key,
  type WriteOp,
} from '../../src/store/driver.js';
import { encodeKey } from '../shared/byte-keys.js';
import { logChange, movedPast } from './changes.js';
import type { CollectionInfo, Connection, IndexInfo } from './connect.js';
import { META_SQL } from './schema.js';
import { ftsToken, RANKED_FLOOR, scopeNo, SLOTS, UNRANKED } from './search.js';

const WRITE_SQL = {
  current: `SELECT d.rid, d.version, d.terms, k.keys FROM docs d JOIN doc_keys k ON k.rid = d.rid WHERE d.coll = ? AND d.id = ?`,
  doc: `SELECT doc FROM docs WHERE rid = ?`,
  insertDoc: `INSERT INTO docs (coll, id, version, terms, doc) VALUES (?, ?, ?, ?, ?)`,
  updateDoc: `UPDATE docs SET version = ?, terms = ?, doc = ? WHERE rid = ?`,
  deleteDoc: `DELETE FROM docs WHERE rid = ?`,
  insertKeys: `INSERT INTO doc_keys (rid, keys) VALUES (?, ?)`,
  updateKeys: `UPDATE doc_keys SET keys = ? WHERE rid = ?`,
  deleteKeys: `DELETE FROM doc_keys WHERE rid = ?`,
  insertEntry: `INSERT OR IGNORE INTO entries (ix, key, rid) VALUES (?, ?, ?)`,
  deleteEntry: `DELETE FROM entries WHERE ix = ? AND key = ? AND rid = ?`,
  holder: `SELECT rid FROM entries WHERE ix = ? AND key = ? AND rid <> ? LIMIT 1`,
  indexTerms: `INSERT INTO search (rowid, t) VALUES (?, ?)`,
  unindexTerms: `DELETE FROM search WHERE rowid = ?`,
  placeOf: `SELECT frid FROM ranks WHERE rid = ?`,
  placeTaken: `SELECT 1 FROM ranks WHERE frid = ?`,
  place: `INSERT INTO ranks (frid, rid) VALUES (?, ?)`,
  unplace: `DELETE FROM ranks WHERE rid = ?`,
  putTerms: `INSERT OR REPLACE INTO terms (rid, t) VALUES (?, ?)`,
  deleteTerms: `DELETE FROM terms WHERE rid = ?`,
} as const;

/** The index keys a record holds, by index number (doc_keys.keys). */
type StoredKeys = Record<string, Key[]>;

const termsHash = (scope: string, tokens: readonly string[], rank: number | undefined) =>
  createHash('sha1')
    .update(`${rank ?? ''}\0${scope}\0`)
    .update(tokens.join('\0'))
    .digest('base64');

/** A free place in `search` for a record of this rank: one of its rank's SLOTS, else its unranked place (search.ts). */
function placeFor(c: Connection, rank: number | undefined, rid: number): number {
  if (
    rank !== undefined &&
    Number.isSafeInteger(rank) &&
    rank * SLOTS >= RANKED_FLOOR &&
    Number.isSafeInteger((rank + 1) * SLOTS)
  ) {
    for (let k = 0; k < SLOTS; k++) {
      const place = rank * SLOTS + ((rid + k) % SLOTS);
      if (c.stmt(WRITE_SQL.placeTaken).pluck().get(place) === undefined) return place;
    }
  }
  return UNRANKED + rid;
}

/** Takes a record out of the full-text index (wherever its place is). */
function unindex(c: Connection, rid: number): void {
  const place = c.stmt(WRITE_SQL.placeOf).pluck().get(rid) as number | undefined;
  c.stmt(WRITE_SQL.unindexTerms).run(place ?? rid);
  c.stmt(WRITE_SQL.unplace).run(rid);
}

export function commit(c: Connection, ops: readonly WriteOp[], options: CommitOptions): CommitResult {
  // Resolve names first: an unknown collection or index is a programming error, not a conflict.
  const resolved = ops.map((op) => {
    const coll = c.collection(op.collection);
    if (op.type !== 'delete') for (const name of Object.keys(op.keys)) c.index(coll, name);
    return coll;
  });
  c.hostTransaction = c.db.inTransaction;
  c.wrote();
  const commitTx = (c.commitTx ??= c.db.transaction(
    (ops: readonly WriteOp[], resolved: CollectionInfo[], time: number, u?: CommitOptions['unchanged']) => {
      if (u && movedPast(c, u.stream, u.after)) throw new DriverConflict('stale', '', u.stream);
      const seq = Number(c.stmt(META_SQL.nextSeq).pluck().get());
      if (ops.length === 0) c.stmt(META_SQL.setSeq).run(seq);
      for (const [pos, op] of ops.entries()) apply(c, resolved[pos]!, op, seq, pos, time);
      return { seq };
    },
  ));
  return commitTx.immediate(ops, resolved, Math.floor(options.time ?? Date.now()), options.unchanged);
}

/**
 * One op inside the commit transaction; throwing DriverConflict rolls the whole commit back. An add is the put it
 * amounts to on the record as it stands; a put's keys are those the record holds (`positive` indexes).
 */
function apply(c: Connection, coll: CollectionInfo, given: WriteOp, seq: number, pos: number, time: number): void {
  const row = c.stmt(WRITE_SQL.current).raw().get(coll.no, given.id) as
    | [number, number, string | null, string]
    | undefined;
  let op = given;
  if (op.type === 'add') {
    const doc = row && (JSON.parse(c.stmt(WRITE_SQL.doc).pluck().get(row[0]) as string) as JsonObject);
    op = addAsPut(coll.def, op, row && { id: op.id, version: row[1], doc: doc! });
  }
  if (op.type === 'put') op = { ...op, keys: heldKeys(coll.def, op.doc, op.keys) };
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
    for (const [ix, bytes] of old.values()) c.stmt(WRITE_SQL.deleteEntry).run(ix, bytes, rid!);
    if (oldTerms !== null) {
      unindex(c, rid!);
      c.stmt(WRITE_SQL.deleteTerms).run(rid!);
    }
    c.stmt(WRITE_SQL.deleteDoc).run(rid!);
    c.stmt(WRITE_SQL.deleteKeys).run(rid!);
    logChange(c, seq, pos, coll.no, op, version, time);
    return;
  }

  const stored: StoredKeys = {};
  const fresh = new Map<string, [IndexInfo, Buffer]>();
  for (const [name, keys] of Object.entries(op.keys)) {
    const i = c.index(coll, name);
    if (keys.length === 0) continue;
    stored[i.no] = keys.map((k) => [...k]);
    for (const key of keys) {
      const bytes = encodeKey(key);
      fresh.set(`${i.no}:${bytes.toString('latin1')}`, [i, bytes]);
    }
  }
  for (const [ref, [ix, bytes]] of old) if (!fresh.has(ref)) c.stmt(WRITE_SQL.deleteEntry).run(ix, bytes, rid!);

  const terms = op.terms ? termsHash(op.terms.scope, op.terms.tokens, op.terms.rank) : null;
  const keysJson = JSON.stringify(stored);
  const docJson = JSON.stringify(op.doc);
  let id: number;
  if (rid === undefined) {
    id = Number(c.stmt(WRITE_SQL.insertDoc).run(coll.no, op.id, op.expect + 1, terms, docJson).lastInsertRowid);
    c.stmt(WRITE_SQL.insertKeys).run(id, keysJson);
  } else {
    id = rid;
    c.stmt(WRITE_SQL.updateDoc).run(op.expect + 1, terms, docJson, rid);
    if (keysJson !== row![3]) c.stmt(WRITE_SQL.updateKeys).run(keysJson, rid);
  }
  for (const [ref, [i, bytes]] of fresh) {
    if (old.has(ref)) continue;
    if (i.unique && c.stmt(WRITE_SQL.holder).pluck().get(i.no, bytes, id) !== undefined) {
      throw new DriverConflict('unique', op.collection, op.id, i.name);
    }
    c.stmt(WRITE_SQL.insertEntry).run(i.no, bytes, id);
  }
  if (terms !== oldTerms) {
    if (oldTerms !== null) unindex(c, id);
    if (op.terms) {
      const prefix = `${coll.no}s${scopeNo(c, op.terms.scope, true, !c.hostTransaction)!}`;
      const tokens = [...new Set(op.terms.tokens)];
      const place = placeFor(c, op.terms.rank, id);
      c.stmt(WRITE_SQL.place).run(place, id);
      c.stmt(WRITE_SQL.indexTerms).run(place, tokens.map((t) => ftsToken(prefix, t)).join(' '));
      c.stmt(WRITE_SQL.putTerms).run(id, ` ${tokens.map((t) => ftsToken('', t)).join(' ')} `);
    } else {
      c.stmt(WRITE_SQL.deleteTerms).run(id);
    }
  }
  logChange(c, seq, pos, coll.no, op, op.expect + 1, time);
}
