/**
 * The /v3 route table: every Blogger v3 interface operation plus comments.insert and users.get, with the
 * query parameters each one takes on the wire and how they convert to the typed in-process params.
 */

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * How a query value converts: `int` a non-negative integer, `bool` true/false, `list` repeated keys and/or
 * comma-joined values → string[], `csv` repeated keys joined with commas (labels), `ignore` accepted and dropped.
 */
export type ParamKind = 'string' | 'int' | 'bool' | 'list' | 'csv' | 'ignore';

export interface Route {
  method: HttpMethod;
  /** Path after the base path, e.g. `/blogs/{blogId}/posts/{postId}`. */
  path: string;
  /** [namespace, method] on the scoped service. */
  op: readonly [string, string];
  query: Readonly<Record<string, ParamKind>>;
  /** The request carries a JSON resource (`body`). */
  body?: boolean;
  /** The JSON body's fields are the operation's parameters themselves (beside the path's), not its `body`. */
  bodyFields?: true;
  /** The request body is raw bytes streamed to the operation as `body` (media uploads; own size limit). */
  upload?: true;
  /** The operation accepts `ifMatch` (HTTP `If-Match`). */
  ifMatch?: boolean;
  /** The response carries an `etag` (Post, Page, the lists): sent as `ETag`, compared with `If-None-Match`. */
  etag?: boolean;
  /** 204 No Content (deletes). */
  noContent?: boolean;
  /** A create: an `Idempotency-Key` header makes a retry answer the first result (src/idempotency.ts). */
  idempotent?: boolean;
  /** Not a Blogger v3 method: blogcore's own (marked so in the OpenAPI document). */
  extension?: true;
  /** A shared document's route: bytes in and out (src/http/collab.ts), not JSON. */
  collab?: true;
  /** The operation is told who sent it: `clientAddress`, `userAgent`, `referrer` (docs/design.md §25). */
  client?: true;
}

const postRead = { fetchBody: 'bool', fetchImages: 'bool', maxComments: 'int', view: 'string' } as const;
const postList = {
  view: 'string',
  status: 'list',
  labels: 'csv',
  startDate: 'string',
  endDate: 'string',
  orderBy: 'string',
  sortOption: 'string',
  maxResults: 'int',
  pageToken: 'string',
  fetchBodies: 'bool',
  fetchImages: 'bool',
  maxComments: 'int',
} as const;
const postWrite = {
  publish: 'bool',
  revert: 'bool',
  fetchBody: 'bool',
  fetchImages: 'bool',
  maxComments: 'int',
} as const;
const commentList = {
  status: 'list',
  view: 'string',
  startDate: 'string',
  endDate: 'string',
  maxResults: 'int',
  pageToken: 'string',
  fetchBodies: 'bool',
} as const;

const B = '/blogs/{blogId}';
const P = `${B}/posts/{postId}`;
const C = `${P}/comments/{commentId}`;
const G = `${B}/pages/{pageId}`;

/**
 * Every route `createHttpHandler` answers under its base path: method, path, the service call it makes and the
 * query parameters it takes. The OpenAPI document (`openApiDocument`) is made from it; a host may read it to
 * list or proxy the API.
 */
