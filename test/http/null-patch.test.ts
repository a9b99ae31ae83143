/**
 * `null` in a patch clears the field, as Google's APIs read it (its Go client sends `null` for `NullFields`):
 * labels → none, content → empty, a blog's description → empty, a user's url → none. In process and over
 * HTTP (a raw PATCH with a JSON `null` on a real server), and the OpenAPI document says so.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openApiDocument } from '../../src/http/index.js';
import { ADMIN_TOKEN, type Fixture, startFixture } from './fixture.js';

let f: Fixture;
beforeAll(async () => {
  f = await startFixture();
});
afterAll(() => f.close());

const patch = (path: string, body: unknown) =>
  fetch(`${f.api}${path}`, {
    method: 'PATCH',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

describe('null in a patch', () => {
  it('clears a post’s labels and location, in process and over HTTP; other fields stay', async () => {
    const post = await f.service.posts.insert({
      blogId: f.blogId,
      body: { title: 'Kept', content: '<p>c</p>', labels: ['a', 'b'], location: { name: 'here', lat: 1, lng: 2 } },
    });
    const patched = await f.service.posts.patch({ blogId: f.blogId, postId: post.id, body: { location: null } });
    expect(patched.location).toBeUndefined();
    expect(patched.labels).toEqual(['a', 'b']);

    const res = await patch(`/blogs/${f.blogId}/posts/${post.id}`, { labels: null });
    expect(res.status).toBe(200);
    const wire = (await res.json()) as { labels?: string[]; title: string; content: string };
    expect(wire.labels ?? []).toEqual([]);
    expect(wire.title).toBe('Kept');
    expect(wire.content).toBe('<p>c</p>');
    const stored = await f.service.posts.get({ blogId: f.blogId, postId: post.id });
    expect(stored.labels ?? []).toEqual([]);
  });

  it('empties a page’s content over HTTP', async () => {
    const page = await f.service.pages.insert({ blogId: f.blogId, body: { title: 'About', content: '<p>about</p>' } });
    const res = await patch(`/blogs/${f.blogId}/pages/${page.id}`, { content: null });
    expect(res.status).toBe(200);
    const stored = await f.service.pages.get({ blogId: f.blogId, pageId: page.id });
    expect(stored.content).toBe('');
    expect(stored.title).toBe('About');
  });

  it('clears a blog’s description and a user’s url; a field that may not be empty still refuses null', async () => {
    await f.service.blogs.patch({ blogId: f.blogId, body: { description: 'words' } });
    const res = await patch(`/blogs/${f.blogId}`, { description: null });
    expect(res.status).toBe(200);
    expect((await f.service.blogs.get({ blogId: f.blogId })).description ?? '').toBe('');

    await f.service.users.update({ userId: f.adminId, body: { url: 'https://ada.example/', about: 'me' } });
    const user = await f.service.users.update({ userId: f.adminId, body: { url: null } });
    expect(user.url).toBeUndefined();

    const refused = await patch(`/blogs/${f.blogId}`, { name: null });
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { error: { message: string } }).error.message).toMatch(/name/);
  });

  it('is in the OpenAPI document: a patch body field takes null', () => {
    const doc = openApiDocument('/v3') as {
      paths: Record<
        string,
        Record<string, { requestBody?: { description?: string; content: Record<string, { schema: unknown }> } }>
      >;
    };
    const op = doc.paths['/blogs/{blogId}/posts/{postId}']!.patch!;
    expect(op.requestBody!.description).toMatch(/null. clears a field/);
    const schema = op.requestBody!.content['application/json']!.schema as { properties: Record<string, unknown> };
    expect(JSON.stringify(schema.properties.labels)).toContain('"null"');
  });
});
