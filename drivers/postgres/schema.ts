/**
 * The PostgreSQL layout of a store, inside its own schema (so one database can hold several stores). Storage
 * layouts are numbered; `<schema>.migrations` records the store's, and every change runs under a
 * transaction-level advisory lock, so app servers that start at once migrate once (and work through a pooler).
 *
 * Layout 5 (layout.ts): a table per declared collection, its index key parts as columns, each declared index a
 * native index; side tables for indexes with several entries per record. Layout 6: the same tables, search
 * tokens under a short code of their collection and scope (search.ts), rewritten on open (migrate.ts).
 * - meta           seqBase (a commit's seq is its transaction id plus it), pruned, schemaVersion.
 * - collections    the catalog: number, name and table of each collection the core ever declared, its counters
 *   indexes        and readable columns; of each index its fields, entries, table and native index.
 * - changes        the change log, (seq, position in the commit); readers stop at its safe end (functions.ts).
 * - blobs, blob_chunks  media bytes (blobs.ts).
 * - commit_ops()   one commit as one statement, made from the layout (functions.ts); log_end(), changes_since();
 *   commit_begin() and commit_refuse(), which the commit statements of statement.ts call too.
 *
 * Layouts 1–4 (legacy.ts) kept records as rows of one `docs` table and index entries as byte keys in `entries`;
 * such a store is copied into layout 5 on open, its tokens in layout 6's form (migrate.ts).
 */
import type { StoreSchema } from '../../src/store/driver.js';
import type { Connection } from './connect.js';
import { ident } from './text.js';
import { commitBegin, commitOps, commitRefuse, dropTransient, logEndFunction } from './functions.js';
import { ensure, partColumn, plan, shape, SLOTS, slotTable, snake, type CollectionPlan, type Names } from './layout.js';
import { LEGACY_MIGRATIONS } from './legacy.js';
import { layoutOf, locked } from './lock.js';
import { copyLegacy, finish, LEGACY_LAYOUT, NATIVE_LAYOUT, shortenTokens, startCopy, toNative } from './migrate.js';
import type { Query } from './lock.js';

/** The NOTIFY channel of a store: one per schema. */
export const channelOf = (schema: string): string => `blogcore:${schema}`.slice(0, 63);

/** The storage layout this build writes. */
export const LAYOUT = NATIVE_LAYOUT;

/**
 * A store restored into another cluster (pg_dump) meets transaction ids lower than its seqs: seqBase is raised
 * so the next seq is above every seq there is (run on every open, under the migration lock; a no-op otherwise).
 */
const keepSeqsRising = (s: string) => `UPDATE ${s}.meta SET value = greatest(value,
    greatest((SELECT coalesce(max(seq), 0) FROM ${s}.changes), (SELECT value FROM ${s}.meta WHERE key = 'pruned'))
    - pg_current_xact_id()::text::bigint + 1)
  WHERE key = 'seqBase'`;

/**
 * Brings the store to this build's layout and the schema's declaration: in one transaction for a new or current
 * store, in batches for a store of layout 4 (migrate.ts). `log` hears the progress of a migration.
 */
export async function migrate(c: Connection, schema: StoreSchema, log: (line: string) => void): Promise<void> {
  const { s } = c;
  const copying = await locked(c, async (q) => {
    await q(`CREATE SCHEMA IF NOT EXISTS ${s}`);
    let current = await layoutOf(q, s);
    if (current > LAYOUT)
      throw new Error(
        `postgres schema ${c.schema} has storage version ${current}; this blogcore knows up to ${LAYOUT}`,
      );
    const fresh = current === 0;
    for (; current < LEGACY_LAYOUT; current++) {
      await q(LEGACY_MIGRATIONS[current]!(s, c.schema));
      await q(`INSERT INTO ${s}.migrations (version) VALUES ($1)`, [current + 1]);
    }
    if (current === LEGACY_LAYOUT) await toNative(q, s);
    await q(keepSeqsRising(s));
    await declare(c, schema, q);
    if (current === LEGACY_LAYOUT + 1) await shortenTokens(c, q, log);
    if (current !== LEGACY_LAYOUT) return false;
    // A new store has nothing to copy: layout 5 at once.
    if (fresh) await finish(q, s);
    else await startCopy(q, s);
    return !fresh;
  });
  if (copying) await copyLegacy(c, log);
}

