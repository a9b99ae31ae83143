/**
 * `blogcore/http`: the service as Blogger v3 routes over the Fetch standard (`Request` → `Response`), so it
 * mounts in node:http (via `toNodeHandler`), Express, Fastify, Hono, Bun, Deno, workers and route handlers.
 * No Node built-ins here: this module bundles for any runtime.
 */
import { BlogError } from '../errors.js';
import { readJsonBody, readStreamLimited } from './body.js';
import { applyFields, parseFields } from './fields.js';
import { dispatchers, type IncomingLike, type Outgoing } from './internal.js';
import { effectiveMethod, overriddenQuery } from './override.js';
import { parseQuery } from './params.js';
import { ROUTES, Router, type Route } from './routes.js';

export { toNodeHandler, type NodeRequestLike, type NodeResponseLike } from './node.js';
export { ROUTES, type Route } from './routes.js';

/** Who is calling: a user id of the service, or `null` for an anonymous reader. */
export interface Actor {
  userId: string;
}

/** The one thing the helper needs from a BlogService: scoping to the caller. */
export interface ScopableService {
  as(actor: Actor | null): object;
}

export interface CorsOptions {
  /** Allowed origins: `'*'` (default), a list, or a predicate. */
  origin?: '*' | string | readonly string[] | ((origin: string) => boolean);
  /** Send `Access-Control-Allow-Credentials: true` (the origin is then echoed, never `*`). */
  credentials?: boolean;
  /** Seconds a browser may cache a preflight answer. Default 600. */
  maxAge?: number;
}

export interface HttpHandlerOptions {
  /**
   * Who the request comes from: `{ userId }`, or `null` for anonymous. Throw a `BlogError` (e.g. 401
   * `authError`) to answer with it; anything else thrown is a 500 `backendError`. Default: everyone is anonymous.
   */
  authenticate?: (request: Request) => Actor | null | undefined | Promise<Actor | null | undefined>;
  /** The path prefix of the routes in the URL the client requested. Default `/v3`; `''` for none. */
  basePath?: string;
  /** Larger request bodies get 413. Default 1 MiB. */
  maxBodyBytes?: number;
  /** Answer CORS preflights and add CORS headers. Default off. `true` allows every origin. */
  cors?: boolean | CorsOptions;
  /** Called with every unexpected (non-BlogError) failure, e.g. to log it; the client only sees a 500. */
  onError?: (error: unknown, request: Request) => void;
}

export type HttpHandler = (request: Request) => Promise<Response>;

const router = new Router(ROUTES);
const JSON_TYPE = 'application/json; charset=UTF-8';
/** As Google's API front end: responses depend on the caller, so shared caches keep none and browsers revalidate. */
const PRIVATE = 'private, max-age=0, must-revalidate';
/** Scoped services kept per user id (a scoped service is a set of closures; building one per request costs). */
const SCOPE_CACHE_SIZE = 256;

/**
 * Builds the `/v3` handler for a service.
 *
 * @example
 * const handler = createHttpHandler(service, { authenticate: async (req) => lookUp(req.headers.get('authorization')) });
 * createServer(toNodeHandler(handler)).listen(8080);
 */
