/**
 * The change log never skips: concurrent commits finish out of the order they started in, and a reader
 * tailing `changesSince(last seen seq)` meanwhile must still see every commit, exactly once. (Commits one app
 * server starts at once share a transaction and its seq, drivers/postgres/group-commit.ts: the writers run on
 * four drivers, so transactions still overlap.)
 */
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { postgresDriver } from '../../../drivers/postgres/index.js';
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
});
