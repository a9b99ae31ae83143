/**
 * `cleanMedia` / `blogcore media clean` (docs/design.md §23): pictures stored with their metadata before the rule
 * (here by a service with `keepImageMetadata: true`, on one SQLite file) are stored again without it: new ids,
 * every post and page that used one rewritten to the new url, the old urls (original and variants) answering 301
 * to the new ones, the old picture gone; a page of pictures per call from a keyset token; a second run changes
 * nothing. The command does the same over the whole blog and reports.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { sqliteDriver } from '../../drivers/sqlite/index.js';
import { createBlogService } from '../../src/index.js';
import { createHttpHandler } from '../../src/http/index.js';
import { cleanMedia } from '../../src/io/index.js';
import { requireBuild } from '../http/spawn.js';
import { sha256Hex } from './pictures.js';
import { BASE, latin1, SECRETS, storedBefore as before } from './stored-before.js';

requireBuild();
const dir = mkdtempSync(join(tmpdir(), 'blogcore-media-clean-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('stores tagged pictures again without their metadata; content follows; old urls answer 301; again changes nothing', async () => {
  const file = join(dir, 'one.db');
  const { blogId, a, b, c, posts, page } = await before(file);
  expect(latin1(new Uint8Array(await new Response((await fresh(file)).body).arrayBuffer()))).toContain('Secretowner');
  const service = createBlogService({ driver: sqliteDriver({ filename: file }), apiBaseUrl: BASE });
  // One picture a call, from the token each call gives.
  const reports = [];
  let pageToken: string | undefined;
  do {
    const r = await cleanMedia(service, { blogId, maxResults: 1, ...(pageToken ? { pageToken } : {}) });
    reports.push(r);
    pageToken = r.nextPageToken;
  } while (pageToken);
  // Pictures it stored cleaned are passed by when the walk meets them again.
  expect(reports.length).toBeGreaterThanOrEqual(3);
  const cleaned = reports.flatMap((r) => r.cleaned);
  expect(cleaned.map((x) => x.from).sort()).toEqual([a.id, b.id].sort());
  expect(reports.reduce((n, r) => n + r.unchanged, 0)).toBe(1);
  const to = new Map(cleaned.map((x) => [x.from, x.to]));
  expect(cleaned.find((x) => x.from === a.id)!.rewritten).toBe(3);
  expect(cleaned.find((x) => x.from === b.id)!.rewritten).toBe(1);

  // The stored pictures: new ids, the SHA-256 of bytes that carry none of the secrets; the old ones are gone.
  const items = (await service.media.list({ blogId })).items;
  expect(items.map((m) => m.id).sort()).toEqual([to.get(a.id)!, to.get(b.id)!, c.id].sort());
  for (const m of items) {
    const bytes = new Uint8Array(
      await new Response((await service.media.read({ blogId, mediaId: m.id })).body).arrayBuffer(),
    );
    expect(await sha256Hex(bytes)).toBe(m.id);
    for (const s of SECRETS) expect(latin1(bytes)).not.toContain(s);
  }
  expect(items.find((m) => m.id === to.get(a.id))).toMatchObject({ filename: 'home.jpg', width: 1200, height: 900 });
  // Every post and page names the new urls (src and srcset), none the old; their uses moved with them.
  const newA = `/media/${blogId}/${to.get(a.id)}/`;
  for (const p of posts) {
    const now = await service.posts.get({ blogId, postId: p.id });
    expect(now.content).toContain(`${BASE}${newA}home.jpg`);
    expect(now.content).toContain(`${BASE}${newA}w640/home.webp 640w`);
    expect(now.content).not.toContain(a.id);
    expect((await service.media.list({ blogId, postId: p.id })).items.map((m) => m.id)).toEqual([to.get(a.id), c.id]);
  }
  expect((await service.pages.get({ blogId, pageId: page.id })).content).toContain(to.get(b.id)!);
  await expect(service.media.delete({ blogId, mediaId: to.get(a.id)! })).rejects.toMatchObject({ code: 409 });

  // The old urls (the original under any name, and its variants) answer 301 to the same address with the new id.
  const http = createHttpHandler(service);
  const get = (path: string) => http(new Request(`${BASE}${path}`, { redirect: 'manual' }));
  for (const [path, location] of [
    [`/media/${blogId}/${a.id}/home.jpg`, `${newA}home.jpg`],
    [`/media/${blogId}/${a.id}/w640/home.webp`, `${newA}w640/home.webp`],
    [`/media/${blogId}/${b.id}/any-name.jpg`, `/media/${blogId}/${to.get(b.id)}/any-name.jpg`],
  ]) {
    const r = await get(path!);
    expect([r.status, r.headers.get('location')], path).toEqual([301, location]);
    expect((await get(location!)).status, location).toBe(200);
  }
  expect((await get(`/media/${blogId}/${'0'.repeat(64)}/x.jpg`)).status).toBe(404);

  // A second run finds everything clean (the picture stored cleaned is not read again).
  const again = await cleanMedia(service, { blogId, maxResults: 100 });
  expect([again.cleaned, again.unchanged, again.failed, again.nextPageToken]).toEqual([[], 1, [], undefined]);
  await expect(cleanMedia(service, { blogId, pageToken: 'not ours' })).rejects.toMatchObject({ code: 400 });
  await expect(cleanMedia(service.as({ userId: 'ada' }), { blogId })).rejects.toMatchObject({ code: 403 });
  await service.close();
}, 120_000);

/** The first stored picture's bytes, as the old service kept them. */
async function fresh(file: string) {
  const s = createBlogService({ driver: sqliteDriver({ filename: file }), apiBaseUrl: BASE });
  const blogId = (await s.blogs.listByUser({ userId: 'ada' })).items![0]!.id;
  const m = (await s.media.list({ blogId })).items.find((x) => x.filename === 'home.jpg')!;
  const read = await s.media.read({ blogId, mediaId: m.id });
  const bytes = new Uint8Array(await new Response(read.body).arrayBuffer());
  await s.close();
  return new Response(bytes);
}

it('blogcore media clean does the whole blog and reports', async () => {
  const file = join(dir, 'two.db');
  const { a, b, blogId } = await before(file);
  const run = (...args: string[]) => spawnSync(process.execPath, ['dist/cli.js', ...args], { encoding: 'utf8' });
  const first = run('media', 'clean', '--db', file, '--blog', blogId);
  expect(first.status, first.stderr).toBe(0);
  expect(first.stdout).toContain(`${a.id} → `);
  expect(first.stdout).toContain(`${b.id} → `);
  expect(first.stdout).toMatch(/2 cleaned, 1 already clean, 0 left as they were\n$/);
  const second = run('media', 'clean', '--db', file, '--blog', blogId, '--json');
  expect(second.status, second.stderr).toBe(0);
  expect(JSON.parse(second.stdout)).toMatchObject({ cleaned: [], unchanged: 1, failed: [] });
}, 120_000);
