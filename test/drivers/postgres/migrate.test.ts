/**
 * A store of layout 4 (rows of `docs` and byte keys in `entries`) opened by this build: copied into the native
 * tables of layout 5 in batches, compared, and the old tables dropped; every record reads back as it was, with
 * every index entry; a second app server opening the store during the copy waits for it, then serves.
 */
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { memoryDriver } from '../../../drivers/memory/index.js';
import { POSTGRES_STORAGE_VERSION, postgresDriver } from '../../../drivers/postgres/index.js';
import { decodeKey } from '../../../drivers/shared/byte-keys.js';
import { fromPgText } from '../../../drivers/postgres/text.js';
import { createBlogService } from '../../../src/index.js';
import { compareKeys, type Key, type PutOp, type StorageDriver } from '../../../src/store/driver.js';
import { STORE_SCHEMA } from '../../../src/store/schema.js';
import { makePng } from '../../media/pictures.js';
import { generator } from '../sqlite/bench-data.js';
import { dropOwnSchemas, freshSchema, pgUrl } from './env.js';
import { legacyStore } from './legacy-store.js';

const POSTS = Number(process.env.BLOGCORE_PG_MIGRATE_POSTS ?? 10_000);
const admin = new pg.Pool({ connectionString: pgUrl(), max: 3 });
afterAll(async () => {
  await admin.end();
  await dropOwnSchemas();
});

/** The records a driver holds after its commits: the last put of each, deletes forgotten. */
function recording(d: StorageDriver): Map<string, PutOp> {
  const state = new Map<string, PutOp>();
  const commit = d.commit.bind(d);
  d.commit = async (ops, options) => {
    const result = await commit(ops, options);
    for (const op of ops) {
      const k = `${op.collection}\0${op.id}`;
      if (op.type === 'put') state.set(k, structuredClone(op));
      else state.delete(k);
    }
    return result;
  };
  return state;
}

