/**
 * How the declared collections and indexes (src/store/driver.ts `StoreSchema`) become tables a person can read.
 * The driver decides nothing here: every table, column and index follows from the declaration.
 *
 * - Each collection is a table (`posts`): `id`, `version`, the document as `json` (`doc`), one `text` column
 *   (collation "C") per key part its `one` and `optional` indexes name (`blog_id`, `status`, `published`, …), a
 *   boolean `in_<index>` for an optional index whose parts are all shared with others (posts in `due`), a
 *   `bigint` per counter (with a generated `<counter>_positive` for an index held while it is above 0), `tokens`
 *   for search, and on PostgreSQL 18 a virtual column per readable field (`title`).
 * - A `many` index (one entry per label) keeps its entries in a side table named for the parts that vary per
 *   entry (`posts_label`): `id`, the varying parts, and copies of the other parts its indexes name; indexes of a
 *   collection that vary by the same parts share it (`labelPublished` and `labelUpdated`).
 * - Each declared index is a native index over its part columns (`posts_published` on blog_id, status,
 *   published, id); unique ones are unique constraints; optional ones are partial (`WHERE path IS NOT NULL`).
 * - An index declared without `fields` keeps its keys as order-preserving bytes (drivers/shared/byte-keys.ts)
 *   in a table of its own (`<table>_<index>`: id, key).
 *
 * Key parts and ids are stored as "C"-collated text in `compareKeys` order (text.ts `keyText`: the text itself
 * for everything but U+0000, U+0001 and characters from U+D800 up). The names of tables and native indexes are
 * kept in the catalog (`collections.tbl`, `indexes.tbl`, `indexes.pg`), so they never move once made.
 */
import type { CollectionDef, IndexDef, IndexEntries } from '../../src/store/driver.js';
import { ident } from './text.js';

export interface IndexPlan {
  no: number;
  name: string;
  unique: boolean;
  /** Where its entries are: columns of the collection's table, a side table's rows, or byte keys. */
  kind: 'main' | 'side' | 'bytes';
  entries: IndexEntries;
  /** The table holding its entries. */
  table: string;
  /** The column of each key part, in key order (kind main and side). */
  parts: string[];
  /** The fields as declared (kind main and side). */
  fields: string[];
  /** Its predicate, as SQL terms on unqualified columns (a partial index: entries only where they hold). */
  where: string[];
  /** The presence flag of an optional index without a column of its own. */
  flag?: string;
  /** Held while this generated column (`<counter>_positive`) is true: a put may give it no key. */
  positive?: string;
  /** The native index (or unique constraint). */
  pg: string;
  /** The native index orders ties by id after the parts (keys that do not end with the id). */
  tie: boolean;
  group?: SideGroup;
}

export interface SideGroup {
  table: string;
  /** Byte keys (an index without fields): one `key bytea` column. */
  bytes: boolean;
  /** The columns besides id that make an entry (the primary key is id and these). */
  varying: string[];
  /** Every column besides id, in table order. */
  columns: string[];
  indexes: IndexPlan[];
}

export interface MainColumn {
  name: string;
  /** `text` for key parts, `boolean` for presence flags. */
  type: 'text' | 'boolean';
  /** Every row has a value: a `one` index names it, and the table had it from the start. */
  notNull: boolean;
}

export interface CollectionPlan {
  no: number;
  name: string;
  table: string;
  search: boolean;
  /** Key-part columns and flags of the table, in the order commits pass their values. */
  columns: MainColumn[];
  counters: Array<{ field: string; column: string }>;
  /** Generated `<counter>_positive` columns, for indexes held while a counter is above 0. */
  positives: Array<{ column: string; counter: string }>;
  readable: Array<{ field: string; column: string }>;
  indexes: Map<string, IndexPlan>;
  groups: SideGroup[];
  /**
   * A transient collection (`CollectionDef.transient`): the width of a time slab (ms). Its table is partitioned by
   * `slot` (the slab of the statement's time, modulo SLOTS: `<table>$0` …) and a slot is truncated whole
   * (functions.ts `drop_transient`) instead of records deleted one by one.
   */
  slab?: number;
}

/** The partitions of a transient collection's table: the slab written now, those kept, and the one truncated next. */
export const SLOTS = 4;

/** The name of a transient table's partition `k`. */
export const slotTable = (table: string, k: number): string => `${table}$${k}`;

