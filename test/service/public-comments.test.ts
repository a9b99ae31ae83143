/**
 * Comments from the public, in process (docs/design.md §25, docs/comments.md): the limits per client address and per
 * user, the blog's room for held comments, duplicates, the content rules and the `checkComment` hook, on every
 * driver. A refused comment writes nothing: no record, no change-log entry, no event, and it counts for nothing.
 */
import { describe, expect, it, vi } from 'vitest';
import { createBlogService } from '../../src/index.js';
import { createHttpHandler } from '../../src/http/index.js';
import { FILTER_ROUNDS } from '../../src/core/paging.js';
import { memoryDriver } from '../../drivers/memory/index.js';
import { countingDriver } from '../support/counting-driver.js';
import { DRIVERS } from '../support/drivers.js';
import { DAY, expectError, expectNoWrite, HOUR, makePost, type Service, type Wire, world } from './helpers.js';

const ADDRESS = '203.0.113.7';

describe.each(DRIVERS)('comments from the public on %s', (_name, makeDriver) => {
  const say = (s: Service, blogId: string, postId: string, content: string, clientAddress?: string) =>
    s.comments.insert({ blogId, postId, body: { content }, ...(clientAddress ? { clientAddress } : {}) });

  it('an address gets a burst of 3, then one every 15 s; the 429 says when, and writes nothing', async () => {
    const w = await world(makeDriver());
    const post = await makePost(w, 'LIVE');
    for (let i = 0; i < 3; i++) await say(w.anon, w.blogId, post.id, `comment ${i}`, ADDRESS);
    await expectNoWrite(w, async () => {
      const e = await expectError(say(w.anon, w.blogId, post.id, 'one too many', ADDRESS), 429, 'rateLimitExceeded');
      expect(e.retryAfter).toBe(15);
    });
    // Another address is not held up by the first.
    await say(w.anon, w.blogId, post.id, 'from elsewhere', '198.51.100.1');
    w.clock.advance(10_000);
    const e = await expectError(say(w.anon, w.blogId, post.id, 'still too soon', ADDRESS), 429);
    expect(e.retryAfter).toBe(5);
    w.clock.advance(5_000);
    await say(w.anon, w.blogId, post.id, 'in time', ADDRESS);
    await expectError(say(w.anon, w.blogId, post.id, 'and again too soon', ADDRESS), 429);
  });

  it('an IPv6 subscriber is one address (its /64); an IPv4-mapped address is its IPv4', async () => {
    const w = await world(makeDriver());
    const post = await makePost(w, 'LIVE');
    for (const a of ['2001:db8:1:2::1', '2001:db8:1:2:ffff::9', '2001:0db8:0001:0002::7'])
      await say(w.anon, w.blogId, post.id, `from ${a}`, a);
    await expectError(say(w.anon, w.blogId, post.id, 'same /64', '2001:db8:1:2::abcd'), 429);
    await say(w.anon, w.blogId, post.id, 'another /64', '2001:db8:1:3::1');
    for (let i = 0; i < 3; i++) await say(w.anon, w.blogId, post.id, `v4 ${i}`, '192.0.2.1');
    await expectError(say(w.anon, w.blogId, post.id, 'mapped', '::ffff:192.0.2.1'), 429);
  });

  it('a refused comment costs its sender nothing: a 404 or a 400 does not take from the limit', async () => {
    const w = await world(makeDriver());
    const post = await makePost(w, 'LIVE');
    for (let i = 0; i < 5; i++) await expectError(say(w.anon, w.blogId, 'nosuchpost', `x ${i}`, ADDRESS), 404);
    await expectError(say(w.anon, w.blogId, post.id, '', ADDRESS), 400);
    for (let i = 0; i < 3; i++) await say(w.anon, w.blogId, post.id, `comment ${i}`, ADDRESS);
  });

  it('with no address in process, only the per-user limits apply', async () => {
    const w = await world(makeDriver());
    const post = await makePost(w, 'LIVE');
    for (let i = 0; i < 10; i++) await say(w.anon, w.blogId, post.id, `comment ${i}`);
  });

  it('a signed-in reader gets 30 a minute; AUTHORs and ADMINs are never limited', async () => {
    const w = await world(makeDriver());
    const post = await makePost(w, 'LIVE');
    for (let i = 0; i < 30; i++) await say(w.reader, w.blogId, post.id, `reader ${i}`, ADDRESS);
    const e = await expectError(say(w.reader, w.blogId, post.id, 'reader 31', ADDRESS), 429, 'rateLimitExceeded');
    expect(e.retryAfter).toBe(2);
    // The outsider (signed in, no role) is a reader of its own: its own count.
    await say(w.outsider, w.blogId, post.id, 'outsider', ADDRESS);
    for (const s of [w.author, w.admin, w.service])
      for (let i = 0; i < 40; i++) await say(s, w.blogId, post.id, `trusted ${i}`, ADDRESS);
    w.clock.advance(2_000);
    await say(w.reader, w.blogId, post.id, 'reader again', ADDRESS);
  });

  it('the limits are options', async () => {
    const w = await world(makeDriver(), {
      commentLimits: { anonymous: { everySeconds: 60, burst: 1 }, reader: { perMinute: 2 } },
    });
    const post = await makePost(w, 'LIVE');
    await say(w.anon, w.blogId, post.id, 'one', ADDRESS);
    expect((await expectError(say(w.anon, w.blogId, post.id, 'two', ADDRESS), 429)).retryAfter).toBe(60);
    await say(w.reader, w.blogId, post.id, 'one');
    await say(w.reader, w.blogId, post.id, 'two');
    await expectError(say(w.reader, w.blogId, post.id, 'three'), 429);
    // A host's mistake in the options: the first comment written (and the HTTP helper, as it is made) says so.
    const wrong = createBlogService({ driver: w.driver, commentLimits: { anonymous: { everySeconds: 0, burst: 1 } } });
    await expect(
      wrong.comments.insert({ blogId: w.blogId, postId: post.id, body: { content: 'hello' } }),
    ).rejects.toThrow(TypeError);
    expect(() => createHttpHandler(wrong)).toThrow(TypeError);
  });

  it('a blog holds at most maxPendingComments anonymous PENDING and SPAM comments', async () => {
    const w = await world(makeDriver(), { maxPendingComments: 3 });
    const post = await makePost(w, 'LIVE');
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await say(w.anon, w.blogId, post.id, `held ${i}`)).id);
    await expectNoWrite(w, () => expectError(say(w.anon, w.blogId, post.id, 'no room'), 429, 'rateLimitExceeded'));
    // Readers and the blog's own are not held to it.
    await say(w.reader, w.blogId, post.id, 'a reader');
    await say(w.author, w.blogId, post.id, 'an author');
    // Moderation makes room.
    await w.admin.comments.approve({ blogId: w.blogId, postId: post.id, commentId: ids[0]! });
    await say(w.anon, w.blogId, post.id, 'room again');
  });

  it('the same text from the same address or author on the same post within the hour is a 409', async () => {
    const w = await world(makeDriver());
    const post = await makePost(w, 'LIVE');
    const other = await makePost(w, 'LIVE');
    await say(w.anon, w.blogId, post.id, '<p>Great  post!</p>', ADDRESS);
    await expectNoWrite(w, () => expectError(say(w.anon, w.blogId, post.id, 'great post!', ADDRESS), 409, 'conflict'));
    await say(w.anon, w.blogId, other.id, 'Great post!', ADDRESS);
    await say(w.anon, w.blogId, post.id, 'Great post!', '198.51.100.1');
    await say(w.reader, w.blogId, post.id, 'Me too');
    await expectError(say(w.reader, w.blogId, post.id, 'me too'), 409);
    w.clock.advance(HOUR + 1);
    await say(w.anon, w.blogId, post.id, 'Great post!', ADDRESS);
    await say(w.reader, w.blogId, post.id, 'Me too');
  });

  it('more than maxCommentLinks links, or a disallowed word, files the comment as SPAM', async () => {
    const w = await world(makeDriver(), { disallowedCommentWords: ['cheap pills', 'casino'] });
    const post = await makePost(w, 'LIVE');
    const status = async (content: string, name?: string) => {
      const c = await w.anon.comments.insert({
        blogId: w.blogId,
        postId: post.id,
        body: { content, ...(name ? { author: { displayName: name } } : {}) },
      });
      return ((await w.service.comments.get({ blogId: w.blogId, postId: post.id, commentId: c.id })) as Wire).status;
    };
    expect(await status('see <a href="https://a.test/">a</a> and https://b.test/x')).toBe('PENDING');
    expect(await status('<a href="https://a.test/">a</a> <a href="https://b.test/">b</a> www.c.test')).toBe('SPAM');
    expect(await status('Buy CHEAP   pills now')).toBe('SPAM');
    expect(await status('cheap, but no pills')).toBe('PENDING');
    expect(await status('hello', 'Casino King')).toBe('SPAM');
    expect(await status('casinos are not the word')).toBe('PENDING');
    // The blog's own list, set by its ADMIN, seen by its ADMINs only.
    await w.admin.blogs.patch({ blogId: w.blogId, body: { disallowedCommentWords: ['lottery'] } });
    expect(await status('you won the LOTTERY')).toBe('SPAM');
    expect((await w.admin.blogs.get({ blogId: w.blogId })).disallowedCommentWords).toEqual(['lottery']);
    expect((await w.anon.blogs.get({ blogId: w.blogId })).disallowedCommentWords).toBeUndefined();
    await expectError(w.author.blogs.patch({ blogId: w.blogId, body: { disallowedCommentWords: [] } }), 403);
    // The blog's trusted writers are not judged.
    const mine = await w.author.comments.insert({ blogId: w.blogId, postId: post.id, body: { content: 'casino' } });
    expect(mine.status ?? 'LIVE').toBe('LIVE');
  });

  it('checkComment decides ham, pending or spam; a timeout or a throw leaves the comment PENDING', async () => {
    let answer: () => unknown = () => 'ham';
    const asked: Wire[] = [];
    const w = await world(makeDriver(), {
      checkCommentTimeoutMs: 50,
      checkComment: (comment, context) => {
        asked.push({ comment, context: { ...context, signal: undefined } });
        return answer() as 'ham';
      },
    });
    const post = await makePost(w, 'LIVE');
    const status = async (content: string) => {
      const c = await w.anon.comments.insert({
        blogId: w.blogId,
        postId: post.id,
        body: { content },
        clientAddress: ADDRESS,
        userAgent: 'Bot/1.0',
      });
      w.clock.advance(15_000);
      return ((await w.service.comments.get({ blogId: w.blogId, postId: post.id, commentId: c.id })) as Wire).status;
    };
    expect(await status('ham')).toBe('LIVE');
    expect(asked[0]).toMatchObject({
      comment: { blogId: w.blogId, postId: post.id, content: 'ham', author: { displayName: 'Anonymous' } },
      context: { clientAddress: ADDRESS, userAgent: 'Bot/1.0', role: null, post: { id: post.id, title: post.title } },
    });
    answer = () => 'spam';
    expect(await status('spam')).toBe('SPAM');
    answer = () => 'pending';
    expect(await status('pending')).toBe('PENDING');
    answer = () => new Promise((resolve) => setTimeout(() => resolve('ham'), 1_000));
    expect(await status('slow')).toBe('PENDING');
    answer = () => {
      throw new Error('service down');
    };
    expect(await status('throws')).toBe('PENDING');
    answer = () => Promise.reject(new Error('service down'));
    expect(await status('rejects')).toBe('PENDING');
    answer = () => 'maybe';
    expect(await status('nonsense')).toBe('PENDING');
    // Content rules come first: a comment that is spam by its links never reaches the hook.
    const before = asked.length;
    answer = () => 'ham';
    expect(await status('<a href="https://a.test">1</a> <a href="https://a.test">2</a> https://x.test')).toBe('SPAM');
    expect(asked.length).toBe(before);
  });

  it("the client address is in the ADMIN's view of an anonymous comment only", async () => {
    const w = await world(makeDriver());
    const post = await makePost(w, 'LIVE');
    const c = await say(w.anon, w.blogId, post.id, 'hello', ADDRESS);
    expect(c.clientAddress).toBeUndefined();
    const got = (p: Service, view?: 'ADMIN') =>
      p.comments.get({ blogId: w.blogId, postId: post.id, commentId: c.id, ...(view ? { view } : {}) });
    expect((await got(w.admin)).clientAddress).toBe(ADDRESS);
    expect((await got(w.service)).clientAddress).toBe(ADDRESS);
    await w.admin.comments.approve({ blogId: w.blogId, postId: post.id, commentId: c.id });
    for (const s of [w.anon, w.reader, w.author, w.outsider])
      expect(JSON.stringify(await got(s))).not.toContain(ADDRESS);
    const list = await w.admin.comments.listByBlog({ blogId: w.blogId, status: ['LIVE'] });
    expect(list.items?.[0]?.clientAddress).toBe(ADDRESS);
    const shown = await w.anon.comments.list({ blogId: w.blogId, postId: post.id });
    expect(JSON.stringify(shown)).not.toContain(ADDRESS);
    void DAY;
  });

  it('the scheduler deletes spam after 30 days and forgets client addresses after 30 days', async () => {
    const w = await world(makeDriver(), { disallowedCommentWords: ['casino'] });
    const post = await makePost(w, 'LIVE');
    const spam = await say(w.anon, w.blogId, post.id, 'casino', ADDRESS);
    const held = await say(w.anon, w.blogId, post.id, 'hello', ADDRESS);
    w.clock.advance(29 * DAY);
    const young = await say(w.anon, w.blogId, post.id, 'casino again', '198.51.100.1');
    w.clock.advance(2 * DAY);
    const got = (c: { id?: string }) =>
      w.admin.comments.get({ blogId: w.blogId, postId: post.id, commentId: c.id as string, view: 'ADMIN' });
    const stop = w.service.startScheduler();
    try {
      await vi.waitFor(async () => expect((await got(held)).clientAddress).toBeUndefined(), { timeout: 20_000 });
    } finally {
      stop();
    }
    await expectError(got(spam), 404);
    expect(await got(held)).toMatchObject({ status: 'PENDING', content: 'hello' });
    expect(await got(young)).toMatchObject({ status: 'SPAM', clientAddress: '198.51.100.1' });
    const left = await w.admin.comments.listByBlog({ blogId: w.blogId, status: ['SPAM', 'PENDING'], view: 'ADMIN' });
    expect(left.items?.map((c) => c.id).sort()).toEqual([held.id, young.id].sort());
    // The post's count of its comments followed the deleted spam.
    expect((await w.driver.get('posts', post.id as string))?.doc.allComments).toBe(2);
  });

  it('comments.moderate clears a spam run by address, author, status and text, in calls of at most 500', async () => {
    const w = await world(makeDriver(), { commentLimits: { anonymous: { everySeconds: 1, burst: 1000 } } });
    const post = await makePost(w, 'LIVE');
    const other = await makePost(w, 'LIVE');
    for (let i = 0; i < 6; i++) await say(w.anon, w.blogId, i % 2 ? post.id : other.id, `buy pills ${i}`, ADDRESS);
    await say(w.anon, w.blogId, post.id, 'a real reader', '198.51.100.1');
    await say(w.reader, w.blogId, post.id, 'buy pills from a reader');
    await expectError(w.reader.comments.moderate({ blogId: w.blogId, filter: {}, action: 'delete' }), 403, 'forbidden');
    const spam = await w.admin.comments.moderate({
      blogId: w.blogId,
      filter: { status: 'PENDING', clientAddress: ADDRESS },
      action: 'spam',
    });
    expect(spam).toEqual({ handled: 6 });
    const byAuthor = await w.admin.comments.moderate({
      blogId: w.blogId,
      filter: { authorId: 'reader', contains: 'PILLS' },
      action: 'approve',
    });
    expect(byAuthor.handled).toBe(1);
    const statuses = async () =>
      (
        await w.service.comments.listByBlog({ blogId: w.blogId, status: ['LIVE', 'PENDING', 'SPAM'], maxResults: 50 })
      ).items
        .map((c) => `${c.status}:${c.content}`)
        .sort();
    expect(await statuses()).toEqual([
      'LIVE:buy pills from a reader',
      'PENDING:a real reader',
      ...[0, 1, 2, 3, 4, 5].map((i) => `SPAM:buy pills ${i}`),
    ]);
    // "All spam" in one action; the posts' counters follow.
    expect(await w.admin.comments.moderate({ blogId: w.blogId, filter: { status: 'SPAM' }, action: 'delete' })).toEqual(
      {
        handled: 6,
      },
    );
    expect(await statuses()).toEqual(['LIVE:buy pills from a reader', 'PENDING:a real reader']);
    const p = (await w.service.posts.get({ blogId: w.blogId, postId: post.id })) as Wire;
    expect(p.replies.totalItems).toBe('1');
    // Nothing matches: nothing written.
    await expectNoWrite(w, () =>
      w.admin.comments.moderate({ blogId: w.blogId, filter: { contains: 'no such words' }, action: 'delete' }),
    );
  });
});

