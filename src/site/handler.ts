/**
 * `createSite`: the reading site as a Fetch handler, `(request) => Promise<Response | null>` (null: not a page
 * of a blog in this store, so the host can go on). `toNodeHandler` from blogcore/http serves it on node:http
 * and Express without building a Fetch Request or Response per call (null falls through to `next()`).
 *
 * Pages are read as an anonymous reader; post pages count a page view (`pageViews.record`, not awaited).
 * Every answer carries an ETag over its bytes (If-None-Match → 304) and a Cache-Control a CDN can keep.
 */
import type { BlogService } from '../service/types.js';
import { BlogError } from '../util/errors.js';
import { shortHash } from '../util/ids.js';
import { fetchIncoming } from '../web/body.js';
import { dispatchers, type IncomingLike, type Outgoing } from '../web/dispatch.js';
import { serveMedia } from '../web/media.js';
import { etagMatches } from '../web/conditional.js';
import { splitTarget } from '../web/target.js';
import type { RequestHead } from '../web/head.js';
import { atomFeed, rssFeed } from '../web/feeds.js';
import {
  type Rendered,
  renderComments,
  renderList,
  renderNotFound,
  renderPage,
  renderPost,
  renderSearch,
  type SiteParts,
} from './render.js';
import { feedPaths, parseRoute, type Route } from './routes.js';
import { robotsTxt, sitemapPart, sitemapRoot } from './sitemap.js';
import { siteParts } from './parts.js';
import { hostResolver } from './hosts.js';
import { type CachedPage, pageCache, pageKey } from './page-cache.js';
import { viewCounter } from './view-counts.js';
import type { Theme } from './theme.js';
import { type BlogScope, scopeOf } from './views.js';
import type { BlogInfo } from './store.js';
import { addComment } from './comment-form.js';
import { type ClientAddressOptions, clientAddressResolver, clientOf } from '../web/client-address.js';

