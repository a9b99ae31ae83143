/**
 * The words of a refusal are part of the wire (Google's error body) and of every in-process BlogError: each
 * kind of problem the parameter schemas find, with its reason, location and message exactly as clients see them.
 */
import { describe, expect, it } from 'vitest';
import { BlogError } from '../../src/index.js';
import { params, parse, postBody } from '../../src/schema/index.js';

const b = 'b1';
const CASES: Array<[keyof typeof params, unknown, 'invalid' | 'required', string, string]> = [
  ['postsList', 'x', 'invalid', 'request', 'Parameters must be an object'],
  ['postsList', [], 'invalid', 'request', 'Invalid value for request: Invalid input: expected object, received array'],
  ['postsList', {}, 'required', 'blogId', 'Required: blogId'],
  [
    'postsList',
    { blogId: 5 },
    'invalid',
    'blogId',
    'Invalid value for blogId: Invalid input: expected string, received number',
  ],
  [
    'postsList',
    { blogId: null },
    'invalid',
    'blogId',
    'Invalid value for blogId: Invalid input: expected string, received null',
  ],
  [
    'postsList',
    { blogId: '' },
    'invalid',
    'blogId',
    'Invalid value for blogId: Too small: expected string to have >=1 characters',
  ],
  [
    'postsList',
    { blogId: 'x'.repeat(201) },
    'invalid',
    'blogId',
    'Invalid value for blogId: Too big: expected string to have <=200 characters',
  ],
  [
    'postsList',
    { blogId: b, maxResults: '10' },
    'invalid',
    'maxResults',
    'Invalid value for maxResults: Invalid input: expected number, received string',
  ],
  [
    'postsList',
    { blogId: b, maxResults: 1.5 },
    'invalid',
    'maxResults',
    'Invalid value for maxResults: Invalid input: expected int, received number',
  ],
  [
    'postsList',
    { blogId: b, maxResults: 0 },
    'invalid',
    'maxResults',
    'Invalid value for maxResults: Too small: expected number to be >=1',
  ],
  [
    'postsList',
    { blogId: b, maxResults: 1e20 },
    'invalid',
    'maxResults',
    'Invalid value for maxResults: Too big: expected number to be <=500',
  ],
  [
    'postsList',
    { blogId: b, maxResults: Number.NaN },
    'invalid',
    'maxResults',
    'Invalid value for maxResults: Invalid input: expected number, received NaN',
  ],
  [
    'postsList',
    { blogId: b, maxResults: -Infinity },
    'invalid',
    'maxResults',
    'Invalid value for maxResults: Invalid input: expected number, received -Infinity',
  ],
  [
    'postsList',
    { blogId: b, fetchBodies: 'true' },
    'invalid',
    'fetchBodies',
    'Invalid value for fetchBodies: Invalid input: expected boolean, received string',
  ],
  [
    'postsList',
    { blogId: b, status: 'PUBLISHED' },
    'invalid',
    'status',
    'Invalid value for status: must be one of LIVE, DRAFT, SCHEDULED, SOFT_TRASHED',
  ],
  ['postsList', { blogId: b, status: ['live', 5] }, 'invalid', 'status', 'Invalid value for status: Invalid input'],
  [
    'postsList',
    { blogId: b, status: ' , ' },
    'invalid',
    'status',
    'Invalid value for status: must name at least one value',
  ],
  [
    'postsList',
    { blogId: b, orderBy: 3 },
    'invalid',
    'orderBy',
    'Invalid value for orderBy: Invalid input: expected string, received number',
  ],
  [
    'postsList',
    { blogId: b, labels: Array.from({ length: 21 }, (_, i) => `l${i}`).join(',') },
    'invalid',
    'labels',
    'Invalid value for labels: at most 20 labels per query',
  ],
  [
    'postsList',
    { blogId: b, startDate: '2026-02-30T00:00:00Z' },
    'invalid',
    'startDate',
    'Invalid value for startDate: must be an RFC 3339 timestamp, e.g. 2026-11-22T10:00:00Z',
  ],
  ['postsList', { blogId: b, stauts: 'LIVE', titel: 'x' }, 'invalid', 'stauts', 'Unknown fields: stauts, titel'],
  ['postsSearch', { blogId: b }, 'required', 'q', 'Required: q'],
  [
    'postsInsert',
    { blogId: b, body: { title: 'x'.repeat(1001) } },
    'invalid',
    'body.title',
    'Invalid value for body.title: must be at most 1000 characters',
  ],
  // Limits count UTF-16 units, as import and the stores do: 501 emoji are 1,002 units.
  [
    'postsInsert',
    { blogId: b, body: { title: '😀'.repeat(501) } },
    'invalid',
    'body.title',
    'Invalid value for body.title: must be at most 1000 characters',
  ],
  [
    'postsInsert',
    { blogId: b, body: { labels: ['a', 7] } },
    'invalid',
    'body.labels',
    'Invalid value for body.labels: Invalid input: expected string, received number',
  ],
  [
    'postsInsert',
    { blogId: b, body: { labels: Array.from({ length: 101 }, (_, i) => `l${i}`) } },
    'invalid',
    'body.labels',
    'Invalid value for body.labels: at most 100 labels',
  ],
  [
    'postsInsert',
    { blogId: b, body: { titleLink: 'javascript:alert(1)' } },
    'invalid',
    'body.titleLink',
    'Invalid value for body.titleLink: must be an absolute http(s) URL',
  ],
  [
    'postsInsert',
    { blogId: b, body: { location: { lat: 'north' } } },
    'invalid',
    'body.location.lat',
    'Invalid value for body.location.lat: Invalid input: expected number, received string',
  ],
  ['postsInsert', { blogId: b, body: { titel: 'x' } }, 'invalid', 'body.titel', 'Unknown field in body: titel'],
  [
    'postsInsert',
    { blogId: b, body: { location: { x: 1 } } },
    'invalid',
    'body.location.x',
    'Unknown field in body.location: x',
  ],
  [
    'commentsInsert',
    { blogId: b, postId: 'p', body: { content: '   ' } },
    'invalid',
    'body.content',
    'Invalid value for body.content: must not be empty',
  ],
  [
    'commentsInsert',
    { blogId: b, postId: 'p', body: { content: 'hi', inReplyTo: {} } },
    'required',
    'body.inReplyTo.id',
    'Required: body.inReplyTo.id',
  ],
  ['blogsInsert', { body: { name: 'n' } }, 'required', 'body.url', 'Required: body.url'],
  [
    'usersInsert',
    { body: { displayName: 'U', id: 'no spaces' } },
    'invalid',
    'body.id',
    'Invalid value for body.id: may hold letters, digits and . _ @ : - only',
  ],
  [
    'pageViewsGet',
    { blogId: b, range: '90days' },
    'invalid',
    'range',
    'Invalid value for range: must be one of 7DAYS, 30DAYS, all',
  ],
  [
    'changesList',
    { blogId: b, wait: 61 },
    'invalid',
    'wait',
    'Invalid value for wait: Too big: expected number to be <=60',
  ],
];

