// What no client may do to the HTTP edge, sent raw over TCP to a real node:http server: odd request targets,
// hostile `fields`, bodies where none belong, broken and abandoned uploads. None of it is a 500, none of it
// reaches onError, and a request whose body breaks off changes nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, jsonHeaders, rawRequest, startFixture, type Fixture, type RawResponse } from './fixture.js';

let f: Fixture;
let postId: string;
let post: string;

beforeAll(async () => {
  f = await startFixture({ maxBodyBytes: 4096 });
  const made = await fetch(`${f.api}/blogs/${f.blogId}/posts`, {
    method: 'POST',
    headers: jsonHeaders(ADMIN_TOKEN),
    body: JSON.stringify({ title: 'Edge', content: '<p>e</p>' }),
  });
  postId = ((await made.json()) as { id: string }).id;
  post = `/v3/blogs/${f.blogId}/posts/${postId}`;
  const comment = await fetch(`${f.base}${post}/comments`, {
    method: 'POST',
    headers: jsonHeaders(ADMIN_TOKEN),
    body: JSON.stringify({ content: 'first!' }),
  });
  expect(comment.status).toBe(200);
});
afterAll(() => f.close());

const auth = `Authorization: Bearer ${ADMIN_TOKEN}\r\n`;
const send = (head: string, body = '') =>
  rawRequest(f.base, `${head}\r\nHost: edge.example\r\nConnection: close\r\n\r\n${body}`);

/** A Google error body with this status and reason. */
function expectError(res: RawResponse, status: number, reason: string): void {
  expect(res.status, res.headers + res.body).toBe(status);
  const body = JSON.parse(res.body) as {
    error: { code: number; status: string; message: string; errors: Array<{ domain: string; reason: string }> };
  };
  expect(body.error).toMatchObject({ code: status, errors: [{ domain: 'global', reason }] });
}

async function postAndComments(): Promise<[number, number]> {
  const headers = { authorization: `Bearer ${ADMIN_TOKEN}` };
  const one = await fetch(`${f.base}${post}`, { headers });
  const comments = await fetch(`${f.base}${post}/comments?view=ADMIN`, { headers });
  const items = ((await comments.json()) as { items?: unknown[] }).items ?? [];
  return [one.status, items.length];
}

describe('request targets', () => {
  it('the asterisk form (OPTIONS *, GET *) is a 404 for no route, not a 500', async () => {
    expectError(await send('OPTIONS * HTTP/1.1'), 404, 'notFound');
    expectError(await send('GET * HTTP/1.1'), 404, 'notFound');
  });

  it('an absolute form is served; with user info, unparsable or not http(s) it is 400 invalid', async () => {
    const ok = await send(`GET http://edge.example${post} HTTP/1.1\r\n${auth.trim()}`);
    expect(ok.status).toBe(200);
    expect(JSON.parse(ok.body)).toMatchObject({ id: postId });
    expectError(await send(`GET http://a@b${post} HTTP/1.1\r\n${auth.trim()}`), 400, 'invalid');
    expectError(await send(`GET http://a:pw@b${post} HTTP/1.1`), 400, 'invalid');
    expectError(await send(`GET http://[::1${post} HTTP/1.1`), 400, 'invalid');
    expectError(await send(`GET ftp://b${post} HTTP/1.1`), 400, 'invalid');
  });

  it('a fields selector nested 3,800 deep (15 KB) or 2,000 names wide is 400 invalid on fields', async () => {
    const deep = `${'a('.repeat(3800)}a${')'.repeat(3800)}`;
    expectError(await send(`GET ${post}?fields=${deep} HTTP/1.1`), 400, 'invalid');
    expectError(await send(`GET ${post}?fields=${'a/'.repeat(1800)}a,${'a/'.repeat(1800)}b HTTP/1.1`), 400, 'invalid');
    const wide = Array.from({ length: 2000 }, (_, i) => `f${i}`).join(',');
    expectError(await send(`GET ${post}?fields=items(${wide}) HTTP/1.1`), 400, 'invalid');
    // A real selection still works.
    const ok = await send(`GET ${post}?fields=id,author/displayName HTTP/1.1`);
    expect(JSON.parse(ok.body)).toEqual({ id: postId, author: { displayName: 'Ada Admin' } });
  });

  it('parameters named like Object.prototype members are unknown parameters', async () => {
    for (const name of ['__proto__', 'constructor', 'toString', 'hasOwnProperty', '__defineGetter__']) {
      expectError(await send(`GET /v3/blogs/${f.blogId}/posts?${name}=DRAFT HTTP/1.1`), 400, 'invalid');
    }
    expect(f.errors).toEqual([]);
  });
});

