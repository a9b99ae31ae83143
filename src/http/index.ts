/**
 * `blogcore/http`: the service as Blogger v3 routes over the Fetch standard (`Request` → `Response`), so it
 * mounts in node:http (via `toNodeHandler`), Express, Fastify, Hono, Bun, Deno, workers and route handlers.
 * No Node built-ins here: this module bundles for any runtime.
 */
import { commentOptionsOf } from '../rules/comment-options.js';
import { BlogError } from '../util/errors.js';
import { commentRate, tooManyComments } from '../rules/comments.js';
import { internalsOf } from '../service/internals.js';
import { once } from './idempotency.js';
import { fetchIncoming, notAnObject, readRequestBody, tooLarge } from '../web/body.js';
import { feedsBase, serveFeed } from './feeds.js';
import { mediaBase, serveMedia, uploadHeaders } from '../web/media.js';
import { serveCollab } from './collab.js';
import { applyFields, parseFields } from './fields.js';
import type { RequestHead } from '../web/head.js';
import { ClientGone, dispatchers, type IncomingLike, type Outgoing } from '../web/dispatch.js';
import { openApiDocument } from './openapi.js';
import { effectiveMethod, overriddenQuery } from './override.js';
import { parseQuery } from './params.js';
import {
  allowed,
  CONSISTENCY_TOKEN,
  corsFor,
  compactAsked,
  errorOut,
  JSON_TYPE,
  preflight,
  PRIVATE,
  type CorsOptions,
} from './respond.js';
import { ROUTES, Router } from './routes.js';
import { pathSegments, splitTarget } from '../web/target.js';
import { KEPT_BYTES, KEPT_OPS, KeptResponses, type KeptResponse, normalizedQuery } from './kept.js';
import { etagMatches } from '../web/conditional.js';
import { methodNotAllowed, onlyGetOrHead } from '../web/methods.js';
import { type ClientAddressOptions, clientAddressResolver, clientOf } from '../web/client-address.js';

export { toNodeHandler, type NodeHandler, type NodeRequestLike, type NodeResponseLike } from '../web/node.js';
export { ROUTES, type HttpMethod, type ParamKind, type Route } from './routes.js';
export { openApiDocument } from './openapi.js';
export type { RequestHead } from '../web/head.js';
export type { CorsOptions } from './respond.js';
export type { ClientAddressOptions, TrustProxy } from '../web/client-address.js';

/** Who is calling: a user id of the service, or `null` for an anonymous reader. */
export interface Actor {
  userId: string;
}

/** The one thing the helper needs from a BlogService: scoping to the caller. */
export interface ScopableService {
  as(actor: Actor | null): object;
}

export interface HttpHandlerOptions extends ClientAddressOptions {
  /**
   * Who the request comes from: `{ userId }`, or `null` for anonymous. Throw a `BlogError` (e.g. 401
   * `authError`) to answer with it; anything else thrown is a 500 `backendError`. Default: everyone is anonymous.
   * It gets the request's method, URL and headers: the Fetch `Request` itself on the Fetch path, a
   * `RequestHead` (read-only `Headers`) from `toNodeHandler`. The body is the helper's to read.
   */
  authenticate?: (request: RequestHead) => Actor | null | undefined | Promise<Actor | null | undefined>;
  /** The path prefix of the routes in the URL the client requested. Default `/v3`; `''` for none. */
  basePath?: string;
  /** Larger request bodies get 413. Default 1 MiB. */
  maxBodyBytes?: number;
  /** Answer CORS preflights and add CORS headers. Default off. `true` allows every origin. */
  cors?: boolean | CorsOptions;
  /** Called with every unexpected (non-BlogError) failure, e.g. to log it; the client only sees a 500. */
  onError?: (error: unknown, request: RequestHead) => void;
  /**
   * Kept responses (docs/http.md): the answers of reads (posts, pages, comments, blogs, their lists and searches)
   * kept until the store may have changed, at most `maxBytes` (default 32 MiB). `false` reads every time.
   */
  keptResponses?: { maxBytes?: number } | false;
}

export type HttpHandler = (request: Request) => Promise<Response>;

const router = new Router(ROUTES);
const KEPT_ROUTES = new Set(ROUTES.filter((r) => r.method === 'GET' && KEPT_OPS.has(r.op.join('.'))));
const encoder = new TextEncoder();
const keptOf = new WeakMap<HttpHandler, KeptResponses>();

/**
 * What a handler's kept responses hold now (answers, and bytes of bodies, headers and keys) and their bound;
 * undefined for a handler that keeps none (`keptResponses: false`).
 */
