/**
 * blogcore inside a Fastify 5 app: the /v3 routes live in an encapsulated plugin, so the host's own routes keep
 * Fastify's JSON body parsing.
 *
 *   npm run build && npx tsx examples/fastify/server.ts      # PORT=3000
 *
 * Inside the plugin (and only there) Fastify's body parsers are replaced by one that leaves the body unread:
 * the handler reads and limits it itself. Calling removeAllContentTypeParsers() on the root instance instead
 * would empty req.body for every other route of the host; keeping Fastify's JSON parser in front of the
 * handler would leave it waiting for a body that was already read.
 */
import type { AddressInfo } from 'node:net';
import { createBlogService } from 'blogcore';
import { createHttpHandler, toNodeHandler } from 'blogcore/http';
import { memoryDriver } from 'blogcore/memory';
import Fastify, { type FastifyInstance } from 'fastify';

const service = createBlogService({ driver: memoryDriver() });
const owner = await service.users.insert({ body: { displayName: 'Fastify owner' } });
const blog = await service.blogs.insert({
  body: { name: 'Fastify example', url: 'https://fastify.blogcore.example/' },
  ownerId: owner.id,
});
await service
  .as({ userId: owner.id })
  .posts.insert({ blogId: blog.id, body: { title: 'Hello from Fastify', content: '<p>Served by blogcore.</p>' } });

/** Everything the handler serves (/v3, the feeds), as a plugin: its parser settings stay inside it. */
function blogcorePlugin(handler: ReturnType<typeof createHttpHandler>) {
  const toNode = toNodeHandler(handler);
  return async (scope: FastifyInstance) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (_request, _payload, done) => done(null));
    // A catch-all: the host's named routes still win over it.
    scope.all('/*', (request, reply) => {
      reply.hijack(); // the handler writes the response itself
      return toNode(request.raw, reply.raw);
    });
  };
}

const app = Fastify();
// The host's own JSON route, parsed by Fastify as usual.
app.post('/app/echo', async (request) => request.body);
// Anonymous readers and commenters; pass { authenticate } to sign users in (see examples/express).
app.register(blogcorePlugin(createHttpHandler(service)));

await app.listen({ port: Number(process.env.PORT ?? 3000), host: '127.0.0.1' });
const { port } = app.server.address() as AddressInfo;
console.log(`listening on http://127.0.0.1:${port}/v3/blogs/${blog.id}/posts`);

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => void app.close().then(() => service.close().then(() => process.exit(0))));
}
