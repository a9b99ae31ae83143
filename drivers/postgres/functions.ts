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

import { ident } from './text.js';
import { conflictKey, type CollectionPlan, type MainColumn, type SideGroup } from './layout.js';

const lit = (s: string): string => `'${s.replace(/'/g, "''")}'`;

/** How a commit statement of a common shape begins (statement.ts): log_end knows a writer of the store by it. */
export const beginsWith = (s: string): string => `WITH b AS MATERIALIZED (SELECT seq, prev FROM ${s}.commit_begin())`;

/** The advisory lock every commit of a store holds (shared) while it runs: readers find its writers in flight by it. */
export const WRITERS_LOCK = 1651273575; // 'blog'

/** Every side group of a store, numbered from 1 in plan order: the commit function takes one array pair per group. */
export const sideGroups = (plans: readonly CollectionPlan[]): SideGroup[] => plans.flatMap((p) => p.groups);

/**
 * The statements of one collection's ops inside `commit_ops`: `v$` holds each op's column values (a put: the key
 * columns and flags in plan order, then the counters; an add: one delta per counter, then a put's values for the
 * record it creates if missing), `t$` its tokens, `g<k>$` its side rows (`width` values each). The function's
 * own names end with `$`, which no column name has, so a column is never mistaken for one.
 */
function collectionOps(s: string, p: CollectionPlan, groupNo: (g: SideGroup) => number): string {
  const t = `${s}.${ident(p.table)}`;
  const cast = (c: MainColumn, at: string) => (c.type === 'boolean' ? `(${at})::boolean` : at);
  const vals = p.columns.map((c, k) => cast(c, `v$[vb$ + ${k + 1}]`));
  const counterVals = p.counters.map((_, k) => `(v$[vb$ + ${p.columns.length + k + 1}])::bigint`);
  const cols = [...p.columns.map((c) => ident(c.name)), ...p.counters.map((c) => ident(c.column))];
  const tokens = p.search ? ['tokens'] : [];
  const tokenVal = p.search ? ['t$[tb$ + 1:o$t[i$]]'] : [];
  const conflict = `RAISE EXCEPTION 'blogcore: version conflict' USING ERRCODE = 'BC001', DETAIL = i$::text`;
  const sideInserts = p.groups
    .map((g) => {
      const k = groupNo(g);
      const w = g.columns.length;
      return `IF o$g${k}$[i$] > g${k}b$ THEN
          INSERT INTO ${s}.${ident(g.table)} (id, ${g.columns.map(ident).join(', ')})
            SELECT o$id[i$], ${g.columns.map((_, j) => `g${k}$[k$ + ${j}]`).join(', ')} FROM generate_series(g${k}b$ + 1, o$g${k}$[i$], ${w}) AS s$(k$)
            ON CONFLICT (id, ${g.varying.map(ident).join(', ')}) DO NOTHING;
        END IF;`;
    })
    .join('\n        ');
  const sideStale = p.groups
    .map((g) => {
      const k = groupNo(g);
      const w = g.columns.length;
      return `DELETE FROM ${s}.${ident(g.table)} e WHERE e.id = o$id[i$] AND NOT EXISTS (
            SELECT 1 FROM generate_series(g${k}b$ + 1, o$g${k}$[i$], ${w}) AS s$(k$) WHERE ${g.columns.map((c, j) => `e.${ident(c)} = g${k}$[k$ + ${j}]`).join(' AND ')});`;
    })
    .join('\n          ');
  const sideDeletes = p.groups.map((g) => `DELETE FROM ${s}.${ident(g.table)} WHERE id = o$id[i$];`).join('\n        ');
  const insert = (
    counters: string[],
    version = '1',
  ) => `INSERT INTO ${t} (id, version, doc${cols.map((c) => `, ${c}`).join('')}${tokens.map((c) => `, ${c}`).join('')})
          VALUES (o$id[i$], ${version}, o$doc[i$]::json${[...vals, ...counters, ...tokenVal].map((x) => `, ${x}`).join('')})
          ON CONFLICT (${conflictKey(p)}) DO NOTHING`;
  const C = p.counters.length;
  const bump = `UPDATE ${t} SET version = version + 1${p.counters.map((c, k) => `, ${ident(c.column)} = ${ident(c.column)} + (v$[vb$ + ${k + 1}])::bigint`).join('')}
          WHERE id = o$id[i$] RETURNING version INTO got$`;
  // (A collection with no counters takes an add too: nothing to add, the record created when missing.)
  const add = `${bump};
        IF NOT FOUND THEN
          IF o$doc[i$] IS NULL THEN ${conflict}; END IF;
          vb$ := vb$ + ${C};
          ${insert(p.counters.map((_, k) => `(v$[vb$ + ${p.columns.length + k + 1}])::bigint + (v$[vb$ - ${C} + ${k + 1}])::bigint`))};
          vb$ := vb$ - ${C};
          IF FOUND THEN
            got$ := 1;
            ${sideInserts}
          ELSE
            ${bump};
          END IF;
        END IF;
        ver$[i$] := got$;`;
  return `WHEN ${p.no} THEN
      IF o$kind[i$] = 0 OR o$kind[i$] = 3 THEN
        IF o$kind[i$] = 3 OR o$expect[i$] = 0 THEN
          ${insert(counterVals, 'CASE WHEN o$kind[i$] = 3 THEN o$expect[i$] ELSE 1 END')};
          IF NOT FOUND THEN ${conflict}; END IF;
        ELSE
          UPDATE ${t} SET version = version + 1, doc = o$doc[i$]::json${[...cols.map((c, k) => `${c} = ${[...vals, ...counterVals][k]}`), ...(p.search ? [`tokens = ${tokenVal[0]}`] : [])].map((x) => `, ${x}`).join('')}
            WHERE id = o$id[i$] AND version = o$expect[i$];
          IF NOT FOUND THEN ${conflict}; END IF;
          ${sideStale}
        END IF;
        ${sideInserts}
        ver$[i$] := o$expect[i$] + 1;
      ELSIF o$kind[i$] = 1 THEN
        DELETE FROM ${t} WHERE id = o$id[i$] AND version = o$expect[i$];
        IF NOT FOUND THEN ${conflict}; END IF;
        ${sideDeletes}
      ELSE
        ${add}
      END IF;`;
}

