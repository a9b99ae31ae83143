/**
 * `blogcore/http`: the service as Blogger v3 routes over the Fetch standard (`Request` → `Response`), so it
 * mounts in node:http (via `toNodeHandler`), Express, Fastify, Hono, Bun, Deno, workers and route handlers.
 * No Node built-ins here: this module bundles for any runtime.
 */
import { commentOptionsOf } from '../rules/comment-options.js';
import { BlogError } from '../util/errors.js';
import { commentRate, tooManyComments } from '../rules/comments.js';
import { caughtUp } from '../service/at-once.js';
import { internalsOf } from '../service/internals.js';
import { once } from './idempotency.js';
import { fetchIncoming, notAnObject, readRequestBody, tooLarge } from '../web/body.js';
import { feedsBase, readFeed } from './feeds.js';
import { mediaBase, serveMedia, uploadHeaders } from '../web/media.js';
import { serveCollab } from './collab.js';
import { applyFields, type FieldMask, parseFields } from './fields.js';
import type { RequestHead } from '../web/head.js';
import {
  type AnswerNow,
  answersNow,
  ClientGone,
  dispatchers,
  type IncomingLike,
  type Outgoing,
} from '../web/dispatch.js';
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
import { type Match, type Route, ROUTES, Router } from './routes.js';
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
   * Kept responses (docs/http.md): the answers of reads (posts, pages, comments, blogs, their lists and searches,
   * the feeds) kept until the store may have changed, at most `maxBytes` (default 32 MiB). `false` reads every time.
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
  const core = internalsOf(service)?.core;
  const h: V3 = {
    service,
    basePath,
    feeds: feedsBase(basePath),
    media: mediaBase(basePath),
    maxBodyBytes: options.maxBodyBytes ?? 1024 * 1024,
    // The upload route's own limit: the service's maxMediaBytes (checked again as the bytes stream in).
    maxMediaBytes: core?.maxMediaBytes,
    cors: options.cors === true ? {} : options.cors || undefined,
    authenticate: options.authenticate,
    onError: options.onError,
    addressOf: clientAddressResolver(options),
    kept: keptFor(service, options.keptResponses),
    core,
    anonymous: undefined,
    openApiText: undefined,
    users: new Map(),
  };
  // A host's mistake in the comment options is a TypeError here, not a failure of the first comment.
  if (core) commentOptionsOf(core.commentOptions);
  const run = (incoming: IncomingLike) => runRequest(h, incoming);
  const handle = async (request: Request): Promise<Response> => {
    const out = await run(fetchIncoming(request));
    return new Response(out.body ?? out.text, { status: out.status, headers: out.headers });
  };
  dispatchers.set(handle, run);
  if (h.kept) {
    keptOf.set(handle, h.kept.responses);
    if (!h.cors && !h.authenticate) answersNow.set(handle, keptNow(h.kept));
  }
  return handle;
}

type CorsHeaders = Record<string, string> | undefined;
type Core = NonNullable<ReturnType<typeof internalsOf>>['core'];
type Scoped = Record<string, Record<string, (p: unknown) => Promise<unknown>>>;

/** What one handler holds: its options as read once, and the scoped services and OpenAPI text it keeps. */
interface V3 {
  service: ScopableService;
  basePath: string;
  feeds: string;
  media: string;
  maxBodyBytes: number;
  maxMediaBytes: number | undefined;
  cors: CorsOptions | undefined;
  authenticate: HttpHandlerOptions['authenticate'];
  onError: HttpHandlerOptions['onError'];
  addressOf: (incoming: IncomingLike) => string | undefined;
  kept: ReturnType<typeof keptFor>;
  core: Core | undefined;
  anonymous: object | undefined;
  openApiText: string | undefined;
  users: Map<string, object>;
}

/** A request matched to its route, the method it is served as (after X-HTTP-Method-Override) and its target. */
interface Routed {
  target: NonNullable<ReturnType<typeof splitTarget>>;
  match: Match;
  route: Route;
  method: string;
  overridden: boolean;
}

