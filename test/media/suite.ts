/**
 * The service media suite (docs/design.md §19), run unchanged on every driver (memory, SQLite, PostgreSQL, IndexedDB on
 * fake-indexeddb and in Chromium): uploads of every type and body kind, ids from the bytes, one copy per
 * picture, lists, uses by posts and pages, patch, delete, ranged reads, the change feed, and refusals that
 * leave nothing behind. No Node built-ins here: it runs in the browser too.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { BlobStore } from '../../src/store/driver.js';
import { createBlogService, type BlogService } from '../../src/index.js';
import { API, BLOG_URL, expectError, makeClock, USERS, type Driver } from '../service/helpers.js';
import { bytesOf } from '../blobs/suite.js';
import { concatBytes, ihdr, makePng, PICTURES, PNG_SIGNATURE, pngChunk, sha256Hex } from './pictures.js';

/** A blob store that tells which keys hold bytes now: a refused upload must leave none. */
export function trackedBlobs(inner: BlobStore): BlobStore & { held: Set<string> } {
  const held = new Set<string>();
  return {
    held,
    async put(key, source) {
      const n = await inner.put(key, source);
      held.add(key);
      return n;
    },
    read: (key, range) => inner.read(key, range),
    async delete(key) {
      await inner.delete(key);
      held.delete(key);
    },
    sweep: (before, limit) => inner.sweep(before, limit),
  };
}

const TYPES = [
  ['jpg', 'image/jpeg'],
  ['png', 'image/png'],
  ['gif', 'image/gif'],
  ['webp', 'image/webp'],
  ['avif', 'image/avif'],
] as const;

async function* pieces(bytes: Uint8Array, size = 97): AsyncGenerator<Uint8Array> {
  for (let at = 0; at < bytes.byteLength; at += size) yield bytes.slice(at, at + size);
}

