// The HTTP helper's pure parts: route matching, query conversion and the `fields` selector.
import { describe, expect, it } from 'vitest';
import { BlogError } from '../../src/util/errors.js';
import { applyFields, parseFields } from '../../src/http/fields.js';
import { parseQuery } from '../../src/http/params.js';
import { ROUTES, Router } from '../../src/http/routes.js';

const router = new Router(ROUTES);
const route = (method: string, path: string) => {
  const m = router.match(path.split('/').slice(1));
  return m && { op: m.methods.get(method)?.op.join('.'), params: m.params, methods: [...m.methods.keys()] };
};

function caught(fn: () => unknown): BlogError {
  try {
    fn();
  } catch (e) {
    if (BlogError.is(e)) return e;
    throw e;
  }
  throw new Error('expected a BlogError');
}

describe('router', () => {
  it('has the 33 Blogger v3 methods plus the extensions (comments.insert, labels.list, revisions, blog and user changes, changes.list, media, collab, comment moderation)', () => {
    const ops = new Set(ROUTES.map((r) => r.op.join('.')));
    expect(ops.size).toBe(54);
    for (const op of [
      'blogs.get',
      'blogs.getByUrl',
      'blogs.listByUser',
      'posts.search',
      'posts.getByPath',
      'comments.removeContent',
      'comments.insert',
      'comments.moderate',
      'users.get',
      'blogUserInfos.get',
      'postUserInfos.get',
      'postUserInfos.list',
      'pageViews.get',
      'changes.list',
      'media.upload',
      'media.list',
      'media.get',
      'media.patch',
      'media.delete',
      'collab.pull',
      'collab.push',
    ]) {
      expect(ops.has(op)).toBe(true);
    }
  });

  it('matches literal segments before ids', () => {
    expect(route('GET', '/blogs/byurl')?.op).toBe('blogs.getByUrl');
    expect(route('GET', '/blogs/b1')).toEqual({
      op: 'blogs.get',
      params: { blogId: 'b1' },
      methods: ['GET', 'PUT', 'PATCH', 'DELETE'],
    });
    expect(route('GET', '/blogs/b1/posts/search')?.op).toBe('posts.search');
    expect(route('GET', '/blogs/b1/posts/bypath')?.op).toBe('posts.getByPath');
    expect(route('GET', '/blogs/b1/posts/p1')).toMatchObject({
      op: 'posts.get',
      params: { blogId: 'b1', postId: 'p1' },
    });
    expect(route('POST', '/blogs/b1/posts/p1/publish')?.op).toBe('posts.publish');
    expect(route('POST', '/blogs/b1/posts/p1/revert')?.op).toBe('posts.revert');
    expect(route('POST', '/blogs/b1/posts/p1/comments/c1/approve')?.op).toBe('comments.approve');
    expect(route('POST', '/blogs/b1/posts/p1/comments/c1/spam')?.op).toBe('comments.markAsSpam');
    expect(route('POST', '/blogs/b1/posts/p1/comments/c1/removecontent')?.op).toBe('comments.removeContent');
    expect(route('POST', '/blogs/b1/pages/g1/publish')?.op).toBe('pages.publish');
    expect(route('GET', '/users/self/blogs')).toMatchObject({ op: 'blogs.listByUser', params: { userId: 'self' } });
    expect(route('GET', '/users/u1')).toMatchObject({ op: 'users.get', params: { userId: 'u1' } });
    expect(route('GET', '/users/u1/blogs/b1')).toMatchObject({
      op: 'blogUserInfos.get',
      params: { userId: 'u1', blogId: 'b1' },
    });
    expect(route('GET', '/users/u1/blogs/b1/posts')).toMatchObject({
      op: 'postUserInfos.list',
      params: { userId: 'u1', blogId: 'b1' },
    });
    expect(route('GET', '/users/u1/blogs/b1/posts/p1')).toMatchObject({
      op: 'postUserInfos.get',
      params: { userId: 'u1', blogId: 'b1', postId: 'p1' },
    });
    expect(route('GET', '/blogs/b1/pageviews')).toMatchObject({ op: 'pageViews.get', params: { blogId: 'b1' } });
  });

  it('keeps a literal path that exists with another method (so it is a 405, not an id)', () => {
    expect(route('POST', '/blogs/b1/posts/search')).toMatchObject({ op: undefined, methods: ['GET'] });
    expect(route('DELETE', '/blogs/b1/posts/p1')?.op).toBe('posts.delete');
    expect(route('GET', '/blogs/b1/posts/p1')?.methods.sort()).toEqual(['DELETE', 'GET', 'PATCH', 'PUT']);
  });

  it('finds no route for unknown or malformed paths', () => {
    expect(route('GET', '/blogs')).toBeUndefined();
    expect(route('GET', '/blogs/b1/stats')).toBeUndefined();
    expect(route('GET', '/blogs//posts')).toBeUndefined();
    expect(route('GET', '/blogs/b1/posts/p1/comments/c1/approve/x')).toBeUndefined();
  });
});