/** One request, answered: every failure becomes Google's JSON error (a non-BlogError a 500, told to `onError`). */
async function runRequest(h: V3, incoming: IncomingLike): Promise<Outgoing> {
  const corsHeaders = h.cors ? corsFor(h.cors, incoming) : undefined;
  try {
    return await dispatch(h, incoming, corsHeaders);
  } catch (error) {
    const compact = compactAsked(incoming.target);
    // A client that hangs up mid-body (or breaks its chunked encoding) is not a server error.
    if (error instanceof ClientGone) {
      return {
        ...errorOut(new BlogError({ code: 400, reason: 'parseError', message: error.message }), corsHeaders, compact),
        gone: true,
      };
    }
    if (!BlogError.is(error) && h.onError) {
      try {
        h.onError(error, incoming.head());
      } catch {
        // A failing logger must not turn a 500 into a dropped connection.
      }
    }
    const e = BlogError.is(error)
      ? error
      : new BlogError({ code: 500, reason: 'backendError', message: 'Backend Error' });
    return errorOut(e, corsHeaders, compact);
  }
}

function scope(h: V3, actor: Actor | null): Scoped {
  let scoped: object | undefined;
  if (actor === null) scoped = h.anonymous ??= h.service.as(null);
  else {
    scoped = h.users.get(actor.userId);
    if (!scoped) {
      if (h.users.size >= SCOPE_CACHE_SIZE) h.users.delete(h.users.keys().next().value!);
      h.users.set(actor.userId, (scoped = h.service.as({ userId: actor.userId })));
    }
  }
  return scoped as Scoped;
}

/**
 * An anonymous comment whose address is over its limit is refused here, before its body is read or parsed:
 * the limiter's peek, taking nothing (the call takes the token), answers the seconds to wait. Not with an
 * Idempotency-Key, whose retry of a stored comment gets that comment.
 */
function floodWait(h: V3, incoming: IncomingLike): number | undefined {
  const { core } = h;
  if (!core || incoming.header('idempotency-key') !== null) return undefined;
  const address = h.addressOf(incoming);
  const limit =
    address === undefined
      ? undefined
      : commentRate({ kind: 'anonymous', role: null }, address, core.commentOptions.commentLimits);
  return limit && core.commentGate?.refuses(limit.key, core.now().getTime());
}

/** `{basePath}/openapi.json`: the document of these routes (src/http/openapi.ts), built once. */
function serveOpenApi(h: V3, incoming: IncomingLike, corsHeaders: CorsHeaders): Outgoing {
  onlyGetOrHead(incoming.method);
  h.openApiText ??= JSON.stringify(openApiDocument(h.basePath));
  const headers = {
    'content-type': JSON_TYPE,
    'cache-control': 'public, max-age=300',
    'x-content-type-options': 'nosniff',
    ...corsHeaders,
  };
  return { status: 200, headers, text: incoming.method === 'HEAD' ? null : h.openApiText };
}

