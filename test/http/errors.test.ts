// Raw fetch against the helper: every HTTP-level error path, auth, conditional requests, partial responses,
// CORS, and that a rejected request changes nothing stored.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, READER_TOKEN, bearer, jsonHeaders, startFixture, type Fixture } from './fixture.js';

let f: Fixture;
let postId: string;
let postsUrl: string;

beforeAll(async () => {
  f = await startFixture({ maxBodyBytes: 4096, cors: { origin: ['https://editor.example'] } });
  postsUrl = `${f.api}/blogs/${f.blogId}/posts`;
  const res = await fetch(postsUrl, {
    method: 'POST',
    headers: jsonHeaders(ADMIN_TOKEN),
    body: JSON.stringify({ title: 'First post', content: '<p>one</p>' }),
  });
  postId = ((await res.json()) as { id: string }).id;
});
afterAll(() => f.close());

interface ErrorBody {
  error: {
    code: number;
    message: string;
    status: string;
    errors: Array<{ domain: string; reason: string; message: string; location?: string; locationType?: string }>;
  };
}

/** Status, reason and location of a Google error response; checks the body's shape on the way. */
async function failure(res: Response) {
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  const body = (await res.json()) as ErrorBody;
  expect(body.error.code).toBe(res.status);
  expect(body.error.errors[0]!.domain).toBe('global');
  expect(typeof body.error.message).toBe('string');
  expect(typeof body.error.status).toBe('string');
  expect(JSON.stringify(body)).not.toMatch(/\bat .*\.(ts|js):\d+/); // never a stack trace
  const e = body.error.errors[0]!;
  return {
    status: res.status,
    reason: e.reason,
    location: e.location,
    locationType: e.locationType,
    message: body.error.message,
  };
}