describe('bodies', () => {
  it('a body on a body-less route is read and size-checked, whatever the method', async () => {
    const get = await send(`GET ${post} HTTP/1.1\r\nContent-Type: text/plain\r\nContent-Length: 5`, 'hello');
    expect(get.status).toBe(200);
    expectError(await send(`GET ${post} HTTP/1.1\r\nContent-Length: 5000`, 'x'.repeat(5000)), 413, 'requestTooLarge');
    const chunked = 'x'.repeat(1000);
    const big = `${`3e8\r\n${chunked}\r\n`.repeat(5)}0\r\n\r\n`;
    expectError(
      await send(`DELETE ${post} HTTP/1.1\r\n${auth}Transfer-Encoding: chunked`, big),
      413,
      'requestTooLarge',
    );
    expect(await postAndComments()).toEqual([200, 1]);
  });

  it('a DELETE whose chunked body is malformed deletes nothing (read whole before acting)', async () => {
    const before = await f.seq();
    const res = await send(`DELETE ${post} HTTP/1.1\r\n${auth}Transfer-Encoding: chunked`, 'zz\r\nhello\r\n0\r\n\r\n');
    expect(res.status).toBe(400); // Node's own parser answers the broken framing
    expect(await postAndComments()).toEqual([200, 1]);
    expect(await f.seq()).toBe(before);
    expect(f.errors).toEqual([]);
  });

  it('a client that hangs up mid-upload is not a server error: nothing logged, nothing written, nothing changed', async () => {
    const before = await f.seq();
    const seen = f.responses.length;
    const partial = [
      `POST /v3/blogs/${f.blogId}/posts HTTP/1.1\r\nHost: x\r\n${auth}Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"title":"half`,
      `DELETE ${post} HTTP/1.1\r\nHost: x\r\n${auth}Content-Length: 100\r\n\r\nabc`,
      `PATCH ${post} HTTP/1.1\r\nHost: x\r\n${auth}Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n{"tit`,
    ];
    for (const text of partial) {
      const res = await rawRequest(f.base, text, { hangUp: true });
      expect(res.status).toBe(0);
    }
    await expect.poll(() => f.responses.length - seen).toBe(3);
    expect(f.responses.slice(seen).map((r) => r.sent)).toEqual([false, false, false]);
    expect(f.errors).toEqual([]);
    expect(await postAndComments()).toEqual([200, 1]);
    expect(await f.seq()).toBe(before);
  });
});

describe('comment HTML', () => {
  it('removed markup leaves nothing behind (no "[removed]" text), kept text stays', async () => {
    const cases: Array<[string, string]> = [
      ['a<script>alert(1)</script>b', 'ab'],
      ['<style>p{}</style>styled', 'styled'],
      ['before<script>never closed', 'before'],
      ['<script><script>x</script></script>after', 'after'],
      ['x</script>y', 'xy'],
      ['<iframe src="https://evil.example"></iframe><p>kept <b>bold</b></p>', '<p>kept <b>bold</b></p>'],
      ['<font color=red>plain</font> text [removed] typed by hand', 'plain text [removed] typed by hand'],
    ];
    for (const [content, expected] of cases) {
      const res = await fetch(`${f.base}${post}/comments`, {
        method: 'POST',
        headers: jsonHeaders(ADMIN_TOKEN),
        body: JSON.stringify({ content }),
      });
      expect(((await res.json()) as { content: string }).content, content).toBe(expected);
    }
  });
});