/**
 * A commit's first step, called before it writes anything (by `commit_ops` and by the commit statements of
 * statement.ts): its seq, and the log's newest seq below it when that is final (else null). A function of its
 * own, so each of its queries runs on a snapshot taken when it runs, not on the calling statement's.
 * "Final" means no older transaction of the cluster runs: it does not read pg_locks to tell this store's writers
 * from others, as a read of the lock table stops every lock taken or released in the cluster while it copies
 * it, and 32 writers doing it once a commit waited on it more than on their rows (docs/benchmarks.md,
 * 2026-11-30). A null prev costs the core one read of the log before its next call.
 */
export const commitBegin = (s: string, schema: string): string => `
  CREATE FUNCTION ${s}.commit_begin(OUT seq bigint, OUT prev bigint) LANGUAGE plpgsql AS $fn$
  DECLARE
    own$ xid8;
    snap$ pg_snapshot;
  BEGIN
    -- First, before this transaction has an id: readers of the log find it in flight by this lock (log_end).
    PERFORM pg_advisory_xact_lock_shared(${WRITERS_LOCK}, hashtext(${lit(schema)}));
    own$ := pg_current_xact_id();
    seq := own$::text::bigint + (SELECT value FROM ${s}.meta WHERE key = 'seqBase');
    -- Whether every commit below this one has landed: no older transaction runs now, and any that starts later
    -- gets a larger id. Then the log's newest below this one, read now, is all there will ever be below it, and
    -- the driver knows the log's end after this commit without reading it (commit.ts).
    -- (A query with a FROM, so it runs on a snapshot of its own, taken now: an expression would see the call's.)
    SELECT pg_current_snapshot() INTO snap$ FROM ${s}.meta WHERE key = 'seqBase';
    IF pg_snapshot_xmin(snap$) >= own$ THEN
      prev := greatest((SELECT max(c.seq) FROM ${s}.changes c WHERE c.seq < commit_begin.seq),
        (SELECT value FROM ${s}.meta WHERE key = 'pruned'), 0);
    END IF;
  END
  $fn$;
`;

/** Refuses a commit: op `at` (1-based, as the caller gave the ops) found its record not as it expected. */
export const commitRefuse = (s: string): string => `
  CREATE FUNCTION ${s}.commit_refuse(at int) RETURNS int LANGUAGE plpgsql AS $fn$
  BEGIN
    RAISE EXCEPTION 'blogcore: version conflict' USING ERRCODE = 'BC001', DETAIL = at::text;
  END
  $fn$;
`;

