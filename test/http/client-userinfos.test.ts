// Google's own Blogger client (@googleapis/blogger) against a real node:http server for the methods of
// issue 15: blogUserInfos.get, postUserInfos.get/list, pageViews.get and listByUser's fetchUserInfo.
import { blogger, type blogger_v3 } from '@googleapis/blogger';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, READER_TOKEN, bearer, startFixture, type Fixture } from './fixture.js';

let f: Fixture;
let api: blogger_v3.Blogger; // the blog's admin
let reader: blogger_v3.Blogger; // signed in, no role in the blog
let postId: string;

beforeAll(async () => {
  f = await startFixture();
  const common = { version: 'v3' as const, rootUrl: `${f.base}/`, retry: false };
  api = blogger({ ...common, headers: bearer(ADMIN_TOKEN) });
  reader = blogger({ ...common, headers: bearer(READER_TOKEN) });
  postId = (await f.service.posts.insert({ blogId: f.blogId, body: { title: 'Hello', content: '<p>hi</p>' } })).id;
  await f.service.posts.insert({ blogId: f.blogId, body: { title: 'Second', content: '<p>two</p>' } });
});
afterAll(() => f.close());

async function status(call: Promise<unknown>): Promise<number> {
  try {
    await call;
  } catch (e) {
    return (e as { response: { status: number } }).response.status;
  }
  throw new Error('expected the call to fail');
}

describe('user infos and page views through Google client', () => {
  it('blogUserInfos.get', async () => {
    const res = await api.blogUserInfos.get({ userId: 'self', blogId: f.blogId, maxPosts: 1 });
    expect(res.status).toBe(200);
    expect(res.data).toMatchObject({
      kind: 'blogger#blogUserInfo',
      blog: { kind: 'blogger#blog', id: f.blogId },
      blog_user_info: {
        kind: 'blogger#blogPerUserInfo',
        userId: f.adminId,
        blogId: f.blogId,
        hasAdminAccess: true,
        role: 'ADMIN',
      },
    });
    expect(res.data.blog!.posts!.items).toHaveLength(1);
    expect(await status(reader.blogUserInfos.get({ userId: f.adminId, blogId: f.blogId }))).toBe(403);
  });

  it('postUserInfos.get', async () => {
    const res = await reader.postUserInfos.get({ userId: 'self', blogId: f.blogId, postId, maxComments: 1 });
    expect(res.data).toMatchObject({
      kind: 'blogger#postUserInfo',
      post: { kind: 'blogger#post', id: postId, title: 'Hello' },
      post_user_info: {
        kind: 'blogger#postPerUserInfo',
        userId: f.readerId,
        blogId: f.blogId,
        postId,
        hasEditAccess: false,
      },
    });
  });

  it('postUserInfos.list', async () => {
    const first = await api.postUserInfos.list({
      userId: 'self',
      blogId: f.blogId,
      maxResults: 1,
      orderBy: 'PUBLISHED',
      view: 'ADMIN',
      status: ['LIVE'],
    });
    expect(first.data.kind).toBe('blogger#postList');
    expect(first.data.items).toHaveLength(1);
    expect(first.data.items![0]!.post_user_info).toMatchObject({
      kind: 'blogger#postPerUserInfo',
      hasEditAccess: true,
    });
    expect(first.data.items![0]!.post!.content).toBeUndefined();
    const next = await api.postUserInfos.list({
      userId: 'self',
      blogId: f.blogId,
      maxResults: 1,
      pageToken: first.data.nextPageToken!,
      fetchBodies: true,
    });
    expect(next.data.items![0]!.post!.content).toBe('<p>hi</p>');
  });

  it('pageViews.get', async () => {
    await f.service.pageViews.record({ blogId: f.blogId });
    await f.service.pageViews.record({ blogId: f.blogId, postId });
    const res = await api.pageViews.get({ blogId: f.blogId, range: ['all', '7DAYS'] });
    expect(res.data).toEqual({
      kind: 'blogger#page_views',
      blogId: f.blogId,
      counts: [
        { timeRange: 'ALL_TIME', count: '2' },
        { timeRange: 'SEVEN_DAYS', count: '2' },
      ],
    });
    expect(await status(reader.pageViews.get({ blogId: f.blogId }))).toBe(403);
    const anonymous = blogger({ version: 'v3', rootUrl: `${f.base}/`, retry: false });
    expect(await status(anonymous.pageViews.get({ blogId: f.blogId }))).toBe(401);
  });

  it('blogs.listByUser with fetchUserInfo', async () => {
    const res = await api.blogs.listByUser({ userId: 'self', fetchUserInfo: true });
    expect(res.data.blogUserInfos).toEqual([
      expect.objectContaining({
        kind: 'blogger#blogUserInfo',
        blog_user_info: expect.objectContaining({ blogId: f.blogId, role: 'ADMIN' }),
      }),
    ]);
  });
});
