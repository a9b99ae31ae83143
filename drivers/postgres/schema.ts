/**
 * The PostgreSQL layout of the driver, inside its own schema (so one database can hold several stores).
 * Storage migrations are numbered by their position in MIGRATIONS, recorded in `<schema>.migrations`, and
 * run under a transaction-level advisory lock, so app servers that start at once migrate once. (The core's
 * StoreSchema — collections and indexes — is data in the `collections`/`indexes` catalog, not DDL.)
 *
 * - docs      one row per record; `eix`/`ekey` hold the record's index entries (index numbers, key bytes)
 *             so an update removes exactly the entries it replaces; `scope`/`tokens` feed search.
 * - entries   every index entry: (index number, key bytes, doc rid). Keys are the SQLite driver's
 *             order-preserving encoding (drivers/shared/byte-keys.ts), so bytea order (memcmp) equals
 *             `compareKeys`, astral characters included; a list is one range walk of the primary key.
 *             Unique indexes are enforced by a partial unique index (`u`).
 * - changes   the change log, (seq, position in the commit). Since layout 3 a commit's seq is its
 *             transaction id plus `meta.seqBase`, and readers stop at the log's safe end (functions.ts).
 * - commit_ops() one commit as one statement (one round trip, atomic): compare-and-set on every op, index
 *             and token upkeep, the change rows (functions.ts). The driver NOTIFYs the store's channel after.
 * - log_end(), changes_since() the log's safe end and a page of it below that end (functions.ts).
 */

import { blobTables } from './blobs.js';
import type { StoreSchema } from '../../src/store/driver.js';
import type { CollectionInfo, Connection } from './connect.js';
import { commitOps as commitOpsNow, logEnd } from './functions.js';

/** The NOTIFY channel of a store: one per schema. */
export const channelOf = (schema: string): string => `blogcore:${schema}`.slice(0, 63);

const lit = (s: string): string => `'${s.replace(/'/g, "''")}'`;

/**
 * The commit function of layouts 1 and 2 (`v2` takes each op's stream and the commit time, and logs them): its
 * seq came from the meta counter row, locked by every commit until it ended.
 */