describe('query parameters', () => {
  const spec = ROUTES.find((r) => r.op.join('.') === 'posts.list')!.query;
  const q = (s: string) => parseQuery(new URLSearchParams(s), spec);

  it('converts integers, booleans, repeated keys and comma lists', () => {
    expect(
      q(
        'maxResults=20&fetchBodies=false&fetchImages=TRUE&status=live&status=draft,SCHEDULED&labels=a&labels=b,c&orderBy=updated',
      ).params,
    ).toEqual({
      maxResults: 20,
      fetchBodies: false,
      fetchImages: true,
      status: ['live', 'draft', 'SCHEDULED'],
      labels: 'a,b,c',
      orderBy: 'updated',
    });
  });

  it("accepts Google's global parameters and honours prettyPrint and fields", () => {
    const r = q(
      'key=k&alt=json&prettyPrint=false&quotaUser=me&fields=items(id)&access_token=t&%24.xgafv=2&callback=cb&oauth_token=o',
    );
    expect(r.params).toEqual({});
    expect(r.global).toEqual({ pretty: false, fields: 'items(id)' });
    expect(q('').global.pretty).toBe(true);
  });

  it('treats empty values as absent (a first page sent with pageToken=)', () => {
    expect(q('pageToken=&maxResults=&status=').params).toEqual({});
  });

  it('rejects bad values with 400 invalid naming the parameter', () => {
    for (const [s, location] of [
      ['maxResults=ten', 'maxResults'],
      ['maxResults=-1', 'maxResults'],
      ['maxResults=1.5', 'maxResults'],
      ['maxResults=99999999999', 'maxResults'],
      ['fetchBodies=yes', 'fetchBodies'],
      ['fetchBodies=', 'fetchBodies'],
      ['maxResults=1&maxResults=2', 'maxResults'],
      ['stauts=DRAFT', 'stauts'],
      ['__proto__=DRAFT', '__proto__'],
      ['constructor=1', 'constructor'],
      ['valueOf=1', 'valueOf'],
      ['alt=proto', 'alt'],
      ['prettyPrint=maybe', 'prettyPrint'],
      [`quotaUser=${'x'.repeat(41)}`, 'quotaUser'],
    ] as const) {
      const e = caught(() => q(s));
      expect([e.code, e.reason, e.location], s).toEqual([400, 'invalid', location]);
    }
  });
});

describe('fields selector', () => {
  const list = {
    kind: 'blogger#postList',
    nextPageToken: 'n',
    items: [
      {
        id: '1',
        title: 'A',
        author: { id: 'u', displayName: 'Ann', image: { url: 'x' } },
        replies: { totalItems: '2', selfLink: 's' },
      },
      { id: '2', title: 'B', author: { id: 'u', displayName: 'Ann' } },
    ],
  };
  const pick = (f: string, v: unknown = list) => applyFields(v, parseFields(f));

  it('selects sub-fields of every array element', () => {
    expect(pick('items(id,title),nextPageToken')).toEqual({
      items: [
        { id: '1', title: 'A' },
        { id: '2', title: 'B' },
      ],
      nextPageToken: 'n',
    });
  });

  it('follows paths and merges selections', () => {
    expect(pick('items/author/displayName,items/id')).toEqual({
      items: [
        { author: { displayName: 'Ann' }, id: '1' },
        { author: { displayName: 'Ann' }, id: '2' },
      ],
    });
    expect(pick('items(replies/totalItems)')).toEqual({ items: [{ replies: { totalItems: '2' } }, {}] });
    expect(pick('author/displayName', list.items[0])).toEqual({ author: { displayName: 'Ann' } });
  });

  it('supports * and leaves out fields a resource does not have', () => {
    expect(pick('*')).toEqual(list);
    expect(pick('kind,prevPageToken')).toEqual({ kind: 'blogger#postList' });
    expect(pick('items(author(*))')).toEqual({
      items: [{ author: list.items[0]!.author }, { author: list.items[1]!.author }],
    });
    expect(pick('constructor,toString')).toEqual({});
    expect(JSON.stringify(pick('*', JSON.parse('{"__proto__":{"x":1},"a":2}')))).toBe('{"__proto__":{"x":1},"a":2}');
    // The deepest and widest selections allowed.
    expect(pick(`${'a/'.repeat(11)}a`)).toEqual({});
    expect(pick(Array.from({ length: 200 }, (_, i) => `f${i}`).join(','))).toEqual({});
  });

  it('rejects malformed selectors with 400 invalid on fields', () => {
    const deep = `${'a('.repeat(13)}a${')'.repeat(13)}`;
    const wide = Array.from({ length: 201 }, (_, i) => `f${i}`).join(',');
    for (const f of ['items(id', 'items)', 'a,,b', 'a/', 'a(b))', 'it*ms', '(a)', deep, `${'a/'.repeat(12)}a`, wide]) {
      const e = caught(() => parseFields(f));
      expect([e.code, e.reason, e.location], f).toEqual([400, 'invalid', 'fields']);
    }
  });
});