export function createHttpHandler(service: ScopableService, options: HttpHandlerOptions = {}): HttpHandler {
  const basePath = (options.basePath ?? '/v3').replace(/\/+$/, '');
  if (basePath !== '' && !basePath.startsWith('/')) throw new TypeError('basePath must start with "/"');
  const maxBodyBytes = options.maxBodyBytes ?? 1024 * 1024;
  const cors = options.cors === true ? {} : options.cors || undefined;
  const { authenticate, onError } = options;
  let anonymous: object | undefined;
  const users = new Map<string, object>();

  const run = async (incoming: IncomingLike): Promise<Outgoing> => {
    const corsHeaders = cors ? corsFor(cors, incoming) : undefined;
    try {
      return await dispatch(incoming, corsHeaders);
    } catch (error) {
      if (!BlogError.is(error) && onError) {
        try {
          onError(error, incoming.request());
        } catch {
          // A failing logger must not turn a 500 into a dropped connection.
        }
      }
      const e = BlogError.is(error) ? error : new BlogError({ code: 500, reason: 'backendError', message: 'Backend Error' });
      return errorOut(e, corsHeaders);
    }
  };

  const handle = async (request: Request): Promise<Response> => {
    const out = await run(fetchIncoming(request));
    return new Response(out.text, { status: out.status, headers: out.headers });
  };
  dispatchers.set(handle, run);
  return handle;

  function scope(actor: Actor | null): Record<string, Record<string, (p: unknown) => Promise<unknown>>> {
    let scoped: object | undefined;
    if (actor === null) scoped = anonymous ??= service.as(null);
    else {
      scoped = users.get(actor.userId);
      if (!scoped) {
        if (users.size >= SCOPE_CACHE_SIZE) users.delete(users.keys().next().value!);
        users.set(actor.userId, (scoped = service.as({ userId: actor.userId })));
      }
    }
    return scoped as Record<string, Record<string, (p: unknown) => Promise<unknown>>>;
  }

  async function dispatch(incoming: IncomingLike, corsHeaders: Record<string, string> | undefined): Promise<Outgoing> {
    let target = incoming.target;
    if (target.charCodeAt(0) !== 47 /* / */) {
      const u = new URL(target); // absolute-form request target
      target = u.pathname + u.search;
    }
    const q = target.indexOf('?');
    const path = q < 0 ? target : target.slice(0, q);
    if (basePath !== '' && !(path.startsWith(basePath) && path.charCodeAt(basePath.length) === 47 /* / */)) {
      return { ...errorOut(routeNotFound(), corsHeaders), notMine: true };
    }
    const segments = path.slice(basePath.length + 1).split('/');
    for (let i = 0; i < segments.length; i++) {
      const seg = segments[i]!;
      if (seg.includes('%')) {
        try {
          segments[i] = decodeURIComponent(seg);
        } catch {
          throw new BlogError({ code: 400, reason: 'invalid', message: 'Malformed percent-encoding in the path' });
        }
      }
    }
    const match = router.match(segments);
    if (!match) throw routeNotFound();

    const method = effectiveMethod(incoming);
    const overridden = method !== incoming.method;
    if (method === 'OPTIONS' && cors && incoming.header('access-control-request-method') !== null) {
      return preflight(match.methods, incoming, corsHeaders);
    }
    const route = match.methods.get(method === 'HEAD' ? 'GET' : method);
    if (!route) {
      const allow = allowed(match.methods);
      throw Object.assign(
        new BlogError({ code: 405, reason: 'methodNotAllowed', message: `Method ${method} not allowed here; allowed: ${allow}` }),
        { allow },
      );
    }

    // Authenticate before parsing anything the caller sent (an anonymous flood never gets bodies read).
    const actor = authenticate ? await authenticate(incoming.request()) : null;
    if (actor != null && (typeof actor !== 'object' || typeof actor.userId !== 'string')) {
      throw new TypeError('authenticate() must return { userId: string } or null');
    }

    const urlQuery = q < 0 ? '' : target.slice(q + 1);
    const search = overridden ? await overriddenQuery(incoming, urlQuery, maxBodyBytes) : new URLSearchParams(urlQuery);
    const { params, global } = parseQuery(search, route.query);
    const mask = global.fields === undefined ? undefined : parseFields(global.fields);
    Object.assign(params, match.params);
    if (route.body) {
      const body = await readJsonBody(incoming, maxBodyBytes);
      if (body === undefined) {
        throw new BlogError({ code: 400, reason: 'required', message: 'Required: a JSON request body', location: 'body', locationType: 'body' });
      }
      params.body = body;
    }
    if (route.ifMatch) {
      const ifMatch = incoming.header('if-match');
      if (ifMatch !== null) params.ifMatch = ifMatch.trim();
    }

    const result = await scope(actor ?? null)[route.op[0]]![route.op[1]]!(params);

    if (route.noContent) return { status: 204, headers: { ...corsHeaders }, text: null };
    const headers: Record<string, string> = { 'content-type': JSON_TYPE, 'cache-control': PRIVATE, 'x-content-type-options': 'nosniff', ...corsHeaders };
    const etag = route.etag ? (result as { etag?: unknown } | undefined)?.etag : undefined;
    if (typeof etag === 'string') {
      headers.etag = etag;
      if (route.method === 'GET' && etagMatches(incoming.header('if-none-match'), etag)) {
        return { status: 304, headers: { etag, 'cache-control': PRIVATE, ...corsHeaders }, text: null };
      }
    }
    const out = mask ? applyFields(result, mask) : result;
    const text = global.pretty ? `${JSON.stringify(out, null, 2)}\n` : JSON.stringify(out);
    return { status: 200, headers, text: method === 'HEAD' ? null : text };
  }

  function preflight(methods: ReadonlyMap<string, Route>, incoming: IncomingLike, corsHeaders: Record<string, string> | undefined): Outgoing {
    if (!corsHeaders) return { status: 403, headers: {}, text: null };
    const requested = incoming.header('access-control-request-headers');
    return {
      status: 204,
      headers: {
        ...corsHeaders,
        'access-control-allow-methods': allowed(methods),
        'access-control-allow-headers': requested ?? 'authorization, content-type, if-match, if-none-match',
        'access-control-max-age': String((cors as CorsOptions).maxAge ?? 600),
      },
      text: null,
    };
  }
}