export const ROUTES: readonly Route[] = [
  // blogs
  {
    method: 'GET',
    path: '/blogs/byurl',
    op: ['blogs', 'getByUrl'],
    query: { url: 'string', view: 'string', maxPosts: 'int' },
  },
  { method: 'GET', path: B, op: ['blogs', 'get'], query: { view: 'string', maxPosts: 'int' } },
  // blog management (extensions)
  { method: 'PUT', path: B, op: ['blogs', 'update'], query: {}, body: true, extension: true },
  { method: 'PATCH', path: B, op: ['blogs', 'patch'], query: {}, body: true, extension: true },
  { method: 'DELETE', path: B, op: ['blogs', 'delete'], query: {}, noContent: true, extension: true },
  {
    method: 'GET',
    path: '/users/{userId}/blogs',
    op: ['blogs', 'listByUser'],
    query: { view: 'string', maxPosts: 'int', role: 'list', status: 'list', fetchUserInfo: 'bool' },
  },
  // user infos and page views
  { method: 'GET', path: '/users/{userId}/blogs/{blogId}', op: ['blogUserInfos', 'get'], query: { maxPosts: 'int' } },
  {
    method: 'GET',
    path: '/users/{userId}/blogs/{blogId}/posts',
    op: ['postUserInfos', 'list'],
    query: {
      view: 'string',
      status: 'list',
      labels: 'csv',
      startDate: 'string',
      endDate: 'string',
      orderBy: 'string',
      maxResults: 'int',
      pageToken: 'string',
      fetchBodies: 'bool',
    },
  },
  {
    method: 'GET',
    path: '/users/{userId}/blogs/{blogId}/posts/{postId}',
    op: ['postUserInfos', 'get'],
    query: { maxComments: 'int' },
  },
  { method: 'GET', path: `${B}/pageviews`, op: ['pageViews', 'get'], query: { range: 'list' } },
  { method: 'GET', path: '/users/{userId}', op: ['users', 'get'], query: {} },
  { method: 'PATCH', path: '/users/{userId}', op: ['users', 'update'], query: {}, body: true, extension: true },
  // labels (an extension: not in Blogger v3)
  {
    method: 'GET',
    path: `${B}/labels`,
    op: ['labels', 'list'],
    query: { view: 'string', maxResults: 'int', pageToken: 'string' },
    etag: true,
    extension: true,
  },
  // posts
  { method: 'GET', path: `${B}/posts`, op: ['posts', 'list'], query: postList, etag: true },
  {
    method: 'GET',
    path: `${B}/posts/search`,
    op: ['posts', 'search'],
    query: { ...postList, q: 'string' },
    etag: true,
  },
  {
    method: 'GET',
    path: `${B}/posts/bypath`,
    op: ['posts', 'getByPath'],
    query: { path: 'string', date: 'string', view: 'string', maxComments: 'int' },
    etag: true,
  },
  {
    method: 'POST',
    path: `${B}/posts`,
    op: ['posts', 'insert'],
    query: { isDraft: 'bool', fetchBody: 'bool', fetchImages: 'bool' },
    body: true,
    etag: true,
    idempotent: true,
  },
  { method: 'GET', path: P, op: ['posts', 'get'], query: postRead, etag: true },
  { method: 'PUT', path: P, op: ['posts', 'update'], query: postWrite, body: true, ifMatch: true, etag: true },
  { method: 'PATCH', path: P, op: ['posts', 'patch'], query: postWrite, body: true, ifMatch: true, etag: true },
  { method: 'DELETE', path: P, op: ['posts', 'delete'], query: { useTrash: 'bool' }, ifMatch: true, noContent: true },
  {
    method: 'POST',
    path: `${P}/publish`,
    op: ['posts', 'publish'],
    query: { publishDate: 'string' },
    ifMatch: true,
    etag: true,
  },
  { method: 'POST', path: `${P}/revert`, op: ['posts', 'revert'], query: {}, ifMatch: true, etag: true },
  // revisions (an extension)
  {
    method: 'GET',
    path: `${P}/revisions`,
    op: ['posts.revisions', 'list'],
    query: { maxResults: 'int', pageToken: 'string' },
    etag: true,
    extension: true,
  },
  { method: 'GET', path: `${P}/revisions/{revisionId}`, op: ['posts.revisions', 'get'], query: {}, extension: true },
  {
    method: 'POST',
    path: `${P}/revisions/{revisionId}/restore`,
    op: ['posts.revisions', 'restore'],
    query: {},
    ifMatch: true,
    etag: true,
    extension: true,
  },
  // comments
  { method: 'GET', path: `${P}/comments`, op: ['comments', 'list'], query: commentList, etag: true },
  {
    method: 'POST',
    path: `${P}/comments`,
    op: ['comments', 'insert'],
    query: {},
    body: true,
    idempotent: true,
    extension: true,
    client: true,
  },
  {
    method: 'GET',
    path: `${B}/comments`,
    op: ['comments', 'listByBlog'],
    query: { ...commentList, post: 'string' },
    etag: true,
  },
  {
    method: 'POST',
    path: `${B}/comments/moderate`,
    op: ['comments', 'moderate'],
    query: {},
    body: true,
    bodyFields: true,
    extension: true,
  },
  { method: 'GET', path: C, op: ['comments', 'get'], query: { view: 'string' } },
  { method: 'DELETE', path: C, op: ['comments', 'delete'], query: {}, noContent: true },
  { method: 'POST', path: `${C}/approve`, op: ['comments', 'approve'], query: {} },
  { method: 'POST', path: `${C}/spam`, op: ['comments', 'markAsSpam'], query: {} },
  { method: 'POST', path: `${C}/removecontent`, op: ['comments', 'removeContent'], query: {} },
  // pages
  {
    method: 'GET',
    path: `${B}/pages`,
    op: ['pages', 'list'],
    query: { status: 'list', view: 'string', maxResults: 'int', pageToken: 'string', fetchBodies: 'bool' },
    etag: true,
  },
  {
    method: 'POST',
    path: `${B}/pages`,
    op: ['pages', 'insert'],
    query: { isDraft: 'bool' },
    body: true,
    etag: true,
    idempotent: true,
  },
  { method: 'GET', path: G, op: ['pages', 'get'], query: { view: 'string' }, etag: true },
  {
    method: 'PUT',
    path: G,
    op: ['pages', 'update'],
    query: { publish: 'bool', revert: 'bool' },
    body: true,
    ifMatch: true,
    etag: true,
  },
  {
    method: 'PATCH',
    path: G,
    op: ['pages', 'patch'],
    query: { publish: 'bool', revert: 'bool' },
    body: true,
    ifMatch: true,
    etag: true,
  },
  { method: 'DELETE', path: G, op: ['pages', 'delete'], query: { useTrash: 'bool' }, ifMatch: true, noContent: true },
  { method: 'POST', path: `${G}/publish`, op: ['pages', 'publish'], query: {}, ifMatch: true, etag: true },
  { method: 'POST', path: `${G}/revert`, op: ['pages', 'revert'], query: {}, ifMatch: true, etag: true },
  {
    method: 'GET',
    path: `${G}/revisions`,
    op: ['pages.revisions', 'list'],
    query: { maxResults: 'int', pageToken: 'string' },
    etag: true,
    extension: true,
  },
  { method: 'GET', path: `${G}/revisions/{revisionId}`, op: ['pages.revisions', 'get'], query: {}, extension: true },
  {
    method: 'POST',
    path: `${G}/revisions/{revisionId}/restore`,
    op: ['pages.revisions', 'restore'],
    query: {},
    ifMatch: true,
    etag: true,
    extension: true,
  },
  // writing together (an extension, docs/collab.md): GET opens (or with `since` pulls), POST pushes one update
  ...[P, G].flatMap((item): Route[] => [
    {
      method: 'GET' as const,
      path: `${item}/collab`,
      op: ['collab', 'pull'] as const,
      query: { since: 'string', wait: 'int', presence: 'int' } as const,
      collab: true as const,
      extension: true as const,
    },
    {
      method: 'POST' as const,
      path: `${item}/collab`,
      op: ['collab', 'push'] as const,
      query: {},
      collab: true as const,
      extension: true as const,
    },
  ]),
  // media (an extension, docs/design.md §19); the bytes themselves are served beside /v3 (src/web/media.ts)
  {
    method: 'POST',
    path: `${B}/media`,
    op: ['media', 'upload'],
    query: {},
    upload: true,
    etag: true,
    idempotent: true,
    extension: true,
  },
  {
    method: 'GET',
    path: `${B}/media`,
    op: ['media', 'list'],
    query: { postId: 'string', maxResults: 'int', pageToken: 'string' },
    extension: true,
  },
  { method: 'GET', path: `${B}/media/{mediaId}`, op: ['media', 'get'], query: {}, etag: true, extension: true },
  {
    method: 'PATCH',
    path: `${B}/media/{mediaId}`,
    op: ['media', 'patch'],
    query: {},
    body: true,
    ifMatch: true,
    etag: true,
    extension: true,
  },
  {
    method: 'DELETE',
    path: `${B}/media/{mediaId}`,
    op: ['media', 'delete'],
    query: { force: 'bool' },
    ifMatch: true,
    noContent: true,
    extension: true,
  },
  // blogcore extension (docs/design.md §15): a replica's pull
  {
    method: 'GET',
    path: `${B}/changes`,
    op: ['changes', 'list'],
    query: { since: 'string', pageToken: 'string', maxResults: 'int', wait: 'int', view: 'string' },
    extension: true,
  },
];