describe('a refused parameter object', () => {
  it.each(CASES)('%s %j → %s at %s', (op, input, reason, location, message) => {
    const error = (() => {
      try {
        parse(params[op], input);
      } catch (e) {
        return e;
      }
    })();
    expect(BlogError.is(error), 'a BlogError').toBe(true);
    expect(error).toMatchObject({ code: 400, reason, location, locationType: 'parameter', message });
  });
});

describe('an accepted one', () => {
  it('comes back as the service works with it: enums canonical, lists split and deduplicated, times in UTC, labels trimmed', () => {
    expect(
      parse(params.postsList, {
        blogId: b,
        status: 'live, Draft,LIVE',
        view: 'admin',
        labels: ['a,b', ' a '],
        startDate: '2026-11-22T11:00:00+01:00',
      }),
    ).toEqual({
      blogId: b,
      status: ['LIVE', 'DRAFT'],
      view: 'ADMIN',
      labels: ['a', 'b'],
      startDate: '2026-11-22T10:00:00.000Z',
    });
    expect(parse(params.pageViewsGet, { blogId: b, range: ['ALL', '7days'] })).toEqual({
      blogId: b,
      range: ['all', '7DAYS'],
    });
    expect(parse(postBody, { labels: [' x ', 'x', ''], readerComments: 'allow' })).toEqual({
      labels: ['x'],
      readerComments: 'ALLOW',
    });
  });

  it('a Standard Schema validator sees the same messages', () => {
    const result = postBody['~standard'].validate({ title: 'x'.repeat(1001), titel: 't' });
    expect(result).toEqual({
      issues: [
        expect.objectContaining({ path: ['title'], message: 'must be at most 1000 characters' }),
        expect.objectContaining({ path: [], message: 'Unknown field: titel' }),
      ],
    });
  });
});
