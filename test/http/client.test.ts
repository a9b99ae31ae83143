// Google's own Blogger client (@googleapis/blogger) against the helper on a real node:http server: every one
// of the 28 interface operations with its parameters, the documented shapes, and errors as Google errors.
import { blogger, type blogger_v3 } from '@googleapis/blogger';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, BLOG_URL, bearer, jsonHeaders, startFixture, type Fixture } from './fixture.js';

let f: Fixture;
let api: blogger_v3.Blogger; // signed in as the blog's admin
let anon: blogger_v3.Blogger; // no credentials

beforeAll(async () => {
  f = await startFixture();
  const common = { version: 'v3' as const, rootUrl: `${f.base}/`, retry: false };
  api = blogger({ ...common, headers: bearer(ADMIN_TOKEN) });
  anon = blogger(common);
});
afterAll(() => f.close());

/** The Google error a failed call rejects with: HTTP status and `errors[0]` of the body. */
async function googleError(call: Promise<unknown>) {
  try {
    await call;
  } catch (e) {
    const err = e as {
      name?: string;
      status?: number;
      response?: {
        status: number;
        data: { error: { code: number; status: string; errors: Array<{ reason: string; location?: string }> } };
      };
    };
    expect((e as object).constructor.name).toBe('GaxiosError');
    const body = err.response!.data.error;
    expect(body.code).toBe(err.response!.status);
    return {
      code: err.response!.status,
      reason: body.errors[0]!.reason,
      location: body.errors[0]!.location,
      status: body.status,
    };
  }
  throw new Error('expected the call to fail');
}

const isoMs = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

describe('blogs and users', () => {
  it('blogs.get with maxPosts and view', async () => {
    await api.posts.insert({ blogId: f.blogId, requestBody: { title: 'Seed post', content: '<p>seed</p>' } });
    const res = await api.blogs.get({ blogId: f.blogId, maxPosts: 1, view: 'ADMIN' });
    expect(res.status).toBe(200);
    expect(res.data).toMatchObject({
      kind: 'blogger#blog',
      id: f.blogId,
      name: 'HTTP tests',
      url: BLOG_URL,
      selfLink: `${f.api}/blogs/${f.blogId}`,
    });
    expect(typeof res.data.posts!.totalItems).toBe('number');
    expect(res.data.posts!.items).toHaveLength(1);
    expect(res.data.published).toMatch(isoMs);
  });

  it('blogs.getByUrl ignores a missing trailing slash', async () => {
    const res = await anon.blogs.getByUrl({ url: BLOG_URL.slice(0, -1), view: 'READER' });
    expect(res.data.id).toBe(f.blogId);
  });

  it('blogs.listByUser for self with repeated role and status', async () => {
    const res = await api.blogs.listByUser({
      userId: 'self',
      role: ['ADMIN', 'AUTHOR'],
      status: ['LIVE'],
      view: 'ADMIN',
    });
    expect(res.data.kind).toBe('blogger#blogList');
    expect(res.data.items!.map((b) => b.id)).toContain(f.blogId);
  });

  it('users.get self and by id', async () => {
    const self = await api.users.get({ userId: 'self' });
    expect(self.data).toMatchObject({
      kind: 'blogger#user',
      id: f.adminId,
      displayName: 'Ada Admin',
      selfLink: `${f.api}/users/${f.adminId}`,
    });
    expect((await anon.users.get({ userId: f.adminId })).data.id).toBe(f.adminId);
    expect(await googleError(anon.users.get({ userId: 'self' }))).toMatchObject({ code: 401, reason: 'authError' });
  });
});