describe('routing', () => {
  it('404 notFound for unknown routes, inside and outside /v3', async () => {
    expect(await failure(await fetch(`${f.api}/blogs/${f.blogId}/stats`))).toMatchObject({
      status: 404,
      reason: 'notFound',
    });
    expect(await failure(await fetch(`${f.base}/elsewhere`))).toMatchObject({ status: 404, reason: 'notFound' });
    expect(await failure(await fetch(`${f.api}/blogs`))).toMatchObject({ status: 404 });
  });

  it('405 with Allow for a known path and the wrong method', async () => {
    const res = await fetch(`${f.api}/blogs/${f.blogId}/pageviews`, { method: 'DELETE' });
    expect(res.headers.get('allow')).toBe('GET, HEAD');
    expect(await failure(res)).toMatchObject({ status: 405, reason: 'methodNotAllowed' });
    const search = await fetch(`${postsUrl}/search`, { method: 'POST', headers: jsonHeaders(ADMIN_TOKEN), body: '{}' });
    expect(search.status).toBe(405);
    expect(search.headers.get('allow')).toBe('GET, HEAD');
    const post = await fetch(`${postsUrl}/${postId}`, { method: 'POST' });
    expect(post.headers.get('allow')).toBe('GET, PUT, PATCH, DELETE, HEAD');
    expect(post.status).toBe(405);
  });

  it('HEAD answers like GET without a body', async () => {
    const res = await fetch(`${postsUrl}/${postId}`, { method: 'HEAD' });
    expect(res.status).toBe(200);
    expect(res.headers.get('etag')).toMatch(/^"/);
    expect(await res.text()).toBe('');
  });

  it('decodes percent-encoded ids and rejects malformed encoding', async () => {
    expect(
      (await fetch(`${f.api}/blogs/${encodeURIComponent(f.blogId)}/posts/${encodeURIComponent(postId)}`)).status,
    ).toBe(200);
    expect(await failure(await fetch(`${f.api}/blogs/%E0%A4%A/posts`))).toMatchObject({
      status: 400,
      reason: 'invalid',
    });
    expect(await failure(await fetch(`${f.api}/blogs/no%2Fsuch/posts`))).toMatchObject({
      status: 404,
      reason: 'notFound',
    });
  });
});

describe('parameters', () => {
  it('400 invalid naming the parameter for bad integers, booleans, enums and unknown names', async () => {
    const cases: Array<[string, string]> = [
      ['maxResults=abc', 'maxResults'],
      ['maxResults=0', 'maxResults'],
      ['maxResults=501', 'maxResults'],
      ['fetchBodies=perhaps', 'fetchBodies'],
      ['orderBy=sideways', 'orderBy'],
      ['status=LIVE,ARCHIVED', 'status'],
      ['startDate=yesterday', 'startDate'],
      ['pageToken=garbage', 'pageToken'],
      ['colour=blue', 'colour'],
      // Names of Object.prototype members are unknown like any other.
      ['__proto__=DRAFT', '__proto__'],
      ['constructor=x', 'constructor'],
      ['toString=x', 'toString'],
      ['maxResults=1&maxResults=2', 'maxResults'],
      ['alt=media', 'alt'],
    ];
    for (const [query, location] of cases) {
      const e = await failure(await fetch(`${postsUrl}?${query}`));
      expect([e.status, e.reason], query).toEqual([400, 'invalid']);
      // The service may name the element of a list parameter (status.1).
      expect(e.location?.split('.')[0], query).toBe(location);
    }
  });

  it('accepts lower-case enums, comma lists, repeated keys and the global parameters', async () => {
    const res = await fetch(
      `${postsUrl}?status=live&status=draft,scheduled&view=author&orderBy=updated&key=abc&alt=json&quotaUser=u1&%24.xgafv=2&callback=cb`,
      {
        headers: bearer(ADMIN_TOKEN),
      },
    );
    expect(res.status).toBe(200);
    expect(((await res.json()) as { kind: string }).kind).toBe('blogger#postList');
  });

  it('400 required when a required parameter is missing', async () => {
    expect(await failure(await fetch(`${postsUrl}/search`))).toMatchObject({
      status: 400,
      reason: 'required',
      location: 'q',
    });
    expect(await failure(await fetch(`${f.api}/blogs/byurl`))).toMatchObject({
      status: 400,
      reason: 'required',
      location: 'url',
    });
  });

  it('fields selects a partial response; a malformed one is 400 on fields', async () => {
    const res = await fetch(`${postsUrl}?fields=items(id,title,author/displayName),nextPageToken`);
    expect(await res.json()).toEqual({
      items: [{ id: postId, title: 'First post', author: { displayName: 'Ada Admin' } }],
    });
    expect(res.headers.get('etag')).toMatch(/^"/);
    const one = await fetch(`${postsUrl}/${postId}?fields=kind,replies/totalItems`);
    expect(await one.json()).toEqual({ kind: 'blogger#post', replies: { totalItems: '0' } });
    expect(await failure(await fetch(`${postsUrl}?fields=items(id`))).toMatchObject({
      status: 400,
      reason: 'invalid',
      location: 'fields',
    });
  });

  it('prettyPrint: indented by default (as Google), compact with prettyPrint=false', async () => {
    expect(await (await fetch(`${postsUrl}/${postId}`)).text()).toContain('\n  "kind": "blogger#post"');
    const compact = await (await fetch(`${postsUrl}/${postId}?prettyPrint=false`)).text();
    expect(compact).not.toContain('\n');
    expect(JSON.parse(compact)).toMatchObject({ id: postId });
  });

  it('prettyPrint=false makes error bodies compact too (a missing post, a bad parameter, an unknown route)', async () => {
    for (const url of [
      `${postsUrl}/nope?prettyPrint=false`,
      `${postsUrl}?maxResults=many&prettyPrint=false`,
      `${postsUrl}/${postId}?prettyPrint=0&fields=items(id`,
      `${f.api}/nowhere?prettyPrint=false`,
    ]) {
      const res = await fetch(url);
      expect(res.status, url).toBeGreaterThanOrEqual(400);
      const text = await res.text();
      expect(text, url).not.toContain('\n');
      expect(JSON.parse(text), url).toMatchObject({ error: { code: res.status } });
    }
    // Without it, errors stay indented as Google's are.
    expect(await (await fetch(`${postsUrl}/nope`)).text()).toContain('\n  "error"');
  });
});

describe('request bodies', () => {
  const insert = (body: BodyInit | null, headers: Record<string, string>, init: RequestInit = {}) =>
    fetch(postsUrl, { method: 'POST', headers: { ...bearer(ADMIN_TOKEN), ...headers }, body, ...init });

  it('413 over maxBodyBytes, by Content-Length and while streaming (chunked)', async () => {
    const big = JSON.stringify({ title: 't', content: 'x'.repeat(5000) });
    expect(await failure(await insert(big, { 'content-type': 'application/json' }))).toMatchObject({
      status: 413,
      reason: 'requestTooLarge',
    });
    // No Content-Length: the helper counts while reading and stops at the limit.
    const chunks = Array.from({ length: 40 }, () => new TextEncoder().encode('x'.repeat(1000)));
    const stream = new ReadableStream<Uint8Array>({
      pull(c) {
        const next = chunks.shift();
        if (next) c.enqueue(next);
        else c.close();
      },
    });
    const res = await insert(stream, { 'content-type': 'application/json' }, { duplex: 'half' } as RequestInit);
    expect(await failure(res)).toMatchObject({ status: 413, reason: 'requestTooLarge' });
  });

  it('415 for bodies that are not JSON', async () => {
    expect(
      await failure(await insert('title=x', { 'content-type': 'application/x-www-form-urlencoded' })),
    ).toMatchObject({
      status: 415,
      reason: 'unsupportedMediaType',
      location: 'Content-Type',
    });
    expect((await insert('{"title":"x"}', { 'content-type': 'text/plain' })).status).toBe(415);
    expect(
      (await insert('{"title":"x","content":"y"}', { 'content-type': 'application/json; charset=utf-8' })).status,
    ).toBe(200);
  });

  it('400 parseError for malformed JSON, invalid for a non-object, required for no body', async () => {
    expect(await failure(await insert('{"title": ', { 'content-type': 'application/json' }))).toMatchObject({
      status: 400,
      reason: 'parseError',
    });
    expect(
      await failure(await insert(new Uint8Array([0x7b, 0xff, 0x7d]), { 'content-type': 'application/json' })),
    ).toMatchObject({
      status: 400,
      reason: 'parseError',
    });
    expect(await failure(await insert('[1,2]', { 'content-type': 'application/json' }))).toMatchObject({
      status: 400,
      reason: 'invalid',
      location: 'body',
    });
    expect(await failure(await insert(null, {}))).toMatchObject({ status: 400, reason: 'required', location: 'body' });
  });

  it('a body on a body-less route is ignored', async () => {
    const res = await fetch(`${postsUrl}/${postId}/revert`, {
      method: 'POST',
      headers: { ...bearer(ADMIN_TOKEN), 'content-type': 'text/plain' },
      body: 'ignored',
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { status: string }).status).toBe('DRAFT');
    expect(
      (await fetch(`${postsUrl}/${postId}/publish`, { method: 'POST', headers: bearer(ADMIN_TOKEN) })).status,
    ).toBe(200);
  });
});

describe('authentication', () => {
  it('no header is anonymous: LIVE content only, drafts hidden, writes refused', async () => {
    const draft = await fetch(`${postsUrl}?isDraft=true`, {
      method: 'POST',
      headers: jsonHeaders(ADMIN_TOKEN),
      body: JSON.stringify({ title: 'Secret', content: 's' }),
    });
    const draftId = ((await draft.json()) as { id: string }).id;
    expect((await fetch(`${postsUrl}/${draftId}`)).status).toBe(404);
    expect((await fetch(`${postsUrl}/${draftId}`, { headers: bearer(ADMIN_TOKEN) })).status).toBe(200);
    expect((await fetch(`${postsUrl}/${draftId}`, { headers: bearer(READER_TOKEN) })).status).toBe(404);
    expect(await failure(await fetch(`${postsUrl}?status=draft`))).toMatchObject({ status: 403, reason: 'forbidden' });
    const write = await fetch(postsUrl, {
      method: 'POST',
      headers: jsonHeaders(),
      body: JSON.stringify({ title: 'anon', content: 'x' }),
    });
    expect(await failure(write)).toMatchObject({ status: 403, reason: 'forbidden' });
  });

  it('a wrong bearer token is 401 authError on the Authorization header', async () => {
    expect(await failure(await fetch(postsUrl, { headers: bearer('wrong') }))).toEqual({
      status: 401,
      reason: 'authError',
      location: 'Authorization',
      locationType: 'header',
      message: 'Invalid Credentials',
    });
  });

  it('anything else authenticate throws, or returns, is a 500 backendError without details', async () => {
    const broken = await startFixture({
      authenticate: (request) => {
        if (request.headers.has('x-bad-actor')) return { id: 'not-a-user-shape' } as never;
        throw new Error('database of sessions is down at /srv/secret.ts:12');
      },
    });
    try {
      const res = await fetch(`${broken.api}/blogs/${broken.blogId}`);
      const e = await failure(res);
      expect(e).toMatchObject({ status: 500, reason: 'backendError', message: 'Backend Error' });
      expect(
        (await failure(await fetch(`${broken.api}/blogs/${broken.blogId}`, { headers: { 'x-bad-actor': '1' } })))
          .status,
      ).toBe(500);
      expect(broken.errors).toHaveLength(2);
      expect(String(broken.errors[0])).toContain('sessions is down');
    } finally {
      await broken.close();
    }
  });
});

describe('conditional requests', () => {
  it('ETag on posts, pages and lists; If-None-Match gives 304 until the resource changes', async () => {
    const url = `${postsUrl}/${postId}`;
    const first = await fetch(url);
    const etag = first.headers.get('etag')!;
    expect(first.headers.get('cache-control')).toBe('private, max-age=0, must-revalidate');
    expect(first.headers.get('x-content-type-options')).toBe('nosniff');
    expect(etag).toBe(((await first.json()) as { etag: string }).etag);
    for (const inm of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
      const res = await fetch(url, { headers: { 'if-none-match': inm } });
      expect(res.status, inm).toBe(304);
      expect(res.headers.get('etag')).toBe(etag);
      expect(await res.text()).toBe('');
    }
    expect((await fetch(url, { headers: { 'if-none-match': '"stale"' } })).status).toBe(200);

    const list = await fetch(postsUrl);
    const listTag = list.headers.get('etag')!;
    expect(listTag).toBeTruthy();
    expect((await fetch(postsUrl, { headers: { 'if-none-match': listTag } })).status).toBe(304);

    await fetch(url, {
      method: 'PATCH',
      headers: jsonHeaders(ADMIN_TOKEN),
      body: JSON.stringify({ title: 'First post, edited' }),
    });
    const changed = await fetch(url, { headers: { 'if-none-match': etag } });
    expect(changed.status).toBe(200);
    expect(changed.headers.get('etag')).not.toBe(etag);
    expect((await fetch(postsUrl, { headers: { 'if-none-match': listTag } })).status).toBe(200);
  });

  it('If-Match: a stale etag is 412 conditionNotMet, the current one or * succeeds', async () => {
    const url = `${postsUrl}/${postId}`;
    const current = (await fetch(url, { headers: bearer(ADMIN_TOKEN) })).headers.get('etag')!;
    const stale = await fetch(url, {
      method: 'PATCH',
      headers: { ...jsonHeaders(ADMIN_TOKEN), 'if-match': '"stale"' },
      body: JSON.stringify({ title: 'lost update' }),
    });
    expect(await failure(stale)).toMatchObject({ status: 412, reason: 'conditionNotMet' });
    const del = await fetch(url, { method: 'DELETE', headers: { ...bearer(ADMIN_TOKEN), 'if-match': '"stale"' } });
    expect(del.status).toBe(412);
    const ok = await fetch(url, {
      method: 'PATCH',
      headers: { ...jsonHeaders(ADMIN_TOKEN), 'if-match': current },
      body: JSON.stringify({ title: 'Matched' }),
    });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('etag')).not.toBe(current);
    const star = await fetch(`${url}/revert`, { method: 'POST', headers: { ...bearer(ADMIN_TOKEN), 'if-match': '*' } });
    expect(star.status).toBe(200);
    await fetch(`${url}/publish`, { method: 'POST', headers: bearer(ADMIN_TOKEN) });
  });
});

describe('deletes and CORS', () => {
  it('delete answers 204 with no body', async () => {
    const made = await fetch(postsUrl, {
      method: 'POST',
      headers: jsonHeaders(ADMIN_TOKEN),
      body: JSON.stringify({ title: 'To delete', content: 'x' }),
    });
    const id = ((await made.json()) as { id: string }).id;
    const res = await fetch(`${postsUrl}/${id}`, { method: 'DELETE', headers: bearer(ADMIN_TOKEN) });
    expect(res.status).toBe(204);
    expect(await res.text()).toBe('');
  });

  it('answers preflights and adds CORS headers for allowed origins only', async () => {
    const pre = await fetch(`${postsUrl}/${postId}`, {
      method: 'OPTIONS',
      headers: {
        origin: 'https://editor.example',
        'access-control-request-method': 'PATCH',
        'access-control-request-headers': 'authorization, content-type, if-match',
      },
    });
    expect(pre.status).toBe(204);
    expect(pre.headers.get('access-control-allow-origin')).toBe('https://editor.example');
    expect(pre.headers.get('access-control-allow-methods')).toContain('PATCH');
    expect(pre.headers.get('access-control-allow-headers')).toContain('if-match');
    const get = await fetch(`${postsUrl}/${postId}`, { headers: { origin: 'https://editor.example' } });
    expect(get.headers.get('access-control-allow-origin')).toBe('https://editor.example');
    expect(get.headers.get('access-control-expose-headers')).toContain('etag');
    const err = await fetch(`${postsUrl}/nope`, { headers: { origin: 'https://editor.example' } });
    expect(err.headers.get('access-control-allow-origin')).toBe('https://editor.example');
    const other = await fetch(`${postsUrl}/${postId}`, { headers: { origin: 'https://evil.example' } });
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('a rejected request changes nothing', () => {
  it('leaves the change log untouched for every kind of refusal', async () => {
    const before = await f.seq();
    const post = `${postsUrl}/${postId}`;
    const attempts: Array<[string, RequestInit]> = [
      [
        postsUrl,
        {
          method: 'POST',
          headers: jsonHeaders(ADMIN_TOKEN),
          body: JSON.stringify({ title: 't', content: 'x'.repeat(5000) }),
        },
      ], // 413
      [
        postsUrl,
        { method: 'POST', headers: { ...bearer(ADMIN_TOKEN), 'content-type': 'text/plain' }, body: '{"title":"t"}' },
      ], // 415
      [postsUrl, { method: 'POST', headers: jsonHeaders(ADMIN_TOKEN), body: '{"title":' }], // 400 parseError
      [
        `${postsUrl}?isDraft=maybe`,
        { method: 'POST', headers: jsonHeaders(ADMIN_TOKEN), body: '{"title":"t","content":"c"}' },
      ], // 400 invalid
      [
        post,
        { method: 'PATCH', headers: { ...jsonHeaders(ADMIN_TOKEN), 'if-match': '"stale"' }, body: '{"title":"t"}' },
      ], // 412
      [post, { method: 'DELETE', headers: bearer('wrong') }], // 401
      [post, { method: 'DELETE' }], // anonymous
      [post, { method: 'DELETE', headers: bearer(READER_TOKEN) }], // not a member
      [`${post}/publish?publishDate=soon`, { method: 'POST', headers: bearer(ADMIN_TOKEN) }], // 400 invalid date
      [
        `${f.api}/blogs/${f.blogId}/posts/nope`,
        { method: 'PUT', headers: jsonHeaders(ADMIN_TOKEN), body: '{"title":"t","content":"c"}' },
      ], // 404
      [`${f.api}/blogs/${f.blogId}/pageviews`, { method: 'DELETE', headers: bearer(ADMIN_TOKEN) }], // 405
    ];
    for (const [url, init] of attempts) {
      const res = await fetch(url, init);
      expect(res.status, `${init.method} ${url}`).toBeGreaterThanOrEqual(400);
      await res.arrayBuffer();
    }
    expect(await f.driver.changesSince(before)).toEqual([]);
  });
});