/** The catalog rows and what is in the schema now. */
async function look(q: Query, c: Connection) {
  const { s } = c;
  const colls = new Map<
    string,
    { no: number; search: boolean; tbl: string | null; counters: string[]; columns: string[] }
  >();
  for (const [no, name, search, tbl, counters, columns] of (await q(
    `SELECT no, name, search, tbl, counters, columns FROM ${s}.collections`,
  )) as Array<[number, string, boolean, string | null, string[], string[]]>)
    colls.set(name, { no, search, tbl, counters, columns });
  const idx = new Map<
    string,
    {
      no: number;
      uniq: boolean;
      fields: string[] | null;
      entries: string | null;
      tbl: string | null;
      pg: string | null;
      positive: string | null;
    }
  >();
  for (const [no, coll, name, uniq, fields, entries, tbl, pg, positive] of (await q(
    `SELECT no, coll, name, uniq, fields, entries, tbl, pg, positive FROM ${s}.indexes`,
  )) as Array<
    [number, number, string, boolean, string[] | null, string | null, string | null, string | null, string | null]
  >)
    idx.set(`${coll}\0${name}`, { no, uniq, fields, entries, tbl, pg, positive });
  const rels = (await q(
    `SELECT relname, relkind = 'p' FROM pg_class WHERE relnamespace = (SELECT oid FROM pg_namespace WHERE nspname = $1)`,
    [c.schema],
  )) as Array<[string, boolean]>;
  const relations = new Set(rels.map((r) => r[0]));
  /** Partitioned tables: transient collections' (layout.ts `slab`). */
  const partitioned = new Set(rels.filter((r) => r[1]).map((r) => r[0]));
  const columns = new Map<string, boolean>();
  for (const [t, col, nullable] of (await q(
    `SELECT table_name, column_name, is_nullable FROM information_schema.columns WHERE table_schema = $1`,
    [c.schema],
  )) as Array<[string, string, string]>)
    columns.set(`${t}\0${col}`, nullable === 'NO');
  const version = Number((await q(`SELECT current_setting('server_version_num')::int`))[0]![0]);
  return { colls, idx, relations, partitioned, columns, virtual: version >= 180000 };
}

/**
 * Brings the tables to the declared collections and indexes: new ones made, changed ones made anew (empty:
 * the core rewrites the records it must), dropped ones removed; then remakes `commit_ops` if the layout moved.
 */