async function bytesOf(stream: ReadableStream<Uint8Array> | undefined): Promise<Uint8Array> {
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

const until = async (ok: () => boolean, what: string) => {
  for (let i = 0; i < 6000 && !ok(); i++) await new Promise((r) => setTimeout(r, 10));
  if (!ok()) throw new Error(`timed out waiting for ${what}`);
};

describe('postgres: a layout-4 store migrated on open', () => {
  it(`copies ${POSTS} posts with comments, revisions, media and counters, every record and entry intact; a second app server waits, then serves`, async () => {
    // The records, written by the service itself (on the memory driver), then stored as layout 4 had them.
    const mem = memoryDriver();
    const state = recording(mem);
    const source = createBlogService({ driver: mem });
    const owner = await source.users.insert({ body: { displayName: 'Owner' } });
    const blog = await source.blogs.insert({
      body: { name: 'Old', url: 'https://old.example/' },
      ownerId: owner.id!,
    });
    const blogId = blog.id!;
    const pictures = await Promise.all(
      Array.from({ length: 20 }, (_, i) => source.media.upload({ blogId, body: makePng(4 + i, 4, i + 1) })),
    );
    const gen = generator(7, 1);
    const ids: string[] = [];
    for (let k = 0; k < POSTS; k++) {
      const p = gen.post(k);
      const picture = k % 50 === 0 ? `<p><img src="${pictures[(k / 50) % pictures.length]!.url}"></p>` : '';
      const post = await source.posts.insert({
        blogId,
        body: {
          title: k === 1 ? 'Émoji 🙂 title' : p.title,
          content: p.content + picture,
          labels: p.labels,
          published: p.published,
        },
        isDraft: p.draft,
      });
      ids.push(post.id!);
      if (k % 10 === 0 && post.status === 'LIVE')
        await source.comments.insert({ blogId, postId: post.id!, body: { content: `Comment on ${k}` } });
      if (k % 20 === 0) await source.posts.patch({ blogId, postId: post.id!, body: { title: `${p.title} (edited)` } });
    }
    await source.pageViews.record({ blogId, postId: ids[0]! });
    await source.pages.insert({ blogId, body: { title: 'About', content: '<p>about</p>' } });
    const firstPage = await source.posts.list({ blogId, maxResults: 20 });
    const found = await source.posts.search({ blogId, q: gen.query, maxResults: 20 });

    const schema = freshSchema('legacy');
    const legacy = await legacyStore(admin, schema, STORE_SCHEMA);
    const records = [...state.values()];
    for (let i = 0; i < records.length; i += 500) await legacy.write(records.slice(i, i + 500));
    const blobs = new Map<string, Uint8Array>();
    for (const op of records)
      if (op.collection === 'media')
        blobs.set(op.doc.blob as string, await bytesOf(await mem.blobs.read(op.doc.blob as string)));
    for (const [key, bytes] of blobs) await legacy.putBlob(key, bytes);
    expect(blobs.size).toBe(pictures.length);
    await source.close();
    const s = `"${schema}"`;
    // What layout 4 holds, as the old driver read it: each record's version, document and index entries.
    const held = (
      await admin.query(
        `SELECT c.name, d.id, d.version, d.doc, (SELECT array_agg(i.name ORDER BY k) FROM unnest(d.eix) WITH ORDINALITY u(ix, k)
           JOIN ${s}.indexes i ON i.no = u.ix) AS names, d.ekey
         FROM ${s}.docs d JOIN ${s}.collections c ON c.no = d.coll`,
      )
    ).rows as Array<{ name: string; id: string; version: number; doc: string; names: string[] | null; ekey: Buffer[] }>;
    expect(held.length).toBe(records.length);

    // One app server opens it and migrates; a second starts once the copy is under way.
    const lines: string[] = [];
    const a = postgresDriver({ connectionString: pgUrl(), schema, max: 3, log: (l) => lines.push(l) });
    const bLines: string[] = [];
    const b = postgresDriver({ connectionString: pgUrl(), schema, max: 3, log: (l) => bLines.push(l) });
    const t0 = performance.now();
    const aOpen = a.open(STORE_SCHEMA);
    await until(() => lines.length > 0, 'the first batch');
    const layoutWhenB = b
      .open(STORE_SCHEMA)
      .then(async () => (await admin.query(`SELECT max(version) AS v FROM ${s}.migrations`)).rows[0].v);
    await aOpen;
    const ms = performance.now() - t0;
    expect(await layoutWhenB).toBe(POSTGRES_STORAGE_VERSION);
    console.info(`layout 4 → 5: ${held.length} records (${POSTS} posts) in ${(ms / 1000).toFixed(1)} s`);
    expect(lines.some((l) => /copied \d+ of \d+ records/.test(l))).toBe(true);
    expect(lines.some((l) => /compared \d+ of \d+ records/.test(l))).toBe(true);
    // Whichever server ran the last batch says so (the second takes turns with the first).
    expect(
      [...lines, ...bLines].filter((l) => /done: \d+ records copied and compared, the old tables dropped/.test(l)),
    ).toHaveLength(1);
    const tables = (await admin.query(`SELECT tablename FROM pg_tables WHERE schemaname = $1`, [schema])).rows.map(
      (r) => r.tablename,
    );
    expect(tables).not.toContain('docs');
    expect(tables).not.toContain('entries');
    expect(tables).toEqual(
      expect.arrayContaining(['posts', 'posts_label', 'comments', 'revisions', 'media', 'labels']),
    );

    // Every record as it was, and every index entry of it, read through the migrated driver.
    const entries = new Map<string, Key[]>();
    for (const c of STORE_SCHEMA.collections)
      for (const i of c.indexes)
        for (const e of await a.keys({
          collection: c.name,
          index: i.name,
          prefixes: [[]],
          direction: 'asc',
          limit: 1e6,
        }))
          entries.set(`${c.name}\0${i.name}\0${e.id}`, [
            ...(entries.get(`${c.name}\0${i.name}\0${e.id}`) ?? []),
            e.key,
          ]);
    let checked = 0;
    for (const r of held) {
      const id = fromPgText(r.id);
      const got = await a.get(r.name, id);
      expect(got, `${r.name}/${id}`).toEqual({ id, version: r.version, doc: JSON.parse(r.doc) });
      const byIndex = new Map<string, Key[]>();
      for (const [k, name] of (r.names ?? []).entries())
        byIndex.set(name, [...(byIndex.get(name) ?? []), decodeKey(r.ekey[k]!)]);
      for (const i of STORE_SCHEMA.collections.find((c) => c.name === r.name)!.indexes) {
        const want = (byIndex.get(i.name) ?? []).sort(compareKeys);
        const have = (entries.get(`${r.name}\0${i.name}\0${id}`) ?? []).sort(compareKeys);
        expect(have, `${r.name}/${id} in ${i.name}`).toEqual(want);
      }
      checked++;
    }
    expect(checked).toBe(held.length);
    for (const [key, bytes] of blobs) expect(await bytesOf(await a.blobs.read(key))).toEqual(bytes);

    // The second app server serves: the same pages and matches as before, and new writes.
    const served = createBlogService({ driver: b });
    const page = await served.posts.list({ blogId, maxResults: 20 });
    expect(page.items?.map((p) => [p.id, p.title, p.labels])).toEqual(
      firstPage.items?.map((p) => [p.id, p.title, p.labels]),
    );
    expect((await served.posts.search({ blogId, q: gen.query, maxResults: 20 })).items?.map((p) => p.id)).toEqual(
      found.items?.map((p) => p.id),
    );
    const fresh = await served.posts.insert({
      blogId,
      body: { title: 'After the move', content: '<p>new</p>', labels: ['label-00'] },
    });
    expect((await served.posts.getByPath({ blogId, path: new URL(fresh.url!).pathname })).id).toBe(fresh.id);
    await served.close();
    await a.close();
  }, 1_200_000);
});
