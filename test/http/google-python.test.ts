// Raw requests shaped as Google's Python client (google-api-python-client) sends them: a GET whose address
// passes 2,048 characters goes as POST + X-HTTP-Method-Override: GET with the query as a form body (the URL
// keeps only its path), `alt=json` on every call, and the discovery document's *_UNSPECIFIED enum values.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, bearer, startFixture, type Fixture } from './fixture.js';

const MAX_BODY = 16 * 1024;
let f: Fixture;
let postsUrl: string;
const LONG = Array.from({ length: 15 }, (_, i) => `${'long-label-'.repeat(14)}${i}`); // 15 labels of ~156 characters
const ids: Record<string, string> = {};

beforeAll(async () => {
  f = await startFixture({ maxBodyBytes: MAX_BODY });
  postsUrl = `${f.api}/blogs/${f.blogId}/posts`;
  const add = async (title: string, labels: string[], published: string) =>
    (ids[title] = (
      await f.service.posts.insert({
        blogId: f.blogId,
        body: { title, content: `<p>${title} zebra</p>`, labels, published },
      })
    ).id);
  await add('first', [LONG[3]!], '2026-01-01T00:00:00.000Z');
  await add('second', ['other'], '2026-01-02T00:00:00.000Z');
  await add('third', [LONG[14]!], '2026-01-03T00:00:00.000Z');
});
afterAll(() => f.close());

/** How the Python client sends an overlong GET: POST to the bare path, the urlencoded query as the body. */
function pythonOverride(url: string, query: Record<string, string | string[]>, extra: Record<string, string> = {}) {
  const body = new URLSearchParams();
  for (const [k, v] of Object.entries({ alt: 'json', ...query }))
    for (const item of ([] as string[]).concat(v)) body.append(k, item);
  const text = body.toString();
  return fetch(url, {
    method: 'POST',
    headers: {
      accept: 'application/json',
      'accept-encoding': 'gzip, deflate',
      'user-agent': '(gzip)',
      'x-goog-api-client': 'gdcl/2.150.0 gl-python/3.12.3',
      'x-http-method-override': 'GET',
      'content-type': 'application/x-www-form-urlencoded',
      'content-length': String(Buffer.byteLength(text)),
      ...bearer(ADMIN_TOKEN),
      ...extra,
    },
    body: text,
  });
}

const titles = async (res: Response) => {
  expect(res.status).toBe(200);
  return ((await res.json()) as { items: Array<{ title: string }> }).items.map((p) => p.title);
};

describe('X-HTTP-Method-Override: GET with a form body', () => {
  it('serves posts.list on a query over 2,048 characters as that GET', async () => {
    const query = { labels: LONG.join(','), view: 'ADMIN', fetchBodies: 'false', maxResults: '10' };
    expect(`${postsUrl}?${new URLSearchParams(query)}`.length).toBeGreaterThan(2048);
    const res = await pythonOverride(postsUrl, query);
    expect(res.headers.get('etag')).toMatch(/^"/);
    expect(await titles(res)).toEqual(['third', 'first']);
    // The same as a plain GET would answer.
    const plain = await fetch(`${postsUrl}?${new URLSearchParams({ ...query, alt: 'json' })}`, {
      headers: bearer(ADMIN_TOKEN),
    });
    expect(await titles(plain)).toEqual(['third', 'first']);
  });

  it('serves posts.search (a GET-only route) the same way, with repeated status values', async () => {
    const res = await pythonOverride(`${postsUrl}/search`, {
      q: 'zebra',
      status: ['LIVE', 'DRAFT'],
      orderBy: 'PUBLISHED',
      labels: LONG.join(','),
    });
    expect(await titles(res)).toEqual(['third', 'first']);
  });

  it('keeps a query left in the address and adds the body to it', async () => {
    const res = await pythonOverride(`${postsUrl}?sortOption=ASCENDING`, { labels: LONG.join(',') });
    expect(await titles(res)).toEqual(['first', 'third']);
  });

  it('never turns a POST into a write: any other override is 400 and nothing is stored', async () => {
    const before = await f.seq();
    for (const method of ['DELETE', 'PUT', 'PATCH', 'POST']) {
      const res = await pythonOverride(`${postsUrl}/${ids.first}`, {}, { 'x-http-method-override': method });
      expect(res.status).toBe(400);
      const body = (await res.json()) as { error: { errors: Array<{ location: string }> } };
      expect(body.error.errors[0]!.location).toBe('X-HTTP-Method-Override');
    }
    expect(await f.seq()).toBe(before);
    expect((await f.service.posts.get({ blogId: f.blogId, postId: ids.first! })).title).toBe('first');
  });

  it('refuses a body that is not a form (415) or too large (413), and a GET-less route (405)', async () => {
    const json = await pythonOverride(postsUrl, {}, { 'content-type': 'application/json' });
    expect(json.status).toBe(415);
    const big = await pythonOverride(postsUrl, { q: 'x'.repeat(MAX_BODY + 10) });
    expect(big.status).toBe(413);
    const noGet = await pythonOverride(`${postsUrl}/${ids.first}/publish`, {});
    expect(noGet.status).toBe(405);
    // Without the header, a form POST to a JSON route is still a 415.
    const plain = await fetch(postsUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...bearer(ADMIN_TOKEN) },
      body: 'title=x',
    });
    expect(plain.status).toBe(415);
  });
});

