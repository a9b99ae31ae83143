/**
 * The store's SQL functions since layout 3 (schema.ts MIGRATIONS): one commit as one statement, and the log's
 * safe end.
 *
 * Commits run side by side: a commit's seq is its transaction id (plus the store's `seqBase`, which keeps seqs
 * above those of layout 2's counter), so no row is locked by every commit, and nothing database-wide is held
 * through the commit either (the NOTIFY goes out after it, from the driver: a NOTIFY inside would hold a lock
 * on the whole database until the commit ended). Concurrent commits finish in any order, so readers of the
 * log stop at its safe end (`log_end`): below the oldest commit of the store still running.
 */

const lit = (s: string): string => `'${s.replace(/'/g, "''")}'`;

/** The advisory lock every commit of a store holds (shared) while it runs: readers find its writers in flight by it. */
export const WRITERS_LOCK = 1651273575; // 'blog'

/**
 * One commit: compare-and-set on every op, index and token upkeep, and the change rows, atomically. Each op's
 * index entries and tokens are the slices of the entry and token arrays up to its end (`o_e`, `o_t`).
 */
export const commitOps = (s: string, schema: string) => `
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

/**
 * The log's safe end: the newest seq below which every commit is visible and none is still to come. Seqs are
 * transaction ids (plus the store's base), so commits of a store run side by side and finish in any order;
 * a reader takes the log only up to the oldest writer still running. Cheap when the newest visible commit
 * is older than every transaction running anywhere (pg_snapshot_xmin); otherwise the store's own writers are
 * found in flight by their lock (pg_locks), so other databases' and stores' transactions never hold it back
 * (on a standby, where the primary's locks are not visible, the cluster-wide bound holds).
 */
export const logEnd = (s: string, schema: string) => `
  CREATE FUNCTION ${s}.log_end() RETURNS bigint LANGUAGE plpgsql AS $fn$
  DECLARE
    snap pg_snapshot := pg_current_snapshot();
    base bigint := (SELECT value FROM ${s}.meta WHERE key = 'seqBase');
    v_pruned bigint := (SELECT value FROM ${s}.meta WHERE key = 'pruned');
    m bigint;
    w bigint;
  BEGIN
    SELECT max(seq) INTO m FROM ${s}.changes;
    w := pg_snapshot_xmin(snap)::text::bigint + base;
    IF m IS NULL OR m < w THEN
      RETURN greatest(coalesce(m, 0), v_pruned);
    END IF;
    IF NOT pg_is_in_recovery() THEN
      SELECT coalesce(min(x::text::bigint), pg_snapshot_xmax(snap)::text::bigint) + base INTO w
        FROM pg_snapshot_xip(snap) AS x
        WHERE x::xid IN (SELECT t.transactionid FROM pg_locks a JOIN pg_locks t ON t.virtualtransaction = a.virtualtransaction
                          WHERE a.locktype = 'advisory' AND a.objsubid = 2 AND a.classid = ${WRITERS_LOCK}::oid
                            AND a.objid = hashtext(${lit(schema)})::oid AND t.locktype = 'transactionid');
    END IF;
    SELECT max(seq) INTO m FROM ${s}.changes WHERE seq < w;
    RETURN greatest(coalesce(m, 0), v_pruned);
  END
  $fn$;

  CREATE FUNCTION ${s}.changes_since(after bigint, lim int)
    RETURNS TABLE (seq bigint, pos int, coll int, id text, type text, version int, stream text, "time" bigint)
    LANGUAGE plpgsql AS $fn$
  DECLARE
    e bigint := ${s}.log_end();
  BEGIN
    RETURN QUERY SELECT c.seq, c.pos, c.coll, c.id, c.type, c.version, c.stream, c.time FROM ${s}.changes c
      WHERE c.seq > after AND c.seq <= e ORDER BY c.seq, c.pos LIMIT lim;
  END
  $fn$;
`;