/**
 * One commit, as the store's layout has it (kinds: 0 put, 1 delete, 2 add, 3 load — a copied record with its
 * version, not logged: migrate.ts): compare-and-set on every op, the rows of its tables and side tables,
 * and the change rows, atomically. Remade whenever the layout changes (schema.ts).
 */
export function commitOps(s: string, plans: readonly CollectionPlan[]): string {
  const groups = sideGroups(plans);
  const groupNo = (g: SideGroup) => groups.indexOf(g) + 1;
  const gParams = groups.map((g, k) => `, o$g${k + 1}$ int[], g${k + 1}$ ${g.bytes ? 'bytea' : 'text'}[]`).join('');
  const gVars = groups.map((_, k) => `g${k + 1}b$ int := 0;`).join(' ');
  const gNext = groups.map((_, k) => `g${k + 1}b$ := o$g${k + 1}$[i$];`).join(' ');
  return `
  CREATE FUNCTION ${s}.commit_ops(
    o$coll int[], o$id text[], o$cid text[], o$pos int[], o$kind int[], o$expect int[], d$ json, o$stream text[],
    o$v int[], v$ text[], o$t int[], t$ text[]${gParams}, c$time bigint
  ) RETURNS bigint[] LANGUAGE plpgsql AS $fn$
  DECLARE
    n$ int := coalesce(array_length(o$coll, 1), 0);
    -- The documents come as one JSON array (no array-literal escaping on the way), an op without one as null.
    o$doc json[] := ARRAY(SELECT CASE WHEN json_typeof(el$) = 'null' THEN NULL ELSE el$ END
                            FROM json_array_elements(d$) WITH ORDINALITY AS x$(el$, at$) ORDER BY at$);
    ver$ int[] := o$expect;
    got$ int;
    seq$ bigint;
    prev$ bigint;
    vb$ int := 0;
    tb$ int := 0;
    logged$ int := 0;
    split$ boolean := false;
    ${gVars}
  BEGIN
    SELECT b$.seq, b$.prev INTO seq$, prev$ FROM ${s}.commit_begin() b$;
    FOR i$ IN 1..n$ LOOP
      -- The change rows of the ops before the first add go in before it: an add holds its counter's row until
      -- the commit ends, and writers sharing the counter wait that long.
      IF o$kind[i$] = 2 AND NOT split$ THEN
        INSERT INTO ${s}.changes (seq, pos, coll, id, type, version, stream, time)
          SELECT seq$, o$pos[k$], o$coll[k$], o$cid[k$], CASE WHEN o$kind[k$] = 1 THEN 'delete' ELSE 'put' END, ver$[k$], o$stream[k$], c$time
          FROM generate_series(1, i$ - 1) AS q$(k$) WHERE o$kind[k$] <> 3;
        logged$ := i$ - 1;
        split$ := true;
      END IF;
      CASE o$coll[i$]
      ${plans.map((p) => collectionOps(s, p, groupNo)).join('\n      ')}
      ELSE RAISE EXCEPTION 'blogcore: unknown collection %', o$coll[i$];
      END CASE;
      vb$ := o$v[i$]; tb$ := o$t[i$]; ${gNext}
    END LOOP;
    INSERT INTO ${s}.changes (seq, pos, coll, id, type, version, stream, time)
      SELECT seq$, o$pos[k$], o$coll[k$], o$cid[k$], CASE WHEN o$kind[k$] = 1 THEN 'delete' ELSE 'put' END, ver$[k$], o$stream[k$], c$time
      FROM generate_series(logged$ + 1, n$) AS q$(k$) WHERE o$kind[k$] <> 3;
    RETURN ARRAY[seq$, prev$];
  END
  $fn$;
`;
}

/**
 * The log's safe end: the newest seq below which every commit is visible and none is still to come. Seqs are
 * transaction ids (plus the store's base), so commits of a store run side by side and finish in any order;
 * a reader takes the log only up to the oldest writer still running. Cheap when the newest visible commit
 * is older than every transaction running anywhere (pg_snapshot_xmin), or when the oldest one is a commit of
 * the store (pg_stat_activity: under concurrent writers, nearly always); otherwise the store's own writers are
 * found in flight by their lock (pg_locks, which stops every lock of the cluster while it is read), so other
 * databases' and stores' transactions never hold it back (on a standby, where the primary's locks are not
 * visible, the cluster-wide bound holds).
 */
