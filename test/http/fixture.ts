/** A real node:http server on 127.0.0.1 (port 0) serving a memory-driver service through the helper. */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { memoryDriver } from '../../drivers/memory/index.js';
import type { StorageDriver } from '../../src/driver.js';
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
  /** The last sequence number committed. */
  seq(): Promise<number>;
  close(): Promise<void>;
}

export async function startFixture(options: Omit<HttpHandlerOptions, 'authenticate'> & { authenticate?: HttpHandlerOptions['authenticate'] } = {}): Promise<Fixture> {
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
      if (!userId) throw new BlogError({ code: 401, reason: 'authError', message: 'Invalid Credentials', location: 'Authorization', locationType: 'header' });
      return { userId };
    },
    onError: (e) => errors.push(e),
    ...options,
  });
  server.on('request', toNodeHandler(handler));
  return {
    base,
    api: `${base}/v3`,
    driver,
    service,
    adminId: admin.id,
    readerId: reader.id,
    blogId: blog.id,
    errors,
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
export const jsonHeaders = (token?: string) => ({ 'content-type': 'application/json', ...(token ? bearer(token) : {}) });