describe('*_UNSPECIFIED enum values mean "not set"', () => {
  it('posts.list with view, orderBy and sortOption unspecified answers as without them', async () => {
    const unspecified = await fetch(
      `${postsUrl}?alt=json&view=VIEW_TYPE_UNSPECIFIED&orderBy=ORDER_BY_UNSPECIFIED&sortOption=SORT_OPTION_UNSPECIFIED`,
      {
        headers: bearer(ADMIN_TOKEN),
      },
    );
    const plain = await fetch(`${postsUrl}?alt=json`, { headers: bearer(ADMIN_TOKEN) });
    const a = (await unspecified.json()) as { items: Array<{ id: string; status?: string }> };
    const b = (await plain.json()) as { items: Array<{ id: string; status?: string }> };
    expect(a.items.map((p) => p.id)).toEqual(b.items.map((p) => p.id));
    expect(a.items.map((p) => p.id)).toEqual([ids.third, ids.second, ids.first]);
    // Unspecified view is the caller's own role: ADMIN sees status.
    expect(a.items[0]!.status).toBe('LIVE');
  });

  it('in every route that has them, also in lower case and inside an overridden GET', async () => {
    const get = (path: string) => fetch(`${f.api}${path}`, { headers: bearer(ADMIN_TOKEN) });
    expect((await get(`/blogs/${f.blogId}?view=VIEW_TYPE_UNSPECIFIED`)).status).toBe(200);
    expect((await get(`/blogs/${f.blogId}/posts/${ids.first}?view=view_type_unspecified`)).status).toBe(200);
    expect((await get(`/blogs/${f.blogId}/pages?view=VIEW_TYPE_UNSPECIFIED`)).status).toBe(200);
    expect((await get(`/blogs/${f.blogId}/comments?view=VIEW_TYPE_UNSPECIFIED`)).status).toBe(200);
    expect((await get(`/blogs/${f.blogId}/posts/search?q=zebra&orderBy=ORDER_BY_UNSPECIFIED`)).status).toBe(200);
    expect(
      (await get(`/users/self/blogs/${f.blogId}/posts?view=VIEW_TYPE_UNSPECIFIED&orderBy=ORDER_BY_UNSPECIFIED`)).status,
    ).toBe(200);
    const blogs = await get('/users/self/blogs?role=VIEW_TYPE_UNSPECIFIED&view=VIEW_TYPE_UNSPECIFIED');
    expect(((await blogs.json()) as { items: Array<{ id: string }> }).items.map((b) => b.id)).toEqual([f.blogId]);
    const overridden = await pythonOverride(postsUrl, {
      view: 'VIEW_TYPE_UNSPECIFIED',
      sortOption: 'SORT_OPTION_UNSPECIFIED',
    });
    expect(await titles(overridden)).toEqual(['third', 'second', 'first']);
    // A value that is not in the discovery document is still refused.
    expect((await get(`/blogs/${f.blogId}/posts?view=UNSPECIFIED`)).status).toBe(400);
    expect((await get(`/blogs/${f.blogId}/posts?status=VIEW_TYPE_UNSPECIFIED`)).status).toBe(400);
  });
});
