/** A real node:http server on 127.0.0.1 (port 0) serving a memory-driver service through the helper. */
import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { memoryDriver } from '../../drivers/memory/index.js';
import type { StorageDriver } from '../../src/store/driver.js';
import { BlogError, createBlogService } from '../../src/index.js';
import { createHttpHandler, toNodeHandler, type HttpHandlerOptions } from '../../src/http/index.js';

export const ADMIN_TOKEN = 'admin-token-0123456789';
export const READER_TOKEN = 'reader-token-0123456789';
export const BLOG_URL = 'https://http-tests.blogcore.example/';

export interface Fixture {
  base: string;
  api: string;
  driver: StorageDriver;
  service: ReturnType<typeof createBlogService>;
  adminId: string;
  readerId: string;
  blogId: string;
  /** Unexpected errors the handler reported through onError. */
  errors: unknown[];
  /** Every response once its connection is done with it: the status, and whether a head was written at all. */
  responses: Array<{ method: string; url: string; status: number; sent: boolean }>;
  /** The last sequence number committed. */
  seq(): Promise<number>;
  close(): Promise<void>;
}

export async function startFixture(
  options: Omit<HttpHandlerOptions, 'authenticate'> & { authenticate?: HttpHandlerOptions['authenticate'] } = {},
): Promise<Fixture> {
  const driver = memoryDriver();
  const server: Server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const service = createBlogService({ driver, apiBaseUrl: base });
  await service.ready();
  const admin = await service.users.insert({ body: { displayName: 'Ada Admin' } });
  const reader = await service.users.insert({ body: { displayName: 'Rita Reader' } });
  const blog = await service.blogs.insert({ body: { name: 'HTTP tests', url: BLOG_URL }, ownerId: admin.id });
  const tokens = new Map([
    [ADMIN_TOKEN, admin.id],
    [READER_TOKEN, reader.id],
  ]);
  const errors: unknown[] = [];
  const handler = createHttpHandler(service, {
    authenticate: (request) => {
      const auth = request.headers.get('authorization');
      if (auth === null) return null;
      const userId = tokens.get(auth.replace(/^Bearer\s+/i, ''));
      if (!userId)
        throw new BlogError({
          code: 401,
          reason: 'authError',
          message: 'Invalid Credentials',
          location: 'Authorization',
          locationType: 'header',
        });
      return { userId };
    },
    onError: (e) => errors.push(e),
    ...options,
  });
  const responses: Fixture['responses'] = [];
  const node = toNodeHandler(handler);
  server.on('request', (req, res) => {
    res.on('close', () =>
      responses.push({ method: req.method!, url: req.url!, status: res.statusCode, sent: res.headersSent }),
    );
    void node(req, res);
  });
  return {
    base,
    api: `${base}/v3`,
    driver,
    service,
    adminId: admin.id,
    readerId: reader.id,
    blogId: blog.id,
    errors,
    responses,
    async seq() {
      const changes = await driver.changesSince(0, 1_000_000);
      return changes.at(-1)?.seq ?? 0;
    },
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => void service.close().then(() => r()));
      }),
  };
}

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
export const jsonHeaders = (token?: string) => ({
  'content-type': 'application/json',
  ...(token ? bearer(token) : {}),
});

export interface RawResponse {
  /** 0 when the server closed the connection without answering. */
  status: number;
  headers: string;
  body: string;
}

/**
 * Sends `text` as-is on a fresh TCP connection (for what fetch refuses to send: `*` and absolute targets,
 * broken chunked bodies) and reads the first response. `hangUp` closes the connection right after sending.
 */
export function rawRequest(
  base: string,
  text: string | Uint8Array,
  options: { hangUp?: boolean } = {},
): Promise<RawResponse> {
  const { port } = new URL(base);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (d) => chunks.push(d));
    socket.on('error', reject);
    socket.on('close', () => {
      const all = Buffer.concat(chunks).toString('latin1');
      const m = /^HTTP\/1\.1 (\d{3})/.exec(all);
      const end = all.indexOf('\r\n\r\n');
      const headers = end < 0 ? all : all.slice(0, end);
      let body = end < 0 ? '' : all.slice(end + 4);
      if (/\r\ntransfer-encoding: chunked/i.test(headers)) body = unchunk(body);
      resolve({ status: m ? Number(m[1]) : 0, headers, body: Buffer.from(body, 'latin1').toString('utf8') });
    });
    socket.write(text, () => {
      if (options.hangUp) socket.destroy();
      else socket.end();
    });
  });
}

function unchunk(body: string): string {
  let out = '';
  for (let at = 0; ; ) {
    const eol = body.indexOf('\r\n', at);
    const size = Number.parseInt(body.slice(at, eol), 16);
    if (!(size > 0)) return out;
    out += body.slice(eol + 2, eol + 2 + size);
    at = eol + 2 + size + 2;
  }
}