const commitOps = (s: string, schema: string, v2: boolean) => `
  CREATE FUNCTION ${s}.commit_ops(
    o_coll int[], o_id text[], o_expect int[], o_del boolean[], o_doc text[], o_scope text[],
    e_op int[], e_ix int[], e_key bytea[], e_u boolean[],
    t_op int[], t_tok text[]${v2 ? ', o_stream text[], c_time bigint' : ''}
  ) RETURNS bigint LANGUAGE plpgsql AS $fn$
  DECLARE
    n int := coalesce(array_length(o_coll, 1), 0);
    v_rid bigint;
    v_ver int;
    v_eix int[];
    v_ekey bytea[];
    n_ix int[];
    n_key bytea[];
    n_u boolean[];
    n_tok text[];
    v_bad int;
    v_seq bigint;
  BEGIN
    FOR i IN 1..n LOOP
      SELECT d.rid, d.version, d.eix, d.ekey INTO v_rid, v_ver, v_eix, v_ekey
        FROM ${s}.docs d WHERE d.coll = o_coll[i] AND d.id = o_id[i] FOR UPDATE;
      IF NOT FOUND THEN
        v_rid := NULL;
        v_ver := 0;
      END IF;
      IF v_ver <> o_expect[i] THEN
        RAISE EXCEPTION 'blogcore: version conflict' USING ERRCODE = 'BC001', DETAIL = i::text;
      END IF;
      IF o_del[i] THEN
        DELETE FROM ${s}.entries e USING unnest(v_eix, v_ekey) AS o(ix, key)
          WHERE e.ix = o.ix AND e.key = o.key AND e.rid = v_rid;
        DELETE FROM ${s}.docs WHERE rid = v_rid;
        CONTINUE;
      END IF;
      SELECT coalesce(array_agg(x.ix), '{}'), coalesce(array_agg(x.key), '{}'), coalesce(array_agg(x.u), '{}')
        INTO n_ix, n_key, n_u FROM unnest(e_op, e_ix, e_key, e_u) AS x(op, ix, key, u) WHERE x.op = i;
      n_tok := NULL;
      IF o_scope[i] IS NOT NULL THEN
        SELECT coalesce(array_agg(x.t), '{}') INTO n_tok FROM unnest(t_op, t_tok) AS x(op, t) WHERE x.op = i;
      END IF;
      IF v_rid IS NULL THEN
        INSERT INTO ${s}.docs (coll, id, version, doc, eix, ekey, scope, tokens)
          VALUES (o_coll[i], o_id[i], 1, o_doc[i], n_ix, n_key, o_scope[i], n_tok) RETURNING rid INTO v_rid;
      ELSE
        UPDATE ${s}.docs SET version = v_ver + 1, doc = o_doc[i], eix = n_ix, ekey = n_key, scope = o_scope[i], tokens = n_tok
          WHERE rid = v_rid AND version = o_expect[i];
        DELETE FROM ${s}.entries e
          USING (SELECT * FROM unnest(v_eix, v_ekey) EXCEPT SELECT * FROM unnest(n_ix, n_key)) AS o(ix, key)
          WHERE e.ix = o.ix AND e.key = o.key AND e.rid = v_rid;
      END IF;
      SELECT x.ix INTO v_bad FROM unnest(n_ix, n_key, n_u) AS x(ix, key, u)
        WHERE x.u AND EXISTS (SELECT 1 FROM ${s}.entries e WHERE e.ix = x.ix AND e.key = x.key AND e.u AND e.rid <> v_rid)
        LIMIT 1;
      IF FOUND THEN
        RAISE EXCEPTION 'blogcore: unique conflict' USING ERRCODE = 'BC002', DETAIL = i::text || ':' || v_bad::text;
      END IF;
      INSERT INTO ${s}.entries (ix, key, rid, u)
        SELECT x.ix, x.key, v_rid, x.u FROM unnest(n_ix, n_key, n_u) AS x(ix, key, u)
        ON CONFLICT (ix, key, rid) DO NOTHING;
    END LOOP;
    -- Last: the counter row stays locked until this transaction ends, so seqs are handed out in commit order.
    UPDATE ${s}.meta SET value = value + 1 WHERE key = 'seq' RETURNING value INTO v_seq;
    INSERT INTO ${s}.changes (seq, pos, coll, id, type, version${v2 ? ', stream, time' : ''})
      SELECT v_seq, g - 1, o_coll[g], o_id[g], CASE WHEN o_del[g] THEN 'delete' ELSE 'put' END,
             CASE WHEN o_del[g] THEN o_expect[g] ELSE o_expect[g] + 1 END${v2 ? ', o_stream[g], c_time' : ''}
      FROM generate_series(1, n) AS g;
    PERFORM pg_notify(${lit(channelOf(schema))}, v_seq::text);
    RETURN v_seq;
  END
  $fn$;
`;

