/**
 * A store in layout 4 (every record a row of `docs`, every index entry a byte key in `entries`), written the way
 * blogcore wrote it before layout 5: the layout's own migrations and its own `commit_ops`, fed as the driver of
 * that time fed it. For the migration tests.
 */
import type pg from 'pg';
import { LEGACY_MIGRATIONS } from '../../../drivers/postgres/legacy.js';
import { legacyToken } from '../../../drivers/postgres/search.js';
import { pgText } from '../../../drivers/postgres/text.js';
import { encodeKey } from '../../../drivers/shared/byte-keys.js';
import type { PutOp, StoreSchema } from '../../../src/store/driver.js';

export interface LegacyStore {
  /** Writes the records (each new: version 1) in one commit of layout 4. */
  write(ops: readonly PutOp[]): Promise<void>;
  /** Stores a blob's bytes under its key (one chunk). */
  putBlob(key: string, bytes: Uint8Array): Promise<void>;
}

export async function legacyStore(pool: pg.Pool, schema: string, declared: StoreSchema): Promise<LegacyStore> {
  const s = `"${schema}"`;
  await pool.query(`CREATE SCHEMA ${s}`);
  await pool.query(`CREATE TABLE ${s}.migrations (version int PRIMARY KEY, at timestamptz NOT NULL DEFAULT now())`);
  for (const [v, migration] of LEGACY_MIGRATIONS.entries()) {
    await pool.query(migration(s, schema));
    await pool.query(`INSERT INTO ${s}.migrations (version) VALUES ($1)`, [v + 1]);
  }
  const colls = new Map<string, number>();
  const indexes = new Map<string, { no: number; unique: boolean }>();
  for (const c of declared.collections) {
    const { rows } = await pool.query(`INSERT INTO ${s}.collections (name, search) VALUES ($1, $2) RETURNING no`, [
      c.name,
      !!c.search,
    ]);
    colls.set(c.name, rows[0].no);
    for (const i of c.indexes) {
      const r = await pool.query(`INSERT INTO ${s}.indexes (coll, name, uniq) VALUES ($1, $2, $3) RETURNING no`, [
        rows[0].no,
        i.name,
        !!i.unique,
      ]);
      indexes.set(`${c.name}.${i.name}`, { no: r.rows[0].no, unique: !!i.unique });
    }
  }
  await pool.query(`UPDATE ${s}.meta SET value = $1 WHERE key = 'schemaVersion'`, [declared.version]);
  return {
    async write(ops) {
      const a = {
        coll: [] as number[],
        id: [] as string[],
        doc: [] as string[],
        scope: [] as Array<string | null>,
        stream: [] as Array<string | null>,
        e: [] as number[],
        ix: [] as number[],
        key: [] as Buffer[],
        u: [] as boolean[],
        t: [] as number[],
        tok: [] as string[],
      };
      for (const op of ops) {
        const coll = colls.get(op.collection)!;
        a.coll.push(coll);
        a.id.push(pgText(op.id));
        a.doc.push(JSON.stringify(op.doc));
        a.scope.push(op.terms ? pgText(op.terms.scope) : null);
        a.stream.push(op.stream !== undefined ? pgText(op.stream) : null);
        for (const [name, keys] of Object.entries(op.keys)) {
          const i = indexes.get(`${op.collection}.${name}`)!;
          for (const key of keys) {
            a.ix.push(i.no);
            a.key.push(encodeKey(key));
            a.u.push(i.unique);
          }
        }
        if (op.terms) for (const t of new Set(op.terms.tokens)) a.tok.push(legacyToken(coll, op.terms.scope, t));
        a.e.push(a.ix.length);
        a.t.push(a.tok.length);
      }
      await pool.query(
        `SELECT ${s}.commit_ops($1::int[], $2::text[], $3::int[], $4::boolean[], $5::text[], $6::text[], $7::text[],
           $8::int[], $9::int[], $10::bytea[], $11::boolean[], $12::int[], $13::text[], $14::bigint)`,
        [
          a.coll,
          a.id,
          ops.map(() => 0),
          ops.map(() => false),
          a.doc,
          a.scope,
          a.stream,
          a.e,
          a.ix,
          a.key,
          a.u,
          a.t,
          a.tok,
          Date.now(),
        ],
      );
    },
    async putBlob(key, bytes) {
      const { rows } = await pool.query(`INSERT INTO ${s}.blobs (key, size, started) VALUES ($1, $2, 0) RETURNING id`, [
        key,
        bytes.byteLength,
      ]);
      await pool.query(`INSERT INTO ${s}.blob_chunks (blob, n, bytes) VALUES ($1, 0, $2)`, [rows[0].id, bytes]);
    },
  };
}