describe('posts', () => {
  let draftId: string;
  let liveId: string;
  let livePath: string;

  it('posts.insert as draft and live, with fetchImages', async () => {
    const draft = await api.posts.insert({
      blogId: f.blogId,
      isDraft: true,
      requestBody: { title: 'Draft about zebras', content: '<p>striped zebras</p>', labels: ['animals'] },
    });
    expect(draft.status).toBe(200);
    expect(draft.data).toMatchObject({
      kind: 'blogger#post',
      status: 'DRAFT',
      title: 'Draft about zebras',
      labels: ['animals'],
      blog: { id: f.blogId },
    });
    expect(draft.headers.etag).toBe(draft.data.etag);
    expect(draft.data.url).toBeUndefined();
    draftId = draft.data.id!;

    const live = await api.posts.insert({
      blogId: f.blogId,
      fetchImages: true,
      fetchBody: true,
      requestBody: {
        title: 'Live about lions',
        content: '<p>lions <img src="https://img.example/lion.png"></p>',
        labels: ['animals', 'cats'],
      },
    });
    expect(live.data).toMatchObject({
      status: 'LIVE',
      images: [{ url: 'https://img.example/lion.png' }],
      author: { id: f.adminId, displayName: 'Ada Admin' },
    });
    expect(live.data.replies).toMatchObject({ totalItems: '0' });
    expect(live.data.url).toMatch(/^https:\/\/http-tests\.blogcore\.example\/\d{4}\/\d\d\/live-about-lions\.html$/);
    liveId = live.data.id!;
    livePath = new URL(live.data.url!).pathname;
  });

  it('posts.list with repeated status, view, paging and fetchBodies=false', async () => {
    const first = await api.posts.list({
      blogId: f.blogId,
      status: ['LIVE', 'DRAFT'],
      view: 'AUTHOR',
      maxResults: 2,
      fetchBodies: false,
    });
    expect(first.data).toMatchObject({ kind: 'blogger#postList' });
    expect(first.headers.etag).toBe(first.data.etag);
    expect(first.data.items).toHaveLength(2);
    expect(first.data.items!.every((p) => p.content === undefined)).toBe(true);
    expect(first.data.nextPageToken).toBeTruthy();
    const second = await api.posts.list({
      blogId: f.blogId,
      status: ['LIVE', 'DRAFT'],
      view: 'AUTHOR',
      maxResults: 2,
      pageToken: first.data.nextPageToken!,
    });
    const ids = [...first.data.items!, ...second.data.items!].map((p) => p.id);
    expect(new Set(ids).size).toBe(3);
    expect(ids).toContain(draftId);
  });

  it('posts.list with labels, orderBy, sortOption, dates and fetchImages', async () => {
    const res = await anon.posts.list({
      blogId: f.blogId,
      labels: 'cats',
      orderBy: 'UPDATED',
      sortOption: 'ASCENDING',
      startDate: '2000-01-01T00:00:00Z',
      endDate: '2999-01-01T00:00:00Z',
      fetchImages: true,
    });
    expect(res.data.items!.map((p) => p.id)).toEqual([liveId]);
    expect(res.data.items![0]!.status).toBeUndefined(); // status is for AUTHOR view and above
  });

  it('posts.search', async () => {
    const res = await anon.posts.search({ blogId: f.blogId, q: 'lions', fetchBodies: true, orderBy: 'PUBLISHED' });
    expect(res.data.kind).toBe('blogger#postList');
    expect(res.data.items!.map((p) => p.id)).toEqual([liveId]);
    const drafts = await api.posts.search({ blogId: f.blogId, q: 'zebras' });
    expect(drafts.data.items ?? []).toEqual([]); // search finds LIVE posts unless status asks for more
  });

  it('posts.get with fetchBody, fetchImages, maxComments and view', async () => {
    const res = await api.posts.get({
      blogId: f.blogId,
      postId: liveId,
      fetchBody: false,
      fetchImages: true,
      maxComments: 5,
      view: 'ADMIN',
    });
    expect(res.data).toMatchObject({
      id: liveId,
      status: 'LIVE',
      selfLink: `${f.api}/blogs/${f.blogId}/posts/${liveId}`,
    });
    expect(res.data.content).toBeUndefined();
    expect(res.headers.etag).toBe(res.data.etag);
    expect(await googleError(anon.posts.get({ blogId: f.blogId, postId: draftId }))).toMatchObject({
      code: 404,
      reason: 'notFound',
    });
  });

  it('conditional requests through the client: If-None-Match → 304, stale If-Match → 412', async () => {
    const first = await anon.posts.get({ blogId: f.blogId, postId: liveId });
    const again = await anon.posts.get(
      { blogId: f.blogId, postId: liveId },
      { headers: { 'If-None-Match': first.data.etag! } },
    );
    expect(again.status).toBe(304);
    expect(
      await googleError(
        api.posts.patch(
          { blogId: f.blogId, postId: liveId, requestBody: { title: 'Lost update' } },
          { headers: { 'If-Match': '"stale"' } },
        ),
      ),
    ).toMatchObject({ code: 412, reason: 'conditionNotMet' });
    const patched = await api.posts.patch(
      { blogId: f.blogId, postId: liveId, requestBody: { labels: ['animals', 'cats', 'big'] } },
      { headers: { 'If-Match': first.data.etag! } },
    );
    expect(patched.data.labels).toEqual(['animals', 'cats', 'big']);
  });

  it('posts.getByPath', async () => {
    const res = await anon.posts.getByPath({ blogId: f.blogId, path: livePath, maxComments: 1, view: 'READER' });
    expect(res.data.id).toBe(liveId);
  });

  it('posts.patch and posts.update (with publish)', async () => {
    const patched = await api.posts.patch({
      blogId: f.blogId,
      postId: draftId,
      requestBody: { title: 'Zebras, revised' },
      fetchBody: true,
      maxComments: 0,
    });
    expect(patched.data).toMatchObject({ title: 'Zebras, revised', content: '<p>striped zebras</p>', status: 'DRAFT' });
    const updated = await api.posts.update({
      blogId: f.blogId,
      postId: draftId,
      publish: true,
      fetchImages: false,
      requestBody: { title: 'Zebras, final', content: '<p>done</p>', labels: ['animals'] },
    });
    expect(updated.data).toMatchObject({ title: 'Zebras, final', content: '<p>done</p>', status: 'LIVE' });
    expect(updated.data.etag).not.toBe(patched.data.etag);
  });

  it('posts.revert and posts.publish with publishDate', async () => {
    const reverted = await api.posts.revert({ blogId: f.blogId, postId: draftId });
    expect(reverted.data.status).toBe('DRAFT');
    const when = new Date(Date.now() + 86_400_000).toISOString();
    const scheduled = await api.posts.publish({ blogId: f.blogId, postId: draftId, publishDate: when });
    expect(scheduled.data.status).toBe('SCHEDULED');
    expect(Date.parse(scheduled.data.published!)).toBe(Date.parse(when));
  });

  it('posts.delete to the trash, then for good', async () => {
    const trashed = await api.posts.delete({ blogId: f.blogId, postId: draftId, useTrash: true });
    expect(trashed.status).toBe(204);
    expect(trashed.data).toBeFalsy();
    const seen = await api.posts.get({ blogId: f.blogId, postId: draftId, view: 'ADMIN' });
    expect(seen.data).toMatchObject({ status: 'SOFT_TRASHED' });
    expect(seen.data.trashed).toMatch(isoMs);
    expect((await api.posts.delete({ blogId: f.blogId, postId: draftId })).status).toBe(204);
    expect(await googleError(api.posts.get({ blogId: f.blogId, postId: draftId }))).toMatchObject({
      code: 404,
      reason: 'notFound',
      status: 'NOT_FOUND',
    });
  });

  it('errors reach the client as Google errors', async () => {
    expect(await googleError(api.posts.list({ blogId: f.blogId, maxResults: 501 }))).toMatchObject({
      code: 400,
      reason: 'invalid',
      location: 'maxResults',
    });
    expect(await googleError(api.posts.list({ blogId: f.blogId, orderBy: 'SIDEWAYS' }))).toMatchObject({
      code: 400,
      reason: 'invalid',
      location: 'orderBy',
    });
    expect(
      await googleError(anon.posts.insert({ blogId: f.blogId, requestBody: { title: 'x', content: 'y' } })),
    ).toMatchObject({
      code: 403,
      reason: 'forbidden',
    });
    expect(await googleError(anon.posts.list({ blogId: f.blogId, status: ['DRAFT'] }))).toMatchObject({
      code: 403,
      reason: 'forbidden',
    });
    expect(await googleError(api.blogs.get({ blogId: 'no-such-blog' }))).toMatchObject({
      code: 404,
      reason: 'notFound',
    });
    expect(
      await googleError(
        api.posts.publish({ blogId: f.blogId, postId: liveId, publishDate: new Date(Date.now() + 1e9).toISOString() }),
      ),
    ).toMatchObject({
      code: 409,
      reason: 'conflict',
    });
  });
});

