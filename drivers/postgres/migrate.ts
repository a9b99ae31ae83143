/**
 * From layout 4 (every record a row of `docs`, every index entry a byte key in `entries`; legacy.ts) to the
 * native tables of layout 5 (layout.ts), on open:
 *
 * 1. One transaction makes the tables the declaration asks for (schema.ts `declare`) and a `layout_copy` row
 *    saying where the copy stands.
 * 2. Batches of BATCH records, each its own transaction under the store's migration lock, copy `docs` in
 *    (collection, id) order with their versions, documents, keys (decoded from `entries`' bytes) and tokens,
 *    through the same commit function as writes (kind 3: not logged). The change log, the blobs and the catalog
 *    stay where they are.
 * 3. Batches read every record again from both layouts and compare them: version, document text, every column
 *    and side row, tokens; then the counts per collection.
 * 4. Only then a last transaction drops `docs` and `entries` and records layout 5.
 *
 * A process that dies midway loses at most its batch (rolled back): the next open goes on from `layout_copy`.
 * App servers opening the store meanwhile wait on the lock between batches and take turns with the batches, so
 * every one of them returns from `open` once the store is migrated. Progress goes to `log`.
 */
import { decodeKey } from '../shared/byte-keys.js';
import type { Key } from '../../src/store/driver.js';
import { encode, valuesOf, type RowOp } from './commit.js';
import type { Connection } from './connect.js';
import { sideGroups } from './functions.js';
import type { CollectionPlan } from './layout.js';
import { layoutOf, locked, type Query } from './lock.js';
import { fromLegacyToken } from './search.js';
import { fromPgText, ident, keyText } from './text.js';

/** The last layout of the `docs`/`entries` kind. */
export const LEGACY_LAYOUT = 4;
/** The layout this build writes: 5 made the tables native, 6 shortened the stored search tokens (search.ts). */
export const NATIVE_LAYOUT = LEGACY_LAYOUT + 2;
const BATCH = 500;

/** The catalog's columns of layout 5 (run on a layout-4 store, in the transaction that makes the tables). */
export async function toNative(q: Query, s: string): Promise<void> {
  await q(`ALTER TABLE ${s}.collections ADD COLUMN IF NOT EXISTS tbl text,
    ADD COLUMN IF NOT EXISTS counters text[] NOT NULL DEFAULT '{}', ADD COLUMN IF NOT EXISTS columns text[] NOT NULL DEFAULT '{}'`);
  await q(`ALTER TABLE ${s}.indexes ADD COLUMN IF NOT EXISTS fields text[], ADD COLUMN IF NOT EXISTS entries text,
    ADD COLUMN IF NOT EXISTS tbl text, ADD COLUMN IF NOT EXISTS pg text, ADD COLUMN IF NOT EXISTS positive text`);
}

/** Where a copy stands; made once, by the first open that finds records to copy. */
export async function startCopy(q: Query, s: string): Promise<void> {
  await q(`CREATE TABLE IF NOT EXISTS ${s}.layout_copy (
    phase text NOT NULL, coll int NOT NULL, id text COLLATE "C" NOT NULL, done bigint NOT NULL, total bigint NOT NULL)`);
  if (!(await q(`SELECT 1 FROM ${s}.layout_copy`)).length)
    await q(`INSERT INTO ${s}.layout_copy SELECT 'copy', 0, '', 0, count(*) FROM ${s}.docs`);
}

/** Drops what layout 4 kept and records layouts 5 and 6 (a copy writes its tokens in layout 6's form). */
export async function finish(q: Query, s: string): Promise<void> {
  await q(`DROP TABLE IF EXISTS ${s}.docs, ${s}.entries, ${s}.layout_copy`);
  await q(`INSERT INTO ${s}.migrations (version) VALUES ($1), ($2) ON CONFLICT DO NOTHING`, [
    LEGACY_LAYOUT + 1,
    NATIVE_LAYOUT,
  ]);
}

/**
 * Layout 5 to 6, in the open's transaction: every stored search token rewritten in the short form (search.ts),
 * BATCH records per statement. Costs a rewrite of each searchable row (posts, pages, comments) once.
 */
