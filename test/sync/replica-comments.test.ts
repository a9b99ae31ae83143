/**
 * Comments through a replica: a reader's comment the server keeps PENDING is PENDING here too (never shown as
 * LIVE), and follows the server when it is approved or marked as spam; an admin's moderation done offline
 * (approve, spam, remove content, delete) reaches the server on reconnect and nothing is left waiting.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import type { BlogService } from '../../src/index.js';
import { caught, closedAfterEach, opener, serverFor, SETUPS } from './replicas.js';
import type { SyncServer } from './server.js';

let s: SyncServer;
const opened = closedAfterEach(() => s);

const ALL = ['LIVE', 'EMPTIED', 'PENDING', 'SPAM'] as const;

describe.each(SETUPS)('local store on $local, server on $store', ({ local: kind, store }) => {
  beforeEach(async () => {
    s = await serverFor(store);
  });
  const open = opener(opened, () => s, kind);
  /** Every comment of a post in a service, whatever its status, as [content, status]. */
  const comments = async (service: BlogService, postId: string) =>
    (await service.comments.list({ blogId: s.blogId, postId, status: [...ALL] })).items.map((c) => [
      c.content,
      c.status,
    ]);
  const liveHere = async (local: BlogService, postId: string) =>
    (await local.comments.list({ blogId: s.blogId, postId })).items.map((c) => c.content);

  it("a reader's comment the server keeps PENDING is PENDING here, not LIVE; approved or marked as spam there, it follows", async () => {
    const post = await s.as('author').posts.insert({ blogId: s.blogId, body: { title: 'Open', content: 'x' } });
    const { replica, local, net } = open('reader');
    await replica.sync();
    net.offline = true;
    const made = await local.comments.insert({
      blogId: s.blogId,
      postId: post.id!,
      body: { content: 'kept for moderation' },
    });
    const spam = await local.comments.insert({ blogId: s.blogId, postId: post.id!, body: { content: 'buy now' } });
    net.offline = false;
    expect(await replica.sync()).toMatchObject({ pushed: 2, conflicts: 0 });
    const there = (await s.service.comments.list({ blogId: s.blogId, postId: post.id!, status: ['PENDING'] })).items;
    expect(there.map((c) => c.content)).toEqual(['kept for moderation', 'buy now']);
    // Stored as the server answered: PENDING under its server id, out of the LIVE list and the post's count.
    expect(await comments(local, post.id!)).toEqual([
      ['kept for moderation', 'PENDING'],
      ['buy now', 'PENDING'],
    ]);
    expect(await liveHere(local, post.id!)).toEqual([]);
    expect(await caught(local.comments.get({ blogId: s.blogId, postId: post.id!, commentId: made.id! }))).toMatchObject(
      { code: 404 },
    );
    // The next pull (a PENDING comment is not in a reader's pull) leaves it so.
    await replica.sync();
    expect(await liveHere(local, post.id!)).toEqual([]);
    expect((await local.posts.get({ blogId: s.blogId, postId: post.id! })).replies?.totalItems).toBe('0');
    expect(await replica.pending()).toEqual([]);
    // The admin approves one and marks the other as spam: the reader's replica shows the first, drops the second.
    await s.service.comments.approve({ blogId: s.blogId, postId: post.id!, commentId: there[0]!.id });
    await s.service.comments.markAsSpam({ blogId: s.blogId, postId: post.id!, commentId: there[1]!.id });
    await replica.sync();
    expect(await comments(local, post.id!)).toEqual([['kept for moderation', 'LIVE']]);
    expect((await local.posts.get({ blogId: s.blogId, postId: post.id! })).replies?.totalItems).toBe('1');
    expect(spam.id).not.toBe(there[1]!.id);
    expect(await replica.pending()).toEqual([]);
  });

  it('moderation done offline by an admin (approve, spam, remove content, delete) reaches the server on reconnect', async () => {
    const post = await s.as('author').posts.insert({ blogId: s.blogId, body: { title: 'Busy', content: 'x' } });
    const c = async (content: string) =>
      (await s.as('reader').comments.insert({ blogId: s.blogId, postId: post.id!, body: { content } })).id!;
    const ids = {
      approve: await c('good one'),
      spam: await c('spam one'),
      empty: await c('rude one'),
      gone: await c('delete me'),
    };
    const liveOne = (
      await s.as('author').comments.insert({ blogId: s.blogId, postId: post.id!, body: { content: 'live to spam' } })
    ).id!;
    const { replica, local, net } = open('admin');
    await replica.sync();
    expect(await comments(local, post.id!)).toEqual([
      ['good one', 'PENDING'],
      ['spam one', 'PENDING'],
      ['rude one', 'PENDING'],
      ['delete me', 'PENDING'],
      ['live to spam', 'LIVE'],
    ]);
    net.offline = true;
    const key = (commentId: string) => ({ blogId: s.blogId, postId: post.id!, commentId });
    await local.comments.approve(key(ids.approve));
    await local.comments.markAsSpam(key(ids.spam));
    await local.comments.removeContent(key(ids.empty));
    await local.comments.delete(key(ids.gone));
    await local.comments.markAsSpam(key(liveOne));
    expect(new Set((await replica.pending()).map((p) => `${p.id}:${p.action}`))).toEqual(
      new Set([
        `${ids.approve}:update`,
        `${ids.spam}:update`,
        `${ids.empty}:update`,
        `${ids.gone}:delete`,
        `${liveOne}:update`,
      ]),
    );
    net.offline = false;
    net.log.length = 0;
    expect(await replica.sync()).toEqual({ pulled: expect.any(Number), pushed: 5, conflicts: 0 });
    const path = (id: string) => `/blogs/${s.blogId}/posts/${post.id}/comments/${id}`;
    expect(new Set(net.log.filter((l) => !l.startsWith('GET ')))).toEqual(
      new Set([
        `POST ${path(ids.approve)}/approve`,
        `POST ${path(ids.spam)}/spam`,
        `POST ${path(ids.empty)}/removecontent`,
        `DELETE ${path(ids.gone)}`,
        `POST ${path(liveOne)}/spam`,
      ]),
    );
    const expected = [
      ['good one', 'LIVE'],
      ['spam one', 'SPAM'],
      ['', 'EMPTIED'],
      ['live to spam', 'SPAM'],
    ];
    expect(await comments(s.service, post.id!)).toEqual(expected);
    expect(await comments(local, post.id!)).toEqual(expected);
    // The post's reader-visible count agrees on both sides.
    const count = async (service: BlogService) =>
      (await service.posts.get({ blogId: s.blogId, postId: post.id! })).replies?.totalItems;
    expect(await count(local)).toBe(await count(s.service));
    expect(await replica.pending()).toEqual([]);
    expect(await replica.sync()).toEqual({ pulled: expect.any(Number), pushed: 0, conflicts: 0 });
    expect(await replica.conflicts()).toEqual([]);
  });
});
