/**
 * Lists, paging and search (docs/design.md §8): stable keyset pages under inserts and deletes, prevPageToken,
 * tokens bound to their query, ordering, date bounds, labels, status lists, and the search matcher.
 */
import { describe, expect, it } from 'vitest';
import {
  MINUTE,
  T0,
  expectError,
  ids,
  makeComment,
  makePage,
  makePost,
  world,
  type Wire,
  type World,
} from './helpers.js';
import { DRIVERS } from '../support/drivers.js';

/** The runtime also takes enum values in any case and comma-joined lists (as the wire sends them); the types take the canonical forms only. */
const loose = (v: string | readonly string[]): never => v as never;

const iso = (ms: number) => new Date(ms).toISOString();
/** Item n is published (and last updated) at T0 + n minutes. */
const at = (n: number) => T0 + n * MINUTE;

interface Fixture {
  w: World;
  /** Post ids by item number. */
  item: string[];
}

/** 25 LIVE posts, item n published at T0+n min; labels: even items 'even', multiples of 5 'five'. */

describe.each(DRIVERS)('%s', (_driver, makeDriver) => {
  async function twentyFive(): Promise<Fixture> {
    const w = await world(makeDriver());
    const item: string[] = [];
    // Insert in a scrambled order so that id order and time order differ.
    const order = Array.from({ length: 25 }, (_, i) => (i * 7) % 25);
    for (const n of order) {
      w.clock.set(at(n));
      const labels = [...(n % 2 === 0 ? ['even'] : []), ...(n % 5 === 0 ? ['five'] : [])];
      const p = (await w.author.posts.insert({
        blogId: w.blogId,
        body: { title: `Item ${String(n).padStart(2, '0')}`, content: `<p>number ${n}</p>`, labels },
      })) as Wire;
      item[n] = p.id;
    }
    w.clock.set(at(100));
    return { w, item };
  }

  const range = (from: number, to: number) => {
    const out: number[] = [];
    if (from <= to) for (let i = from; i <= to; i++) out.push(i);
    else for (let i = from; i >= to; i--) out.push(i);
    return out;
  };

  describe('keyset paging of posts.list', () => {
    it('walks 3+ pages with inserts and deletes between pages: no remaining item skipped or repeated', async () => {
      const { w, item } = await twentyFive();
      const b = w.blogId;
      const seen: string[] = [];
      const inserted: string[] = [];

      const p1 = (await w.anon.posts.list({ blogId: b, maxResults: 10 })) as Wire;
      expect(ids(p1)).toEqual(range(24, 15).map((n) => item[n]));
      expect(p1.nextPageToken).toBeTruthy();
      expect(p1.prevPageToken ?? undefined).toBeUndefined();
      seen.push(...ids(p1));

      // Between pages: a new newest post, a back-dated one in the unseen range, a seen one and an unseen one deleted.
      inserted.push(((await w.author.posts.insert({ blogId: b, body: { title: 'Newest', content: 'x' } })) as Wire).id);
      inserted.push(
        (
          (await w.author.posts.insert({
            blogId: b,
            body: { title: 'Middle', content: 'x', published: iso(at(9) + 30_000) },
          })) as Wire
        ).id,
      );
      await w.author.posts.delete({ blogId: b, postId: item[20]! });
      await w.author.posts.delete({ blogId: b, postId: item[12]! });
      const deleted = new Set([item[12]]);

      const p2 = (await w.anon.posts.list({ blogId: b, maxResults: 10, pageToken: p1.nextPageToken })) as Wire;
      expect(p2.items.length).toBeLessThanOrEqual(10);
      expect(p2.prevPageToken).toBeTruthy();
      seen.push(...ids(p2));

      // Delete the item the cursor stands on (the last one seen) and the next unseen one; change the page size.
      const last = ids(p2).at(-1)!;
      await w.author.posts.delete({ blogId: b, postId: last });
      const firstUnseen = range(24, 0)
        .map((n) => item[n]!)
        .find((id) => !seen.includes(id) && !deleted.has(id))!;
      await w.author.posts.delete({ blogId: b, postId: firstUnseen });
      deleted.add(firstUnseen);
      inserted.push(
        (
          (await w.author.posts.insert({
            blogId: b,
            body: { title: 'Early', content: 'x', published: iso(at(2) + 30_000) },
          })) as Wire
        ).id,
      );

      let token: string | undefined = p2.nextPageToken;
      let pages = 2;
      while (token) {
        const p = (await w.anon.posts.list({ blogId: b, maxResults: 3, pageToken: token })) as Wire;
        expect(p.items.length).toBeLessThanOrEqual(3);
        seen.push(...ids(p));
        token = p.nextPageToken;
        pages++;
        expect(pages).toBeLessThan(20);
      }
      expect(pages).toBeGreaterThanOrEqual(4);
      // No repeats at all.
      expect(new Set(seen).size).toBe(seen.length);
      // Every original item that was not deleted before its turn came is there exactly once, in order.
      const expected = range(24, 0)
        .map((n) => item[n]!)
        .filter((id) => !deleted.has(id));
      expect(seen.filter((id) => !inserted.includes(id))).toEqual(expected);
      expect(seen).not.toContain(inserted[0]);
    });

    it('prevPageToken gives the items just before the current page, in the same order', async () => {
      const { w, item } = await twentyFive();
      const b = w.blogId;
      const p1 = (await w.anon.posts.list({ blogId: b, maxResults: 10 })) as Wire;
      const p2 = (await w.anon.posts.list({ blogId: b, maxResults: 10, pageToken: p1.nextPageToken })) as Wire;
      const p3 = (await w.anon.posts.list({ blogId: b, maxResults: 10, pageToken: p2.nextPageToken })) as Wire;
      expect(ids(p3)).toEqual(range(4, 0).map((n) => item[n]));
      expect(p3.nextPageToken ?? undefined).toBeUndefined();
      expect(p3.prevPageToken).toBeTruthy();

      const back2 = (await w.anon.posts.list({ blogId: b, maxResults: 10, pageToken: p3.prevPageToken })) as Wire;
      expect(ids(back2)).toEqual(ids(p2));
      expect(back2.nextPageToken).toBeTruthy();
      const back1 = (await w.anon.posts.list({ blogId: b, maxResults: 10, pageToken: back2.prevPageToken })) as Wire;
      expect(ids(back1)).toEqual(ids(p1));
      expect(back1.prevPageToken ?? undefined).toBeUndefined();
      const forward = (await w.anon.posts.list({ blogId: b, maxResults: 10, pageToken: back1.nextPageToken })) as Wire;
      expect(ids(forward)).toEqual(ids(p2));

      // After deleting two items of page 2, "just before page 3" reaches two items further back.
      await w.author.posts.delete({ blogId: b, postId: item[14]! });
      await w.author.posts.delete({ blogId: b, postId: item[8]! });
      const back = (await w.anon.posts.list({ blogId: b, maxResults: 10, pageToken: p3.prevPageToken })) as Wire;
      expect(ids(back)).toEqual([16, 15, 13, 12, 11, 10, 9, 7, 6, 5].map((n) => item[n]));
    });

    it('maxResults may change between pages', async () => {
      const { w, item } = await twentyFive();
      const p1 = (await w.anon.posts.list({ blogId: w.blogId, maxResults: 10 })) as Wire;
      const p2 = (await w.anon.posts.list({ blogId: w.blogId, maxResults: 3, pageToken: p1.nextPageToken })) as Wire;
      expect(ids(p2)).toEqual([14, 13, 12].map((n) => item[n]));
      const p3 = (await w.anon.posts.list({
        blogId: w.blogId,
        maxResults: 500,
        pageToken: p2.nextPageToken,
        fetchBodies: false,
      })) as Wire;
      expect(ids(p3)).toEqual(range(11, 0).map((n) => item[n]));
      expect(p3.nextPageToken ?? undefined).toBeUndefined();
    });

    it('maxResults defaults to 10', async () => {
      const { w, item } = await twentyFive();
      const p = (await w.anon.posts.list({ blogId: w.blogId })) as Wire;
      expect(ids(p)).toEqual(range(24, 15).map((n) => item[n]));
      expect(p.nextPageToken).toBeTruthy();
    });

    it('a token reused with another filter, order, q or post is 400 invalid (pageToken)', async () => {
      const { w, item } = await twentyFive();
      const b = w.blogId;
      const tok = ((await w.author.posts.list({ blogId: b, maxResults: 5 })) as Wire).nextPageToken as string;
      expect(tok).toBeTruthy();
      const others: Array<Record<string, unknown>> = [
        { status: 'DRAFT' },
        { status: ['LIVE', 'DRAFT'] },
        { labels: 'even' },
        { orderBy: 'UPDATED' },
        { sortOption: 'ASCENDING' },
        { startDate: iso(at(3)) },
        { endDate: iso(at(20)) },
      ];
      for (const extra of others) {
        await expectError(
          w.author.posts.list({ blogId: b, maxResults: 5, pageToken: tok, ...extra } as any),
          400,
          'invalid',
          'pageToken',
        );
      }
      // Same query, other fetch flags and size: fine.
      const ok = (await w.author.posts.list({
        blogId: b,
        maxResults: 2,
        pageToken: tok,
        fetchBodies: false,
        fetchImages: true,
      })) as Wire;
      expect(ids(ok)).toEqual([19, 18].map((n) => item[n]));

      const sTok = ((await w.anon.posts.search({ blogId: b, q: 'number', maxResults: 5 })) as Wire)
        .nextPageToken as string;
      expect(sTok).toBeTruthy();
      await expectError(
        w.anon.posts.search({ blogId: b, q: 'item', maxResults: 5, pageToken: sTok }),
        400,
        'invalid',
        'pageToken',
      );
      await expectError(w.anon.posts.list({ blogId: b, maxResults: 5, pageToken: sTok }), 400, 'invalid', 'pageToken');
      await expectError(
        w.anon.posts.search({ blogId: b, q: 'number', maxResults: 5, pageToken: tok }),
        400,
        'invalid',
        'pageToken',
      );
      expect(ids(await w.anon.posts.search({ blogId: b, q: 'number', maxResults: 5, pageToken: sTok }))).toHaveLength(
        5,
      );

      for (let i = 0; i < 3; i++) await makeComment(w, item[0]!, 'LIVE', `c${i}`);
      await makeComment(w, item[1]!, 'LIVE');
      const cTok = ((await w.anon.comments.listByBlog({ blogId: b, post: item[0], maxResults: 1 })) as Wire)
        .nextPageToken as string;
      expect(cTok).toBeTruthy();
      await expectError(
        w.anon.comments.listByBlog({ blogId: b, post: item[1], maxResults: 1, pageToken: cTok }),
        400,
        'invalid',
        'pageToken',
      );
      await expectError(
        w.anon.comments.listByBlog({ blogId: b, maxResults: 1, pageToken: cTok }),
        400,
        'invalid',
        'pageToken',
      );
      const pTok = ((await w.anon.comments.list({ blogId: b, postId: item[0]!, maxResults: 1 })) as Wire)
        .nextPageToken as string;
      await expectError(
        w.anon.comments.list({ blogId: b, postId: item[1]!, maxResults: 1, pageToken: pTok }),
        400,
        'invalid',
        'pageToken',
      );
    });
  });

  describe('order and filters', () => {
    it('orderBy UPDATED follows the last change; sortOption ASCENDING reverses', async () => {
      const { w, item } = await twentyFive();
      await w.author.posts.patch({ blogId: w.blogId, postId: item[3]!, body: { title: 'Touched' } });
      const byUpdated = (await w.anon.posts.list({ blogId: w.blogId, orderBy: 'UPDATED', maxResults: 3 })) as Wire;
      expect(ids(byUpdated)).toEqual([item[3], item[24], item[23]]);
      const byPublished = (await w.anon.posts.list({
        blogId: w.blogId,
        orderBy: loose('published'),
        maxResults: 3,
      })) as Wire;
      expect(ids(byPublished)).toEqual([24, 23, 22].map((n) => item[n]));

      const asc = (await w.anon.posts.list({ blogId: w.blogId, sortOption: 'ASCENDING', maxResults: 10 })) as Wire;
      expect(ids(asc)).toEqual(range(0, 9).map((n) => item[n]));
      const asc2 = (await w.anon.posts.list({
        blogId: w.blogId,
        sortOption: loose('ascending'),
        maxResults: 10,
        pageToken: asc.nextPageToken,
      })) as Wire;
      expect(ids(asc2)).toEqual(range(10, 19).map((n) => item[n]));
      const ascBack = (await w.anon.posts.list({
        blogId: w.blogId,
        sortOption: 'ASCENDING',
        maxResults: 10,
        pageToken: asc2.prevPageToken,
      })) as Wire;
      expect(ids(ascBack)).toEqual(ids(asc));
      const updAsc = (await w.anon.posts.list({
        blogId: w.blogId,
        orderBy: 'UPDATED',
        sortOption: 'ASCENDING',
        maxResults: 500,
      })) as Wire;
      expect(ids(updAsc).at(-1)).toBe(item[3]);
      expect(ids(updAsc)[0]).toBe(item[0]);
    });

    it('ties on the sort time are broken by id and page without skips or repeats', async () => {
      const w = await world(makeDriver());
      const made: string[] = [];
      for (let i = 0; i < 7; i++) made.push((await makePost(w, 'LIVE')).id);
      const walked: string[] = [];
      let token: string | undefined;
      do {
        const p = (await w.anon.posts.list({
          blogId: w.blogId,
          maxResults: 3,
          ...(token ? { pageToken: token } : {}),
        })) as Wire;
        walked.push(...ids(p));
        token = p.nextPageToken;
      } while (token);
      expect([...walked].sort()).toEqual([...made].sort());
      const asc = [...walked].sort();
      expect([asc, [...asc].reverse()]).toContainEqual(walked);
    });

    it('startDate is inclusive, endDate exclusive, on the orderBy field', async () => {
      const { w, item } = await twentyFive();
      const r = (await w.anon.posts.list({
        blogId: w.blogId,
        startDate: iso(at(5)),
        endDate: iso(at(10)),
        maxResults: 50,
      })) as Wire;
      expect(ids(r)).toEqual([9, 8, 7, 6, 5].map((n) => item[n]));
      const onlyStart = (await w.anon.posts.list({ blogId: w.blogId, startDate: iso(at(22)) })) as Wire;
      expect(ids(onlyStart)).toEqual([24, 23, 22].map((n) => item[n]));
      const onlyEnd = (await w.anon.posts.list({ blogId: w.blogId, endDate: iso(at(2)) })) as Wire;
      expect(ids(onlyEnd)).toEqual([1, 0].map((n) => item[n]));
      // Other offsets name the same instant.
      const offset = (await w.anon.posts.list({ blogId: w.blogId, startDate: '2026-03-15T11:22:00+01:00' })) as Wire;
      expect(ids(offset)).toEqual([24, 23, 22].map((n) => item[n]));

      await w.author.posts.patch({ blogId: w.blogId, postId: item[1]!, body: { title: 'late change' } });
      const upd = (await w.anon.posts.list({ blogId: w.blogId, orderBy: 'UPDATED', startDate: iso(at(100)) })) as Wire;
      expect(ids(upd)).toEqual([item[1]]);
      const pub = (await w.anon.posts.list({ blogId: w.blogId, startDate: iso(at(100)) })) as Wire;
      expect(ids(pub)).toEqual([]);
    });

    it('labels: any of the comma-joined labels, exact and case-sensitive', async () => {
      const { w, item } = await twentyFive();
      const five = (await w.anon.posts.list({ blogId: w.blogId, labels: 'five', maxResults: 50 })) as Wire;
      expect(ids(five)).toEqual([20, 15, 10, 5, 0].map((n) => item[n]));
      const either = (await w.anon.posts.list({ blogId: w.blogId, labels: 'five,even', maxResults: 50 })) as Wire;
      const expected = range(24, 0).filter((n) => n % 2 === 0 || n % 5 === 0);
      expect(ids(either)).toEqual(expected.map((n) => item[n]));
      const asArray = (await w.anon.posts.list({ blogId: w.blogId, labels: ['five', 'even'], maxResults: 50 })) as Wire;
      expect(ids(asArray)).toEqual(ids(either));
      expect(ids(await w.anon.posts.list({ blogId: w.blogId, labels: 'Five' }))).toEqual([]);
      expect(ids(await w.anon.posts.list({ blogId: w.blogId, labels: 'fiv' }))).toEqual([]);
      // Paging through a label filter.
      const lp1 = (await w.anon.posts.list({ blogId: w.blogId, labels: 'five,even', maxResults: 6 })) as Wire;
      const lp2 = (await w.anon.posts.list({
        blogId: w.blogId,
        labels: 'five,even',
        maxResults: 6,
        pageToken: lp1.nextPageToken,
      })) as Wire;
      const lp3 = (await w.anon.posts.list({
        blogId: w.blogId,
        labels: 'five,even',
        maxResults: 6,
        pageToken: lp2.nextPageToken,
      })) as Wire;
      expect([...ids(lp1), ...ids(lp2), ...ids(lp3)]).toEqual(expected.map((n) => item[n]));
    });

    it('status: one value, a list, comma-joined, any case; sent upper-case', async () => {
      const w = await world(makeDriver());
      const live = await makePost(w, 'LIVE');
      w.clock.advance(MINUTE);
      const draft = await makePost(w, 'DRAFT');
      w.clock.advance(MINUTE);
      const sched = await makePost(w, 'SCHEDULED');
      const trashed = await makePost(w, 'SOFT_TRASHED');
      const b = w.blogId;
      const set = async (status: any) => ids(await w.author.posts.list({ blogId: b, status, maxResults: 50 })).sort();
      expect(await set('LIVE')).toEqual([live.id]);
      expect(await set('draft')).toEqual([draft.id]);
      expect(await set(['LIVE', 'draft'])).toEqual([live.id, draft.id].sort());
      expect(await set('live,Draft,scheduled')).toEqual([live.id, draft.id, sched.id].sort());
      expect(await set('soft_trashed')).toEqual([trashed.id]);
      const mixed = (await w.author.posts.list({ blogId: b, status: loose('live,draft') })) as Wire;
      expect(mixed.items.map((p: Wire) => p.status).sort()).toEqual(['DRAFT', 'LIVE']);
      // Pages and comments take the same forms.
      const lp = await makePage(w, 'LIVE');
      const dp = await makePage(w, 'DRAFT');
      expect(ids(await w.author.pages.list({ blogId: b, status: loose('live,draft') })).sort()).toEqual(
        [lp.id, dp.id].sort(),
      );
      const c1 = await makeComment(w, live.id, 'PENDING');
      const c2 = await makeComment(w, live.id, 'SPAM');
      const c3 = await makeComment(w, live.id, 'LIVE');
      const cs = (await w.admin.comments.list({
        blogId: b,
        postId: live.id,
        status: loose(['pending', 'SPAM']),
      })) as Wire;
      expect(ids(cs).sort()).toEqual([c1.id, c2.id].sort());
      expect(cs.items.map((c: Wire) => c.status).sort()).toEqual(['PENDING', 'SPAM']);
      expect(ids(await w.admin.comments.listByBlog({ blogId: b, status: loose('live,spam') })).sort()).toEqual(
        [c2.id, c3.id].sort(),
      );
    });

    it('drafts without a published time sort by their updated time under PUBLISHED', async () => {
      const w = await world(makeDriver());
      const a = await makePost(w, 'LIVE');
      w.clock.advance(MINUTE);
      const d = await makePost(w, 'DRAFT');
      w.clock.advance(MINUTE);
      const c = await makePost(w, 'LIVE');
      const all = (await w.author.posts.list({ blogId: w.blogId, status: loose('LIVE,DRAFT') })) as Wire;
      expect(ids(all)).toEqual([c.id, d.id, a.id]);
      const window = (await w.author.posts.list({
        blogId: w.blogId,
        status: 'DRAFT',
        startDate: iso(T0 + MINUTE),
        endDate: iso(T0 + 2 * MINUTE),
      })) as Wire;
      expect(ids(window)).toEqual([d.id]);
    });

    it('pages list newest published first and page with tokens', async () => {
      const w = await world(makeDriver());
      const made: string[] = [];
      for (let i = 0; i < 7; i++) {
        made.push((await makePage(w, 'LIVE')).id);
        w.clock.advance(MINUTE);
      }
      const walked: string[] = [];
      let token: string | undefined;
      let n = 0;
      do {
        const p = (await w.anon.pages.list({
          blogId: w.blogId,
          maxResults: 3,
          ...(token ? { pageToken: token } : {}),
        })) as Wire;
        expect(p.items.length).toBeLessThanOrEqual(3);
        walked.push(...ids(p));
        token = p.nextPageToken;
        n++;
      } while (token);
      expect(n).toBe(3);
      expect(walked).toEqual([...made].reverse());
    });

    it('comments.listByBlog pages newest first, restricted by post, with prevPageToken', async () => {
      const w = await world(makeDriver());
      const a = await makePost(w, 'LIVE');
      const b = await makePost(w, 'LIVE');
      const onA: string[] = [];
      for (let i = 0; i < 6; i++) {
        onA.push((await makeComment(w, a.id, 'LIVE')).id);
        await makeComment(w, b.id, 'LIVE');
        w.clock.advance(MINUTE);
      }
      const p1 = (await w.anon.comments.listByBlog({ blogId: w.blogId, post: a.id, maxResults: 4 })) as Wire;
      const p2 = (await w.anon.comments.listByBlog({
        blogId: w.blogId,
        post: a.id,
        maxResults: 4,
        pageToken: p1.nextPageToken,
      })) as Wire;
      expect([...ids(p1), ...ids(p2)]).toEqual([...onA].reverse());
      expect(p2.nextPageToken ?? undefined).toBeUndefined();
      const back = (await w.anon.comments.listByBlog({
        blogId: w.blogId,
        post: a.id,
        maxResults: 4,
        pageToken: p2.prevPageToken,
      })) as Wire;
      expect(ids(back)).toEqual(ids(p1));
      const dated = (await w.anon.comments.listByBlog({
        blogId: w.blogId,
        post: a.id,
        startDate: iso(T0 + 2 * MINUTE),
        endDate: iso(T0 + 4 * MINUTE),
      })) as Wire;
      expect(ids(dated)).toEqual([onA[3], onA[2]]);
      const datedPost = (await w.anon.comments.list({
        blogId: w.blogId,
        postId: a.id,
        startDate: iso(T0 + 2 * MINUTE),
        endDate: iso(T0 + 4 * MINUTE),
      })) as Wire;
      expect(ids(datedPost)).toEqual([onA[2], onA[3]]);
    });
  });

  describe('posts.search', () => {
    async function corpus() {
      const w = await world(makeDriver());
      const mk = (title: string, content: string, labels: string[] = []) =>
        makePost(w, 'LIVE', { title, content, labels });
      const posts = {
        both: await mk('Alpha news', '<p>The <b>beta</b> release</p>'),
        alphaOnly: await mk('Alpha only', '<p>nothing else</p>'),
        html: await mk('Markup', '<p class="highlight" data-x="zebra">Plain words here</p>'),
        accents: await mk('Café Crème', '<p>Déjà vu at the café</p>'),
        label: await mk('Dinner', '<p>Pasta tonight</p>', ['Recipes']),
        phrase: await mk('Fox', '<p>the quick brown fox jumps</p>'),
        reversed: await mk('Fox two', '<p>brown and quick things</p>'),
        split: await mk('Tags', '<p>word</p><p>break</p>'),
      };
      return { w, posts };
    }
    const q = async (w: World, query: string) =>
      ids(await w.anon.posts.search({ blogId: w.blogId, q: query, maxResults: 50 })).sort();

    it('every word must occur, in the title, the HTML-stripped text or the labels', async () => {
      const { w, posts } = await corpus();
      expect(await q(w, 'alpha beta')).toEqual([posts.both.id]);
      expect(await q(w, 'alpha')).toEqual([posts.both.id, posts.alphaOnly.id].sort());
      expect(await q(w, 'beta release')).toEqual([posts.both.id]);
      expect(await q(w, 'plain words')).toEqual([posts.html.id]);
      // Tag names and attributes are not text.
      expect(await q(w, 'highlight')).toEqual([]);
      expect(await q(w, 'zebra')).toEqual([]);
      expect(await q(w, 'class')).toEqual([]);
      expect(await q(w, 'recipes')).toEqual([posts.label.id]);
      expect(await q(w, 'pasta recipes')).toEqual([posts.label.id]);
      expect(await q(w, 'alpha nothingmatches')).toEqual([]);
      // A tag between words separates them.
      expect(await q(w, 'word')).toEqual([posts.split.id]);
      expect(await q(w, 'break')).toEqual([posts.split.id]);
    });

    it('is case- and accent-insensitive', async () => {
      const { w, posts } = await corpus();
      expect(await q(w, 'cafe creme')).toEqual([posts.accents.id]);
      expect(await q(w, 'CAFÉ')).toEqual([posts.accents.id]);
      expect(await q(w, 'deja VU')).toEqual([posts.accents.id]);
      expect(await q(w, 'ALPHA Beta')).toEqual([posts.both.id]);
    });

    it('"quoted phrases" match adjacent words only', async () => {
      const { w, posts } = await corpus();
      expect(await q(w, 'quick brown')).toEqual([posts.phrase.id, posts.reversed.id].sort());
      expect(await q(w, '"quick brown"')).toEqual([posts.phrase.id]);
      expect(await q(w, '"brown quick"')).toEqual([]);
      expect(await q(w, '"brown fox" jumps')).toEqual([posts.phrase.id]);
      expect(await q(w, '"Quick Brown Fox"')).toEqual([posts.phrase.id]);
    });

    it('a phrase the index cannot rule out pages a bounded walk at a time: short pages go on with a token, none skipped', async () => {
      const w = await world(makeDriver());
      const made: string[] = [];
      // Every post holds both words; only every 15th has them side by side in the asked order.
      for (let i = 0; i < 60; i++) {
        const content = i % 15 === 0 ? '<p>red apple pie</p>' : '<p>apple then red</p>';
        made.push((await makePost(w, 'LIVE', { title: `Post ${i}`, content })).id);
        w.clock.advance(MINUTE);
      }
      const matching = made.filter((_, i) => i % 15 === 0).reverse();
      const pages: Wire[] = [];
      let token: string | undefined;
      do {
        const p = (await w.anon.posts.search({
          blogId: w.blogId,
          q: '"red apple"',
          maxResults: 2,
          ...(token ? { pageToken: token } : {}),
        })) as Wire;
        pages.push(p);
        token = p.nextPageToken;
      } while (token && pages.length < 100);
      expect(pages.flatMap((p) => ids(p))).toEqual(matching);
      // Short pages keep their place: walking back from the last page with prevPageToken meets every match again.
      const last = pages[pages.length - 1]!;
      const back: string[][] = [];
      let prev = last.prevPageToken as string | undefined;
      while (prev && back.length < 100) {
        const p = (await w.anon.posts.search({
          blogId: w.blogId,
          q: '"red apple"',
          maxResults: 2,
          pageToken: prev,
        })) as Wire;
        back.unshift(ids(p));
        prev = p.prevPageToken;
      }
      expect([...back.flat(), ...ids(last)]).toEqual(matching);
      expect(pages.some((p) => ids(p).length < 2 && p.nextPageToken)).toBe(true);
    });

    it('honours the list filters and pages like list', async () => {
      const w = await world(makeDriver());
      const made: string[] = [];
      for (let i = 0; i < 12; i++) {
        made.push(
          (
            await makePost(w, 'LIVE', {
              title: `Searchable ${i}`,
              content: 'common',
              labels: i % 3 === 0 ? ['third'] : [],
            })
          ).id,
        );
        w.clock.advance(MINUTE);
      }
      await makePost(w, 'LIVE', { title: 'unrelated', content: 'other' });
      const draft = await makePost(w, 'DRAFT', { title: 'Searchable draft', content: 'common' });
      const walked: string[] = [];
      let token: string | undefined;
      let pages = 0;
      do {
        const p = (await w.anon.posts.search({
          blogId: w.blogId,
          q: 'common',
          maxResults: 5,
          ...(token ? { pageToken: token } : {}),
        })) as Wire;
        expect(p.kind).toBe('blogger#postList');
        walked.push(...ids(p));
        token = p.nextPageToken;
        pages++;
      } while (token);
      expect(pages).toBe(3);
      expect(walked).toEqual([...made].reverse());
      const s1 = (await w.anon.posts.search({ blogId: w.blogId, q: 'common', maxResults: 5 })) as Wire;
      const s2 = (await w.anon.posts.search({
        blogId: w.blogId,
        q: 'common',
        maxResults: 5,
        pageToken: s1.nextPageToken,
      })) as Wire;
      const s3 = (await w.anon.posts.search({
        blogId: w.blogId,
        q: 'common',
        maxResults: 5,
        pageToken: s2.nextPageToken,
      })) as Wire;
      const sBack = (await w.anon.posts.search({
        blogId: w.blogId,
        q: 'common',
        maxResults: 5,
        pageToken: s3.prevPageToken,
      })) as Wire;
      expect(ids(sBack)).toEqual(ids(s2));
      const labelled = ids(await w.anon.posts.search({ blogId: w.blogId, q: 'common', labels: 'third' }));
      expect(labelled).toEqual([9, 6, 3, 0].map((i) => made[i]));
      const asc = ids(
        await w.anon.posts.search({ blogId: w.blogId, q: 'common', sortOption: 'ASCENDING', maxResults: 3 }),
      );
      expect(asc).toEqual(made.slice(0, 3));
      const dated = ids(await w.anon.posts.search({ blogId: w.blogId, q: 'common', startDate: iso(T0 + 10 * MINUTE) }));
      expect(dated).toEqual([made[11], made[10]]);
      const withDrafts = ids(await w.author.posts.search({ blogId: w.blogId, q: 'common', status: 'DRAFT' }));
      expect(withDrafts).toEqual([draft.id]);
    });
  });
});
