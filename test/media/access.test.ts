/**
 * Who may do what with media (docs/design.md §19): AUTHORs and ADMINs upload, list, get and patch; a reader, an
 * outsider and an anonymous caller do none of it, but read the bytes of the (public) blog; an AUTHOR deletes
 * only their own pictures, an ADMIN any.
 */
import { memoryDriver } from '../../drivers/memory/index.js';
import { describe, expect, it } from 'vitest';
import { expectError, world, type Service, type World } from '../service/helpers.js';
import { makePng } from './pictures.js';

type Who = 'host' | 'admin' | 'author' | 'author2' | 'reader' | 'outsider' | 'anon';
const WHO: Who[] = ['host', 'admin', 'author', 'author2', 'reader', 'outsider', 'anon'];
const as = (w: World, who: Who): Service => (who === 'host' ? w.service : w[who]);
const EDITORS: Who[] = ['host', 'admin', 'author', 'author2'];

let seed = 1000;

describe('media access matrix', () => {
  it('upload, list, get and patch: AUTHORs and ADMINs only; reading the bytes: anyone', async () => {
    const w = await world(memoryDriver());
    const blogId = w.blogId;
    const mine = await w.author.media.upload({ blogId, body: makePng(6, 6, seed++) });
    for (const who of WHO) {
      const s = as(w, who);
      const may = EDITORS.includes(who);
      const calls = [
        () => s.media.upload({ blogId, body: makePng(6, 6, seed++) }),
        () => s.media.list({ blogId }),
        () => s.media.get({ blogId, mediaId: mine.id }),
        () => s.media.patch({ blogId, mediaId: mine.id, body: { alt: `by ${who}` } }),
      ];
      for (const [i, call] of calls.entries()) {
        if (may) await expect(call(), `${who} call ${i}`).resolves.toBeTruthy();
        else await expectError(call, 403, 'forbidden');
      }
      const read = await s.media.read({ blogId, mediaId: mine.id });
      expect(read.bytes, who).toBe(mine.bytes);
      await read.body.cancel();
    }
    // Nothing a refused caller tried is there.
    expect((await w.admin.media.list({ blogId, maxResults: 500 })).items).toHaveLength(1 + EDITORS.length);
  });

  it('delete: an AUTHOR their own only, an ADMIN and the host any; nobody else', async () => {
    const w = await world(memoryDriver());
    const blogId = w.blogId;
    const upload = async () => (await w.author.media.upload({ blogId, body: makePng(6, 6, seed++) })).id;
    const results: Record<string, number | 'ok'> = {};
    for (const who of WHO) {
      const id = await upload();
      try {
        await as(w, who).media.delete({ blogId, mediaId: id });
        results[who] = 'ok';
      } catch (e) {
        results[who] = (e as { code: number }).code;
      }
    }
    expect(results).toEqual({
      host: 'ok',
      admin: 'ok',
      author: 'ok',
      author2: 403,
      reader: 403,
      outsider: 403,
      anon: 403,
    });
  });

  it('the bytes of a deleted blog are gone for everyone', async () => {
    const w = await world(memoryDriver());
    const m = await w.author.media.upload({ blogId: w.blogId, body: makePng(6, 6, seed++) });
    await w.service.blogs.delete({ blogId: w.blogId });
    await expectError(w.anon.media.read({ blogId: w.blogId, mediaId: m.id }), 404, 'notFound');
  });
});
