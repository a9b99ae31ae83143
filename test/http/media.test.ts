/**
 * Media over HTTP (docs/design.md §19) on a real node:http server: the upload route (raw body, Content-Type,
 * Content-Disposition, Idempotency-Key, its own limit), list/get/patch/delete, and the bytes at
 * /media/{blogId}/{mediaId}/{filename} (ETag/304, Range/206/416, immutable caching, nosniff, CSP). Aborted and
 * oversized uploads leave nothing behind. The Fetch path streams the same way.
 */
import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryDriver } from '../../drivers/memory/index.js';
import { BlogError, createBlogService, type BlogService } from '../../src/index.js';
import { createHttpHandler, toNodeHandler } from '../../src/http/index.js';
import { makePng, PICTURES, sha256Hex } from '../media/pictures.js';
import { trackedBlobs } from '../media/suite.js';

const ADMIN = 'Bearer admin';
const AUTHOR = 'Bearer author';
const READER = 'Bearer reader';
const MAX = 200_000;

let server: Server;
let base: string;
let service: BlogService;
let blogId: string;
let blobs: ReturnType<typeof trackedBlobs>;
let handler: (r: Request) => Promise<Response>;

beforeAll(async () => {
  const driver = memoryDriver();
  blobs = trackedBlobs(driver.blobs);
  server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  service = createBlogService({ driver, blobs, apiBaseUrl: base, maxMediaBytes: MAX });
  const users = { admin: 'admin', author: 'author', reader: 'reader' };
  for (const id of Object.values(users)) await service.users.insert({ body: { id, displayName: id } });
  blogId = (await service.blogs.insert({ body: { name: 'Media', url: 'https://media.example/' }, ownerId: 'admin' }))
    .id;
  await service.members.set({ blogId, userId: 'author', role: 'AUTHOR' });
  await service.members.set({ blogId, userId: 'reader', role: 'READER' });
  handler = createHttpHandler(service, {
    authenticate: (req) => {
      const a = req.headers.get('authorization');
      if (!a) return null;
      const id = a.replace(/^Bearer /, '');
      if (!(id in users)) throw new BlogError({ code: 401, reason: 'authError', message: 'who?' });
      return { userId: id };
    },
  });
  server.on('request', toNodeHandler(handler));
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
  await service.close();
});

const upload = (bytes: Uint8Array, headers: Record<string, string> = {}) =>
  fetch(`${base}/v3/blogs/${blogId}/media`, {
    method: 'POST',
    headers: { authorization: AUTHOR, 'content-type': 'image/png', ...headers },
    body: bytes as Uint8Array<ArrayBuffer>,
  });

const held = async () => (await service.media.list({ blogId, maxResults: 500 })).items.length;

describe('the upload route', () => {
  it('takes the raw bytes with their file name, and answers the media', async () => {
    const bytes = makePng(60, 40, 1);
    const res = await upload(bytes, {
      'content-disposition': `attachment; filename*=UTF-8''${encodeURIComponent('été.png')}; filename="ete.png"`,
    });
    expect(res.status).toBe(200);
    const m = (await res.json()) as Record<string, unknown>;
    const sha = await sha256Hex(bytes);
    expect(m).toMatchObject({
      kind: 'blogcore#media',
      id: sha,
      filename: 'été.png',
      width: 60,
      height: 40,
      url: `${base}/media/${blogId}/${sha}/%C3%A9t%C3%A9.png`,
    });
    expect(res.headers.get('etag')).toBe(m.etag);
    const plain = await upload(makePng(5, 5, 2), {
      'content-type': 'application/octet-stream',
      'content-disposition': 'attachment; filename="a \\"b\\".png"',
    });
    expect(((await plain.json()) as { filename: string }).filename).toBe('a b.png');
  });

  it('refuses what the bytes are not, bodies over the limit (before reading, or as they stream), and nothing stays', async () => {
    const before = await held();
    const keys = blobs.held.size;
    const mismatch = await upload(PICTURES.jpg, { 'content-type': 'image/gif' });
    expect(mismatch.status).toBe(400);
    expect(
      await upload(new TextEncoder().encode('<svg/>'), { 'content-type': 'image/svg+xml' }).then((r) => r.status),
    ).toBe(400);
    const declared = await rawUpload(`Content-Length: ${MAX + 1}\r\n`, new Uint8Array(10));
    expect(declared.status).toBe(413);
    // Chunked, no length: refused at the crossing piece, the connection closed on the rest.
    const big = makePng(300, 300, 3);
    const chunked = await rawUpload('Transfer-Encoding: chunked\r\n', big, true);
    expect(chunked.status).toBe(413);
    expect(chunked.headers).toMatch(/connection: close/i);
    expect(
      (await fetch(`${base}/v3/blogs/${blogId}/media`, { method: 'POST', headers: { authorization: AUTHOR } })).status,
    ).toBe(400);
    expect(await held()).toBe(before);
    expect(blobs.held.size).toBe(keys);
  });

  it('an upload the client abandons halfway leaves no media and no bytes', async () => {
    const before = await held();
    const keys = blobs.held.size;
    const bytes = makePng(200, 200, 4);
    const { port } = new URL(base);
    await new Promise<void>((resolve) => {
      const socket = connect(Number(port), '127.0.0.1', () => {
        socket.write(
          `POST /v3/blogs/${blogId}/media HTTP/1.1\r\nHost: x\r\nAuthorization: ${AUTHOR}\r\nContent-Type: image/png\r\nContent-Length: ${bytes.byteLength}\r\n\r\n`,
        );
        socket.write(bytes.subarray(0, 50_000), () => setTimeout(() => socket.destroy(), 50));
      });
      socket.on('close', () => resolve());
      socket.on('error', () => undefined);
    });
    await new Promise((r) => setTimeout(r, 100));
    expect(await held()).toBe(before);
    expect(blobs.held.size).toBe(keys);
  });

  it('answers a retried upload with the first answer (Idempotency-Key), and the same picture with the same media', async () => {
    const bytes = makePng(30, 30, 5);
    const a = await (await upload(bytes, { 'idempotency-key': 'k1' })).json();
    const b = await (await upload(bytes, { 'idempotency-key': 'k1' })).json();
    const c = await (await upload(bytes)).json();
    expect(b).toEqual(a);
    expect((c as { id: string }).id).toBe((a as { id: string }).id);
  });

  it('lets AUTHORs and ADMINs upload; readers and strangers get 403', async () => {
    expect((await upload(PICTURES.png, { authorization: READER })).status).toBe(403);
    expect((await upload(PICTURES.png, { authorization: '' })).status).toBe(403);
    expect((await upload(PICTURES.png, { authorization: ADMIN })).status).toBe(200);
  });
});

