/**
 * The client address of an anonymous comment reaches nobody but the blog's ADMINs (docs/design.md §25): every call
 * that answers comments, asked by every role of the access matrix at every view it may ask for, with every field of
 * every answer (and of every refusal) walked for the addresses the comments came from.
 */
import { describe, expect, it } from 'vitest';
import { DRIVERS } from '../support/drivers.js';
import { makePost, type Service, type World, world } from './helpers.js';

const ACTORS = ['anon', 'reader', 'outsider', 'authorOwn', 'authorOther', 'admin', 'host'] as const;
type ActorName = (typeof ACTORS)[number];
const SEES_ADDRESSES: readonly ActorName[] = ['admin', 'host'];

const actor = (w: World, name: ActorName): Service =>
  ({
    anon: w.anon,
    reader: w.reader,
    outsider: w.outsider,
    authorOwn: w.author,
    authorOther: w.author2,
    admin: w.admin,
    host: w.service,
  })[name];

/** One address per state the comment is in when the walk starts; an IPv6 one among them. */
const FROM = { live: '203.0.113.77', pending: '198.51.100.78', spam: '192.0.2.79', v6: '2001:db8:4:5::9' } as const;
const TRACES = ['203.0.113.', '198.51.100.', '192.0.2.', '2001:db8'];

/** Every string and key in an answer, however deep. */
function strings(value: unknown, out: string[] = []): string[] {
  if (typeof value === 'string') out.push(value);
  else if (Array.isArray(value)) for (const v of value) strings(v, out);
  else if (value && typeof value === 'object')
    for (const [k, v] of Object.entries(value)) {
      out.push(k);
      strings(v, out);
    }
  return out;
}

const VIEWS = [undefined, 'READER', 'AUTHOR', 'ADMIN'] as const;
const STATUSES = ['LIVE', 'EMPTIED', 'PENDING', 'SPAM'] as const;
const view = (v: (typeof VIEWS)[number]) => (v ? { view: v } : {});

/** Every read and moderation call that answers comments, at every view; answers and errors alike. */
async function answers(
  w: World,
  s: Service,
  ids: { postId: string; path: string; comments: string[]; checkpoint: string },
) {
  const { blogId, clock } = w;
  const { postId, path } = ids;
  const out: Array<{ call: string; answer: unknown }> = [];
  const ask = async (call: string, fn: () => Promise<unknown>) => {
    try {
      out.push({ call, answer: await fn() });
    } catch (error) {
      out.push({ call, answer: { error, message: (error as Error).message, ...(error as object) } });
    }
  };
  for (const v of VIEWS) {
    const at = v ?? 'default';
    for (const commentId of ids.comments)
      await ask(`comments.get ${at}`, () => s.comments.get({ blogId, postId, commentId, ...view(v) }));
    await ask(`comments.list ${at}`, () =>
      s.comments.list({ blogId, postId, status: [...STATUSES], fetchBodies: true, ...view(v) }),
    );
    await ask(`comments.list default statuses ${at}`, () => s.comments.list({ blogId, postId, ...view(v) }));
    await ask(`posts.get ${at}`, () => s.posts.get({ blogId, postId, maxComments: 50, ...view(v) }));
    await ask(`posts.getByPath ${at}`, () => s.posts.getByPath({ blogId, path, maxComments: 50, ...view(v) }));
    await ask(`posts.list ${at}`, () => s.posts.list({ blogId, maxComments: 50, ...view(v) }));
    await ask(`posts.search ${at}`, () => s.posts.search({ blogId, q: 'Walked', maxComments: 50, ...view(v) }));
    await ask(`postUserInfos.get ${at}`, () =>
      s.postUserInfos.get({ userId: 'self', blogId, postId, maxComments: 50 }),
    );
    await ask(`postUserInfos.list ${at}`, () => s.postUserInfos.list({ userId: 'self', blogId, ...view(v) }));
    // A replica's whole pull: every page, posts, pages, then comments.
    await ask(`changes.list ${at}`, async () => {
      const pages = [];
      let pageToken: string | undefined;
      do {
        const page = await s.changes.list({ blogId, maxResults: 500, ...view(v), ...(pageToken ? { pageToken } : {}) });
        pages.push(page);
        pageToken = page.nextPageToken;
      } while (pageToken);
      return pages;
    });
    await ask(`changes.list since ${at}`, () => s.changes.list({ blogId, since: ids.checkpoint, ...view(v) }));
  }
  await ask('comments.listByBlog', () =>
    s.comments.listByBlog({ blogId, status: [...STATUSES], fetchBodies: true, maxResults: 500 }),
  );
  await ask('comments.listByBlog default', () => s.comments.listByBlog({ blogId }));
  await ask('comments.listByBlog of the post', () => s.comments.listByBlog({ blogId, post: postId }));
  await ask('blogs.get', () => s.blogs.get({ blogId, maxPosts: 10 }));
  // A comment of the caller's own, from one of the addresses: the answer to the writer.
  clock.advance(3_600_000);
  await ask('comments.insert', () =>
    s.comments.insert({ blogId, postId, body: { content: 'Walked by again' }, clientAddress: FROM.pending }),
  );
  const [live, pending, spam] = ids.comments as [string, string, string];
  await ask('comments.approve', () => s.comments.approve({ blogId, postId, commentId: pending }));
  await ask('comments.markAsSpam', () => s.comments.markAsSpam({ blogId, postId, commentId: live }));
  await ask('comments.removeContent', () => s.comments.removeContent({ blogId, postId, commentId: spam }));
  await ask('comments.moderate', () =>
    s.comments.moderate({ blogId, filter: { clientAddress: FROM.v6 }, action: 'spam' }),
  );
  return out;
}

