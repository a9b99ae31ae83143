/**
 * The client address over the wire (docs/design.md §25): comments sent over HTTP from two addresses of this
 * machine, then every GET route that answers comments asked by every role at every view, and the reading site's
 * pages and feeds: no answer (body or headers) carries an address but an ADMIN's.
 */
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryDriver } from '../../drivers/memory/index.js';
import { createHttpHandler, toNodeHandler } from '../../src/http/index.js';
import { type BlogService, createBlogService } from '../../src/index.js';
import { createSite } from '../../src/site/index.js';

let server: Server;
let service: BlogService;
let origin: string;
let ids: { blogId: string; postId: string; path: string; comments: string[] };
const TRACES = ['127.0.0.2', '127.0.0.3', 'clientAddress'];
const ROLES = { anon: undefined, reader: 'rae', outsider: 'otto', author: 'aut', admin: 'ada' } as const;

/** An anonymous comment from a local address; answers its id. */
function comment(content: string, localAddress: string): Promise<string> {
  const body = JSON.stringify({ content });
  return new Promise((resolve, reject) => {
    const req = request(
      `${origin}/v3/blogs/${ids.blogId}/posts/${ids.postId}/comments`,
      {
        method: 'POST',
        localAddress,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () => resolve((JSON.parse(text) as { id: string }).id));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

beforeAll(async () => {
  server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  service = createBlogService({ driver: memoryDriver(), apiBaseUrl: origin });
  const api = toNodeHandler(
    createHttpHandler(service, {
      authenticate: (req) => {
        const user = /^Bearer (\w+)$/.exec(req.headers.get('authorization') ?? '')?.[1];
        return user ? { userId: user } : null;
      },
    }),
  );
  const site = toNodeHandler(createSite(service));
  server.on('request', (req, res) => void site(req, res, () => void api(req, res)));
  for (const id of ['ada', 'rae', 'otto', 'aut']) await service.users.insert({ body: { id, displayName: id } });
  const blog = await service.blogs.insert({ body: { name: 'Walked', url: `${origin}/` }, ownerId: 'ada' });
  await service.members.set({ blogId: blog.id, userId: 'rae', role: 'READER' });
  await service.members.set({ blogId: blog.id, userId: 'aut', role: 'AUTHOR' });
  const post = await service
    .as({ userId: 'aut' })
    .posts.insert({ blogId: blog.id, body: { title: 'Walked post', content: '<p>Walked</p>' } });
  ids = { blogId: blog.id, postId: post.id, path: new URL(post.url!).pathname, comments: [] };
  const live = await comment('Approved in the end', '127.0.0.2');
  await service.comments.approve({ blogId: blog.id, postId: post.id, commentId: live });
  const pending = await comment('Waiting', '127.0.0.2');
  const spam = await comment('<a href="https://a.example/">a</a> https://b.example/ https://c.example/', '127.0.0.3');
  ids.comments = [live, pending, spam];
});

afterAll(async () => {
  await new Promise((r) => server.close(r));
  await service.close();
});

/** Every GET of the API that answers comments, at every view (a refusal is an answer too). */
function apiUrls(): string[] {
  const { blogId, postId, path, comments } = ids;
  const b = `/v3/blogs/${blogId}`;
  const statuses = 'status=LIVE&status=PENDING&status=SPAM&status=EMPTIED';
  const urls = [`${b}/comments?${statuses}&maxResults=500`, `${b}/comments`, `${b}/changes?maxResults=500`];
  for (const v of ['', '&view=READER', '&view=AUTHOR', '&view=ADMIN']) {
    urls.push(
      `${b}/posts/${postId}/comments?${statuses}${v}`,
      `${b}/posts/${postId}/comments?fetchBodies=true${v}`,
      ...comments.map((c) => `${b}/posts/${postId}/comments/${c}?${v.slice(1)}`),
      `${b}/posts/${postId}?maxComments=50${v}`,
      `${b}/posts?maxComments=50${v}`,
      `${b}/posts/bypath?path=${encodeURIComponent(path)}&maxComments=50${v}`,
      `${b}/posts/search?q=Walked&maxComments=50`,
      `${b}/changes?maxResults=500${v}`,
      `/v3/users/self/blogs/${blogId}/posts/${postId}?maxComments=50`,
      `/v3/users/self/blogs/${blogId}/posts?maxComments=50${v}`,
    );
  }
  return urls;
}

async function fetchAll(urls: string[], user: string | undefined) {
  return Promise.all(
    urls.map(async (url) => {
      const res = await fetch(`${origin}${url}`, { headers: user ? { authorization: `Bearer ${user}` } : {} });
      const text = `${[...res.headers].map(([k, v]) => `${k}: ${v}`).join('\n')}\n${await res.text()}`;
      return { url, status: res.status, text };
    }),
  );
}

describe('the client address over HTTP and on the site', () => {
  it.each(Object.entries(ROLES))(
    '%s: no answer of the API carries an address unless an ADMIN asks',
    async (role, user) => {
      const answers = await fetchAll(apiUrls(), user);
      const leaks = answers.filter((a) => TRACES.some((t) => a.text.includes(t))).map((a) => a.url);
      if (role === 'admin') {
        expect(leaks).toEqual(
          expect.arrayContaining([
            expect.stringMatching(/\/comments\?status=LIVE&status=PENDING&status=SPAM&status=EMPTIED&maxResults=500$/),
            expect.stringMatching(/\/comments\/\w+\?view=ADMIN$/),
          ]),
        );
      } else {
        expect(leaks).toEqual([]);
        expect(answers.filter((a) => a.status === 200).length).toBeGreaterThan(10);
      }
    },
  );

  it("the site's pages and feeds show approved comments, never where they came from", async () => {
    const pages = await fetchAll(
      [ids.path, '/', '/feeds/posts/default', '/feeds/posts/default?alt=rss', `/search?q=Walked`],
      undefined,
    );
    expect(pages.find((p) => p.url === ids.path)!.text).toContain('Approved in the end');
    expect(pages.filter((p) => TRACES.some((t) => p.text.includes(t))).map((p) => p.url)).toEqual([]);
  });
});