describe('list, get, patch and delete', () => {
  it('works as the in-process calls do, with If-Match and ?force=true', async () => {
    const m = (await (await upload(makePng(20, 20, 6))).json()) as { id: string; url: string; etag: string };
    const api = `${base}/v3/blogs/${blogId}`;
    const list = (await (await fetch(`${api}/media?maxResults=2`, { headers: { authorization: AUTHOR } })).json()) as {
      kind: string;
      items: unknown[];
    };
    expect(list.kind).toBe('blogcore#mediaList');
    expect(list.items).toHaveLength(2);
    expect((await fetch(`${api}/media`, { headers: { authorization: READER } })).status).toBe(403);
    const got = await fetch(`${api}/media/${m.id}`, { headers: { authorization: AUTHOR } });
    expect(got.status).toBe(200);
    expect(got.headers.get('etag')).toBe(m.etag);
    const stale = await fetch(`${api}/media/${m.id}`, {
      method: 'PATCH',
      headers: { authorization: AUTHOR, 'content-type': 'application/json', 'if-match': '"x"' },
      body: '{"alt":"x"}',
    });
    expect(stale.status).toBe(412);
    const patched = await fetch(`${api}/media/${m.id}`, {
      method: 'PATCH',
      headers: { authorization: AUTHOR, 'content-type': 'application/json', 'if-match': m.etag },
      body: '{"alt":"Twenty"}',
    });
    expect(((await patched.json()) as { alt: string }).alt).toBe('Twenty');
    const post = await service.posts.insert({ blogId, body: { title: 'Uses it', content: `<img src="${m.url}">` } });
    const uses = (await (
      await fetch(`${api}/media?postId=${post.id}`, { headers: { authorization: AUTHOR } })
    ).json()) as { items: Array<{ id: string }> };
    expect(uses.items.map((x) => x.id)).toEqual([m.id]);
    expect((await fetch(`${api}/media/${m.id}`, { method: 'DELETE', headers: { authorization: ADMIN } })).status).toBe(
      409,
    );
    expect(
      (await fetch(`${api}/media/${m.id}?force=true`, { method: 'DELETE', headers: { authorization: ADMIN } })).status,
    ).toBe(204);
    expect((await fetch(m.url)).status).toBe(404);
  });
});