export function keptResponsesOf(
  handler: HttpHandler,
): { responses: number; bytes: number; maxBytes: number } | undefined {
  const kept = keptOf.get(handler);
  return kept && { ...kept.stats(), maxBytes: kept.maxBytes };
}
const NO_QUERY = new URLSearchParams();
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
  const feeds = feedsBase(basePath);
  const media = mediaBase(basePath);
  // The upload route's own limit: the service's maxMediaBytes (checked again as the bytes stream in).
  const maxMediaBytes = internalsOf(service)?.core.maxMediaBytes;
  const cors = options.cors === true ? {} : options.cors || undefined;
  const { authenticate, onError } = options;
  const addressOf = clientAddressResolver(options);
  let anonymous: object | undefined;
  let openApiText: string | undefined;
  const users = new Map<string, object>();
  const kept = keptFor(service, options.keptResponses);
  const core = internalsOf(service)?.core;
  // A host's mistake in the comment options is a TypeError here, not a failure of the first comment.
  if (core) commentOptionsOf(core.commentOptions);

  const run = async (incoming: IncomingLike): Promise<Outgoing> => {
    const corsHeaders = cors ? corsFor(cors, incoming) : undefined;
    try {
      return await dispatch(incoming, corsHeaders);
    } catch (error) {
      const compact = compactAsked(incoming.target);
      // A client that hangs up mid-body (or breaks its chunked encoding) is not a server error.
      if (error instanceof ClientGone) {
        return {
          ...errorOut(new BlogError({ code: 400, reason: 'parseError', message: error.message }), corsHeaders, compact),
          gone: true,
        };
      }
      if (!BlogError.is(error) && onError) {
        try {
          onError(error, incoming.head());
        } catch {
          // A failing logger must not turn a 500 into a dropped connection.
        }
      }
      const e = BlogError.is(error)
        ? error
        : new BlogError({ code: 500, reason: 'backendError', message: 'Backend Error' });
      return errorOut(e, corsHeaders, compact);
    }
  };

  const handle = async (request: Request): Promise<Response> => {
    const out = await run(fetchIncoming(request));
    return new Response(out.body ?? out.text, { status: out.status, headers: out.headers });
  };
  dispatchers.set(handle, run);
  if (kept) keptOf.set(handle, kept.responses);
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

  /**
   * An anonymous comment whose address is over its limit is refused here, before its body is read or parsed:
   * the limiter's peek, taking nothing (the call takes the token), answers the seconds to wait. Not with an
   * Idempotency-Key, whose retry of a stored comment gets that comment.
   */
  function floodWait(incoming: IncomingLike): number | undefined {
    if (!core || incoming.header('idempotency-key') !== null) return undefined;
    const address = addressOf(incoming);
    const limit =
      address === undefined
        ? undefined
        : commentRate({ kind: 'anonymous', role: null }, address, core.commentOptions.commentLimits);
    return limit && core.commentGate?.refuses(limit.key, core.now().getTime());
  }

  /** `{basePath}/openapi.json`: the document of these routes (src/http/openapi.ts), built once. */
  function serveOpenApi(incoming: IncomingLike, corsHeaders: Record<string, string> | undefined): Outgoing {
    onlyGetOrHead(incoming.method);
    openApiText ??= JSON.stringify(openApiDocument(basePath));
    const headers = {
      'content-type': JSON_TYPE,
      'cache-control': 'public, max-age=300',
      'x-content-type-options': 'nosniff',
      ...corsHeaders,
    };
    return { status: 200, headers, text: incoming.method === 'HEAD' ? null : openApiText };
  }

  async function dispatch(incoming: IncomingLike, corsHeaders: Record<string, string> | undefined): Promise<Outgoing> {
    const target = splitTarget(incoming.target);
    const feed = target && pathSegments(target.path, feeds);
    if (feed)
      return serveFeed(
        scope(null),
        incoming.method,
        feed,
        target.query,
        incoming.header('if-none-match'),
        corsHeaders,
        incoming.head().url,
      );
    const bytes = target && pathSegments(target.path, media);
    if (bytes) return serveMedia(scope(null) as never, incoming, bytes, corsHeaders);
    const segments = target && pathSegments(target.path, basePath);
    if (!target || !segments)
      return { ...errorOut(routeNotFound(), corsHeaders, compactAsked(incoming.target)), notMine: true };
    if (segments.length === 1 && segments[0] === 'openapi.json') return serveOpenApi(incoming, corsHeaders);
    const match = router.match(segments);
    if (!match) throw routeNotFound();

    // POST + X-HTTP-Method-Override: GET is served as that GET (src/http/override.ts).
    const method = effectiveMethod(incoming);
    const overridden = method !== incoming.method;
    // A CORS preflight (an OPTIONS without Origin is an ordinary request, and gets a 405).
    if (
      method === 'OPTIONS' &&
      cors &&
      incoming.header('origin') !== null &&
      incoming.header('access-control-request-method') !== null
    ) {
      return preflight(cors, match.methods, incoming, corsHeaders);
    }
    const route = match.methods.get(method === 'HEAD' ? 'GET' : method);
    if (!route) {
      throw methodNotAllowed(method, allowed(match.methods));
    }

    // Authenticate before parsing anything the caller sent (an anonymous flood never gets bodies read).
    const actor = authenticate ? await authenticate(incoming.head()) : null;
    if (actor != null && (typeof actor !== 'object' || typeof actor.userId !== 'string')) {
      throw new TypeError('authenticate() must return { userId: string } or null');
    }
    if (route.client && actor == null) {
      const wait = floodWait(incoming);
      if (wait !== undefined) return refusal(wait, corsHeaders);
    }

    // A kept answer, once the store is known not to have changed since it was kept (src/http/kept.ts).
    let keptKey: string | undefined;
    let since = 0;
    if (
      kept &&
      KEPT_ROUTES.has(route) &&
      !overridden &&
      !incoming.hasBody() &&
      incoming.header(CONSISTENCY_TOKEN) === null &&
      !kept.core.readSession
    ) {
      keptKey = `${actor ? `u${actor.userId}` : 'a'} ${target.path}?${normalizedQuery(target.query)}`;
      await kept.core.catchUp();
      const hit = kept.responses.get(keptKey);
      if (hit) return keptOut(hit, incoming, corsHeaders);
      since = kept.responses.mark();
    }

    const search = overridden
      ? await overriddenQuery(incoming, target.query, maxBodyBytes)
      : target.query === ''
        ? NO_QUERY
        : new URLSearchParams(target.query);
    const { params, global } = parseQuery(search, route.query);
    const mask = global.fields === undefined ? undefined : parseFields(global.fields);
    Object.assign(params, match.params);
    if (route.collab) {
      // A shared document's bytes (src/http/collab.ts): read and answered there, with the scoped collab calls.
      const calls = (scope(actor ?? null) as unknown as { collab: Parameters<typeof serveCollab>[0] }).collab;
      return serveCollab(calls, method, params, incoming, corsHeaders);
    }
    // The whole request is read before anything runs, on every route: a DELETE whose body breaks off
    // midway must not have deleted anything.
    // (An overridden GET's body was its query, read above.)
    if (route.upload) {
      // Streamed to the service as it arrives (never held whole); a declared size over the limit goes first.
      const declared = incoming.header('content-length');
      if (
        maxMediaBytes !== undefined &&
        declared !== null &&
        /^\d+$/.test(declared) &&
        Number(declared) > maxMediaBytes
      )
        throw tooLarge(maxMediaBytes);
      if (overridden || !incoming.hasBody()) {
        throw new BlogError({
          code: 400,
          reason: 'required',
          message: 'Required: the picture as the request body',
          location: 'body',
          locationType: 'body',
        });
      }
      Object.assign(params, uploadHeaders(incoming), { body: incoming.bodyStream() });
    }
    const body =
      overridden || route.upload ? undefined : await readRequestBody(incoming, maxBodyBytes, route.body === true);
    if (route.body) {
      if (body === undefined) {
        throw new BlogError({
          code: 400,
          reason: 'required',
          message: 'Required: a JSON request body',
          location: 'body',
          locationType: 'body',
        });
      }
      if (!route.bodyFields) params.body = body;
      else if (typeof body === 'object' && body !== null && !Array.isArray(body)) {
        // The path's parameters stand: a body naming another blog does not move the call there.
        for (const [k, v] of Object.entries(body)) if (!(k in match.params)) params[k] = v;
      } else throw notAnObject();
    }
    if (route.ifMatch) {
      const ifMatch = incoming.header('if-match');
      if (ifMatch !== null) params.ifMatch = ifMatch.trim();
    }

    let scoped = scope(actor ?? null);
    // Read replicas: a client that sends back the consistency token of an earlier answer reads at or past it.
    const sent = incoming.header(CONSISTENCY_TOKEN);
    if (sent !== null) scoped = (internalsOf(scoped)?.fork(sent.trim()) ?? scoped) as typeof scoped;
    // A namespace may be nested (`posts.revisions`).
    let api: Record<string, unknown> = scoped;
    for (const part of route.op[0].split('.')) api = api[part] as Record<string, unknown>;
    // Who sent it, for the comment limits (not part of an Idempotency-Key's fingerprint: a retry may come from elsewhere).
    const client = route.client ? clientOf(incoming, addressOf) : undefined;
    const call = () =>
      (api[route.op[1]] as (p: unknown) => Promise<unknown>)(client ? { ...params, ...client } : params);
    const key = route.idempotent ? incoming.header('idempotency-key') : null;
    const inner = internalsOf(scoped);
    // An upload's bytes are its id (the same picture answers the same media): its key stands for its headers.
    const fingerprint = route.upload ? { ...params, body: incoming.header('content-length') } : params;
    const result =
      key !== null && inner
        ? await once(inner.core, inner.actor, key.trim(), { op: route.op, params: fingerprint }, call)
        : await call();

    const token = inner?.core.readSession?.token();
    const tokenHeader = token === undefined ? undefined : { [CONSISTENCY_TOKEN]: token };
    if (route.noContent) return { status: 204, headers: { ...corsHeaders, ...tokenHeader }, text: null };
    const headers: Record<string, string> = {
      'content-type': JSON_TYPE,
      'cache-control': PRIVATE,
      'x-content-type-options': 'nosniff',
    };
    if (token !== undefined) headers[CONSISTENCY_TOKEN] = token;
    const etag = route.etag ? (result as { etag?: unknown } | undefined)?.etag : undefined;
    if (typeof etag === 'string') {
      headers.etag = etag;
      if (route.method === 'GET' && etagMatches(incoming.header('if-none-match'), etag)) {
        return { status: 304, headers: { etag, 'cache-control': PRIVATE, ...corsHeaders, ...tokenHeader }, text: null };
      }
    }
    const out = mask ? applyFields(result, mask) : result;
    const text = global.pretty ? `${JSON.stringify(out, null, 2)}\n` : JSON.stringify(out);
    if (keptKey === undefined) {
      return { status: 200, headers: { ...headers, ...corsHeaders }, text: method === 'HEAD' ? null : text };
    }
    const encoded = encoder.encode(text);
    kept!.responses.set(keptKey, headers, encoded, since);
    return { status: 200, headers: { ...headers, ...corsHeaders }, text: method === 'HEAD' ? null : encoded };
  }
}