/** The columns of a table's primary key (a transient one's partitions each hold their own ids). */
export const conflictKey = (p: CollectionPlan): string => (p.slab === undefined ? 'id' : 'id, slot');

/** The names the catalog keeps: a collection's table, and per index its entry table and native index. */
export interface Names {
  table: string;
  indexes: Map<string, { no: number; table: string; pg: string }>;
}

/** `blogId` → `blog_id`. */
export const snake = (name: string): string =>
  name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toLowerCase()
    .replace(/[^a-z0-9_]/g, '_')
    .slice(0, 50) || '_';

const BASE = new Set(['id', 'version', 'doc', 'tokens']);

/** The column of a key part: `id` is the record's id; a name the table uses for itself gets `_key`. */
export const partColumn = (field: string): string => {
  if (field === 'id') return 'id';
  const c = snake(field);
  return BASE.has(c) || c.startsWith('in_') ? `${c}_key` : c;
};

/** How a collection's indexes split into columns of its table and side tables (names aside). */
export function shape(def: CollectionDef) {
  const declared = (i: IndexDef) => !!i.fields?.length;
  const entriesOf = (i: IndexDef): IndexEntries => (declared(i) ? (i.entries ?? 'many') : 'many');
  const onMain = def.indexes.filter((i) => declared(i) && entriesOf(i) !== 'many');
  const mainColumns = new Set<string>(['id']);
  const users = new Map<string, number>();
  for (const i of onMain)
    for (const f of new Set(i.fields!.map(partColumn))) {
      mainColumns.add(f);
      users.set(f, (users.get(f) ?? 0) + 1);
    }
  /** Columns every record has (a `one` index names them). */
  const always = new Set(onMain.filter((i) => entriesOf(i) === 'one').flatMap((i) => i.fields!.map(partColumn)));
  const flagged = new Set(
    onMain
      .filter((i) => entriesOf(i) === 'optional')
      .filter((i) => !i.fields!.map(partColumn).some((c) => users.get(c) === 1 && c !== 'id' && !always.has(c)))
      .map((i) => i.name),
  );
  const groups = new Map<string, { varying: string[]; indexes: IndexDef[] }>();
  for (const i of def.indexes) {
    if (declared(i) && entriesOf(i) !== 'many') continue;
    if (!declared(i)) {
      groups.set(`\0${i.name}`, { varying: ['key'], indexes: [i] });
      continue;
    }
    const varying = [...new Set(i.fields!.map(partColumn).filter((c) => !mainColumns.has(c)))];
    if (!varying.length)
      throw new Error(`index ${def.name}.${i.name}: a many index needs a part that varies per entry`);
    const k = [...varying].sort().join(',');
    const g = groups.get(k) ?? { varying, indexes: [] };
    g.indexes.push(i);
    groups.set(k, g);
  }
  return { declared, entriesOf, onMain, mainColumns, always, flagged, groups };
}

/**
 * The plan of a collection, given the names its catalog rows hold and which of its table's columns are NOT NULL
 * (undefined: the table is still to be made, and a column is NOT NULL if a `one` index names it).
 */