describe.each(DRIVERS)('the client address on %s', (_name, makeDriver) => {
  it.each(ACTORS)(
    '%s: every answer that holds comments, walked field by field',
    async (who) => {
      const w = await world(makeDriver());
      const post = await makePost(w, 'LIVE', { title: 'Walked post', content: '<p>Walked</p>' });
      const blogId = w.blogId;
      const say = (content: string, clientAddress: string) =>
        w.anon.comments.insert({ blogId, postId: post.id, body: { content }, clientAddress });
      const live = await say('Kept, then approved', FROM.live);
      await w.service.comments.approve({ blogId, postId: post.id, commentId: live.id });
      const pending = await say('Held for moderation', FROM.pending);
      const spam = await say(
        '<a href="https://a.example/">a</a> <a href="https://b.example/">b</a> https://c.example/',
        FROM.spam,
      );
      const v6 = await say('From a phone', FROM.v6);
      const checkpoint = (await w.service.changes.list({ blogId, maxResults: 1 })).checkpoint;
      // The host sees where each came from: there is something to leak.
      const seen = await w.service.comments.listByBlog({ blogId, status: ['LIVE', 'PENDING', 'SPAM'] });
      expect(seen.items.map((c) => c.clientAddress).sort()).toEqual(
        [FROM.live, FROM.pending, FROM.spam, FROM.v6].sort(),
      );

      const all = await answers(w, actor(w, who), {
        postId: post.id,
        path: new URL(post.url as string).pathname,
        comments: [live.id, pending.id, spam.id, v6.id],
        checkpoint,
      });
      const leaks = all.filter(({ answer }) =>
        strings(answer).some((s) => s === 'clientAddress' || TRACES.some((t) => s.includes(t))),
      );
      if (SEES_ADDRESSES.includes(who)) {
        // The ADMIN view of a comment carries its address: the walk would see one if it leaked.
        expect(leaks.map((l) => l.call)).toEqual(
          expect.arrayContaining([
            'comments.get ADMIN',
            'comments.list ADMIN',
            'comments.listByBlog',
            'changes.list ADMIN',
          ]),
        );
      } else {
        expect(leaks.map((l) => `${l.call}: ${JSON.stringify(l.answer)}`)).toEqual([]);
        // Something was answered: the walk is not of refusals alone.
        expect(all.filter((a) => !(a.answer as { error?: unknown }).error).length).toBeGreaterThan(10);
      }
    },
    120_000,
  );
});