export const MIGRATIONS: ReadonlyArray<(s: string, schema: string) => string> = [
  /* 1 */ (s, schema) => `
  CREATE TABLE ${s}.meta (
    key   text PRIMARY KEY,
    value bigint NOT NULL
  );
  INSERT INTO ${s}.meta (key, value) VALUES ('seq', 0), ('schemaVersion', 0);

  CREATE TABLE ${s}.collections (
    no     int GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    name   text NOT NULL UNIQUE,
    search boolean NOT NULL DEFAULT false
  );

  CREATE TABLE ${s}.indexes (
    no   int GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    coll int NOT NULL REFERENCES ${s}.collections (no),
    name text NOT NULL,
    uniq boolean NOT NULL DEFAULT false,
    UNIQUE (coll, name)
  );

  CREATE TABLE ${s}.docs (
    rid     bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    coll    int NOT NULL,
    id      text COLLATE "C" NOT NULL,
    version int NOT NULL,
    doc     text NOT NULL,
    eix     int[] NOT NULL,
    ekey    bytea[] NOT NULL,
    scope   text COLLATE "C",
    tokens  text[] COLLATE "C",
    CONSTRAINT docs_id UNIQUE (coll, id)
  );
  CREATE INDEX docs_tokens ON ${s}.docs USING gin (tokens);

  CREATE TABLE ${s}.entries (
    ix  int NOT NULL,
    key bytea NOT NULL,
    rid bigint NOT NULL,
    u   boolean NOT NULL,
    PRIMARY KEY (ix, key, rid)
  );
  CREATE UNIQUE INDEX entries_unique ON ${s}.entries (ix, key) WHERE u;

  CREATE TABLE ${s}.changes (
    seq     bigint NOT NULL,
    pos     int NOT NULL,
    coll    int NOT NULL,
    id      text COLLATE "C" NOT NULL,
    type    text NOT NULL,
    version int NOT NULL,
    PRIMARY KEY (seq, pos)
  );

  ${commitOps(s, schema, false)}
  `,
  /* 2: each change's stream (blog id) and commit time, walkable per stream; meta.pruned says how far pruning
     went. Older entries get time 0 (the first to go). */ (s, schema) => `
  ALTER TABLE ${s}.changes ADD COLUMN stream text COLLATE "C";
  ALTER TABLE ${s}.changes ADD COLUMN time bigint NOT NULL DEFAULT 0;
  CREATE INDEX changes_by_stream ON ${s}.changes (stream, seq, pos) WHERE stream IS NOT NULL;
  INSERT INTO ${s}.meta (key, value) VALUES ('pruned', 0);
  DROP FUNCTION ${s}.commit_ops(int[], text[], int[], boolean[], text[], text[], int[], int[], bytea[], boolean[], int[], text[]);
  ${commitOps(s, schema, true)}
  `,
  /* 3: commits no longer take turns on the counter row (functions.ts): a seq is the commit's transaction id
     plus seqBase, chosen so the next seq is above every seq of the counter. App servers of an older blogcore
     find no commit_ops they know and refuse to write: upgrade them together. */ (s, schema) => `
  INSERT INTO ${s}.meta (key, value)
    SELECT 'seqBase', greatest(0, (SELECT value FROM ${s}.meta WHERE key = 'seq') - pg_current_xact_id()::text::bigint + 1);
  DROP FUNCTION ${s}.commit_ops(int[], text[], int[], boolean[], text[], text[], int[], int[], bytea[], boolean[], int[], text[], text[], bigint);
  ${commitOpsNow(s, schema)}
  ${logEnd(s, schema)}
  `,
  /* 4: media bytes (blobs.ts) */ (s) => blobTables(s),
];

/**
 * A store restored into another cluster (pg_dump) meets transaction ids lower than its seqs: seqBase is raised
 * so the next seq is above every seq there is (run on every open, under the migration lock; a no-op otherwise).
 */
const keepSeqsRising = (s: string) => `UPDATE ${s}.meta SET value = greatest(value,
    greatest((SELECT coalesce(max(seq), 0) FROM ${s}.changes), (SELECT value FROM ${s}.meta WHERE key = 'pruned'))
    - pg_current_xact_id()::text::bigint + 1)
  WHERE key = 'seqBase'`;

/** The meta rows and the collection catalog, schema-qualified. */
export const catalogSql = (s: string) => ({
  getMeta: `SELECT value FROM ${s}.meta WHERE key = $1`,
  setMeta: `UPDATE ${s}.meta SET value = $1 WHERE key = $2`,
  catalogCollections: `SELECT no, name, search FROM ${s}.collections`,
  catalogIndexes: `SELECT no, coll, name, uniq FROM ${s}.indexes`,
  addCollection: `INSERT INTO ${s}.collections (name, search) VALUES ($1, $2) RETURNING no`,
  setSearch: `UPDATE ${s}.collections SET search = $1 WHERE no = $2`,
  addIndex: `INSERT INTO ${s}.indexes (coll, name, uniq) VALUES ($1, $2, $3) RETURNING no`,
  setUnique: `UPDATE ${s}.indexes SET uniq = $1 WHERE no = $2`,
  dropIndex: `DELETE FROM ${s}.indexes WHERE no = $1`,
  dropEntries: `DELETE FROM ${s}.entries WHERE ix = $1`,
});