describe('pages', () => {
  let pageId: string;

  it('pages.insert, get, list', async () => {
    const draft = await api.pages.insert({
      blogId: f.blogId,
      isDraft: true,
      requestBody: { title: 'About us', content: '<p>about</p>' },
    });
    expect(draft.data).toMatchObject({ kind: 'blogger#page', status: 'DRAFT', title: 'About us' });
    expect(draft.headers.etag).toBe(draft.data.etag);
    pageId = draft.data.id!;
    const got = await api.pages.get({ blogId: f.blogId, pageId, view: 'AUTHOR' });
    expect(got.data.id).toBe(pageId);
    const list = await api.pages.list({
      blogId: f.blogId,
      status: ['DRAFT', 'LIVE'],
      view: 'ADMIN',
      maxResults: 5,
      fetchBodies: false,
    });
    expect(list.data.kind).toBe('blogger#pageList');
    expect(list.data.items!.map((p) => p.id)).toContain(pageId);
    expect(list.data.items!.every((p) => p.content === undefined)).toBe(true);
    expect((await anon.pages.list({ blogId: f.blogId })).data.items ?? []).toEqual([]);
  });

  it('pages.patch, update, publish, revert, delete', async () => {
    expect(
      (await api.pages.patch({ blogId: f.blogId, pageId, requestBody: { content: '<p>patched</p>' } })).data,
    ).toMatchObject({
      title: 'About us',
      content: '<p>patched</p>',
    });
    expect(
      (await api.pages.update({ blogId: f.blogId, pageId, requestBody: { title: 'About', content: '<p>full</p>' } }))
        .data,
    ).toMatchObject({
      title: 'About',
      status: 'DRAFT',
    });
    const live = await api.pages.publish({ blogId: f.blogId, pageId });
    expect(live.data).toMatchObject({ status: 'LIVE', url: `${BLOG_URL}p/about.html` });
    expect((await api.pages.revert({ blogId: f.blogId, pageId })).data.status).toBe('DRAFT');
    await api.pages.update({
      blogId: f.blogId,
      pageId,
      publish: true,
      requestBody: { title: 'About', content: '<p>again</p>' },
    });
    expect((await api.pages.delete({ blogId: f.blogId, pageId, useTrash: true })).status).toBe(204);
    expect((await api.pages.get({ blogId: f.blogId, pageId, view: 'ADMIN' })).data.status).toBe('SOFT_TRASHED');
    expect((await api.pages.delete({ blogId: f.blogId, pageId })).status).toBe(204);
    expect(await googleError(api.pages.get({ blogId: f.blogId, pageId }))).toMatchObject({
      code: 404,
      reason: 'notFound',
    });
  });
});