interface Node {
  literal: Map<string, Node>;
  param?: { name: string; node: Node };
  methods: Map<string, Route>;
}

const newNode = (): Node => ({ literal: new Map(), methods: new Map() });

export interface Match {
  /** The routes at this path, by method (a path matched with the wrong method is a 405). */
  methods: ReadonlyMap<string, Route>;
  params: Record<string, string>;
}

/** A segment tree: literal segments (`byurl`, `search`, `publish`, …) win over `{param}` segments. */
export class Router {
  private readonly root = newNode();

  constructor(routes: readonly Route[]) {
    for (const route of routes) {
      let node = this.root;
      for (const seg of route.path.split('/').slice(1)) {
        if (seg.startsWith('{')) {
          const name = seg.slice(1, -1);
          node.param ??= { name, node: newNode() };
          node = node.param.node;
        } else {
          let next = node.literal.get(seg);
          if (!next) node.literal.set(seg, (next = newNode()));
          node = next;
        }
      }
      node.methods.set(route.method, route);
    }
  }

  /** `segments` are already percent-decoded. Returns undefined when no route has this path. */
  match(segments: readonly string[]): Match | undefined {
    const params: Record<string, string> = {};
    const node = walk(this.root, segments, 0, params);
    return node ? { methods: node.methods, params } : undefined;
  }
}

function walk(node: Node, segs: readonly string[], i: number, params: Record<string, string>): Node | undefined {
  if (i === segs.length) return node.methods.size > 0 ? node : undefined;
  const seg = segs[i]!;
  const lit = node.literal.get(seg);
  if (lit) {
    const found = walk(lit, segs, i + 1, params);
    if (found) return found;
  }
  // An empty segment (`//`) is never an id.
  if (node.param && seg !== '') {
    const found = walk(node.param.node, segs, i + 1, params);
    if (found) {
      params[node.param.name] = seg;
      return found;
    }
  }
  return undefined;
}
