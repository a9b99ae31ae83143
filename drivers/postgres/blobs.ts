/**
 * The PostgreSQL driver's blob store: media bytes in the same database as the records, as fixed-size `bytea`
 * chunks (stored uncompressed: pictures do not compress).
 *
 * - blobs        one row per blob: its key (NULL while its put is still writing: staged), size, start time;
 * - blob_chunks  its bytes, CHUNK bytes per row (the last shorter), numbered from 0.
 *
 * A put inserts its chunks as they arrive under a staged row, then one statement names it (the key's old blob
 * and its chunks go in the same statement; the key's uniqueness is checked at its end). A put that fails
 * removes what it staged; one whose process died leaves a staged row that `sweep` removes.
 */
import { chunkStream, fixedChunks, type BlobRange, type BlobStore } from '../../src/store/driver.js';

const CHUNK = 256 * 1024;

/** The storage migration that adds the tables (MIGRATIONS in schema.ts). */
export const blobTables = (s: string) => `
  CREATE TABLE ${s}.blobs (
    id      bigserial PRIMARY KEY,
    key     text COLLATE "C",
    size    bigint NOT NULL DEFAULT 0,
    started bigint NOT NULL,
    CONSTRAINT blobs_key UNIQUE (key) DEFERRABLE INITIALLY IMMEDIATE
  );
  CREATE INDEX blobs_staged ON ${s}.blobs (started) WHERE key IS NULL;
  CREATE TABLE ${s}.blob_chunks (
    blob  bigint NOT NULL,
    n     int NOT NULL,
    bytes bytea NOT NULL,
    PRIMARY KEY (blob, n)
  );
  ALTER TABLE ${s}.blob_chunks ALTER COLUMN bytes SET STORAGE EXTERNAL;
`;

const statements = (s: string) => ({
  stage: `INSERT INTO ${s}.blobs (key, started) VALUES (NULL, $1) RETURNING id`,
  addChunk: `INSERT INTO ${s}.blob_chunks (blob, n, bytes) VALUES ($1, $2, $3)`,
  find: `SELECT id, size FROM ${s}.blobs WHERE key = $1`,
  chunk: `SELECT bytes FROM ${s}.blob_chunks WHERE blob = $1 AND n = $2`,
  name: `WITH old AS (DELETE FROM ${s}.blobs WHERE key = $1 AND id <> $3 RETURNING id),
      gone AS (DELETE FROM ${s}.blob_chunks WHERE blob IN (SELECT id FROM old))
    UPDATE ${s}.blobs SET key = $1, size = $2 WHERE id = $3`,
  drop: `WITH b AS (DELETE FROM ${s}.blobs WHERE id = $1 RETURNING id) DELETE FROM ${s}.blob_chunks WHERE blob IN (SELECT id FROM b)`,
  dropKey: `WITH b AS (DELETE FROM ${s}.blobs WHERE key = $1 RETURNING id) DELETE FROM ${s}.blob_chunks WHERE blob IN (SELECT id FROM b)`,
  sweep: `WITH b AS (
      DELETE FROM ${s}.blobs WHERE id IN (SELECT id FROM ${s}.blobs WHERE key IS NULL AND started < $1 ORDER BY started LIMIT $2) RETURNING id
    ), gone AS (DELETE FROM ${s}.blob_chunks WHERE blob IN (SELECT id FROM b))
    SELECT count(*)::int FROM b`,
});

export interface PgBlobHooks {
  /** The schema-qualified name prefix (quoted). */
  s: string;
  /** One statement, rows as arrays; `read` statements are retried once on a lost connection. */
  run(text: string, values: readonly unknown[], read?: boolean): Promise<unknown[][]>;
}

export function postgresBlobs({ s, run }: PgBlobHooks): BlobStore {
  const sql = statements(s);
  return {
    async put(key, source) {
      const id = (await run(sql.stage, [Date.now()], false))[0]![0];
      let size = 0;
      try {
        let n = 0;
        for await (const chunk of fixedChunks(source, CHUNK, true)) {
          await run(sql.addChunk, [id, n++, chunk], false);
          size += chunk.byteLength;
        }
        await run(sql.name, [key, size, id], false);
      } catch (error) {
        // If this fails too (the server is gone), the staged row stays for sweep.
        await run(sql.drop, [id], false).catch(() => undefined);
        throw error;
      }
      return size;
    },
    async read(key: string, range?: BlobRange) {
      const found = (await run(sql.find, [key]))[0];
      if (!found) return undefined;
      const [id, size] = found;
      return chunkStream(
        Number(size),
        CHUNK,
        range,
        async (n) => (await run(sql.chunk, [id, n]))[0]?.[0] as Uint8Array | undefined,
      );
    },
    async delete(key) {
      await run(sql.dropKey, [key], false);
    },
    async sweep(before, limit) {
      return Number((await run(sql.sweep, [before, Math.max(0, Math.floor(limit))], false))[0]![0]);
    },
  };
}