async function dispatch(h: V3, incoming: IncomingLike, corsHeaders: CorsHeaders): Promise<Outgoing> {
  const routed = await routeOf(h, incoming, corsHeaders);
  if (!('route' in routed)) return routed;
  const { target, match, route, method, overridden } = routed;

  // Authenticate before parsing anything the caller sent (an anonymous flood never gets bodies read).
  const actor = h.authenticate ? await h.authenticate(incoming.head()) : null;
  if (actor != null && (typeof actor !== 'object' || typeof actor.userId !== 'string')) {
    throw new TypeError('authenticate() must return { userId: string } or null');
  }
  if (route.client && actor == null) {
    const wait = floodWait(h, incoming);
    if (wait !== undefined) return refusal(wait, corsHeaders);
  }

  // A kept answer, once the store is known not to have changed since it was kept (src/http/kept.ts).
  const { kept } = h;
  let keep: Keep | undefined;
  if (
    kept &&
    KEPT_ROUTES.has(route) &&
    !overridden &&
    !incoming.hasBody() &&
    incoming.header(CONSISTENCY_TOKEN) === null &&
    !kept.core.readSession
  ) {
    const key = `${actor ? `u${actor.userId}` : 'a'} ${target.path}?${normalizedQuery(target.query)}`;
    if (!caughtUp(kept.core)) await kept.core.promoteDue();
    const hit = kept.responses.get(key);
    if (hit) return keptOut(hit, incoming, corsHeaders);
    const as = actor ? undefined : incoming.target;
    keep = { responses: kept.responses, key, since: kept.responses.mark(), target: as };
  }

  const search = overridden
    ? await overriddenQuery(incoming, target.query, h.maxBodyBytes)
    : target.query === ''
      ? NO_QUERY
      : new URLSearchParams(target.query);
  const { params, global } = parseQuery(search, route.query);
  const mask = global.fields === undefined ? undefined : parseFields(global.fields);
  Object.assign(params, match.params);
  if (route.collab) {
    // A shared document's bytes (src/http/collab.ts): read and answered there, with the scoped collab calls.
    const calls = (scope(h, actor ?? null) as unknown as { collab: Parameters<typeof serveCollab>[0] }).collab;
    return serveCollab(calls, method, params, incoming, corsHeaders);
  }
  await readParams(h, incoming, routed, params);

  let scoped = scope(h, actor ?? null);
  // Read replicas: a client that sends back the consistency token of an earlier answer reads at or past it.
  const sent = incoming.header(CONSISTENCY_TOKEN);
  if (sent !== null) scoped = (internalsOf(scoped)?.fork(sent.trim()) ?? scoped) as typeof scoped;
  const result = await call(h, incoming, route, scoped, params);
  const token = internalsOf(scoped)?.core.readSession?.token();
  return answer(incoming, routed, result, mask, global.pretty, token, keep, corsHeaders);
}

/**
 * The route a request names: the feeds, media bytes and the OpenAPI document answered on the spot; a CORS
 * preflight answered; no such path a 404 (outside the base path, one an Express-style host passes on), no such
 * method a 405.
 */
async function routeOf(h: V3, incoming: IncomingLike, corsHeaders: CorsHeaders): Promise<Routed | Outgoing> {
  const target = splitTarget(incoming.target);
  const feed = target && pathSegments(target.path, h.feeds);
  if (feed) return serveFeed(h, incoming, feed, target.query, corsHeaders);
  const bytes = target && pathSegments(target.path, h.media);
  if (bytes) return serveMedia(scope(h, null) as never, incoming, bytes, corsHeaders);
  const segments = target && pathSegments(target.path, h.basePath);
  if (!target || !segments)
    return { ...errorOut(routeNotFound(), corsHeaders, compactAsked(incoming.target)), notMine: true };
  if (segments.length === 1 && segments[0] === 'openapi.json') return serveOpenApi(h, incoming, corsHeaders);
  const match = router.match(segments);
  if (!match) throw routeNotFound();

  // POST + X-HTTP-Method-Override: GET is served as that GET (src/http/override.ts).
  const method = effectiveMethod(incoming);
  const overridden = method !== incoming.method;
  // A CORS preflight (an OPTIONS without Origin is an ordinary request, and gets a 405).
  if (
    method === 'OPTIONS' &&
    h.cors &&
    incoming.header('origin') !== null &&
    incoming.header('access-control-request-method') !== null
  ) {
    return preflight(h.cors, match.methods, incoming, corsHeaders);
  }
  const route = match.methods.get(method === 'HEAD' ? 'GET' : method);
  if (!route) {
    throw methodNotAllowed(method, allowed(match.methods));
  }
  return { target, match, route, method, overridden };
}

/**
 * The rest of a call's parameters, from the request itself: an upload's streamed bytes and headers, a JSON
 * body's fields (the path's own parameters stand), If-Match. The whole request is read before anything runs, on
 * every route: a DELETE whose body breaks off midway must not have deleted anything. (An overridden GET's body was
 * its query, read before.)
 */
