/**
 * `createSite`: the reading site as a Fetch handler, `(request) => Promise<Response | null>` (null: not a page
 * of a blog in this store, so the host can go on). `toNodeHandler` from blogcore/http serves it on node:http
 * and Express without building a Fetch Request or Response per call (null falls through to `next()`).
 *
 * Pages are read as an anonymous reader; post pages count a page view (`pageViews.record`, not awaited).
 * Every answer carries an ETag over its bytes (If-None-Match → 304) and a Cache-Control a CDN can keep.
 */
import type { BlogService } from '../service/create.js';
import { BlogError } from '../util/errors.js';
import { shortHash } from '../util/ids.js';
import { readStreamLimited } from '../http/body.js';
import { dispatchers, type IncomingLike, type Outgoing } from '../http/internal.js';
import { etagMatches } from '../http/respond.js';
import { splitTarget } from '../http/target.js';
import type { RequestHead } from '../http/head.js';
import { atomFeed, rssFeed } from '../io/feeds.js';
import { defaultTheme } from './default-theme.js';
import { type Rendered, renderComments, renderList, renderNotFound, renderPage, renderPost, renderSearch, type SiteParts } from './render.js';
import { parseRoute, type Route } from './routes.js';
import { robotsTxt, sitemapPart, sitemapRoot } from './sitemap.js';
import { type BlogInfo, storeOf } from './store.js';
import type { Theme } from './theme.js';
import { type BlogScope, scopeOf } from './views.js';
import { addComment } from './comment-form.js';

export interface SiteOptions {
  /** Parts replacing the default theme's (`{ post }` alone changes only post pages). */
  theme?: Partial<Theme>;
  /** Serve this blog whatever the request's host (default: the blog whose url has the request's host). */
  blogId?: string;
  /** Posts per list page: the first page shows at least this many (1 to 50, default 10). */
  pageSize?: number;
  /** Cache-Control of pages (default `public, max-age=60, stale-while-revalidate=600, stale-if-error=86400`). */
  cacheControl?: string;
  /** Called with every unexpected failure (the reader gets a plain 500), and failed page-view counts. */
  onError?: (error: unknown, request: RequestHead) => void;
}

export type SiteHandler = (request: Request) => Promise<Response | null>;

export const PAGE_CACHE = 'public, max-age=60, stale-while-revalidate=600, stale-if-error=86400';
const FILE_CACHE = 'public, max-age=300, stale-while-revalidate=3600';
const HTML = 'text/html; charset=utf-8';
const TYPES = {
  xml: 'application/xml; charset=utf-8',
  atom: 'application/atom+xml; charset=utf-8',
  rss: 'application/rss+xml; charset=utf-8',
  text: 'text/plain; charset=utf-8',
};
/** A form post is a comment of at most 4,096 characters plus a name: 64 KiB is ample, even percent-encoded. */
const MAX_FORM_BYTES = 64 * 1024;
/** How long a host → blog answer is kept (blog urls rarely change; an old url keeps finding its blog). */
const HOST_TTL_MS = 30_000;
const HOST_CACHE_SIZE = 1000;

const NOT_MINE: Outgoing = { status: 404, headers: { 'content-type': TYPES.text }, text: 'Not Found', notMine: true };

/** The whole theme: the default's parts with the given ones over them. */
export function themeOf(theme: Partial<Theme> | undefined): Theme {
  const out = { ...defaultTheme };
  for (const [k, v] of Object.entries(theme ?? {})) if (typeof v === 'function') (out as Record<string, unknown>)[k] = v;
  return out;
}

/** The parts every page needs: the anonymous reader, the store reads, the theme and the page size. */
export function siteParts(service: BlogService, options: { theme?: Partial<Theme> | undefined; pageSize?: number | undefined }): SiteParts {
  if (typeof service?.as !== 'function') throw new TypeError('createSite needs a BlogService (from createBlogService)');
  let reader: BlogService;
  try {
    reader = service.as(null);
  } catch {
    throw new TypeError('createSite needs the host service (createBlogService(…)), not one scoped with as()');
  }
  const pageSize = options.pageSize ?? 10;
  if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > 50) throw new TypeError('pageSize must be an integer from 1 to 50');
  return { reader, store: storeOf(service), theme: themeOf(options.theme), pageSize };
}

