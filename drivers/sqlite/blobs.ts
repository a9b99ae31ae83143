/**
 * The SQLite driver's blob store: media bytes in the same file as the records, as fixed-size chunks.
 *
 * - blobs        one row per blob: its key (NULL while its put is still writing: staged), size, start time;
 * - blob_chunks  its bytes, CHUNK bytes per row (the last shorter), numbered from 0.
 *
 * A put writes its chunks as they arrive (each insert its own short transaction, so readers and the record
 * writes of other requests go on meanwhile) under a staged row, then one transaction names it: the key's old
 * blob goes and the staged row takes the key. A put that fails removes what it staged; one whose process died
 * leaves a staged row that `sweep` removes.
 */
import { chunkStream, fixedChunks, type BlobRange, type BlobStore } from '../../src/store/driver.js';
import { LIMIT } from './connect.js';
import type { SqliteDatabase, SqliteStatement } from './native.js';

const CHUNK = 256 * 1024;

/** The storage migration that adds the tables (MIGRATIONS in schema.ts). */
export const BLOB_TABLES = `
  CREATE TABLE blobs (
    id      INTEGER PRIMARY KEY,
    key     TEXT UNIQUE,
    size    INTEGER NOT NULL DEFAULT 0,
    started INTEGER NOT NULL
  );
  CREATE INDEX blobs_staged ON blobs (started) WHERE key IS NULL;
  CREATE TABLE blob_chunks (
    blob  INTEGER NOT NULL,
    n     INTEGER NOT NULL,
    bytes BLOB NOT NULL,
    PRIMARY KEY (blob, n)
  );
`;

const SQL = {
  stage: 'INSERT INTO blobs (key, started) VALUES (NULL, ?)',
  addChunk: 'INSERT INTO blob_chunks (blob, n, bytes) VALUES (?, ?, ?)',
  find: 'SELECT id, size FROM blobs WHERE key = ?',
  chunk: 'SELECT bytes FROM blob_chunks WHERE blob = ? AND n = ?',
  name: 'UPDATE blobs SET key = ?, size = ? WHERE id = ?',
  dropChunks: 'DELETE FROM blob_chunks WHERE blob = ?',
  dropBlob: 'DELETE FROM blobs WHERE id = ?',
  staged: `SELECT id FROM blobs WHERE key IS NULL AND started < ? ORDER BY started ${LIMIT}`,
};

export interface SqliteBlobHooks {
  /** The open connection (throws when the driver is closed or not open). */
  db(): SqliteDatabase;
  /** A prepared statement, cached per connection. */
  stmt(sql: string): SqliteStatement;
}

export function sqliteBlobs({ db, stmt }: SqliteBlobHooks): BlobStore {
  const drop = (id: number) => {
    stmt(SQL.dropChunks).run(id);
    stmt(SQL.dropBlob).run(id);
  };
  const dropTx = (id: number) => db().transaction(drop).immediate(id);
  return {
    async put(key, source) {
      const id = Number(stmt(SQL.stage).run(Date.now()).lastInsertRowid);
      let size = 0;
      try {
        let n = 0;
        for await (const chunk of fixedChunks(source, CHUNK, true)) {
          stmt(SQL.addChunk).run(id, n++, Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
          size += chunk.byteLength;
        }
        db()
          .transaction(() => {
            const old = stmt(SQL.find).raw().get(key) as [number, number] | undefined;
            if (old) drop(old[0]);
            stmt(SQL.name).run(key, size, id);
          })
          .immediate();
      } catch (error) {
        try {
          dropTx(id);
        } catch {
          // The connection is gone: the staged row stays for sweep.
        }
        throw error;
      }
      return size;
    },
    async read(key: string, range?: BlobRange) {
      const found = stmt(SQL.find).raw().get(key) as [number, number] | undefined;
      if (!found) return undefined;
      const [id, size] = found;
      return chunkStream(size, CHUNK, range, async (n) => {
        const bytes = stmt(SQL.chunk).pluck().get(id, n) as Buffer | undefined;
        return bytes && new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      });
    },
    async delete(key) {
      const found = stmt(SQL.find).raw().get(key) as [number, number] | undefined;
      if (found) dropTx(found[0]);
    },
    async sweep(before, limit) {
      const ids = stmt(SQL.staged)
        .pluck()
        .all(before, Math.max(0, Math.floor(limit))) as number[];
      for (const id of ids) dropTx(id);
      return ids.length;
    },
  };
}