async function readParams(h: V3, incoming: IncomingLike, routed: Routed, params: Record<string, unknown>) {
  const { route, match, overridden } = routed;
  const { maxMediaBytes } = h;
  if (route.upload) {
    // Streamed to the service as it arrives (never held whole); a declared size over the limit goes first.
    const declared = incoming.header('content-length');
    if (maxMediaBytes !== undefined && declared !== null && /^\d+$/.test(declared) && Number(declared) > maxMediaBytes)
      throw tooLarge(maxMediaBytes);
    if (overridden || !incoming.hasBody()) throw requiredBody('the picture as the request body');
    Object.assign(params, uploadHeaders(incoming), { body: incoming.bodyStream() });
  }
  const body =
    overridden || route.upload ? undefined : await readRequestBody(incoming, h.maxBodyBytes, route.body === true);
  if (route.body) {
    if (body === undefined) throw requiredBody('a JSON request body');
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
}

const requiredBody = (what: string) =>
  new BlogError({
    code: 400,
    reason: 'required',
    message: `Required: ${what}`,
    location: 'body',
    locationType: 'body',
  });

/** The service's call for a route, once per Idempotency-Key where the route takes one. */
async function call(h: V3, incoming: IncomingLike, route: Route, scoped: Scoped, params: Record<string, unknown>) {
  // A namespace may be nested (`posts.revisions`).
  let api: Record<string, unknown> = scoped;
  for (const part of route.op[0].split('.')) api = api[part] as Record<string, unknown>;
  // Who sent it, for the comment limits (not part of an Idempotency-Key's fingerprint: a retry may come from elsewhere).
  const client = route.client ? clientOf(incoming, h.addressOf) : undefined;
  const run = () => (api[route.op[1]] as (p: unknown) => Promise<unknown>)(client ? { ...params, ...client } : params);
  const key = route.idempotent ? incoming.header('idempotency-key') : null;
  const inner = internalsOf(scoped);
  // An upload's bytes are its id (the same picture answers the same media): its key stands for its headers.
  const fingerprint = route.upload ? { ...params, body: incoming.header('content-length') } : params;
  return key !== null && inner
    ? await once(inner.core, inner.actor, key.trim(), { op: route.op, params: fingerprint }, run)
    : await run();
}

/** Where a kept route's answer goes once built: its key, and the mark it was read after. */
interface Keep {
  responses: KeptResponses;
  key: string;
  since: number;
  /** An anonymous request's target as sent, the kept answer's second key (`KeptResponses.byTarget`). */
  target: string | undefined;
}

/**
 * A call's answer: 204 for a route with none, 304 when the client has its ETag, else the result's JSON (cut by
 * `fields`), kept when `keep` says where. Every answer carries the read replica's token.
 */
function answer(
  incoming: IncomingLike,
  { route, method }: Routed,
  result: unknown,
  mask: FieldMask | undefined,
  pretty: boolean,
  token: string | undefined,
  keep: Keep | undefined,
  corsHeaders: CorsHeaders,
): Outgoing {
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
  const text = pretty ? `${JSON.stringify(out, null, 2)}\n` : JSON.stringify(out);
  if (keep === undefined) {
    return { status: 200, headers: { ...headers, ...corsHeaders }, text: method === 'HEAD' ? null : text };
  }
  const encoded = encoder.encode(text);
  keep.responses.set(keep.key, headers, encoded, keep.since, keep.target);
  return { status: 200, headers: { ...headers, ...corsHeaders }, text: method === 'HEAD' ? null : encoded };
}

/**
 * The Node adapter's way to a kept answer without a promise (a handler with no `authenticate` and no CORS): an
 * anonymous GET with no body, If-None-Match nor consistency token, by its target as sent, once the store is known
 * at once not to have moved (`core.caughtUp`). Anything else (undefined) takes the full path, which answers the
 * same.
 */
function keptNow({ core, responses }: NonNullable<V3['kept']>): AnswerNow {
  return (target, headers) => {
    if (headers[CONSISTENCY_TOKEN] !== undefined || headers['if-none-match'] !== undefined) return undefined;
    const hit = responses.byTarget(target);
    return hit && !core.readSession && caughtUp(core) ? hit.out : undefined;
  };
}

/** The kept responses of a handler, with the core whose change-log check comes before each (none without one). */
function keptFor(service: ScopableService, option: HttpHandlerOptions['keptResponses']) {
  const core = internalsOf(service)?.core;
  if (!core || option === false) return undefined;
  const responses = new KeptResponses(option?.maxBytes ?? KEPT_BYTES);
  // Every commit of this process, other processes' commits found by a call's check, other instances' events.
  // The service holds the listener, the listener holds what is kept only weakly: a handler the host lets go of
  // takes its kept responses and, once collected, its listeners with it (docs/design.md §21).
  const ref = new WeakRef(responses);
  const drop = () => ref.deref()?.drop();
  core.commitListeners.add(drop);
  core.movedListeners.add(drop);
  const off = core.events.shared ? core.events.on('*', drop) : undefined;
  forgetListeners.register(responses, { core, drop, off });
  return { core, responses };
}

/** Takes a collected handler's listeners off its service. */
const forgetListeners = new FinalizationRegistry<{ core: Core; drop: () => void; off: (() => void) | undefined }>(
  ({ core, drop, off }) => {
    core.commitListeners.delete(drop);
    core.movedListeners.delete(drop);
    off?.();
  },
);

/**
 * A feed (src/http/feeds.ts), read as an anonymous reader whoever asks, kept like the routes' answers: by the URL
 * the client asked for, which the feed names as its own.
 */
async function serveFeed(
  h: V3,
  incoming: IncomingLike,
  parts: readonly string[],
  query: string,
  corsHeaders: CorsHeaders,
): Promise<Outgoing> {
  const { kept } = h;
  const self = incoming.head().url;
  const key = `f ${self}`;
  let since: number | undefined;
  if (kept && (incoming.method === 'GET' || incoming.method === 'HEAD') && !incoming.hasBody()) {
    if (!caughtUp(kept.core)) await kept.core.promoteDue();
    const hit = kept.responses.get(key);
    if (hit) return keptOut(hit, incoming, corsHeaders);
    since = kept.responses.mark();
  }
  const { headers, text } = await readFeed(scope(h, null), incoming.method, parts, query, self);
  if (!kept || since === undefined) return sent(headers, text, incoming, corsHeaders);
  const body = encoder.encode(text);
  kept.responses.set(key, headers, body, since);
  return sent(headers, body, incoming, corsHeaders);
}

/** A kept answer as sent: 304 when the client has it; the prepared header block when nothing is added to it. */
function keptOut(hit: KeptResponse, incoming: IncomingLike, corsHeaders: Record<string, string> | undefined): Outgoing {
  if (!corsHeaders && !(hit.etag !== undefined && etagMatches(incoming.header('if-none-match'), hit.etag))) {
    return incoming.method === 'HEAD' ? { ...hit.out, text: null } : hit.out;
  }
  return sent(hit.headers, hit.body, incoming, corsHeaders);
}

/** A 200 answer's headers and body as sent: 304 when the client has its ETag, no body for HEAD. */
function sent(
  headers: Readonly<Record<string, string>>,
  body: string | Uint8Array<ArrayBuffer>,
  incoming: IncomingLike,
  corsHeaders: CorsHeaders,
): Outgoing {
  const { etag } = headers;
  if (etag !== undefined && etagMatches(incoming.header('if-none-match'), etag)) {
    const cacheControl = headers['cache-control'] ?? PRIVATE;
    return { status: 304, headers: { etag, 'cache-control': cacheControl, ...corsHeaders }, text: null };
  }
  return { status: 200, headers: { ...headers, ...corsHeaders }, text: incoming.method === 'HEAD' ? null : body };
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
