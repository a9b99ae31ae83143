/**
 * fast-check arbitraries for hostile HTTP requests against the /v3 routes: random methods, route-shaped
 * paths with good and bad ids, hostile query strings, bodies of wrong types, deep nesting, `__proto__` keys,
 * invalid UTF-8, wrong content types and odd headers.
 */
import fc from 'fast-check';
import { ROUTES } from '../../src/http/routes.js';
import { ADMIN_TOKEN, READER_TOKEN } from './fixture.js';
import { PICTURES } from '../media/pictures.js';

export interface FuzzRequest {
  method: string;
  /** The request target: latin1 only (bytes 0x21–0xff), as node:http sends it. */
  path: string;
  headers: Record<string, string>;
  body?: Uint8Array;
  /** Send the body chunked (no Content-Length). */
  chunked: boolean;
}

/** The ids the fuzzer may use: those that exist (filled in after seeding) and hostile ones. */
export interface Ids {
  blogId: string;
  postIds: string[];
  pageIds: string[];
  commentIds: string[];
  userIds: string[];
  /** Media of the blog (the SHA-256 of their bytes). */
  mediaIds: string[];
}

const enc = new TextEncoder();
const latin1 = (s: string) => [...s].filter((c) => c.charCodeAt(0) > 0x20 && c.charCodeAt(0) <= 0xff).join('');

const hostileText = fc.oneof(
  fc.constantFrom(
    '',
    '__proto__',
    'constructor',
    'toString',
    'prototype',
    '..',
    '.',
    '%00',
    '%2F',
    '%E0%A4%A',
    '%C3%28',
    '%FF',
    '*',
    'self',
    'null',
    '-1',
    '0',
    '1e400',
    'NaN',
  ),
  fc.string({ maxLength: 12 }).map((s) => encodeURIComponent(s)),
  fc.string({ unit: 'binary', maxLength: 8 }).map((s) => latin1(s).replace(/[/?#]/g, '')),
  fc.integer({ min: 1, max: 3000 }).map((n) => 'x'.repeat(n)),
);

function idArb(ids: Ids, param: string): fc.Arbitrary<string> {
  const good: string[] =
    param === 'blogId'
      ? [ids.blogId]
      : param === 'postId'
        ? ids.postIds
        : param === 'pageId'
          ? ids.pageIds
          : param === 'commentId'
            ? ids.commentIds
            : param === 'mediaId'
              ? ids.mediaIds
              : [...ids.userIds, 'self'];
  return fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...good) }, { weight: 1, arbitrary: hostileText });
}

/** A route's path with good or bad ids, its query, and mostly its own method. */
function routeRequest(ids: Ids): fc.Arbitrary<{ method: string; path: string }> {
  return fc.constantFrom(...ROUTES).chain((route) => {
    const parts = route.path.split('/').slice(1);
    const path = fc
      .tuple(...parts.map((p) => (p.startsWith('{') ? idArb(ids, p.slice(1, -1)) : fc.constant(p))))
      .map((segs) => `/v3/${segs.join('/')}`);
    const own = Object.keys(route.query);
    const names =
      own.length > 0
        ? fc.oneof({ weight: 6, arbitrary: fc.constantFrom(...own) }, { weight: 1, arbitrary: anyName })
        : anyName;
    const query = fc
      .oneof(
        { weight: 2, arbitrary: fc.constant([]) },
        { weight: 3, arbitrary: fc.array(fc.tuple(names, paramValue), { maxLength: 5 }) },
      )
      .map((pairs) =>
        pairs.length === 0 ? '' : `?${pairs.map(([k, v]) => `${encodeURIComponent(k)}=${v}`).join('&')}`,
      );
    const m = fc.oneof({ weight: 5, arbitrary: fc.constant(route.method) }, { weight: 1, arbitrary: method });
    // Deleting the fixture's blog would leave every later request a 404: the run would stop reaching the service.
    const keepsBlog = (r: { method: string; path: string }) =>
      !(r.method === 'DELETE' && /^\/v3\/blogs\/[^/?]*(\?|$)/.test(r.path));
    return fc.record({ method: m, path: fc.tuple(path, query).map(([p, q]) => p + q) }).filter(keepsBlog);
  });
}

/** The bytes of media beside /v3: good and bad ids and names, hostile segments. */
function mediaBytesRequest(ids: Ids): fc.Arbitrary<{ method: string; path: string }> {
  const seg = (good: string[]) =>
    fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...good) }, { weight: 1, arbitrary: hostileText });
  const path = fc
    .tuple(
      seg([ids.blogId]),
      seg(ids.mediaIds),
      seg(['pic.png', 'x', '%2F..%2F', 'a%20b.jpg']),
      fc.constantFrom('', '/extra', '?x=1'),
    )
    .map(([b, m, n, tail]) => `/media/${b}/${m}/${n}${tail}`);
  return fc.record({
    method: fc.oneof({ weight: 5, arbitrary: fc.constantFrom('GET', 'HEAD') }, { weight: 1, arbitrary: method }),
    path,
  });
}

