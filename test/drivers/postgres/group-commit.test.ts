/**
 * Commits one app server starts at once go to PostgreSQL as one transaction (drivers/postgres/group-commit.ts):
 * what a caller relies on is that each commit is still its own — answered, refused or written as it would be
 * alone — and that two servers' groups never deadlock on counters they both add to.
 */
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { postgresDriver } from '../../../drivers/postgres/index.js';
import { type AddOp, DriverConflict } from '../../../src/store/driver.js';
import { itemPut, suiteSchema } from '../suite.js';
import { freshSchema, pgUrl, tracked } from './env.js';

const stores = tracked((schema) => postgresDriver({ connectionString: pgUrl(), schema, max: 10 }), 'group');
afterAll(async () => {
  await stores.closeAll();
  await stores.dropAll();
});

const item = (id: string) => itemPut({ id, group: 'g', status: 'LIVE', time: 't', tags: ['a'], words: [id] });

const add = (id: string): AddOp => ({
  type: 'add',
  collection: 'counts',
  id,
  add: { n: 1 },
  keys: { byGroup: [['g', id]], held: [['g', id]] },
  create: { id, group: 'g', n: 0, m: 0 },
});

describe('postgres: commits started at once', () => {
  it('go in one transaction: one seq, their ops one after another in the log, each answered', async () => {
    const d = stores.make();
    await d.open(suiteSchema);
    await d.get('items', 'none'); // the driver learns its pool pipelines
    const results = await Promise.all(['a', 'b', 'c', 'd', 'e'].map((id) => d.commit([item(id), item(`${id}2`)])));
    expect(new Set(results.map((r) => r.seq)).size).toBe(1);
    const log = await d.changesSince(0);
    expect(log.map((c) => [c.seq, c.id])).toEqual(
      ['a', 'a2', 'b', 'b2', 'c', 'c2', 'd', 'd2', 'e', 'e2'].map((id) => [results[0]!.seq, id]),
    );
    expect((await d.getMany('items', ['a2', 'e2'])).map((x) => x?.version)).toEqual([1, 1]);
  });

  it('a refused commit among them leaves the others written, and is refused as it would be alone', async () => {
    const d = stores.make();
    await d.open(suiteSchema);
    await d.commit([item('taken')]);
    const results = await Promise.allSettled([
      d.commit([item('p1')]),
      d.commit([item('taken')]), // expects no record there: refused
      d.commit([item('p2')]),
      d.commit([item('p3')]),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'fulfilled']);
    const refused = (results[1] as PromiseRejectedResult).reason;
    expect(refused).toBeInstanceOf(DriverConflict);
    expect(refused).toMatchObject({ kind: 'version', collection: 'items', id: 'taken' });
    expect((await d.getMany('items', ['p1', 'p2', 'p3', 'taken'])).map((x) => x?.version)).toEqual([1, 1, 1, 1]);
    expect((await d.changesSince(0)).map((c) => c.id).sort()).toEqual(['p1', 'p2', 'p3', 'taken']);
  });

  it("two servers' groups adding to the same counters in crossing orders never wait on each other in a circle", async () => {
    // A deadlock would hold both groups for the server's deadlock_timeout (1 s by default) before one is
    // refused and retried; the test's database makes that wait longer than the test may take.
    const admin = new pg.Client({ connectionString: pgUrl() });
    await admin.connect();
    const db = `group_${process.pid}_${Date.now().toString(36)}`;
    await admin.query(`CREATE DATABASE ${db}`);
    await admin.query(`ALTER DATABASE ${db} SET deadlock_timeout = '1h'`);
    const url = new URL(pgUrl());
    url.pathname = `/${db}`;
    const schema = freshSchema('group');
    const [a, b] = [0, 1].map(() => postgresDriver({ connectionString: url.href, schema, max: 4 }));
    try {
      for (const d of [a!, b!]) {
        await d.open(suiteSchema);
        await d.get('items', 'none');
      }
      const counters = ['c1', 'c2', 'c3', 'c4'];
      for (let turn = 0; turn < 40; turn++) {
        // Each server starts one commit per counter, the two in opposite orders.
        await Promise.all([
          ...counters.map((id) => a!.commit([add(id)])),
          ...[...counters].reverse().map((id) => b!.commit([add(id)])),
        ]);
      }
      for (const id of counters) expect((await a!.get('counts', id))?.doc).toMatchObject({ n: 80 });
    } finally {
      await Promise.all([a!.close(), b!.close()]);
      await admin.query(`DROP DATABASE ${db} WITH (FORCE)`);
      await admin.end();
    }
  }, 30_000);
});