/**
 * Truncates the partition of a transient table (layout.ts `slab`) that the slab after next will write: at slab c,
 * slot (c + 2) mod SLOTS, which holds slabs c - 2 and older (ended a slab's width ago at least), and only once per
 * slab (meta `dropped:<table>`). NOWAIT: while a reader holds the partition it answers -1 and the next commit's
 * call tries again; 1 when it truncated, 0 when this slab's was done. `at`: the store's clock (tests move it).
 */
export const dropTransient = (s: string) => `
  CREATE FUNCTION ${s}.drop_transient(tbl text, width bigint, slots int, at timestamptz DEFAULT statement_timestamp())
  RETURNS int LANGUAGE plpgsql AS $fn$
  DECLARE
    slab$ bigint := floor(extract(epoch FROM at) * 1000 / width)::bigint;
    key$ text := 'dropped:' || tbl;
  BEGIN
    IF coalesce((SELECT value FROM ${s}.meta WHERE key = key$), -1) >= slab$ THEN RETURN 0; END IF;
    EXECUTE format('LOCK TABLE %s.%I IN ACCESS EXCLUSIVE MODE NOWAIT', ${lit(s)}, tbl || '$' || ((slab$ + 2) % slots));
    EXECUTE format('TRUNCATE %s.%I', ${lit(s)}, tbl || '$' || ((slab$ + 2) % slots));
    INSERT INTO ${s}.meta AS m (key, value) VALUES (key$, slab$)
      ON CONFLICT (key) DO UPDATE SET value = greatest(m.value, excluded.value);
    RETURN 1;
  EXCEPTION WHEN lock_not_available THEN
    RETURN -1;
  END
  $fn$;
`;

export const logEndFunction = (s: string, schema: string) => `
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
    -- The oldest transaction running is a commit of this store (by its statement): the lock table need not be
    -- read, w stays. (Taking another transaction for a writer only keeps the end lower: never unsafe.)
    IF NOT pg_is_in_recovery() AND NOT EXISTS (
      SELECT 1 FROM pg_stat_get_activity(NULL) a
      WHERE a.backend_xid = pg_snapshot_xmin(snap)::xid AND a.state = 'active'
        AND (starts_with(a.query, ${lit(beginsWith(s))}) OR starts_with(a.query, ${lit(`SELECT ${s}.commit_ops(`)}))
    ) THEN
      SELECT coalesce(min(x::text::bigint), pg_snapshot_xmax(snap)::text::bigint) + base INTO w
        FROM pg_snapshot_xip(snap) AS x
        WHERE x::xid IN (
          -- (The lock table read once: each read of it stops every lock taken or released in the cluster.)
          WITH l AS MATERIALIZED (SELECT l.locktype, l.virtualtransaction, l.transactionid, l.classid, l.objid, l.objsubid
                                   FROM pg_lock_status() l WHERE l.locktype IN ('advisory', 'transactionid'))
          SELECT t.transactionid FROM l a JOIN l t ON t.virtualtransaction = a.virtualtransaction
          WHERE a.locktype = 'advisory' AND a.objsubid = 2 AND a.classid = ${WRITERS_LOCK}::oid
            AND a.objid = hashtext(${lit(schema)})::oid AND t.locktype = 'transactionid');
    END IF;
    SELECT max(seq) INTO m FROM ${s}.changes WHERE seq < w;
    RETURN greatest(coalesce(m, 0), v_pruned);
  END
  $fn$;
`;

/** log_end() and changes_since() (made by layout 3's migration; log_end is remade where it differs, schema.ts). */
export const logEnd = (s: string, schema: string) => `
  ${logEndFunction(s, schema)}

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

/** The statement that calls commit_ops with `groups` pairs of side arrays. */
export const commitSql = (s: string, groups: number, bytes: readonly boolean[]): string =>
  `SELECT ${s}.commit_ops($1::int[], $2::text[], $3::text[], $4::int[], $5::int[], $6::int[], $7::json, $8::text[], $9::int[], $10::text[], $11::int[], $12::text[]${Array.from(
    { length: groups },
    (_, k) => `, $${13 + 2 * k}::int[], $${14 + 2 * k}::${bytes[k] ? 'bytea' : 'text'}[]`,
  ).join('')}, $${13 + 2 * groups}::bigint)`;
