// The OpenAPI 3.1 document: valid for a real OpenAPI validator, served by the helper under its base path,
// and the same set of operations as the route table, both ways.
import { Validator } from '@seriousme/openapi-schema-validator';
import { describe, expect, it } from 'vitest';
import { memoryDriver } from '../../drivers/memory/index.js';
import { createBlogService } from '../../src/index.js';
import { createHttpHandler, openApiDocument, ROUTES } from '../../src/http/index.js';
import { MEDIA_BYTES_PATH } from '../../src/http/openapi.js';
import { PICTURES } from '../media/pictures.js';

type Doc = {
  openapi: string;
  servers: Array<{ url: string }>;
  paths: Record<
    string,
    Record<
      string,
      {
        operationId: string;
        parameters: Array<{ name: string; in: string }>;
        'x-blogcore-extension'?: boolean;
        requestBody?: unknown;
      }
    >
  >;
};

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

describe('OpenAPI document', () => {
  const doc = openApiDocument('/v3') as unknown as Doc;

  it('is a valid OpenAPI 3.1 document', async () => {
    expect(doc.openapi).toBe('3.1.0');
    const result = await new Validator().validate(JSON.parse(JSON.stringify(doc)));
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('has every route of the table, and nothing else', () => {
    for (const r of ROUTES) {
      const op = doc.paths[r.path]?.[r.method.toLowerCase()];
      expect(op?.operationId, `${r.method} ${r.path}`).toBe(r.op.join('.'));
      const query = op!.parameters
        .filter((p) => p.in === 'query')
        .map((p) => p.name)
        .sort();
      expect(query).toEqual(
        Object.entries(r.query)
          .filter(([, k]) => k !== 'ignore')
          .map(([n]) => n)
          .sort(),
      );
      const path = op!.parameters.filter((p) => p.in === 'path').map((p) => p.name);
      expect(path).toEqual([...r.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]));
      expect(op!.requestBody !== undefined).toBe(
        r.body === true || r.upload === true || (r.collab === true && r.method === 'POST'),
      );
    }
    const documented = Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.keys(ops)
        .filter((m) => METHODS.includes(m))
        .map((m) => `${m.toUpperCase()} ${path}`),
    );
    // Beside the routes of the table: the bytes of media, under their own server (the media base).
    expect(documented.sort()).toEqual(
      [...ROUTES.map((r) => `${r.method} ${r.path}`), `GET ${MEDIA_BYTES_PATH}`, `HEAD ${MEDIA_BYTES_PATH}`].sort(),
    );
    expect((doc.paths[MEDIA_BYTES_PATH] as unknown as { servers: Array<{ url: string }> }).servers).toEqual([
      { url: '/media' },
    ]);
  });

  it("marks blogcore's own operations as extensions: all 33 Blogger v3 methods are there unmarked", () => {
    const ops = Object.values(doc.paths).flatMap((o) =>
      Object.entries(o)
        .filter(([m]) => METHODS.includes(m))
        .map(([, op]) => op),
    );
    expect(
      ops
        .filter((o) => o['x-blogcore-extension'])
        .map((o) => o.operationId)
        .sort(),
    ).toEqual([
      'blogs.delete',
      'blogs.patch',
      'blogs.update',
      'changes.list',
      'collab.pull',
      'collab.pull',
      'collab.push',
      'collab.push',
      'comments.insert',
      'comments.moderate',
      'labels.list',
      'media.bytes.get',
      'media.bytes.head',
      'media.delete',
      'media.get',
      'media.list',
      'media.patch',
      'media.upload',
      'pages.revisions.get',
      'pages.revisions.list',
      'pages.revisions.restore',
      'posts.revisions.get',
      'posts.revisions.list',
      'posts.revisions.restore',
      'users.update',
    ]);
    expect(ops.filter((o) => !o['x-blogcore-extension'])).toHaveLength(33);
  });

  it('names the resource each route answers: every GET answers the kind its document names', async () => {
    const service = createBlogService({ driver: memoryDriver() });
    const user = await service.users.insert({ body: { id: 'ann', displayName: 'Ann' } });
    const blog = await service.blogs.insert({ body: { name: 'B', url: 'https://b.example/' }, ownerId: user.id });
    const post = await service.posts.insert({ blogId: blog.id, body: { title: 'one', content: 'x', labels: ['tag'] } });
    await service.posts.patch({ blogId: blog.id, postId: post.id, body: { title: 'two' } });
    const page = await service.pages.insert({ blogId: blog.id, body: { title: 'p', content: 'x' } });
    await service.pages.patch({ blogId: blog.id, pageId: page.id, body: { title: 'q' } });
    const comment = await service.comments.insert({ blogId: blog.id, postId: post.id, body: { content: 'hi' } });
    const media = await service.media.upload({ blogId: blog.id, body: PICTURES.png });
    const postRevision = (await service.posts.revisions.list({ blogId: blog.id, postId: post.id })).items[0]!;
    const pageRevision = (await service.pages.revisions.list({ blogId: blog.id, pageId: page.id })).items[0]!;
    const ids: Record<string, string> = {
      blogId: blog.id,
      postId: post.id,
      pageId: page.id,
      commentId: comment.id,
      userId: user.id,
      revisionId: '',
      mediaId: media.id,
    };
    const query: Record<string, string> = {
      getByUrl: `?url=${encodeURIComponent(blog.url)}`,
      getByPath: `?path=${encodeURIComponent(new URL(post.url!).pathname)}`,
      search: '?q=two',
    };
    const handler = createHttpHandler(service, { authenticate: () => ({ userId: user.id }) });
    const components = (
      doc as unknown as { components: { schemas: Record<string, { properties: { kind: { const: string } } }> } }
    ).components.schemas;
    const gets = ROUTES.filter((r) => r.method === 'GET');
    expect(gets.length).toBeGreaterThan(20);
    for (const r of gets) {
      ids.revisionId = r.op[0] === 'pages.revisions' ? pageRevision.id : postRevision.id;
      const url = r.path.replace(/\{(\w+)\}/g, (_, name: string) => ids[name]!) + (query[r.op[1]] ?? '');
      const res = await handler(new Request(`http://x.test/v3${url}`));
      expect(res.status, `${r.op.join('.')} ${url}`).toBe(200);
      if (r.collab) {
        // A shared document answers its bytes, as its document says, with the position beside them.
        const answer = (doc.paths[r.path]!.get as unknown as { responses: { 200: { content: object } } })
          .responses[200];
        expect(Object.keys(answer.content)).toEqual([res.headers.get('content-type')]);
        expect(res.headers.get('blogcore-collab-position')).toMatch(/^\d+$/);
        continue;
      }
      const ref = (
        doc.paths[r.path]!.get as unknown as {
          responses: { 200: { content: { 'application/json': { schema: { $ref: string } } } } };
        }
      ).responses[200].content['application/json'].schema.$ref;
      const kind = components[ref.replace('#/components/schemas/', '')]!.properties.kind.const;
      expect(((await res.json()) as { kind: string }).kind, r.op.join('.')).toBe(kind);
    }
    await service.close();
  });

  it('is served at {basePath}/openapi.json', async () => {
    const service = createBlogService({ driver: memoryDriver() });
    for (const basePath of ['/v3', '/api/v3']) {
      const handler = createHttpHandler(service, { basePath });
      const res = await handler(new Request(`http://x.test${basePath}/openapi.json`));
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      const served = (await res.json()) as Doc;
      expect(served).toEqual(JSON.parse(JSON.stringify(openApiDocument(basePath))));
      expect(served.servers[0]!.url).toBe(basePath);
      expect((await handler(new Request(`http://x.test${basePath}/openapi.json`, { method: 'DELETE' }))).status).toBe(
        405,
      );
    }
    await service.close();
  });
});