/** A Fetch Request as the dispatcher reads it (the host from its URL when no Host header came with it). */
function fetchIncoming(request: Request): IncomingLike {
  const url = new URL(request.url);
  return {
    method: request.method.toUpperCase(),
    target: url.pathname + url.search,
    header: (name) => request.headers.get(name) ?? (name === 'host' ? url.host : null),
    hasBody: () => request.body !== null,
    readBody: (maxBytes) => (request.body ? readStreamLimited(request.body, maxBytes) : Promise.resolve(new Uint8Array(0))),
    head: () => request,
  };
}

/**
 * The reading site of the blogs in a service's store.
 *
 * @example
 * const site = createSite(service);
 * const api = createHttpHandler(service);
 * export default { fetch: async (req: Request) => (await site(req)) ?? api(req) };
 */
export function createSite(service: BlogService, options: SiteOptions = {}): SiteHandler {
  const parts = siteParts(service, options);
  const cacheControl = options.cacheControl ?? PAGE_CACHE;
  const hosts = new Map<string, { found: { blogId: string; base: string } | undefined; until: number }>();

  /**
   * The blog a host serves (its url's host, http or https, at the root or under one path segment), and the
   * path that url starts with: `blogs.getByUrl` also finds a blog by an old url, which then redirects.
   */
  async function blogOfHost(host: string, path: string): Promise<{ blogId: string; base: string } | undefined> {
    const first = /^\/([^/?#]+)\//.exec(path)?.[1];
    const key = `${host}\0${first ?? ''}`;
    const cached = hosts.get(key);
    if (cached && cached.until > Date.now()) return cached.found;
    let found: { blogId: string; base: string } | undefined;
    for (const base of [...(first ? [`/${first}/`] : []), '/']) {
      for (const scheme of ['https', 'http']) {
        const blog = await parts.reader.blogs.getByUrl({ url: `${scheme}://${host}${base}` }).catch((e: unknown) => {
          if (BlogError.is(e) && (e.code === 404 || e.code === 400)) return undefined;
          throw e;
        });
        if (blog) {
          found = { blogId: blog.id, base };
          break;
        }
      }
      if (found) break;
    }
    if (hosts.size >= HOST_CACHE_SIZE) hosts.delete(hosts.keys().next().value!);
    hosts.set(key, { found, until: Date.now() + HOST_TTL_MS });
    return found;
  }

  /** The blog a request is for, and (found by host) the path its url there starts with. */
  async function blogFor(host: string, path: string): Promise<{ blog: BlogInfo; base?: string } | undefined> {
    const found = options.blogId !== undefined ? { blogId: options.blogId } : await blogOfHost(host, path);
    if (!found) return undefined;
    const blog = await parts.store.blog(found.blogId).catch((e: unknown) => {
      if (BlogError.is(e) && e.code === 404) return undefined;
      throw e;
    });
    return blog && { blog, ...('base' in found ? { base: found.base } : {}) };
  }

  const answer = (incoming: IncomingLike, status: number, type: string, text: string, cache: string, extra?: Record<string, string>): Outgoing => {
    const etag = `"${shortHash(text)}${text.length.toString(36)}"`;
    const headers: Record<string, string> = { 'cache-control': cache, etag, ...extra };
    if ((status === 200 || status === 404) && etagMatches(incoming.header('if-none-match'), etag)) return { status: 304, headers, text: null };
    headers['content-type'] = type;
    headers['x-content-type-options'] = 'nosniff';
    return { status, headers, text: incoming.method === 'HEAD' ? null : text };
  };
  const page = (incoming: IncomingLike, r: Rendered) =>
    answer(incoming, r.status, HTML, r.body, r.status === 200 || r.status === 404 ? cacheControl : 'no-store');

  async function serve(incoming: IncomingLike, scope: BlogScope, route: Route): Promise<Outgoing | undefined> {
    switch (route.kind) {
      case 'list':
        return page(incoming, await renderList(parts, scope, route.list, route.token));
      case 'post': {
        const r = await renderPost(parts, scope, route.path, {
          pending: new URLSearchParams(splitTarget(incoming.target)?.query).get('comment') === 'pending',
        });
        if (r.post && incoming.method === 'GET') {
          const onError = options.onError;
          service.pageViews.record({ blogId: scope.blog.id, postId: r.post.id }).catch((e: unknown) => onError?.(e, incoming.head()));
        }
        return page(incoming, r);
      }
      case 'page':
        return page(incoming, await renderPage(parts, scope, route.path));
      case 'comments':
        return page(incoming, await renderComments(parts, scope, route.path, route.token));
      case 'search':
        return page(incoming, await renderSearch(parts, scope, route.q, route.token));
      case 'robots':
        return scope.base === '/' ? answer(incoming, 200, TYPES.text, robotsTxt(scope), FILE_CACHE) : undefined;
      case 'sitemap': {
        const text = route.part === undefined ? (await sitemapRoot(parts, scope)).text : await sitemapPart(parts, scope, route.part);
        return text === undefined ? page(incoming, renderNotFound(parts, scope)) : answer(incoming, 200, TYPES.xml, text, FILE_CACHE);
      }
      case 'feed': {
        const options = { blogId: scope.blog.id, ...(route.label !== undefined ? { label: route.label } : {}) };
        const text = await (route.rss ? rssFeed(parts.reader, options) : atomFeed(parts.reader, options)).catch((e: unknown) => {
          if (BlogError.is(e) && e.code === 400) return undefined;
          throw e;
        });
        if (text === undefined) return page(incoming, renderNotFound(parts, scope));
        return answer(incoming, 200, route.rss ? TYPES.rss : TYPES.atom, text, FILE_CACHE);
      }
    }
  }

  async function run(incoming: IncomingLike): Promise<Outgoing> {
    let target: ReturnType<typeof splitTarget>;
    try {
      target = splitTarget(incoming.target);
    } catch {
      return NOT_MINE;
    }
    if (!target) return NOT_MINE;
    try {
      const host = (incoming.header('host') ?? '').toLowerCase();
      const found = await blogFor(host, target.path);
      if (!found) return NOT_MINE;
      const scope = scopeOf(found.blog, true);
      const method = incoming.method;
      // Found by an old url of the blog (blogs.update keeps them): the same page at its address now.
      const home = new URL(found.blog.url);
      if (found.base !== undefined && (home.host !== host || home.pathname !== found.base)) {
        if (method !== 'GET' && method !== 'HEAD') return NOT_MINE;
        const location = found.blog.url + target.path.slice(found.base.length) + (target.query ? `?${target.query}` : '');
        return { status: 301, headers: { location, 'cache-control': FILE_CACHE }, text: null };
      }
      if (!target.path.startsWith(scope.base)) return NOT_MINE;
      const query = new URLSearchParams(target.query);
      const route = parseRoute(target.path.slice(scope.base.length), query);
      if (!route) return NOT_MINE;
      if (method === 'POST' && route.kind === 'post') {
        const r = await addComment(parts, scope, route.path, incoming, MAX_FORM_BYTES);
        // Post/redirect/get: the reader lands on the post again, with a note that the comment awaits moderation.
        return 'location' in r ? { status: 303, headers: { location: r.location, 'cache-control': 'no-store' }, text: null } : page(incoming, r);
      }
      if (method !== 'GET' && method !== 'HEAD') {
        const allow = route.kind === 'post' ? 'GET, HEAD, POST' : 'GET, HEAD';
        return {
          status: 405,
          headers: { allow, 'content-type': TYPES.text, 'cache-control': 'no-store' },
          text: `Method ${method} not allowed here; allowed: ${allow}`,
        };
      }
      return (await serve(incoming, scope, route)) ?? NOT_MINE;
    } catch (error) {
      if (BlogError.is(error) && error.code === 413)
        return { status: 413, headers: { 'content-type': TYPES.text, 'cache-control': 'no-store' }, text: 'Request too large' };
      try {
        options.onError?.(error, incoming.head());
      } catch {
        // A failing logger must not turn a 500 into a dropped connection.
      }
      return { status: 500, headers: { 'content-type': TYPES.text, 'cache-control': 'no-store' }, text: 'Internal Server Error' };
    }
  }

  const handle: SiteHandler = async (request) => {
    const out = await run(fetchIncoming(request));
    return out.notMine ? null : new Response(out.text, { status: out.status, headers: out.headers });
  };
  dispatchers.set(handle, run);
  return handle;
}