describe('comments.moderate on memory', () => {
  it('reads a bounded number of records a call, whatever else the blog holds', async () => {
    const driver = countingDriver(memoryDriver());
    const w = await world(driver, { commentLimits: { anonymous: { everySeconds: 1, burst: 10_000 } } });
    const post = await makePost(w, 'LIVE');
    const say = (content: string, clientAddress: string) =>
      w.anon.comments.insert({ blogId: w.blogId, postId: post.id, body: { content }, clientAddress });
    for (let i = 0; i < 2200; i++) await say(`c ${i}`, `10.0.${i >> 8}.${i & 255}`);
    for (let i = 0; i < 3; i++) await say(`needle ${i}`, '203.0.113.5');
    // By address: the sender's own comments are all the walk reads.
    driver.reset();
    const one = await w.admin.comments.moderate({
      blogId: w.blogId,
      filter: { clientAddress: '203.0.113.5' },
      action: 'spam',
    });
    expect(one).toEqual({ handled: 3 });
    expect(driver.handedOut).toBeLessThan(30);
    // By text: each call reads at most its rounds of 501 index entries and their documents (and what it writes),
    // then goes on with a token, however many comments the blog holds.
    let handled = 0;
    let calls = 0;
    let pageToken: string | undefined;
    do {
      driver.reset();
      const r = await w.admin.comments.moderate({
        blogId: w.blogId,
        filter: { contains: 'NEEDLE' },
        action: 'delete',
        ...(pageToken ? { pageToken } : {}),
      });
      expect(driver.handedOut).toBeLessThanOrEqual(2 * FILTER_ROUNDS * 501 + 10);
      handled += r.handled;
      pageToken = r.nextPageToken;
      calls++;
    } while (pageToken);
    expect(handled).toBe(3);
    expect(calls).toBeGreaterThan(1);
  }, 120_000);

  it('handles at most 500 a call and goes on with its token', async () => {
    const w = await world(DRIVERS[0]![1]());
    const post = await makePost(w, 'LIVE');
    for (let i = 0; i < 510; i++)
      await w.anon.comments.insert({ blogId: w.blogId, postId: post.id, body: { content: `c ${i}` } });
    const first = await w.admin.comments.moderate({
      blogId: w.blogId,
      filter: { status: 'PENDING' },
      action: 'delete',
    });
    expect(first.handled).toBe(500);
    expect(first.nextPageToken).toBeDefined();
    const second = await w.admin.comments.moderate({
      blogId: w.blogId,
      filter: { status: 'PENDING' },
      action: 'delete',
      pageToken: first.nextPageToken!,
    });
    expect(second).toEqual({ handled: 10 });
    await expectError(
      w.admin.comments.moderate({
        blogId: w.blogId,
        filter: { status: 'SPAM' },
        action: 'delete',
        pageToken: first.nextPageToken!,
      }),
      400,
    );
  }, 120_000);
});