/**
 * Brings the store to this build's layout and the schema's catalog in one transaction, under an advisory
 * lock: app servers that start at once migrate once.
 */
export async function migrate(c: Connection, schema: StoreSchema): Promise<void> {
  const client = await c.pool.connect();
  const { s } = c;
  try {
    await client.query('BEGIN');
    // One migrator at a time per store, across every app server; released at COMMIT/ROLLBACK.
    await client.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [`blogcore:${c.schema}`]);
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${s}`);
    await client.query(
      `CREATE TABLE IF NOT EXISTS ${s}.migrations (version int PRIMARY KEY, at timestamptz NOT NULL DEFAULT now())`,
    );
    const { rows } = await client.query<[number]>({
      text: `SELECT coalesce(max(version), 0)::int FROM ${s}.migrations`,
      rowMode: 'array',
    });
    const current = rows[0]![0];
    if (current > MIGRATIONS.length) {
      throw new Error(
        `postgres schema ${c.schema} has storage version ${current}; this blogcore knows up to ${MIGRATIONS.length}`,
      );
    }
    for (let v = current; v < MIGRATIONS.length; v++) {
      await client.query(MIGRATIONS[v]!(s, c.schema));
      await client.query(`INSERT INTO ${s}.migrations (version) VALUES ($1)`, [v + 1]);
    }
    await client.query(keepSeqsRising(s));
    await declare(c, schema, (text, values) =>
      client.query<unknown[]>({ text, values, rowMode: 'array' }).then((r) => r.rows),
    );
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    client.release();
    throw error;
  }
  client.release();
}

/** Brings the catalog to the declared collections and indexes (new ones added, dropped indexes emptied). */
async function declare(
  c: Connection,
  schema: StoreSchema,
  q: (text: string, values?: unknown[]) => Promise<unknown[][]>,
): Promise<void> {
  const sql = c.sql(catalogSql);
  const stored = Number((await q(sql.getMeta, ['schemaVersion']))[0]![0]);
  if (stored > schema.version) {
    throw new Error(`postgres store holds schema version ${stored}, newer than this blogcore's ${schema.version}`);
  }
  const colls = new Map<string, { no: number; search: boolean }>();
  for (const [no, name, s] of (await q(sql.catalogCollections)) as Array<[number, string, boolean]>)
    colls.set(name, { no, search: s });
  const idx = new Map<string, { no: number; uniq: boolean }>();
  for (const [no, coll, name, uniq] of (await q(sql.catalogIndexes)) as Array<[number, number, string, boolean]>) {
    idx.set(`${coll}\0${name}`, { no, uniq });
  }
  const byName = new Map<string, CollectionInfo>();
  const indexByNo = new Map<number, string>();
  const keep = new Set<number>();
  for (const def of schema.collections) {
    let coll = colls.get(def.name);
    const searchable = !!def.search;
    if (!coll) {
      coll = { no: Number((await q(sql.addCollection, [def.name, searchable]))[0]![0]), search: searchable };
      colls.set(def.name, coll);
    } else if (coll.search !== searchable) {
      await q(sql.setSearch, [searchable, coll.no]);
    }
    const info: CollectionInfo = { no: coll.no, name: def.name, indexes: new Map() };
    for (const index of def.indexes) {
      let i = idx.get(`${coll.no}\0${index.name}`);
      const uniq = !!index.unique;
      if (!i) i = { no: Number((await q(sql.addIndex, [coll.no, index.name, uniq]))[0]![0]), uniq };
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
  c.byName = byName;
  c.indexByNo = indexByNo;
  c.namesByNo = new Map([...colls].map(([name, coll]) => [coll.no, name]));
}