describe('comments', () => {
  let postId: string;
  let commentId: string;

  it('a reader comment (POST .../comments) waits for moderation', async () => {
    postId = (
      await api.posts.insert({ blogId: f.blogId, requestBody: { title: 'Open for comments', content: '<p>talk</p>' } })
    ).data.id!;
    const res = await fetch(`${f.api}/blogs/${f.blogId}/posts/${postId}/comments`, {
      method: 'POST',
      headers: jsonHeaders(),
      body: JSON.stringify({ content: 'First! <script>alert(1)</script>', author: { displayName: 'Visitor' } }),
    });
    expect(res.status).toBe(200);
    const comment = (await res.json()) as {
      id: string;
      kind: string;
      content: string;
      author: { displayName: string };
    };
    expect(comment).toMatchObject({ kind: 'blogger#comment', author: { displayName: 'Visitor' } });
    expect(comment.content).not.toContain('<script>');
    commentId = comment.id;
  });

  it('comments.list, listByBlog and get with status and view', async () => {
    const pending = await api.comments.list({
      blogId: f.blogId,
      postId,
      status: 'PENDING',
      view: 'ADMIN',
      maxResults: 10,
      fetchBodies: true,
      startDate: '2000-01-01T00:00:00Z',
    });
    expect(pending.data.kind).toBe('blogger#commentList');
    expect(pending.headers.etag).toBe(pending.data.etag);
    expect(pending.data.items!.map((c) => [c.id, c.status])).toEqual([[commentId, 'PENDING']]);
    expect((await anon.comments.list({ blogId: f.blogId, postId })).data.items ?? []).toEqual([]);
    const byBlog = await api.comments.listByBlog({
      blogId: f.blogId,
      status: ['PENDING', 'LIVE'],
      maxResults: 5,
      fetchBodies: false,
      endDate: '2999-01-01T00:00:00Z',
    });
    expect(byBlog.data.items!.map((c) => c.id)).toContain(commentId);
    const got = await api.comments.get({ blogId: f.blogId, postId, commentId, view: 'ADMIN' });
    expect(got.data).toMatchObject({ id: commentId, status: 'PENDING', post: { id: postId }, blog: { id: f.blogId } });
    expect(await googleError(anon.comments.get({ blogId: f.blogId, postId, commentId }))).toMatchObject({ code: 404 });
  });

  it('comments.approve, markAsSpam, removeContent, delete', async () => {
    expect((await api.comments.approve({ blogId: f.blogId, postId, commentId })).data.status).toBe('LIVE');
    expect((await anon.comments.get({ blogId: f.blogId, postId, commentId })).data.id).toBe(commentId);
    expect((await api.comments.markAsSpam({ blogId: f.blogId, postId, commentId })).data.status).toBe('SPAM');
    const emptied = await api.comments.removeContent({ blogId: f.blogId, postId, commentId });
    expect(emptied.data).toMatchObject({ status: 'EMPTIED', content: '' });
    expect((await api.comments.delete({ blogId: f.blogId, postId, commentId })).status).toBe(204);
    expect(await googleError(api.comments.get({ blogId: f.blogId, postId, commentId }))).toMatchObject({
      code: 404,
      reason: 'notFound',
    });
    expect(await googleError(anon.comments.approve({ blogId: f.blogId, postId, commentId: 'nope' }))).toMatchObject({
      code: 403,
      reason: 'forbidden',
    });
  });
});