export async function shortenTokens(c: Connection, q: Query, log: (line: string) => void): Promise<void> {
  for (const p of c.plans) {
    if (!p.search) continue;
    const t = `${c.s}.${ident(p.table)}`;
    let after = '';
    let n = 0;
    for (;;) {
      const rows = (await q(`SELECT id, tokens FROM ${t} WHERE id > $1 ORDER BY id LIMIT $2`, [after, BATCH])) as Array<
        [string, string[] | null]
      >;
      if (!rows.length) break;
      const next = rows.map(([id, tokens]) => ({ id, tk: tokens?.map(fromLegacyToken) ?? null }));
      await q(
        `UPDATE ${t} SET tokens = x.tk FROM json_to_recordset($1::json) AS x(id text, tk text[]) WHERE ${t}.id = x.id`,
        [JSON.stringify(next)],
      );
      after = rows[rows.length - 1]![0];
      n += rows.length;
      if (n % (BATCH * 20) === 0) log(`blogcore/postgres: store "${c.schema}" to layout 6: ${n} ${p.name} rewritten`);
    }
  }
  await q(`INSERT INTO ${c.s}.migrations (version) VALUES ($1) ON CONFLICT DO NOTHING`, [NATIVE_LAYOUT]);
}

type LegacyRow = [number, string, number, string, number[], Buffer[], string[] | null];

/** The ops that copy a batch of legacy rows (rows of collections no longer declared are left out). */
function opsOf(c: Connection, rows: readonly LegacyRow[]): RowOp[] {
  const byNo = new Map<number, { p: CollectionPlan; index: string }>();
  for (const p of c.plans) for (const i of p.indexes.values()) byNo.set(i.no, { p, index: i.name });
  const ops: RowOp[] = [];
  for (const [coll, id, version, doc, eix, ekey, tokens] of rows) {
    const p = c.byName.get(c.namesByNo.get(coll) ?? '');
    if (!p || p.no !== coll) continue;
    const keys: Record<string, Key[]> = {};
    eix.forEach((ix, k) => {
      const at = byNo.get(ix);
      if (at && at.p === p) (keys[at.index] ??= []).push(decodeKey(ekey[k]!));
    });
    ops.push({
      kind: 3,
      collection: p.name,
      id: fromPgText(id),
      expect: version,
      docText: doc,
      keys,
      tokens: (tokens ?? []).map(fromLegacyToken),
      pos: ops.length,
    });
  }
  return ops;
}

const legacyBatch = (s: string) =>
  `SELECT d.coll, d.id, d.version, d.doc, d.eix, d.ekey, d.tokens FROM ${s}.docs d
   WHERE (d.coll, d.id) > ($1, $2) ORDER BY d.coll, d.id LIMIT $3`;

/** Copies, verifies and finishes, a batch per transaction, until the store is in layout 5. */
export async function copyLegacy(c: Connection, log: (line: string) => void): Promise<void> {
  const { s } = c;
  const say = (what: string) => log(`blogcore/postgres: store "${c.schema}" to layout ${LEGACY_LAYOUT + 1}: ${what}`);
  for (;;) {
    const done = await locked(c, async (q) => {
      if ((await layoutOf(q, s)) > LEGACY_LAYOUT) return true;
      const [[phase, coll, id, count, total]] = (await q(
        `SELECT phase, coll, id, done, total FROM ${s}.layout_copy`,
      )) as [[string, number, string, string, string]];
      const rows = (await q(legacyBatch(s), [coll, id, BATCH])) as LegacyRow[];
      const last = rows[rows.length - 1];
      const n = Number(count) + rows.length;
      if (phase === 'copy') {
        if (last) {
          const ops = opsOf(c, rows);
          if (ops.length) await q(c.commitSql, encode(c, ops, Date.now()));
          await q(`UPDATE ${s}.layout_copy SET coll = $1, id = $2, done = $3`, [last[0], last[1], n]);
          say(`copied ${n} of ${total} records`);
        } else {
          await q(`UPDATE ${s}.layout_copy SET phase = 'verify', coll = 0, id = '', done = 0`);
          say(`copied ${total} records; comparing them`);
        }
        return false;
      }
      if (last) {
        await verify(c, q, opsOf(c, rows));
        await q(`UPDATE ${s}.layout_copy SET coll = $1, id = $2, done = $3`, [last[0], last[1], n]);
        say(`compared ${n} of ${total} records`);
        return false;
      }
      await verifyCounts(c, q);
      await finish(q, s);
      say(`done: ${total} records copied and compared, the old tables dropped`);
      return true;
    });
    if (done) return;
  }
}