export function plan(
  no: number,
  def: CollectionDef,
  names: Names,
  notNullNow: ((column: string) => boolean) | undefined,
  virtual: boolean,
): CollectionPlan {
  const sh = shape(def);
  const notNull = notNullNow ?? ((c: string) => sh.always.has(c));
  const indexes = new Map<string, IndexPlan>();
  const columns: MainColumn[] = [];
  for (const c of sh.mainColumns) if (c !== 'id') columns.push({ name: c, type: 'text', notNull: notNull(c) });
  for (const i of sh.onMain)
    if (sh.flagged.has(i.name)) columns.push({ name: `in_${snake(i.name)}`, type: 'boolean', notNull: false });
  const taken = new Set(['id', 'version', 'doc', 'tokens', ...columns.map((c) => c.name)]);
  const counters = (def.counters ?? []).map((field) => {
    const column = snake(field);
    if (taken.has(column)) throw new Error(`collection ${def.name}: counter ${field} clashes with column ${column}`);
    taken.add(column);
    return { field, column };
  });
  const positives: CollectionPlan['positives'] = [];
  const positive = (i: IndexDef): string | undefined => {
    if (i.positive === undefined) return undefined;
    const counter = counters.find((c) => c.field === i.positive);
    if (!counter) throw new Error(`index ${def.name}.${i.name}: ${i.positive} is not a counter of the collection`);
    const column = `${counter.column}_positive`;
    if (!positives.some((x) => x.column === column)) {
      if (taken.has(column)) throw new Error(`collection ${def.name}: ${column} clashes with another column`);
      taken.add(column);
      positives.push({ column, counter: counter.column });
    }
    return column;
  };
  const readable = virtual
    ? (def.columns ?? []).map((field) => ({ field, column: snake(field) })).filter((r) => !taken.has(r.column))
    : [];
  const name = (i: IndexDef) => {
    const n = names.indexes.get(i.name);
    if (!n) throw new Error(`index ${def.name}.${i.name} has no catalog row`);
    return n;
  };
  for (const i of sh.onMain) {
    const n = name(i);
    const parts = i.fields!.map(partColumn);
    const where = [...new Set(parts)].filter((c) => c !== 'id' && !notNull(c)).map((c) => `${ident(c)} IS NOT NULL`);
    const flag = sh.flagged.has(i.name) ? `in_${snake(i.name)}` : undefined;
    if (flag) where.unshift(ident(flag));
    const held = positive(i);
    if (held) where.unshift(ident(held));
    indexes.set(i.name, {
      no: n.no,
      name: i.name,
      unique: !!i.unique,
      kind: 'main',
      entries: sh.entriesOf(i),
      table: names.table,
      parts,
      fields: [...i.fields!],
      where,
      ...(flag ? { flag } : {}),
      ...(held ? { positive: held } : {}),
      pg: n.pg,
      tie: !i.unique && parts[parts.length - 1] !== 'id',
    });
  }
  const groups: SideGroup[] = [];
  for (const g of sh.groups.values()) {
    const bytes = !sh.declared(g.indexes[0]!);
    const table = name(g.indexes[0]!).table;
    const columns = bytes
      ? ['key']
      : [...new Set([...g.varying, ...g.indexes.flatMap((i) => i.fields!.map(partColumn))])].filter((c) => c !== 'id');
    const group: SideGroup = { table, bytes, varying: g.varying, columns, indexes: [] };
    for (const i of g.indexes) {
      const parts = bytes ? [] : i.fields!.map(partColumn);
      const p: IndexPlan = {
        no: name(i).no,
        name: i.name,
        unique: !!i.unique,
        kind: bytes ? 'bytes' : 'side',
        entries: 'many',
        table,
        parts,
        fields: bytes ? [] : [...i.fields!],
        where: [],
        pg: name(i).pg,
        tie: bytes || (!i.unique && parts[parts.length - 1] !== 'id'),
        group,
      };
      group.indexes.push(p);
      indexes.set(i.name, p);
    }
    groups.push(group);
  }
  for (const i of def.indexes)
    if (i.positive !== undefined && (!sh.declared(i) || sh.entriesOf(i) === 'many'))
      throw new Error(`index ${def.name}.${i.name}: only one or optional indexes with fields may be positive`);
  if (def.transient && (groups.length || counters.length || def.search || def.indexes.some((i) => i.unique)))
    throw new Error(`collection ${def.name}: a transient collection has only one or optional indexes, not unique`);
  return {
    no,
    name: def.name,
    table: names.table,
    search: !!def.search,
    columns,
    counters,
    positives,
    readable,
    indexes,
    groups,
    ...(def.transient ? { slab: Math.max(1, Math.floor(def.transient.keepMs)) } : {}),
  };
}

