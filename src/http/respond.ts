/** Building the helper's answers: Google error bodies, CORS headers, preflights. */
import { BlogError } from '../util/errors.js';
import type { IncomingLike, Outgoing } from '../web/dispatch.js';
import type { Route } from './routes.js';

export interface CorsOptions {
  /** Allowed origins: `'*'` (default), a list, or a predicate. */
  origin?: '*' | string | readonly string[] | ((origin: string) => boolean);
  /** Send `Access-Control-Allow-Credentials: true` (the origin is then echoed, never `*`). */
  credentials?: boolean;
  /** Seconds a browser may cache a preflight answer. Default 600. */
  maxAge?: number;
}

export const JSON_TYPE = 'application/json; charset=UTF-8';
/**
 * With read replicas (docs/postgres.md): the position an answer was read or written at. A client that sends it
 * back on its next request reads at or past it (its own writes included), whichever app server answers.
 */
export const CONSISTENCY_TOKEN = 'blogcore-consistency-token';
/** As Google's API front end: responses depend on the caller, so shared caches keep none and browsers revalidate. */
export const PRIVATE = 'private, max-age=0, must-revalidate';
/** What a browser may read of a shared document's answers (src/http/collab.ts). */
const COLLAB_HEADERS = 'blogcore-collab-position, blogcore-collab-presence, blogcore-collab-presence-clock';

/**
 * Whether a request asked for compact JSON (`prettyPrint=false`, as Google's clients send): read from the raw
 * target, since an error may come before (or from) the query's parsing.
 */
export function compactAsked(target: string): boolean {
  const query = target.indexOf('?');
  if (query < 0) return false;
  const value = new URLSearchParams(target.slice(query + 1)).getAll('prettyPrint').pop()?.toLowerCase();
  return value === 'false' || value === '0';
}

export function errorOut(error: BlogError, corsHeaders: Record<string, string> | undefined, compact = false): Outgoing {
  const headers: Record<string, string> = {
    'content-type': JSON_TYPE,
    'cache-control': 'private',
    'x-content-type-options': 'nosniff',
    ...corsHeaders,
  };
  const { allow, contentRange } = error as BlogError & { allow?: string; contentRange?: string };
  if (allow) headers.allow = allow;
  if (contentRange) headers['content-range'] = contentRange;
  if (error.retryAfter !== undefined) headers['retry-after'] = String(error.retryAfter);
  // A refused upload may still be arriving: close the connection rather than read it to the end.
  if (error.code === 413) headers.connection = 'close';
  const text = compact ? JSON.stringify(error.toJSON()) : `${JSON.stringify(error.toJSON(), null, 2)}\n`;
  return { status: error.code, headers, text };
}

export function allowed(methods: ReadonlyMap<string, Route>): string {
  const list = [...methods.keys()];
  if (methods.has('GET')) list.push('HEAD');
  return list.join(', ');
}

export function corsFor(cors: CorsOptions, incoming: IncomingLike): Record<string, string> | undefined {
  const origin = incoming.header('origin');
  if (origin === null) return undefined;
  const rule = cors.origin ?? '*';
  const ok =
    rule === '*'
      ? true
      : typeof rule === 'function'
        ? rule(origin)
        : typeof rule === 'string'
          ? rule === origin
          : rule.includes(origin);
  if (!ok) return undefined;
  const headers: Record<string, string> = {
    'access-control-allow-origin': rule === '*' && !cors.credentials ? '*' : origin,
    'access-control-expose-headers': `etag, retry-after, ${CONSISTENCY_TOKEN}, ${COLLAB_HEADERS}`,
  };
  if (headers['access-control-allow-origin'] !== '*') headers.vary = 'Origin';
  if (cors.credentials) headers['access-control-allow-credentials'] = 'true';
  return headers;
}

export function preflight(
  cors: CorsOptions,
  methods: ReadonlyMap<string, Route>,
  incoming: IncomingLike,
  corsHeaders: Record<string, string> | undefined,
): Outgoing {
  if (!corsHeaders)
    return errorOut(
      new BlogError({
        code: 403,
        reason: 'forbidden',
        message: 'Origin not allowed',
        location: 'Origin',
        locationType: 'header',
      }),
      undefined,
    );
  const requested = incoming.header('access-control-request-headers');
  return {
    status: 204,
    headers: {
      ...corsHeaders,
      'access-control-allow-methods': allowed(methods),
      'access-control-allow-headers':
        requested ??
        `authorization, content-type, if-match, if-none-match, idempotency-key, ${CONSISTENCY_TOKEN}, blogcore-collab-presence`,
      'access-control-max-age': String(cors.maxAge ?? 600),
    },
    text: null,
  };
}
