/**
 * blogcore in a Hono app (Fetch standard end to end), served on Node by @hono/node-server, with CORS on so
 * a browser page on another origin can read the blog.
 *
 *   npm run build && npx tsx examples/hono/server.ts      # PORT=8787
 */
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { createBlogService } from 'blogcore';
import { createHttpHandler } from 'blogcore/http';
import { memoryDriver } from 'blogcore/memory';

const port = Number(process.env.PORT ?? 8787);
const service = createBlogService({ driver: memoryDriver(), apiBaseUrl: `http://127.0.0.1:${port}` });

const owner = await service.users.insert({ body: { displayName: 'Hono owner' } });
const blog = await service.blogs.insert({
  body: { name: 'Hono example', url: 'https://hono.blogcore.example/' },
  ownerId: owner.id,
});
await service.as({ userId: owner.id }).posts.insert({
  blogId: blog.id,
  body: { title: 'Hello from Hono', content: '<p>A Fetch handler inside Hono.</p>' },
});

const handler = createHttpHandler(service, { cors: true });
const app = new Hono();
app.get('/', (c) => c.text(`Try GET /v3/blogs/${blog.id}/posts\n`));
// c.req.raw is the untouched Request, so the default basePath '/v3' matches. A catch-all after the app's own
// routes: everything the handler serves (/v3, the feeds) reaches it.
app.all('*', (c) => handler(c.req.raw));

const server = serve({ fetch: app.fetch, port, hostname: '127.0.0.1' }, (info) => {
  console.log(`listening on http://127.0.0.1:${info.port}/v3/blogs/${blog.id}/posts`);
});

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => server.close(() => void service.close().then(() => process.exit(0))));
}