export function runMediaSuite(name: string, makeDriver: () => Driver | Promise<Driver>): void {
  describe(`media: ${name}`, () => {
    let service: BlogService;
    let blobs: ReturnType<typeof trackedBlobs>;
    let blogId: string;
    let admin: BlogService;
    let author: BlogService;
    const clock = makeClock();

    beforeEach(async () => {
      const driver = await makeDriver();
      blobs = trackedBlobs(driver.blobs);
      service = createBlogService({
        driver,
        blobs,
        apiBaseUrl: API,
        now: () => new Date(clock.ms),
        maxMediaBytes: 300_000,
      });
      for (const u of [USERS.admin, USERS.author])
        await service.users.insert({ body: { id: u.id, displayName: u.displayName } });
      blogId = (await service.blogs.insert({ body: { name: 'Pictures', url: BLOG_URL }, ownerId: USERS.admin.id })).id;
      await service.members.set({ blogId, userId: USERS.author.id, role: 'AUTHOR' });
      admin = service.as({ userId: USERS.admin.id });
      author = service.as({ userId: USERS.author.id });
    });
    afterEach(async () => {
      await service.close();
    });

    it('takes JPEG, PNG, GIF, WebP and AVIF: the type and size from the bytes, the id their SHA-256', async () => {
      for (const [ext, type] of TYPES) {
        const bytes = PICTURES[ext];
        clock.advance(1000);
        const m = await author.media.upload({ blogId, body: bytes, filename: `holiday.${ext}`, alt: `a ${ext}` });
        const sha = await sha256Hex(bytes);
        expect(m).toEqual({
          kind: 'blogcore#media',
          id: sha,
          blog: { id: blogId },
          url: `${API}/media/${blogId}/${sha}/holiday.${ext}`,
          contentType: type,
          bytes: bytes.byteLength,
          width: 40,
          height: 30,
          sha256: sha,
          filename: `holiday.${ext}`,
          alt: `a ${ext}`,
          author: { id: USERS.author.id, displayName: USERS.author.displayName },
          published: clock.iso(),
          updated: clock.iso(),
          etag: expect.stringMatching(/^".+"$/),
        });
        expect(await admin.media.get({ blogId, mediaId: sha })).toEqual(m);
        const read = await service.as(null).media.read({ blogId, mediaId: sha });
        expect(read).toMatchObject({ contentType: type, bytes: bytes.byteLength, etag: `"${sha}"` });
        expect(await bytesOf(read.body)).toEqual(bytes);
      }
      expect(blobs.held.size).toBe(5);
    });

    it('takes a Blob, a Uint8Array, a ReadableStream and an AsyncIterable, and keeps one copy of a picture', async () => {
      const bytes = makePng(50, 40, 1);
      const bodies = [
        new Blob([bytes as Uint8Array<ArrayBuffer>]),
        bytes,
        new Blob([bytes as Uint8Array<ArrayBuffer>]).stream(),
        pieces(bytes),
      ];
      const ids = [];
      for (const [i, body] of bodies.entries())
        ids.push((await author.media.upload({ blogId, body, filename: `copy${i}.png` })).id);
      expect(new Set(ids).size).toBe(1);
      const list = await author.media.list({ blogId });
      expect(list.items.map((m) => [m.id, m.filename])).toEqual([[ids[0], 'copy0.png']]);
      expect(blobs.held.size).toBe(1);
    });

    it('names files safely and matches their extension to the type', async () => {
      const cases: Array<[string | undefined, string]> = [
        [undefined, 'image.png'],
        ['../../etc/passwd', 'passwd.png'],
        ['C:\\Users\\me\\photo.jpeg', 'photo.png'],
        ['  .hidden.PNG ', 'hidden.PNG'],
        ['notes.txt', 'notes.txt.png'],
        ['ünïcödé 写真.png', 'ünïcödé 写真.png'],
        // A right-to-left override shows `holiday\u202Egnp.exe` as `holidayexe.png`; zero-width characters hide.
        ['holiday\u202egnp.exe.png', 'holidaygnp.exe.png'],
        ['ha\u200brbo\u2066ur\ufeff.png', 'harbour.png'],
      ];
      for (const [i, [given, want]] of cases.entries()) {
        const m = await author.media.upload({
          blogId,
          body: makePng(10, 10, 100 + i),
          ...(given !== undefined ? { filename: given } : {}),
        });
        expect(m.filename).toBe(want);
        expect(m.url).toBe(`${API}/media/${blogId}/${m.id}/${encodeURIComponent(want)}`);
      }
    });

    it('lists newest first, a page at a time', async () => {
      const ids = [];
      for (let i = 0; i < 5; i++) {
        clock.advance(1000);
        ids.push((await author.media.upload({ blogId, body: makePng(8, 8, 200 + i) })).id);
      }
      const seen = [];
      let pageToken: string | undefined;
      do {
        const page = await admin.media.list({ blogId, maxResults: 2, ...(pageToken ? { pageToken } : {}) });
        expect(page.kind).toBe('blogcore#mediaList');
        expect(page.items.length).toBeLessThanOrEqual(2);
        seen.push(...page.items.map((m) => m.id));
        pageToken = page.nextPageToken;
      } while (pageToken);
      expect(seen).toEqual([...ids].reverse());
    });

    it('knows which media a post or page uses (src, href, srcset), refuses to delete them without force, and fills images', async () => {
      const m = [];
      for (let i = 0; i < 3; i++)
        m.push(await author.media.upload({ blogId, body: makePng(12, 12, 300 + i), filename: `p${i}.png` }));
      const relative = m[1]!.url.slice(API.length);
      const content = `<p><a href="${m[2]!.url}"><img src="${m[0]!.url}" srcset="${relative} 1x, ${m[0]!.url} 2x" alt=""></a></p>`;
      const post = await author.posts.insert({ blogId, body: { title: 'With pictures', content } });
      const uses = await author.media.list({ blogId, postId: post.id! });
      expect(uses.items.map((x) => x.id)).toEqual([m[2]!.id, m[0]!.id, m[1]!.id]);
      const firstTwo = await author.media.list({ blogId, postId: post.id!, maxResults: 2 });
      expect(firstTwo.items).toHaveLength(2);
      expect(
        (
          await author.media.list({ blogId, postId: post.id!, maxResults: 2, pageToken: firstTwo.nextPageToken })
        ).items.map((x) => x.id),
      ).toEqual([m[1]!.id]);
      const got = await service.posts.get({ blogId, postId: post.id!, fetchImages: true });
      expect(got.images).toEqual([{ url: m[0]!.url }]);

      await expectError(admin.media.delete({ blogId, mediaId: m[0]!.id }), 409, 'conflict');
      // A page's use counts too.
      await admin.pages.insert({ blogId, body: { title: 'About', content: `<img src="${m[1]!.url}">` } });
      await author.posts.patch({ blogId, postId: post.id!, body: { content: '<p>No pictures now</p>' } });
      await admin.media.delete({ blogId, mediaId: m[0]!.id });
      await expectError(admin.media.delete({ blogId, mediaId: m[1]!.id }), 409, 'conflict');
      await admin.media.delete({ blogId, mediaId: m[1]!.id, force: true });
      expect((await author.media.list({ blogId })).items.map((x) => x.id)).toEqual([m[2]!.id]);
      expect(blobs.held.size).toBe(1);
      await expectError(service.media.read({ blogId, mediaId: m[1]!.id }), 404, 'notFound');
    });

    it('patches alt and file name (the url follows, the etag changes), with If-Match', async () => {
      const m = await author.media.upload({ blogId, body: PICTURES.jpg, filename: 'a.jpg' });
      await expectError(
        author.media.patch({ blogId, mediaId: m.id, ifMatch: '"stale"', body: { alt: 'x' } }),
        412,
        'conditionNotMet',
      );
      clock.advance(5000);
      const p = await author.media.patch({
        blogId,
        mediaId: m.id,
        ifMatch: m.etag,
        body: { alt: 'A red-blue gradient', filename: 'gradient.png' },
      });
      expect(p).toMatchObject({
        alt: 'A red-blue gradient',
        filename: 'gradient.jpg',
        updated: clock.iso(),
        published: m.published,
      });
      expect(p.url).toBe(`${API}/media/${blogId}/${m.id}/gradient.jpg`);
      expect(p.etag).not.toBe(m.etag);
    });

    it('emits media.inserted once per picture, media.updated and media.deleted, and nothing for a refused write', async () => {
      const heard: Array<{ type: string; blogId?: string; id: string; actorId?: string; resource?: unknown }> = [];
      const off = service.on('*', (e) => void heard.push(e));
      const m = await author.media.upload({ blogId, body: PICTURES.png, filename: 'a.png', alt: 'first' });
      await author.media.upload({ blogId, body: PICTURES.png, filename: 'again.png' });
      await expectError(
        author.media.upload({ blogId, body: Uint8Array.of(1, 2, 3), filename: 'x.png' }),
        400,
        'invalid',
      );
      const p = await author.media.patch({ blogId, mediaId: m.id, ifMatch: m.etag, body: { alt: 'second' } });
      await author.media.patch({ blogId, mediaId: m.id, body: { alt: 'second' } });
      await expectError(
        author.media.patch({ blogId, mediaId: m.id, ifMatch: m.etag, body: { alt: 'third' } }),
        412,
        'conditionNotMet',
      );
      await service.media.delete({ blogId, mediaId: m.id });
      off();
      expect(heard.map((e) => [e.type, e.blogId, e.id, e.actorId])).toEqual([
        ['media.inserted', blogId, m.id, USERS.author.id],
        ['media.updated', blogId, m.id, USERS.author.id],
        ['media.deleted', blogId, m.id, undefined],
      ]);
      expect(heard[0]!.resource).toEqual(m);
      expect(heard[1]!.resource).toEqual(p);
      expect(heard[2]!.resource).toBeUndefined();
    });

    it('reads ranges of the bytes, and refuses one past the end', async () => {
      const bytes = makePng(100, 100, 7);
      const m = await author.media.upload({ blogId, body: bytes });
      const r = await service.as(null).media.read({ blogId, mediaId: m.id, range: { offset: 1000, length: 500 } });
      expect(r.range).toEqual({ offset: 1000, length: 500 });
      expect(await bytesOf(r.body)).toEqual(bytes.subarray(1000, 1500));
      const tail = await service.media.read({ blogId, mediaId: m.id, range: { offset: bytes.byteLength - 10 } });
      expect(tail.range).toEqual({ offset: bytes.byteLength - 10, length: 10 });
      expect(await bytesOf(tail.body)).toEqual(bytes.subarray(bytes.byteLength - 10));
      await expectError(
        service.media.read({ blogId, mediaId: m.id, range: { offset: bytes.byteLength } }),
        416,
        'requestedRangeNotSatisfiable',
      );
      await expectError(service.media.read({ blogId, mediaId: '0'.repeat(64) }), 404, 'notFound');
      await expectError(service.media.read({ blogId, mediaId: 'not-a-hash' }), 400, 'invalid');
    });

    it('refuses what is not a whole picture we take, and keeps nothing of it', async () => {
      const svg = new TextEncoder().encode('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>');
      const refused: Array<[string, Parameters<BlogService['media']['upload']>[0], number]> = [
        ['svg', { blogId, body: svg }, 400],
        ['empty', { blogId, body: new Uint8Array(0) }, 400],
        ['declared type disagrees', { blogId, body: PICTURES.png, contentType: 'image/jpeg' }, 400],
        ['truncated', { blogId, body: PICTURES.jpg.subarray(0, PICTURES.jpg.byteLength - 40) }, 400],
        [
          'too many pixels',
          { blogId, body: concatBytes(PNG_SIGNATURE, ihdr(60_000, 60_000), pngChunk('IEND', new Uint8Array(0))) },
          400,
        ],
        ['over maxMediaBytes', { blogId, body: pieces(makePng(400, 400, 9), 65_536) }, 413],
      ];
      for (const [what, params, code] of refused) {
        const e = await expectError(author.media.upload(params), code);
        expect(e.message, what).toBeTruthy();
      }
      // Declared types that agree are fine (case, parameters and image/jpg included).
      await author.media.upload({ blogId, body: PICTURES.jpg, contentType: 'Image/JPG; q=1' });
      expect((await admin.media.list({ blogId })).items).toHaveLength(1);
      expect(blobs.held.size).toBe(1);
    });

    it('reads no further than the limit: an oversized stream is cancelled at the crossing piece', async () => {
      let pulled = 0;
      let cancelled = false;
      const big = makePng(400, 400, 11);
      const body = new ReadableStream<Uint8Array>({
        pull(c) {
          if (pulled * 10_000 >= big.byteLength) return c.close();
          c.enqueue(big.slice(pulled * 10_000, ++pulled * 10_000));
        },
        cancel() {
          cancelled = true;
        },
      });
      await expectError(author.media.upload({ blogId, body }), 413, 'requestTooLarge');
      expect(cancelled).toBe(true);
      // The crossing piece and the one the stream had queued ahead: nothing more.
      expect(pulled * 10_000).toBeLessThanOrEqual(300_000 + 20_000);
      expect(blobs.held.size).toBe(0);
    });

    it('sends media through the change feed to AUTHORs and ADMINs, tombstones after delete, nothing to readers', async () => {
      const m = await author.media.upload({ blogId, body: PICTURES.gif });
      const first = await admin.changes.list({ blogId });
      let all = first;
      const items = [...first.items];
      while (all.nextPageToken) {
        all = await admin.changes.list({ blogId, pageToken: all.nextPageToken });
        items.push(...all.items);
      }
      expect(items.filter((i) => i.kind === 'blogcore#media')).toEqual([
        { kind: 'blogcore#media', id: m.id, resource: await admin.media.get({ blogId, mediaId: m.id }) },
      ]);
      const reader = service.as(null);
      const readerItems = (await reader.changes.list({ blogId })).items;
      expect(readerItems.filter((i) => i.kind === 'blogcore#media')).toEqual([]);
      await admin.media.delete({ blogId, mediaId: m.id });
      const after = await admin.changes.list({ blogId, since: all.checkpoint });
      expect(after.items).toEqual([{ kind: 'blogcore#media', id: m.id, deleted: true }]);
    });

    it("removes a deleted blog's pictures with it", async () => {
      await author.media.upload({ blogId, body: PICTURES.webp });
      await author.media.upload({ blogId, body: PICTURES.avif });
      expect(blobs.held.size).toBe(2);
      await service.blogs.delete({ blogId });
      expect(blobs.held.size).toBe(0);
    });
  });
}