/** A Fetch Request as the dispatcher reads it. */
function fetchIncoming(request: Request): IncomingLike {
  const url = new URL(request.url);
  return {
    method: request.method.toUpperCase(),
    target: url.pathname + url.search,
    header: (name) => request.headers.get(name),
    hasBody: () => request.body !== null,
    readBody: (maxBytes) => (request.body ? readStreamLimited(request.body, maxBytes) : Promise.resolve(new Uint8Array(0))),
    request: () => request,
  };
}

function errorOut(error: BlogError, corsHeaders: Record<string, string> | undefined): Outgoing {
  const headers: Record<string, string> = { 'content-type': JSON_TYPE, 'cache-control': 'private', 'x-content-type-options': 'nosniff', ...corsHeaders };
  const allow = (error as BlogError & { allow?: string }).allow;
  if (allow) headers.allow = allow;
  // A refused upload may still be arriving: close the connection rather than read it to the end.
  if (error.code === 413) headers.connection = 'close';
  return { status: error.code, headers, text: `${JSON.stringify(error.toJSON(), null, 2)}\n` };
}

const routeNotFound = () => new BlogError({ code: 404, reason: 'notFound', message: 'Not Found: no such route' });

function allowed(methods: ReadonlyMap<string, Route>): string {
  const list = [...methods.keys()];
  if (methods.has('GET')) list.push('HEAD');
  return list.join(', ');
}

/** RFC 9110 weak comparison of an If-None-Match list against the current etag. */
function etagMatches(header: string | null, etag: string): boolean {
  if (header === null) return false;
  const trimmed = header.trim();
  if (trimmed === '*') return true;
  const strip = (t: string) => (t.startsWith('W/') ? t.slice(2) : t);
  const want = strip(etag);
  return trimmed.split(',').some((t) => strip(t.trim()) === want);
}

function corsFor(cors: CorsOptions, incoming: IncomingLike): Record<string, string> | undefined {
  const origin = incoming.header('origin');
  if (origin === null) return undefined;
  const rule = cors.origin ?? '*';
  const ok =
    rule === '*' ? true : typeof rule === 'function' ? rule(origin) : typeof rule === 'string' ? rule === origin : rule.includes(origin);
  if (!ok) return undefined;
  const headers: Record<string, string> = {
    'access-control-allow-origin': rule === '*' && !cors.credentials ? '*' : origin,
    'access-control-expose-headers': 'etag',
  };
  if (headers['access-control-allow-origin'] !== '*') headers.vary = 'Origin';
  if (cors.credentials) headers['access-control-allow-credentials'] = 'true';
  return headers;
}
