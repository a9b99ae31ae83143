/**
 * Layouts 1 to 4 of the store (before the native tables of layout 5, layout.ts): every record a row of `docs`
 * and every index entry a row of `entries` keyed by the driver's bytes. A store still in one of them is brought
 * to layout 4 by these migrations, then copied into layout 5 (migrate.ts). Kept only for that.
 */
import { blobTables } from './blobs.js';
import { logEnd, WRITERS_LOCK } from './functions.js';

/** The NOTIFY channel of a store: one per schema. */
const channelOf = (schema: string): string => `blogcore:${schema}`.slice(0, 63);

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

export const LEGACY_MIGRATIONS: ReadonlyArray<(s: string, schema: string) => string> = [
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
  ${commitOps3(s, schema)}
  ${logEnd(s, schema)}
  `,
  /* 4: media bytes (blobs.ts) */ (s) => blobTables(s),
];

/** The commit function of layouts 3 and 4. */
const commitOps3 = (s: string, schema: string) => `
  CREATE FUNCTION ${s}.commit_ops(
    o_coll int[], o_id text[], o_expect int[], o_del boolean[], o_doc text[], o_scope text[], o_stream text[],
    o_e int[], e_ix int[], e_key bytea[], e_u boolean[], o_t int[], t_tok text[], c_time bigint
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
    e_from int := 1;
    t_from int := 1;
  BEGIN
    -- First, before this transaction has an id: readers of the log find it in flight by this lock (log_end).
    PERFORM pg_advisory_xact_lock_shared(${WRITERS_LOCK}, hashtext(${lit(schema)}));
    v_seq := pg_current_xact_id()::text::bigint + (SELECT value FROM ${s}.meta WHERE key = 'seqBase');
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
      -- This op's entries and tokens: the slices up to o_e[i] and o_t[i] (the arrays are in op order).
      n_ix := e_ix[e_from:o_e[i]];
      n_key := e_key[e_from:o_e[i]];
      n_u := e_u[e_from:o_e[i]];
      n_tok := CASE WHEN o_scope[i] IS NULL THEN NULL ELSE t_tok[t_from:o_t[i]] END;
      e_from := o_e[i] + 1;
      t_from := o_t[i] + 1;
      IF o_del[i] THEN
        DELETE FROM ${s}.entries e USING unnest(v_eix, v_ekey) AS o(ix, key)
          WHERE e.ix = o.ix AND e.key = o.key AND e.rid = v_rid;
        DELETE FROM ${s}.docs WHERE rid = v_rid;
        CONTINUE;
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
      IF true = ANY (n_u) THEN
        SELECT x.ix INTO v_bad FROM unnest(n_ix, n_key, n_u) AS x(ix, key, u)
          WHERE x.u AND EXISTS (SELECT 1 FROM ${s}.entries e WHERE e.ix = x.ix AND e.key = x.key AND e.u AND e.rid <> v_rid)
          LIMIT 1;
        IF FOUND THEN
          RAISE EXCEPTION 'blogcore: unique conflict' USING ERRCODE = 'BC002', DETAIL = i::text || ':' || v_bad::text;
        END IF;
      END IF;
      INSERT INTO ${s}.entries (ix, key, rid, u)
        SELECT x.ix, x.key, v_rid, x.u FROM unnest(n_ix, n_key, n_u) AS x(ix, key, u)
        ON CONFLICT (ix, key, rid) DO NOTHING;
    END LOOP;
    INSERT INTO ${s}.changes (seq, pos, coll, id, type, version, stream, time)
      SELECT v_seq, g - 1, o_coll[g], o_id[g], CASE WHEN o_del[g] THEN 'delete' ELSE 'put' END,
             CASE WHEN o_del[g] THEN o_expect[g] ELSE o_expect[g] + 1 END, o_stream[g], c_time
      FROM generate_series(1, n) AS g;
    RETURN v_seq;
  END
  $fn$;
`;
