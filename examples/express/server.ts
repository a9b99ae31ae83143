/**
 * blogcore inside an Express 5 app, mounted under /api, with bearer-token sign-in.
 *
 *   npm run build && npx tsx examples/express/server.ts      # PORT=3000 BLOG_TOKEN=secret
 *
 * Do not put express.json() in front of the handler for these routes: the handler reads (and limits) the
 * body itself. If a parser did run first, the adapter re-encodes what it parsed.
 */
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { BlogError, createBlogService } from 'blogcore';
import { createHttpHandler, toNodeHandler } from 'blogcore/http';
import { memoryDriver } from 'blogcore/memory';

const port = Number(process.env.PORT ?? 3000);
const service = createBlogService({ driver: memoryDriver(), apiBaseUrl: `http://127.0.0.1:${port}/api` });

const admin = await service.users.insert({ body: { displayName: 'Express admin' } });
const blog = await service.blogs.insert({
  body: { name: 'Express example', url: 'https://express.blogcore.example/' },
  ownerId: admin.id,
});
await service
  .as({ userId: admin.id })
  .posts.insert({ blogId: blog.id, body: { title: 'Hello from Express', content: '<p>Mounted at /api/v3.</p>' } });

const token = process.env.BLOG_TOKEN ?? randomBytes(18).toString('base64url');
const handler = createHttpHandler(service, {
  // The public prefix: Express strips '/api' from req.url, the adapter routes on req.originalUrl.
  basePath: '/api/v3',
  authenticate: (request) => {
    const auth = request.headers.get('authorization');
    if (auth === null) return null; // anonymous reader
    if (auth === `Bearer ${token}`) return { userId: admin.id };
    throw new BlogError({
      code: 401,
      reason: 'authError',
      message: 'Invalid Credentials',
      location: 'Authorization',
      locationType: 'header',
    });
  },
});

const app = express();
app.get('/', (_req, res) => {
  res.type('text').send(`Try GET /api/v3/blogs/${blog.id}/posts\n`);
});
// Paths under /api that are not /api/v3/... fall through to next() and Express's own 404.
app.use('/api', toNodeHandler(handler));

const server = app.listen(port, '127.0.0.1', () => {
  const { port: actual } = server.address() as AddressInfo;
  console.log(`listening on http://127.0.0.1:${actual}/api/v3/blogs/${blog.id}/posts`);
  console.log(`admin token: ${token}`);
});

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => server.close(() => void service.close().then(() => process.exit(0))));
}
