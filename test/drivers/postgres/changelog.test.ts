/**
 * The change log never skips: concurrent commits finish out of the order they started in, and a reader
 * tailing `changesSince(last seen seq)` meanwhile must still see every commit, exactly once. (Commits one app
 * server starts at once share a transaction and its seq, drivers/postgres/group-commit.ts: the writers run on
 * four drivers, so transactions still overlap.)
 */
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { postgresDriver } from '../../../drivers/postgres/index.js';
import { movedPast } from '../../../drivers/postgres/statement.js';
import type { StorageDriver, WriteOp } from '../../../src/store/driver.js';
import { itemPut, suiteSchema } from '../suite.js';
import { freshSchema, pgUrl, tracked } from './env.js';

const stores = tracked((schema) => postgresDriver({ connectionString: pgUrl(), schema, max: 10 }), 'log');
afterAll(async () => {
  await stores.closeAll();
  await stores.dropAll();
});

const WRITERS = 8;
const COMMITS = 60;

describe('postgres change log', () => {
  it('a reader tailing the log while 8 writers commit sees every commit exactly once', async () => {
    const schema = freshSchema('log');
    const servers: StorageDriver[] = Array.from({ length: 4 }, () =>
      postgresDriver({ connectionString: pgUrl(), schema, max: 10 }),
    );
    for (const server of servers) await server.open(suiteSchema);
    const d = servers[0]!;
    // Commits of very different sizes, so their transactions overlap and finish out of seq order.
    const commitsOf = (w: number, i: number): WriteOp[] =>
      Array.from({ length: 1 + ((w * 7 + i * 13) % 23) }, (_, k) =>
        itemPut({
          id: `w${w}-${i}-${k}`,
          group: `g${w}`,
          status: 'LIVE',
          time: `t${i}`,
          tags: ['a', 'b', 'c'],
          words: ['x', `w${w}`],
        }),
      );
    /** The commits by seq: the ops the log must hold at each. */
    const committed = new Map<number, string[]>();
    let writing = true;
    const writers = Array.from({ length: WRITERS }, async (_, w) => {
      for (let i = 0; i < COMMITS; i++) {
        const { seq } = await servers[w % servers.length]!.commit(commitsOf(w, i));
        committed.set(seq, [...(committed.get(seq) ?? []), `w${w}-${i}`]);
      }
    });
    const seen = new Map<number, number>(); // seq -> ops seen
    const tail = (async () => {
      let last = 0;
      for (;;) {
        const done = !writing; // read once more after the writers finished
        let changes = await d.changesSince(last, 50);
        const full = changes.length === 50;
        // A full page may end inside a commit: keep only whole commits (the rest comes with the next read).
        if (full && changes[0]!.seq !== changes[49]!.seq) changes = changes.filter((c) => c.seq !== changes[49]!.seq);
        for (const c of changes) {
          expect(c.seq, 'the log went backwards').toBeGreaterThanOrEqual(last);
          seen.set(c.seq, (seen.get(c.seq) ?? 0) + 1);
          last = c.seq;
        }
        if (!full && done) return;
      }
    })();
    await Promise.all(writers);
    writing = false;
    await tail;
    expect([...committed.values()].flat().length).toBe(WRITERS * COMMITS);
    const missed = [...committed.keys()].filter((s) => !seen.has(s));
    expect(missed, 'commits the reader never saw').toEqual([]);
    for (const [seq, names] of committed) {
      const ops = names.map((name) => {
        const [, w, i] = /^w(\d+)-(\d+)$/.exec(name)!;
        return commitsOf(Number(w), Number(i)).length;
      });
      expect(seen.get(seq), `ops of ${names.join(', ')}`).toBe(ops.reduce((a, b) => a + b, 0));
    }
    expect(seen.size).toBe(committed.size);
    await Promise.all(servers.map((server) => server.close()));
  });

  it("a transaction that is not the store's, left open, does not hold the log's end back", async () => {
    const d: StorageDriver = stores.make();
    await d.open(suiteSchema);
    await d.commit([itemPut({ id: 'before', group: 'g', status: 'LIVE', time: 't1', tags: [], words: [] })]);
    const other = new pg.Client({ connectionString: pgUrl() });
    await other.connect();
    try {
      // Older than the next commit, running through it: only the store's own writers may hold its readers back.
      await other.query('BEGIN');
      await other.query('SELECT pg_current_xact_id()');
      const { seq } = await d.commit([
        itemPut({ id: 'after', group: 'g', status: 'LIVE', time: 't2', tags: [], words: [] }),
      ]);
      expect((await d.logBounds()).newest).toBe(seq);
      expect((await d.changesSince(seq - 1, 10)).map((c) => c.id)).toEqual(['after']);
    } finally {
      await other.query('ROLLBACK');
      await other.end();
    }
  });

  it("a commit's look at a stream reads a few pages of the log, in any plan, when one stream holds nearly all of it", async () => {
    const d: StorageDriver = stores.make();
    await d.open(suiteSchema);
    const schema = (d as unknown as { schema: string }).schema;
    const BLOG = '01M8Q0S05H18GKSHZTJ6T0XYEA';
    const c = new pg.Client({ connectionString: pgUrl() });
    await c.connect();
    try {
      const s = `"${schema}"`;
      // A log of 200,000 entries, all but two in one blog's streams (a big blog's store, as after an import).
      await c.query(
        `INSERT INTO ${s}.changes (seq, pos, coll, id, type, version, stream, time)
         SELECT n / 100, n % 100, 1, 'p' || n, 'put', 1,
           CASE WHEN n IN (700, 1100) THEN '~records' WHEN n % 16 = 0 THEN $1 || '~unseen' ELSE $1 END, 0
         FROM generate_series(100, 200099) AS n`,
        [BLOG],
      );
      await c.query(`VACUUM ANALYZE ${s}.changes`);
      // The plan a bigger store got (1M posts): generic, and the stream's index costed above the primary key's
      // (its keys are longer); here the planner is told to cost it so.
      await c.query('SET plan_cache_mode = force_generic_plan');
      await c.query('SET enable_indexonlyscan = off');
      await c.query(`PREPARE look(text, bigint) AS SELECT ${movedPast(s, '$1::text', '$2::bigint')}`);
      const plan = (await c.query(`EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) EXECUTE look('~records', 11)`)).rows[0][
        'QUERY PLAN'
      ][0].Plan;
      const pages = (p: { 'Shared Hit Blocks': number; 'Shared Read Blocks': number }) =>
        p['Shared Hit Blocks'] + p['Shared Read Blocks'];
      expect(pages(plan)).toBeLessThan(20);
      expect((await c.query(`EXECUTE look('~records', 11)`)).rows[0]).toEqual({ '?column?': false });
      expect((await c.query(`EXECUTE look('~records', 10)`)).rows[0]).toEqual({ '?column?': true });
      expect((await c.query(`EXECUTE look('${BLOG}', 1990)`)).rows[0]).toEqual({ '?column?': true });
    } finally {
      await c.end();
    }
  });
});