const oddTarget = fc.oneof(
  fc.constantFrom(
    '*',
    '/',
    '/v3',
    '/v3/',
    '/v3//blogs',
    '/elsewhere',
    'http://a@b/v3/blogs/x',
    'http://[::1/v3/blogs/x',
    'ftp://x/v3',
    '/v3/blogs/%',
    '/V3/BLOGS',
  ),
  fc.string({ unit: 'binary', maxLength: 40 }).map((s) => `/v3/${latin1(s)}`),
);

const paramNames = [...new Set(ROUTES.flatMap((r) => Object.keys(r.query)))];
const globalNames = ['key', 'alt', 'prettyPrint', 'quotaUser', 'fields', 'access_token', '$.xgafv', 'callback'];
const hostileNames = [
  '__proto__',
  'constructor',
  'toString',
  'hasOwnProperty',
  'stauts',
  '',
  'maxResults[]',
  'labels.0',
];
const fieldsValue = fc.oneof(
  fc.constantFrom(
    'items(id,title)',
    'kind,items/author/displayName',
    '*',
    'items(',
    'a,,b',
    '(a)',
    'items(replies/totalItems)',
  ),
  fc.integer({ min: 1, max: 3000 }).map((n) => `${'a('.repeat(n)}a${')'.repeat(n)}`),
  fc.integer({ min: 1, max: 3000 }).map((n) => `${'a/'.repeat(n)}a`),
  fc.integer({ min: 1, max: 1500 }).map((n) => Array.from({ length: n }, (_, i) => `f${i}`).join(',')),
);
const paramValue = fc.oneof(
  fc.constantFrom(
    '',
    'true',
    'false',
    'TRUE',
    '1',
    '0',
    '-1',
    '20',
    '500',
    '501',
    '4294967296',
    '1.5',
    'abc',
    'LIVE',
    'draft',
    'scheduled',
    'ADMIN',
    'READER',
    'author',
  ),
  fc.constantFrom(
    'published',
    'updated',
    'descending',
    '2020-01-01T00:00:00Z',
    '2999-01-01T00:00:00Z',
    'yesterday',
    'LIVE,DRAFT,SOFT_TRASHED',
    'a,b,c',
  ),
  fc.constantFrom('%00', '%C3%28', '%FF%FE', '%E0%A4%A', '%'),
  fieldsValue.map(encodeURIComponent),
  fc.string({ maxLength: 20 }).map(encodeURIComponent),
  fc.integer({ min: 1, max: 300 }).map((n) => Array.from({ length: n }, (_, i) => `l${i}`).join(',')),
);
const anyName = fc.oneof(
  fc.constantFrom(...paramNames),
  fc.constantFrom(...globalNames),
  fc.constantFrom(...hostileNames),
);

const deep = fc
  .tuple(fc.integer({ min: 1, max: 5000 }), fc.boolean())
  .map(([n, obj]) => (obj ? `${'{"a":'.repeat(n)}1${'}'.repeat(n)}` : `${'['.repeat(n)}${']'.repeat(n)}`));
const resourceLike = fc.record(
  {
    title: fc.oneof(
      { weight: 5, arbitrary: fc.string({ maxLength: 30 }) },
      fc.integer(),
      fc.constant(null),
      fc.array(fc.string()),
    ),
    content: fc.oneof(
      fc.constantFrom('<p>hi</p>', '<script>alert(1)</script>', ''),
      fc.string({ maxLength: 50 }),
      fc.boolean(),
    ),
    labels: fc.oneof(
      { weight: 4, arbitrary: fc.array(fc.string({ maxLength: 10 }), { maxLength: 30 }) },
      fc.string(),
      fc.integer(),
    ),
    published: fc.constantFrom('2020-01-01T00:00:00Z', '2999-01-01T00:00:00Z', 'not a date', 5),
    author: fc.oneof(
      fc.record({
        displayName: fc.string({ maxLength: 20 }),
        url: fc.constantFrom('https://ok.example/', 'javascript:alert(1)', 'https://ok.example/" onmouseover="x'),
      }),
      fc.string(),
    ),
    inReplyTo: fc.record({ id: fc.string({ maxLength: 30 }) }),
    id: fc.string({ maxLength: 30 }),
    kind: fc.constantFrom('blogger#post', 'blogger#comment', 'x'),
  },
  { requiredKeys: [] },
);
const bodyText = fc.oneof(
  resourceLike.map((o) => JSON.stringify(o)),
  fc.constantFrom(
    '{"title":"t","content":"c","__proto__":{"status":"DRAFT","isAdmin":true}}',
    '{"content":"c","author":{"__proto__":{"displayName":"x"}}}',
    '{"constructor":{"prototype":{"polluted":1}},"title":"t","content":"c"}',
    '{"title":"t","content":"c","labels":{"__proto__":[]}}',
    'null',
    '[]',
    '"a string"',
    '42',
    'true',
    '{',
    '{"title": }',
    '',
    ' ',
    '{"title":"\\ud800"}',
    // comments.moderate and a comment's sender (docs/comments.md).
    '{"filter":{"status":"SPAM"},"action":"delete"}',
    '{"filter":{"status":["PENDING","NOPE"],"clientAddress":"::ffff:999.1.1.1"},"action":"approve"}',
    '{"filter":{"authorId":"","contains":""},"action":"spam","pageToken":"%%"}',
    '{"filter":null,"action":"explode"}',
    '{"content":"c","clientAddress":"10.0.0.1","userAgent":"x","referrer":"javascript:1"}',
  ),
  fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v) ?? 'null'),
  deep,
);
const body: fc.Arbitrary<Uint8Array | undefined> = fc.oneof(
  { weight: 3, arbitrary: fc.constant(undefined) },
  { weight: 4, arbitrary: resourceLike.map((o) => enc.encode(JSON.stringify(o))) },
  { weight: 3, arbitrary: bodyText.map((t) => enc.encode(t)) },
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 64 }) }, // invalid UTF-8, binary
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      new Uint8Array([0x7b, 0x22, 0x74, 0x22, 0x3a, 0x22, 0xc3, 0x28, 0x22, 0x7d]),
      new Uint8Array([0xef, 0xbb, 0xbf, 0x7b, 0x7d]),
    ),
  },
  // Pictures (mostly refused: cut short, or not what they claim; the whole one uploads, then answers the same media).
  { weight: 1, arbitrary: fc.constantFrom(PICTURES.png, PICTURES.gif.subarray(0, 100), PICTURES.jpg.subarray(0, 3)) },
  // Large, but under the fuzz server's limit (413 itself is tested in edge.test.ts).
  {
    weight: 1,
    arbitrary: fc
      .integer({ min: 16_000, max: 40_000 })
      .map((n) => enc.encode(`{"title":"big","content":"${'x'.repeat(n)}"}`)),
  },
);