/** The kept responses of a handler, with the core whose change-log check comes before each (none without one). */
function keptFor(service: ScopableService, option: HttpHandlerOptions['keptResponses']) {
  const core = internalsOf(service)?.core;
  if (!core || option === false) return undefined;
  const responses = new KeptResponses(option?.maxBytes ?? KEPT_BYTES);
  // Every commit of this process, other processes' commits found by a call's check, other instances' events.
  core.commitListeners.add(responses.drop);
  core.movedListeners.add(responses.drop);
  if (core.events.shared) core.events.on('*', responses.drop);
  return { core, responses };
}

/** A kept answer as sent: 304 when the client has it; the prepared header block when nothing is added to it. */
function keptOut(hit: KeptResponse, incoming: IncomingLike, corsHeaders: Record<string, string> | undefined): Outgoing {
  if (hit.etag !== undefined && etagMatches(incoming.header('if-none-match'), hit.etag)) {
    return { status: 304, headers: { etag: hit.etag, 'cache-control': PRIVATE, ...corsHeaders }, text: null };
  }
  const text = incoming.method === 'HEAD' ? null : hit.body;
  if (corsHeaders) return { status: 200, headers: { ...hit.headers, ...corsHeaders }, text };
  return { status: 200, headers: hit.headers as Record<string, string>, head: hit.head, text };
}

/** The 429s of refused floods by their Retry-After, each built once: a refusal builds no error and no JSON. */
const refusals = new Map<number, Outgoing>();

function refusal(wait: number, corsHeaders: Record<string, string> | undefined): Outgoing {
  if (corsHeaders) return errorOut(tooManyComments(wait), corsHeaders);
  let out = refusals.get(wait);
  if (!out) {
    const { headers, text } = errorOut(tooManyComments(wait), undefined);
    const body = encoder.encode(text as string);
    const head = [...Object.entries(headers).flat(), 'content-length', String(body.byteLength)];
    out = { status: 429, headers, head, text: body };
    if (refusals.size < 100) refusals.set(wait, out);
  }
  return out;
}

const routeNotFound = () => new BlogError({ code: 404, reason: 'notFound', message: 'Not Found: no such route' });