/** The statements that create what a plan needs and is not there yet (`has`: the schema's relations by name). */
export function ensure(
  s: string,
  p: CollectionPlan,
  has: { relation(name: string): boolean; column(table: string, column: string): boolean },
): string[] {
  const t = `${s}.${ident(p.table)}`;
  const out: string[] = [];
  const fresh = !has.relation(p.table);
  if (fresh) {
    const cols = [
      'id text COLLATE "C" PRIMARY KEY',
      'version int NOT NULL',
      'doc json NOT NULL',
      ...p.columns.map((c) =>
        c.type === 'boolean'
          ? `${ident(c.name)} boolean`
          : `${ident(c.name)} text COLLATE "C"${c.notNull ? ' NOT NULL' : ''}`,
      ),
      ...p.counters.map((c) => `${ident(c.column)} bigint NOT NULL DEFAULT 0`),
      ...p.positives.map((x) => `${ident(x.column)} boolean GENERATED ALWAYS AS (${ident(x.counter)} > 0) STORED`),
      ...(p.search ? ['tokens text[] COLLATE "C"'] : []),
    ];
    if (p.slab === undefined) out.push(`CREATE TABLE ${t} (${cols.join(', ')})`);
    else {
      // The slot of the statement's time, by the store's clock (drop_transient truncates by the same clock).
      const slot = `(floor(extract(epoch FROM statement_timestamp()) * 1000 / ${p.slab})::bigint % ${SLOTS})::smallint`;
      cols[0] = 'id text COLLATE "C" NOT NULL';
      cols.push(`slot smallint NOT NULL DEFAULT ${slot}`, 'PRIMARY KEY (id, slot)');
      out.push(`CREATE TABLE ${t} (${cols.join(', ')}) PARTITION BY LIST (slot)`);
      for (let k = 0; k < SLOTS; k++)
        out.push(`CREATE TABLE ${s}.${ident(slotTable(p.table, k))} PARTITION OF ${t} FOR VALUES IN (${k})`);
    }
  } else {
    for (const c of p.columns)
      if (!has.column(p.table, c.name))
        out.push(
          `ALTER TABLE ${t} ADD COLUMN ${ident(c.name)} ${c.type === 'boolean' ? 'boolean' : 'text COLLATE "C"'}`,
        );
    for (const c of p.counters)
      if (!has.column(p.table, c.column)) {
        out.push(`ALTER TABLE ${t} ADD COLUMN ${ident(c.column)} bigint NOT NULL DEFAULT 0`);
        out.push(`UPDATE ${t} SET ${ident(c.column)} = coalesce((doc->>${lit(c.field)})::bigint, 0)`);
      }
    for (const x of p.positives)
      if (!has.column(p.table, x.column))
        out.push(
          `ALTER TABLE ${t} ADD COLUMN ${ident(x.column)} boolean GENERATED ALWAYS AS (${ident(x.counter)} > 0) STORED`,
        );
    if (p.search && !has.column(p.table, 'tokens')) out.push(`ALTER TABLE ${t} ADD COLUMN tokens text[] COLLATE "C"`);
  }
  for (const r of p.readable)
    if (fresh || !has.column(p.table, r.column))
      out.push(
        `ALTER TABLE ${t} ADD COLUMN ${ident(r.column)} text GENERATED ALWAYS AS (doc->>${lit(r.field)}) VIRTUAL`,
      );
  if (p.search && !has.relation(`${p.table}_tokens`))
    out.push(`CREATE INDEX ${ident(`${p.table}_tokens`)} ON ${t} USING gin (tokens)`);
  for (const g of p.groups) {
    const gt = `${s}.${ident(g.table)}`;
    if (!has.relation(g.table)) {
      const cols = g.bytes ? ['key bytea NOT NULL'] : g.columns.map((c) => `${ident(c)} text COLLATE "C" NOT NULL`);
      out.push(
        `CREATE TABLE ${gt} (id text COLLATE "C" NOT NULL, ${cols.join(', ')}, PRIMARY KEY (id, ${g.varying.map(ident).join(', ')}))`,
      );
    } else {
      for (const c of g.columns)
        if (!has.column(g.table, c)) out.push(`ALTER TABLE ${gt} ADD COLUMN ${ident(c)} text COLLATE "C"`);
    }
  }
  for (const i of p.indexes.values()) {
    if (has.relation(i.pg)) continue;
    const on = `${s}.${ident(i.table)}`;
    const cols = (i.kind === 'bytes' ? ['key'] : i.parts).map(ident);
    if (i.tie) cols.push('id');
    const where = i.where.length ? ` WHERE ${i.where.join(' AND ')}` : '';
    // A unique index is a unique constraint where PostgreSQL has one for it (no predicate but IS NOT NULL terms).
    if (i.unique && !i.flag)
      out.push(
        `ALTER TABLE ${on} ADD CONSTRAINT ${ident(i.pg)} UNIQUE (${(i.kind === 'bytes' ? ['key'] : i.parts).map(ident).join(', ')})`,
      );
    else out.push(`CREATE ${i.unique ? 'UNIQUE ' : ''}INDEX ${ident(i.pg)} ON ${on} (${cols.join(', ')})${where}`);
  }
  return out;
}

const lit = (s: string): string => `'${s.replace(/'/g, "''")}'`;