const fault = (what: string): never => {
  throw new Error(
    `blogcore/postgres: the copy into layout ${LEGACY_LAYOUT + 1} differs from the store (${what}); the old tables are kept`,
  );
};

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
const text = (v: unknown) => (Buffer.isBuffer(v) ? `\\x${v.toString('hex')}` : v === null ? null : String(v));

/** Compares each copied record with what its legacy row says it must be. */
async function verify(c: Connection, q: Query, ops: readonly RowOp[]): Promise<void> {
  const groups = sideGroups(c.plans);
  const groupNo = (t: string) => groups.findIndex((g) => g.table === t);
  const byColl = new Map<string, RowOp[]>();
  for (const op of ops) byColl.set(op.collection, [...(byColl.get(op.collection) ?? []), op]);
  for (const [name, list] of byColl) {
    const p = c.collection(name);
    const ids = list.map((op) => keyText(op.id));
    const cols = [...p.columns.map((x) => x.name), ...p.counters.map((x) => x.column)].map(ident);
    const rows = (await q(
      `SELECT id, version, doc::text${cols.map((x) => `, ${x}`).join('')}${p.search ? ', tokens' : ''}
       FROM ${c.s}.${ident(p.table)} WHERE id = ANY ($1::text[])`,
      [ids],
    )) as unknown[][];
    const found = new Map(rows.map((r) => [r[0] as string, r]));
    const sides = new Map<string, Map<string, string[]>>();
    for (const g of p.groups) {
      const got = new Map<string, string[]>();
      for (const r of (await q(
        `SELECT id, ${g.columns.map(ident).join(', ')} FROM ${c.s}.${ident(g.table)} WHERE id = ANY ($1::text[])`,
        [ids],
      )) as unknown[][])
        got.set(r[0] as string, [...(got.get(r[0] as string) ?? []), JSON.stringify(r.slice(1).map(text))]);
      sides.set(g.table, got);
    }
    for (const op of list) {
      const id = keyText(op.id);
      const row = found.get(id) ?? fault(`${name}/${op.id} is missing`);
      if (row[1] !== op.expect || row[2] !== op.docText) fault(`${name}/${op.id}: version or document`);
      const want = valuesOf(p, groupNo, op);
      const got = row.slice(3, 3 + cols.length).map((v) => (typeof v === 'boolean' ? (v ? 't' : 'f') : text(v)));
      if (!same(got, want.values)) fault(`${name}/${op.id}: columns`);
      if (
        p.search &&
        !same([...((row[3 + cols.length] as string[] | null) ?? [])].sort(), [...(op.tokens ?? [])].sort())
      )
        fault(`${name}/${op.id}: tokens`);
      for (const g of p.groups) {
        const wanted = (want.sides.get(groupNo(g.table)) ?? []).map((r) => JSON.stringify(r.map(text))).sort();
        if (!same((sides.get(g.table)!.get(id) ?? []).sort(), wanted)) fault(`${name}/${op.id}: ${g.table} rows`);
      }
    }
  }
}

/** Every declared collection holds as many records as layout 4 had of it. */
async function verifyCounts(c: Connection, q: Query): Promise<void> {
  const legacy = new Map(
    ((await q(`SELECT coll, count(*)::int FROM ${c.s}.docs GROUP BY coll`)) as Array<[number, number]>).map(
      ([k, n]) => [k, n],
    ),
  );
  for (const p of c.plans) {
    const n = Number((await q(`SELECT count(*)::int FROM ${c.s}.${ident(p.table)}`))[0]![0]);
    if (n !== (legacy.get(p.no) ?? 0)) fault(`${p.name} has ${n} records, layout 4 had ${legacy.get(p.no) ?? 0}`);
  }
}