async function declare(c: Connection, schema: StoreSchema, q: Query): Promise<void> {
  const { s } = c;
  const stored = Number((await q(`SELECT value FROM ${s}.meta WHERE key = 'schemaVersion'`))[0]![0]);
  if (stored > schema.version)
    throw new Error(`postgres store holds schema version ${stored}, newer than this blogcore's ${schema.version}`);
  const now = await look(q, c);
  const used = new Set([...now.relations]);
  for (const r of now.colls.values()) if (r.tbl) used.add(r.tbl);
  for (const r of now.idx.values()) {
    if (r.tbl) used.add(r.tbl);
    if (r.pg) used.add(r.pg);
  }
  const fresh = (base: string) => {
    let name = base.slice(0, 55);
    for (let n = 2; used.has(name); n++) name = `${base.slice(0, 55)}_${n}`;
    used.add(name);
    return name;
  };
  const plans: CollectionPlan[] = [];
  const dropped: string[] = [];
  const goneRelations = new Set<string>();
  const goneColumns = new Set<string>();
  const dropColumn = (table: string, column: string) => {
    if (!now.columns.has(`${table}\0${column}`) || goneColumns.has(`${table}\0${column}`)) return;
    goneColumns.add(`${table}\0${column}`);
    dropped.push(`ALTER TABLE ${s}.${ident(table)} DROP COLUMN ${ident(column)}`);
  };
  for (const def of schema.collections) {
    let coll = now.colls.get(def.name);
    const counters = [...(def.counters ?? [])];
    const columns = [...(def.columns ?? [])];
    if (!coll) {
      const tbl = fresh(snake(def.name));
      const no = Number(
        (
          await q(
            `INSERT INTO ${s}.collections (name, search, tbl, counters, columns) VALUES ($1, $2, $3, $4, $5) RETURNING no`,
            [def.name, !!def.search, tbl, counters, columns],
          )
        )[0]![0],
      );
      coll = { no, search: !!def.search, tbl, counters, columns };
    } else if (
      // An unchanged collection's row stays as it is: opening a store that is up to date writes nothing here.
      coll.tbl === null ||
      coll.search !== !!def.search ||
      coll.counters.join('\0') !== counters.join('\0') ||
      coll.columns.join('\0') !== columns.join('\0')
    ) {
      coll.tbl ??= fresh(snake(def.name));
      await q(`UPDATE ${s}.collections SET search = $1, tbl = $2, counters = $3, columns = $4 WHERE no = $5`, [
        !!def.search,
        coll.tbl,
        counters,
        columns,
        coll.no,
      ]);
    }
    const table = coll.tbl!;
    // A collection that became transient (or stopped being) gets its table made anew: its records are transient.
    const remade = now.relations.has(table) && !!def.transient !== now.partitioned.has(table);
    if (remade) {
      dropped.push(`DROP TABLE ${s}.${ident(table)} CASCADE`);
      for (const r of [table, ...Array.from({ length: SLOTS }, (_, k) => slotTable(table, k))]) goneRelations.add(r);
    }
    const tableThere = now.relations.has(table) && !remade;
    // What the table had that this declaration drops: search, counters, readable columns.
    if (tableThere) {
      if (coll.search && !def.search) dropColumn(table, 'tokens');
      for (const f of coll.counters.filter((f) => !counters.includes(f))) dropColumn(table, snake(f));
      for (const f of coll.columns.filter((f) => !columns.includes(f))) dropColumn(table, snake(f));
    }
    const sh = shape(def);
    const names: Names = { table, indexes: new Map() };
    const oldColumns = new Set<string>();
    const oldTables = new Set<string>();
    const keep = new Set<number>();
    for (const [key, row] of now.idx) {
      if (!key.startsWith(`${coll.no}\0`)) continue;
      const name = key.slice(key.indexOf('\0') + 1);
      const def_ = def.indexes.find((i) => i.name === name);
      const same =
        def_ &&
        row.tbl !== null &&
        row.uniq === !!def_.unique &&
        JSON.stringify(row.fields ?? null) === JSON.stringify(def_.fields?.length ? def_.fields : null) &&
        row.entries === (def_.fields?.length ? (def_.entries ?? 'many') : null) &&
        row.positive === (def_.positive ?? null);
      if (row.fields && row.entries !== 'many') {
        for (const f of row.fields) oldColumns.add(partColumn(f));
        oldColumns.add(`in_${snake(name)}`);
      }
      if (row.tbl && row.tbl !== table) oldTables.add(row.tbl);
      if (same) {
        names.indexes.set(name, { no: row.no, table: row.tbl!, pg: row.pg! });
        keep.add(row.no);
        continue;
      }
      // Changed or gone: its native index goes (a changed one is made anew below).
      if (row.pg && now.relations.has(row.pg)) {
        dropped.push(`ALTER TABLE ${s}.${ident(row.tbl!)} DROP CONSTRAINT IF EXISTS ${ident(row.pg)}`);
        dropped.push(`DROP INDEX IF EXISTS ${s}.${ident(row.pg)}`);
        goneRelations.add(row.pg);
      }
      if (!def_) await q(`DELETE FROM ${s}.indexes WHERE no = $1`, [row.no]);
      else names.indexes.set(name, { no: row.no, table: '', pg: '' });
    }
    // New and changed indexes get their tables and native index names.
    for (const [k, g] of sh.groups) {
      const known = g.indexes.map((i) => names.indexes.get(i.name)).find((n) => n?.table);
      const gt = known?.table ?? fresh(`${table}_${snake(k.startsWith('\0') ? k.slice(1) : g.varying.join('_'))}`);
      for (const i of g.indexes) await name(i.name, gt);
    }
    for (const i of sh.onMain) await name(i.name, table);
    async function name(index: string, tbl: string) {
      const def_ = def.indexes.find((i) => i.name === index)!;
      const n = names.indexes.get(index);
      if (n?.table) return;
      const pg = fresh(`${table}_${snake(index)}`);
      const fields = def_.fields?.length ? [...def_.fields] : null;
      const entries = fields ? (def_.entries ?? 'many') : null;
      const values = [!!def_.unique, fields, entries, tbl, pg, def_.positive ?? null];
      const no = n
        ? (
            await q(
              `UPDATE ${s}.indexes SET uniq = $1, fields = $2, entries = $3, tbl = $4, pg = $5, positive = $6 WHERE no = $7 RETURNING no`,
              [...values, n.no],
            )
          )[0]![0]
        : (
            await q(
              `INSERT INTO ${s}.indexes (uniq, fields, entries, tbl, pg, positive, coll, name) VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING no`,
              [...values, coll!.no, index],
            )
          )[0]![0];
      names.indexes.set(index, { no: Number(no), table: tbl, pg });
    }
    if (remade) for (const n of names.indexes.values()) goneRelations.add(n.pg);
    const p = plan(
      coll.no,
      def,
      names,
      tableThere ? (col) => now.columns.get(`${table}\0${col}`) === true : undefined,
      now.virtual,
    );
    // Columns and side tables no index uses any more.
    if (tableThere)
      for (const col of oldColumns) if (col !== 'id' && !p.columns.some((x) => x.name === col)) dropColumn(table, col);
    for (const tbl of oldTables)
      if (!p.groups.some((g) => g.table === tbl) && !goneRelations.has(tbl)) {
        dropped.push(`DROP TABLE IF EXISTS ${s}.${ident(tbl)}`);
        goneRelations.add(tbl);
      }
    plans.push(p);
  }
  for (const statement of dropped) await q(statement);
  const has = {
    relation: (name: string) => now.relations.has(name) && !goneRelations.has(name),
    column: (table: string, column: string) =>
      now.columns.has(`${table}\0${column}`) && !goneColumns.has(`${table}\0${column}`),
  };
  for (const p of plans) for (const statement of ensure(s, p, has)) await q(statement);
  if (stored !== schema.version)
    await q(`UPDATE ${s}.meta SET value = $1 WHERE key = 'schemaVersion'`, [schema.version]);
  await remakeCommit(q, c, plans);
  c.setPlans(plans, new Map([...now.colls].map(([name, r]) => [r.no, name])).set(0, '').set(-1, ''), schema);
  // Collections made in this transaction are not in `now.colls`: name every plan's number too.
  for (const p of plans) c.namesByNo.set(p.no, p.name);
}

/** Remakes the commit functions (`commit_begin`, `commit_refuse`, `commit_ops`) and `log_end` where the stored ones differ. */
async function remakeCommit(q: Query, c: Connection, plans: readonly CollectionPlan[]): Promise<void> {
  const made: Array<[string, string]> = [
    ['commit_begin', commitBegin(c.s, c.schema)],
    ['commit_refuse', commitRefuse(c.s)],
    ['commit_ops', commitOps(c.s, plans)],
    ['log_end', logEndFunction(c.s, c.schema)],
    ['drop_transient', dropTransient(c.s)],
  ];
  for (const [name, text] of made) {
    const body = text.slice(text.indexOf('$fn$') + 4, text.lastIndexOf('$fn$'));
    const rows = (await q(
      `SELECT prosrc FROM pg_proc WHERE proname = $1 AND pronamespace = (SELECT oid FROM pg_namespace WHERE nspname = $2)`,
      [name, c.schema],
    )) as Array<[string]>;
    if (rows.length === 1 && rows[0]![0] === body) continue;
    for (let k = 0; k < rows.length; k++) await q(`DROP FUNCTION IF EXISTS ${c.s}.${name}`);
    await q(text);
  }
}
