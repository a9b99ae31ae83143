/**
 * The events other app servers read are a transient collection (src/store/schema.ts): PostgreSQL keeps them in a
 * table partitioned by time slot and truncates a slot whole once its records are old enough, instead of deleting
 * each instance's oldest in every write (whose deletes reached pages older than the last checkpoint: full-page
 * images in the WAL, docs/benchmarks.md).
 */
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { postgresDriver } from '../../../drivers/postgres/index.js';
import { createBlogService } from '../../../src/index.js';
import { DriverConflict, type StoreSchema } from '../../../src/store/driver.js';
import { dropOwnSchemas, freshSchema, pgUrl } from './env.js';

const admin = new pg.Pool({ connectionString: pgUrl(), max: 2 });
afterAll(async () => {
  await admin.end();
  await dropOwnSchemas();
});

const open = (schema: string) =>
  createBlogService({ driver: postgresDriver({ connectionString: pgUrl(), schema, max: 4 }) });

async function blogIn(service: ReturnType<typeof open>): Promise<string> {
  const owner = await service.users.insert({ body: { displayName: 'Owner' } });
  return (await service.blogs.insert({ body: { name: 'B', url: 'https://transient.example/' }, ownerId: owner.id! }))
    .id!;
}

const rows = async (schema: string) =>
  (await admin.query(`SELECT slot FROM "${schema}".events`)).rows.map((r) => r.slot as number);

describe('postgres: events kept in time slots, dropped whole', () => {
  it('writes delete no event; a slot is truncated once its slab is two behind, by the store clock', async () => {
    const schema = freshSchema('transient');
    const service = open(schema);
    const blogId = await blogIn(service);
    const kind = await admin.query(
      `SELECT c.relkind FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relname = 'events'`,
      [schema],
    );
    expect(kind.rows[0].relkind).toBe('p');
    const before = (await rows(schema)).length;
    // More than an instance kept when it deleted its oldest event in each write (1,000).
    for (let i = 0; i < 1_010; i += 10)
      await Promise.all(
        Array.from({ length: 10 }, (_, k) => service.posts.insert({ blogId, body: { title: `Post ${i + k}` } })),
      );
    const slots = await rows(schema);
    expect(slots.length).toBe(before + 1_010);
    const deletes = await admin.query(`SELECT count(*)::int AS n FROM "${schema}".changes WHERE type = 'delete'`);
    expect(deletes.rows[0].n).toBe(0);

    // Two slabs on, the slot written now is the one truncated; once per slab.
    const drop = async (slabs: number) =>
      (
        await admin.query(
          `SELECT "${schema}".drop_transient('events', 60000, 4, statement_timestamp() + make_interval(secs => 60 * $1)) AS r`,
          [slabs],
        )
      ).rows[0].r as number;
    const nowSlot = (
      await admin.query(
        `SELECT (floor(extract(epoch FROM statement_timestamp()) * 1000 / 60000)::bigint % 4)::int AS s`,
      )
    ).rows[0].s as number;
    expect(await drop(1)).toBe(1); // slot now + 3: an older slab's, if any
    expect((await rows(schema)).filter((s) => s === nowSlot)).toHaveLength(slots.filter((s) => s === nowSlot).length);
    expect(await drop(2)).toBe(1);
    expect(await drop(2)).toBe(0);
    expect((await rows(schema)).filter((s) => s === nowSlot)).toEqual([]);
    await service.close();
  }, 60_000);

  it('a store whose events table is a plain one gets the slotted table on open, and shares events through it', async () => {
    const schema = freshSchema('transient-up');
    const old = open(schema);
    const blogId = await blogIn(old);
    await old.posts.insert({ blogId, body: { title: 'Before' } });
    await old.close();
    // The table as the layout before made it: id the primary key, no slots.
    const index = (
      await admin.query(
        `SELECT i.pg FROM "${schema}".indexes i JOIN "${schema}".collections c ON c.no = i.coll WHERE c.name = 'events'`,
      )
    ).rows[0].pg as string;
    await admin.query(`DROP TABLE "${schema}".events CASCADE;
      CREATE TABLE "${schema}".events (id text COLLATE "C" PRIMARY KEY, version int NOT NULL, doc json NOT NULL, time text COLLATE "C" NOT NULL);
      CREATE INDEX "${index}" ON "${schema}".events (time, id)`);
    const relkind = async () =>
      (
        await admin.query(
          `SELECT c.relkind FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relname = 'events'`,
          [schema],
        )
      ).rows[0].relkind;
    expect(await relkind()).toBe('r');

    const [a, b] = [open(schema), open(schema)];
    await Promise.all([a.ready(), b.ready()]);
    expect(await relkind()).toBe('p');
    const heard: string[] = [];
    b.on('post.inserted', (e) => void heard.push((e.resource as { title: string }).title));
    await a.posts.insert({ blogId, body: { title: 'After' } });
    for (let i = 0; i < 100 && heard.length === 0; i++) await new Promise((r) => setTimeout(r, 50));
    expect(heard).toEqual(['After']);
    expect((await a.posts.list({ blogId })).items?.map((p) => p.title)).toEqual(['After', 'Before']);
    await Promise.all([a.close(), b.close()]);
  }, 60_000);

  it('refuses a put of a transient record already there as a version conflict of that op, and writes nothing', async () => {
    // (A slab of ~30 years: both commits land in one slot, where the primary key holds.)
    const schema: StoreSchema = {
      version: 1,
      collections: [
        { name: 'notes', indexes: [{ name: 'byTime', fields: ['time', 'id'], entries: 'one' }] },
        {
          name: 'ev',
          indexes: [{ name: 'time', fields: ['time', 'id'], entries: 'one' }],
          transient: { keepMs: 1e12 },
        },
      ],
    };
    const d = postgresDriver({ connectionString: pgUrl(), schema: freshSchema('transient-dup'), max: 2 });
    await d.open(schema);
    const put = (collection: string, id: string) =>
      ({
        type: 'put',
        collection,
        id,
        expect: 0,
        doc: { id, time: 't' },
        keys: { [collection === 'ev' ? 'time' : 'byTime']: [['t', id]] },
      }) as const;
    await d.commit([put('ev', 'e1')], {});
    let caught: unknown;
    try {
      await d.commit([put('notes', 'n1'), put('ev', 'e2'), put('ev', 'e1')], {});
    } catch (e) {
      caught = e;
    }
    expect(DriverConflict.is(caught) && [caught.kind, caught.collection, caught.id]).toEqual(['version', 'ev', 'e1']);
    expect(await d.get('notes', 'n1')).toBeUndefined();
    expect(await d.get('ev', 'e2')).toBeUndefined();
    await d.close();
  });
});