describe('the bytes', () => {
  let url: string;
  let bytes: Uint8Array;
  let sha: string;
  beforeAll(async () => {
    bytes = makePng(100, 100, 7);
    sha = await sha256Hex(bytes);
    url = ((await (await upload(bytes)).json()) as { url: string }).url;
  });

  it('are served to anyone as what they are: immutable, never sniffed, never run', async () => {
    const res = await fetch(url);
    expect(res.status).toBe(200);
    expect(Object.fromEntries(res.headers)).toMatchObject({
      'content-type': 'image/png',
      'content-length': String(bytes.byteLength),
      etag: `"${sha}"`,
      'cache-control': 'public, max-age=31536000, immutable',
      'x-content-type-options': 'nosniff',
      'content-security-policy': "default-src 'none'",
      'accept-ranges': 'bytes',
    });
    expect(new Uint8Array(await res.arrayBuffer())).toEqual(bytes);
    // Any file name in the url serves the same bytes (the id decides); HEAD answers the head only.
    const head = await fetch(url.replace(/[^/]+$/, 'other.png'), { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-length')).toBe(String(bytes.byteLength));
    expect(await head.text()).toBe('');
  });

  it('answers If-None-Match with 304, ranges with 206, and ranges past the end with 416', async () => {
    expect((await fetch(url, { headers: { 'if-none-match': `"${sha}"` } })).status).toBe(304);
    const part = await fetch(url, { headers: { range: 'bytes=10-19' } });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe(`bytes 10-19/${bytes.byteLength}`);
    expect(new Uint8Array(await part.arrayBuffer())).toEqual(bytes.subarray(10, 20));
    const tail = await fetch(url, { headers: { range: 'bytes=-5' } });
    expect(new Uint8Array(await tail.arrayBuffer())).toEqual(bytes.subarray(bytes.byteLength - 5));
    const open = await fetch(url, { headers: { range: `bytes=${bytes.byteLength - 3}-` } });
    expect(new Uint8Array(await open.arrayBuffer())).toEqual(bytes.subarray(bytes.byteLength - 3));
    const past = await fetch(url, { headers: { range: `bytes=${bytes.byteLength}-` } });
    expect(past.status).toBe(416);
    expect(past.headers.get('content-range')).toBe(`bytes */${bytes.byteLength}`);
    expect((await fetch(url, { headers: { range: 'bytes=0-1', 'if-range': '"other"' } })).status).toBe(200);
    expect((await fetch(url, { headers: { range: 'bytes=0-1,5-6' } })).status).toBe(200);
    // A last position before the first: an invalid header, ignored (RFC 9110 §14.1.1), so all of it.
    const backwards = await fetch(url, { headers: { range: 'bytes=5-2' } });
    expect(backwards.status).toBe(200);
    expect(new Uint8Array(await backwards.arrayBuffer())).toEqual(bytes);
  });

  it('answers 404 for what is not a picture of the blog, 405 for other methods', async () => {
    expect((await fetch(`${base}/media/${blogId}/${'0'.repeat(64)}/x.png`)).status).toBe(404);
    expect((await fetch(`${base}/media/${blogId}/not-a-hash/x.png`)).status).toBe(404);
    expect((await fetch(`${base}/media/nope/${sha}/x.png`)).status).toBe(404);
    expect((await fetch(`${base}/media/${blogId}/${sha}`)).status).toBe(404);
    expect((await fetch(url, { method: 'DELETE' })).status).toBe(405);
  });

  it('stream through the Fetch handler too', async () => {
    const fresh = makePng(40, 40, 8);
    const res = await handler(
      new Request(`${base}/v3/blogs/${blogId}/media`, {
        method: 'POST',
        headers: { authorization: AUTHOR, 'content-type': 'image/png' },
        body: new Blob([fresh as Uint8Array<ArrayBuffer>]).stream(),
        duplex: 'half',
      } as RequestInit),
    );
    expect(res.status).toBe(200);
    const m = (await res.json()) as { url: string };
    const read = await handler(new Request(m.url));
    expect(read.headers.get('content-type')).toBe('image/png');
    expect(new Uint8Array(await read.arrayBuffer())).toEqual(fresh);
  });
});

/** An upload sent over a raw socket (for a Content-Length that lies, or chunked framing); the first answer. */
function rawUpload(framing: string, body: Uint8Array, chunked = false): Promise<{ status: number; headers: string }> {
  const { port } = new URL(base);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1');
    let text = '';
    socket.on('data', (d) => {
      text += d.toString('latin1');
      const m = /^HTTP\/1\.1 (\d{3})[\s\S]*?\r\n\r\n/.exec(text);
      if (m) {
        socket.destroy();
        resolve({ status: Number(m[1]), headers: m[0] });
      }
    });
    socket.on('error', () => undefined);
    socket.on('close', () => reject(new Error(`closed without an answer: ${text}`)));
    socket.write(
      `POST /v3/blogs/${blogId}/media HTTP/1.1\r\nHost: x\r\nAuthorization: ${AUTHOR}\r\nContent-Type: image/png\r\n${framing}\r\n`,
    );
    if (chunked) {
      for (let at = 0; at < body.byteLength && !socket.destroyed; at += 16_384) {
        const piece = body.subarray(at, at + 16_384);
        socket.write(`${piece.byteLength.toString(16)}\r\n`);
        socket.write(piece);
        socket.write('\r\n');
      }
      if (!socket.destroyed) socket.write('0\r\n\r\n');
    } else socket.write(body);
  });
}