export interface SiteOptions extends ClientAddressOptions {
  /** Parts replacing the default theme's (`{ post }` alone changes only post pages). */
  theme?: Partial<Theme>;
  /** Serve this blog whatever the request's host (default: the blog whose url has the request's host). */
  blogId?: string;
  /** Posts per list page: the first page shows at least this many (1 to 50, default 10). */
  pageSize?: number;
  /** Cache-Control of pages (default `public, max-age=60, stale-while-revalidate=600, stale-if-error=86400`). */
  cacheControl?: string;
  /** Rendered pages kept in memory until the service reports a write, 2 s at most (default 1,000; 0 keeps none). */
  cachePages?: number;
  /** The most bytes those pages may hold together (default 32 MiB); a page over a quarter of it is not kept. */
  cacheBytes?: number;
  /** Called with every unexpected failure (the reader gets a plain 500), and failed page-view counts. */
  onError?: (error: unknown, request?: RequestHead) => void;
  /**
   * Paths the site leaves to what follows it although they are under a blog's address (default `['/v3']`, the
   * API's): every other unknown path there gets the site's HTML 404.
   */
  leave?: readonly string[];
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

const NOT_MINE: Outgoing = { status: 404, headers: { 'content-type': TYPES.text }, text: 'Not Found', notMine: true };
const FAVICON: Outgoing = { status: 204, headers: { 'cache-control': 'public, max-age=86400' }, text: null };
const plain = (status: number, text: string, extra?: Record<string, string>): Outgoing => ({
  status,
  headers: { 'content-type': TYPES.text, 'cache-control': 'no-store', 'x-content-type-options': 'nosniff', ...extra },
  text,
});
const encoder = new TextEncoder();

/** A response of the site before it meets a request: its status, type, caching and text. */
interface Answer {
  status: number;
  type: string;
  cache: string;
  text: string;
  postId?: string;
}

/** The kept form of an answer: its bytes encoded once, its headers (with an ETag over the bytes) made once. */
function pageOf(a: Answer): CachedPage {
  const body = encoder.encode(a.text);
  const etag = `"${shortHash(a.text)}${a.text.length.toString(36)}"`;
  const headers = {
    'cache-control': a.cache,
    'content-type': a.type,
    'x-content-type-options': 'nosniff',
    etag,
    'content-length': String(body.byteLength),
  };
  return { status: a.status, headers, body, etag, ...(a.postId ? { postId: a.postId } : {}) };
}

/** A page as this request gets it: 304 when its ETag matches, no body for HEAD. */
function send(incoming: IncomingLike, page: CachedPage): Outgoing {
  if ((page.status === 200 || page.status === 404) && etagMatches(incoming.header('if-none-match'), page.etag)) {
    return { status: 304, headers: { 'cache-control': page.headers['cache-control']!, etag: page.etag }, text: null };
  }
  return { status: page.status, headers: page.headers, text: incoming.method === 'HEAD' ? null : page.body };
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
  const blogOfHost = hostResolver(parts.reader);
  const cache = pageCache({ size: options.cachePages ?? 1000, bytes: options.cacheBytes ?? 32 * 1024 * 1024 }, service);
  const report = (error: unknown, request?: RequestHead) => {
    try {
      options.onError?.(error, request);
    } catch {
      // A failing logger must not turn a 500 into a dropped connection.
    }
  };
  const views = viewCounter(service, report);
  const addressOf = clientAddressResolver(options);
  const leave = (options.leave ?? ['/v3']).map((p) => p.replace(/\/+$/, ''));
  const html = (r: Rendered & { post?: { id: string } }): Answer => ({
    status: r.status,
    type: HTML,
    cache: r.status === 200 || r.status === 404 ? cacheControl : 'no-store',
    text: r.body,
    ...(r.post && r.status === 200 ? { postId: r.post.id } : {}),
  });
  const site: Site = { parts, blogId: options.blogId, blogOfHost, cache, report, views, addressOf, leave, html };

  const run = (incoming: IncomingLike) => runRequest(site, incoming);
  const handle: SiteHandler = async (request) => {
    const out = await run(fetchIncoming(request));
    return out.notMine ? null : new Response(out.body ?? out.text, { status: out.status, headers: out.headers });
  };
  dispatchers.set(handle, run);
  return handle;
}

/** What one site holds: its parts, its options as read once, its page cache and view counter. */
interface Site {
  parts: SiteParts;
  blogId: string | undefined;
  blogOfHost: ReturnType<typeof hostResolver>;
  cache: ReturnType<typeof pageCache>;
  report: (error: unknown, request?: RequestHead) => void;
  views: ReturnType<typeof viewCounter>;
  addressOf: (incoming: IncomingLike) => string | undefined;
  leave: string[];
  /** A rendered page as an answer, with this site's Cache-Control for what may be kept. */
  html: (r: Rendered & { post?: { id: string } }) => Answer;
}

const file = (type: string, text: string): Answer => ({ status: 200, type, cache: FILE_CACHE, text });

/** One request: not the site's (`notMine`), a page, or a plain 413 / 500 (the failure told to `onError`). */
async function runRequest(site: Site, incoming: IncomingLike): Promise<Outgoing> {
  let target: ReturnType<typeof splitTarget>;
  try {
    target = splitTarget(incoming.target);
  } catch {
    return NOT_MINE;
  }
  if (!target) return NOT_MINE;
  try {
    return await serve(site, incoming, target);
  } catch (error) {
    if (BlogError.is(error) && error.code === 413) return plain(413, 'Request too large');
    site.report(error, incoming.head());
    return plain(500, 'Internal Server Error');
  }
}

/** A request for an address of a blog: found by its host (or `blogId`), then kept, moved, or rendered. */
async function serve(site: Site, incoming: IncomingLike, target: { path: string; query: string }): Promise<Outgoing> {
  const { parts, cache, views } = site;
  const method = incoming.method;
  const host = (incoming.header('host') ?? '').toLowerCase();
  const match = site.blogId !== undefined ? { blogId: site.blogId } : await site.blogOfHost(host, target.path);
  if (!match) return NOT_MINE;
  const read = method === 'GET' || method === 'HEAD';
  // A page read again since the last write is sent as it was rendered (kept by what changes it).
  const key = pageKey(match.blogId, target.path, target.query);
  const kept = read ? cache.get(key) : undefined;
  if (kept) {
    if (kept.postId && method === 'GET') views.count(match.blogId, kept.postId);
    return send(incoming, kept);
  }

  const since = cache.now();
  const blog = await parts.store.blog(match.blogId).catch((e: unknown) => {
    if (BlogError.is(e) && e.code === 404) return undefined;
    throw e;
  });
  if (!blog) return NOT_MINE;
  const scope = scopeOf(blog, true);
  // Found by an old url of the blog (blogs.update keeps them): the same page at its address now.
  const home = new URL(blog.url);
  if ('base' in match && (home.host !== match.host || home.pathname !== match.base)) {
    if (!read) return NOT_MINE;
    return {
      status: 301,
      headers: {
        location: blog.url + target.path.slice(match.base.length) + (target.query ? `?${target.query}` : ''),
        'cache-control': FILE_CACHE,
      },
      text: null,
    };
  }
  // Browsers ask every host for its icon: having none is no error (204), never a page nor the API's JSON.
  if (target.path === '/favicon.ico' && read) return FAVICON;
  if (!target.path.startsWith(scope.base)) return NOT_MINE;
  const rest = target.path.slice(scope.base.length);
  if (rest.startsWith('media/')) return await picture(site, incoming, scope, rest.split('/').slice(1));
  // An old address with a query (`/?p=12`, Blogger's `?m=1`) leads on before any page is read.
  const early = read ? await redirected(parts, blog, target.path, target.query, true) : undefined;
  if (early) return early;
  const route = parseRoute(target.path.slice(scope.base.length), new URLSearchParams(target.query));
  if (!route) {
    if (site.leave.some((p) => target.path === p || target.path.startsWith(`${p}/`))) return NOT_MINE;
    if (!read) return plain(405, `Method ${method} not allowed here; allowed: GET, HEAD`, { allow: 'GET, HEAD' });
    const moved = await redirected(parts, blog, target.path, target.query, false);
    if (moved) return moved;
    const page = pageOf(site.html(renderNotFound(parts, scope)));
    cache.set(key, page, since);
    return send(incoming, page);
  }
  if (method === 'POST' && route.kind === 'post') {
    const r = await addComment(parts, scope, route.path, incoming, MAX_FORM_BYTES, clientOf(incoming, site.addressOf));
    // Post/redirect/get: the reader lands on the post again, with a note that the comment awaits moderation.
    return 'location' in r
      ? { status: 303, headers: { location: r.location, 'cache-control': 'no-store' }, text: null }
      : send(incoming, pageOf(site.html(r)));
  }
  if (!read) {
    const allow = route.kind === 'post' ? 'GET, HEAD, POST' : 'GET, HEAD';
    return plain(405, `Method ${method} not allowed here; allowed: ${allow}`, { allow });
  }
  const a = await answer(site, incoming, scope, route);
  if (!a) return NOT_MINE;
  if (a.status === 404) {
    const moved = await redirected(parts, blog, target.path, target.query, false);
    if (moved) return moved;
  }
  const page = pageOf(a);
  // Search results are many and rarely read twice: only the site's own pages are kept.
  if (route.kind !== 'search' && (a.status === 200 || a.status === 404)) cache.set(key, page, since);
  if (page.postId && method === 'GET') views.count(match.blogId, page.postId);
  return send(incoming, page);
}

/** A GET's answer for a route (undefined: no page of that shape here after all). */
async function answer(site: Site, incoming: IncomingLike, scope: BlogScope, route: Route): Promise<Answer | undefined> {
  const { parts, html } = site;
  switch (route.kind) {
    case 'list':
      return html(await renderList(parts, scope, route.list, route.token));
    case 'post': {
      const pending = new URLSearchParams(splitTarget(incoming.target)?.query).get('comment') === 'pending';
      return html(await renderPost(parts, scope, route.path, { pending }));
    }
    case 'page':
      return html(await renderPage(parts, scope, route.path));
    case 'comments':
      return html(await renderComments(parts, scope, route.path, route.token));
    case 'search':
      return html(await renderSearch(parts, scope, route.q, route.token));
    case 'robots':
      return scope.base === '/' ? file(TYPES.text, robotsTxt(scope)) : undefined;
    case 'sitemap': {
      const text =
        route.part === undefined ? (await sitemapRoot(parts, scope)).text : await sitemapPart(parts, scope, route.part);
      return text === undefined ? html(renderNotFound(parts, scope)) : file(TYPES.xml, text);
    }
    case 'feed': {
      // The feed names its own address (rel="self"), not the API's feed of the blog.
      const paths = feedPaths(true, route.label);
      const selfUrl = scope.blog.url + (route.rss ? paths.rss : paths.atom);
      const options = {
        blogId: scope.blog.id,
        selfUrl,
        ...(route.label !== undefined ? { label: route.label } : {}),
      };
      const text = await (route.rss ? rssFeed(parts.reader, options) : atomFeed(parts.reader, options)).catch(
        (e: unknown) => {
          if (BlogError.is(e) && e.code === 400) return undefined;
          throw e;
        },
      );
      return text === undefined ? html(renderNotFound(parts, scope)) : file(route.rss ? TYPES.rss : TYPES.atom, text);
    }
  }
}

/**
 * `{base}media/{blogId}/{mediaId}/{filename}`: the blog's pictures (the site shows its posts' pictures at
 * this address, so a site on its own host needs no API beside it), served as the HTTP helper serves them:
 * ETag, ranges, immutable caching. Anything else there is the site's 404.
 */
async function picture(site: Site, incoming: IncomingLike, scope: BlogScope, segments: string[]): Promise<Outgoing> {
  const missing = () => send(incoming, pageOf(site.html(renderNotFound(site.parts, scope))));
  let decoded: string[];
  try {
    decoded = segments.map(decodeURIComponent);
  } catch {
    return missing();
  }
  if (decoded[0] !== scope.blog.id) return missing();
  try {
    return await serveMedia(site.parts.reader, incoming, decoded, undefined);
  } catch (e) {
    if (!BlogError.is(e) || (e.code >= 500 && e.code !== 503)) throw e;
    if (e.code === 404) return missing();
    // 405 names what is allowed; 416 the picture's size; 503 when to come back.
    const { allow, contentRange, retryAfter } = e as BlogError & { allow?: string; contentRange?: string };
    return plain(e.code, e.message, {
      ...(allow ? { allow } : {}),
      ...(contentRange ? { 'content-range': contentRange } : {}),
      ...(retryAfter !== undefined ? { 'retry-after': String(retryAfter) } : {}),
    });
  }
}

/**
 * The 301 a blog's stored redirects give this address (docs/design.md §22), if any. `early`: only an address with a
 * query, matched whole, and Blogger's mobile `?m=1`/`?m=0`, which leads to the same address without it; else
 * the path alone (an old link that picked up `?utm_source=…` still finds its redirect). A redirect to where
 * the reader already is never answers. On the blog's own host the location is a path, so a blog served on
 * this machine (`*.localhost`) keeps its readers here.
 */
async function redirected(
  parts: SiteParts,
  blog: BlogInfo,
  path: string,
  query: string,
  early: boolean,
): Promise<Outgoing | undefined> {
  if (early && !query) return undefined;
  const here = query ? `${path}?${query}` : path;
  let to = await parts.store.redirect(blog.id, early ? here : path);
  if (to === undefined && early) {
    const params = new URLSearchParams(query);
    if (!params.has('m')) return undefined;
    params.delete('m');
    const rest = params.toString();
    to = (await parts.store.redirect(blog.id, path)) ?? (rest ? `${path}?${rest}` : path);
  }
  if (to === undefined) return undefined;
  const home = new URL(blog.url);
  const url = new URL(to, home);
  const location = url.origin === home.origin ? url.pathname + url.search + url.hash : url.href;
  if (location === here) return undefined;
  return { status: 301, headers: { location, 'cache-control': FILE_CACHE }, text: null };
}
