/**
 * blogcore on plain node:http with SQLite: anonymous readers only (no `authenticate`), so anyone can read
 * LIVE posts and leave comments (which wait for moderation).
 *
 *   npm run build && npx tsx examples/node-http/server.ts      # PORT=8081 BLOG_DB=./data/node-http.db
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { BlogError, createBlogService } from 'blogcore';
import { createHttpHandler, toNodeHandler } from 'blogcore/http';
import { sqliteDriver } from 'blogcore/sqlite';

const port = Number(process.env.PORT ?? 8081);
const origin = `http://127.0.0.1:${port}`;
const service = createBlogService({
  driver: sqliteDriver({ filename: process.env.BLOG_DB ?? './data/node-http-example.db' }),
  apiBaseUrl: origin,
});

// Host code uses the unscoped service (trusted, acts as admin) to create what it needs once.
const url = 'https://node-http.blogcore.example/';
const blog = await service.blogs.getByUrl({ url }).catch(async (error: unknown) => {
  if (!BlogError.is(error) || error.code !== 404) throw error;
  const owner = await service.users.insert({ body: { displayName: 'Site owner' } });
  const created = await service.blogs.insert({ body: { name: 'node:http example', url }, ownerId: owner.id });
  await service.as({ userId: owner.id }).posts.insert({
    blogId: created.id,
    body: { title: 'Hello from node:http', content: '<p>Served by blogcore.</p>' },
  });
  return created;
});

const handler = createHttpHandler(service); // basePath '/v3'; everyone is anonymous
const server = createServer(toNodeHandler(handler));
server.listen(port, '127.0.0.1', () => {
  const { port: actual } = server.address() as AddressInfo;
  console.log(`listening on http://127.0.0.1:${actual}/v3/blogs/${blog.id}/posts`);
});

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => server.close(() => void service.close().then(() => process.exit(0))));
}