/** Absent half the time (or `absent` of the time), else one of `values`. */
const headerValue = (values: string[], absent = 1) =>
  fc.oneof({ weight: absent, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.constantFrom(...values) });
const headers = fc
  .record({
    authorization: fc.oneof(
      { weight: 6, arbitrary: fc.constant(`Bearer ${ADMIN_TOKEN}`) },
      { weight: 2, arbitrary: fc.constant(undefined) },
      {
        weight: 1,
        arbitrary: fc.constantFrom(`Bearer ${READER_TOKEN}`, 'Bearer wrong', 'Basic dXNlcjpwdw==', 'Bearer', ''),
      },
    ),
    'content-type': fc.oneof(
      { weight: 6, arbitrary: fc.constant('application/json') },
      {
        weight: 1,
        arbitrary: fc.constantFrom(
          'application/json; charset=utf-8',
          'text/plain',
          'application/x-www-form-urlencoded',
          'multipart/form-data; boundary=x',
          'application/merge-patch+json',
          'image/png',
          'image/svg+xml',
          'application/json; charset=latin1',
          '',
        ),
      },
      { weight: 1, arbitrary: fc.constant(undefined) },
    ),
    'if-match': headerValue(['*', '"stale"', 'W/"x"', '', '"a", "b"'], 6),
    'if-none-match': headerValue(['*', '"stale"', 'garbage'], 6),
    range: headerValue(
      ['bytes=0-9', 'bytes=-5', 'bytes=99999999-', 'bytes=5-1', 'bytes=0-1,3-4', 'items=1-2', 'bytes=-0'],
      6,
    ),
    'content-disposition': headerValue(
      [
        'attachment; filename="a.png"',
        "attachment; filename*=UTF-8''%E2%82%AC.png",
        "attachment; filename*=UTF-8''%ZZ",
        'inline',
      ],
      6,
    ),
    origin: headerValue(['https://editor.example', 'null', 'https://evil.example'], 4),
    'access-control-request-method': headerValue(['PATCH', 'GET', 'BOGUS'], 4),
    'x-http-method-override': headerValue(['DELETE', 'PATCH'], 6),
    accept: headerValue(['application/xml', '*/*', 'text/html'], 4),
    host: headerValue(['a@b', 'evil.example:99999', '[::1', 'x y'], 6),
    'x-forwarded-for': headerValue(['203.0.113.9', '1.2.3.4, ::1', 'not an address', ',,', '999.999.1.1'], 4),
    'idempotency-key': headerValue(['k', ' ', 'x'.repeat(300)], 8),
  })
  .map((h) => Object.fromEntries(Object.entries(h).filter(([, v]) => v !== undefined)) as Record<string, string>);

const method = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom('GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS') },
  // Methods Node's parser accepts but no route has (unknown tokens never reach the handler).
  { weight: 1, arbitrary: fc.constantFrom('TRACE', 'PROPFIND', 'PURGE', 'M-SEARCH', 'LINK') },
);

export function requestArb(ids: Ids): fc.Arbitrary<FuzzRequest> {
  const target = fc.oneof(
    { weight: 8, arbitrary: routeRequest(ids) },
    { weight: 1, arbitrary: fc.record({ method, path: oddTarget }) },
    { weight: 1, arbitrary: mediaBytesRequest(ids) },
  );
  return fc
    .record({ target, headers, body, chunked: fc.boolean() })
    .map(({ target: t, ...rest }) => ({ ...t, ...rest }));
}
