/**
 * What Google's client libraries send beyond plain REST:
 *
 * - A GET whose address would pass 2,048 characters is sent as `POST` with `X-HTTP-Method-Override: GET` and
 *   the query as an `application/x-www-form-urlencoded` body (Google's Python and Java clients). It is served
 *   as that GET with the body as its query. Only GET: overriding to a write would let a plain cross-site
 *   `<form>` (which may POST form bodies anywhere) change data for hosts that authenticate by cookie.
 * - Enum parameters whose discovery document lists a `*_UNSPECIFIED` value: that value means "not set".
 */
import { BlogError } from '../util/errors.js';
import type { IncomingLike } from '../web/dispatch.js';

const FORM_TYPE = /^application\/x-www-form-urlencoded\s*(?:;|$)/i;

/** The method a request is served as: its own, or GET for a POST that asks for the override. */
export function effectiveMethod(incoming: IncomingLike): string {
  const override = incoming.header('x-http-method-override');
  if (override === null || incoming.method !== 'POST') return incoming.method;
  if (override.trim().toUpperCase() !== 'GET') {
    throw new BlogError({
      code: 400,
      reason: 'invalid',
      message: `X-HTTP-Method-Override may only turn a POST into a GET (got ${JSON.stringify(override.slice(0, 20))})`,
      location: 'X-HTTP-Method-Override',
      locationType: 'header',
    });
  }
  return 'GET';
}

/** The query of an overridden GET: the address's own query, then the form body (read within `maxBytes`). */
export async function overriddenQuery(
  incoming: IncomingLike,
  urlQuery: string,
  maxBytes: number,
): Promise<URLSearchParams> {
  const query = new URLSearchParams(urlQuery);
  if (!incoming.hasBody()) return query;
  const type = incoming.header('content-type');
  if (type === null || !FORM_TYPE.test(type)) {
    throw new BlogError({
      code: 415,
      reason: 'unsupportedMediaType',
      message: 'A GET sent as POST with X-HTTP-Method-Override carries its query as application/x-www-form-urlencoded',
      location: 'Content-Type',
      locationType: 'header',
    });
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(await incoming.readBody(maxBytes));
  } catch (error) {
    if (BlogError.is(error)) throw error;
    throw new BlogError({ code: 400, reason: 'parseError', message: 'Request body is not valid UTF-8' });
  }
  for (const [name, value] of new URLSearchParams(text)) query.append(name, value);
  return query;
}

/** The `*_UNSPECIFIED` value of each enum parameter of the discovery document that has one. */
export const UNSPECIFIED: Readonly<Record<string, string>> = {
  view: 'VIEW_TYPE_UNSPECIFIED',
  role: 'VIEW_TYPE_UNSPECIFIED',
  orderBy: 'ORDER_BY_UNSPECIFIED',
  sortOption: 'SORT_OPTION_UNSPECIFIED',
};

/** Whether `value` of parameter `name` is its "not set" value (enums match in any case). */
export function isUnspecified(name: string, value: string): boolean {
  const none = UNSPECIFIED[name];
  return none !== undefined && value.trim().toUpperCase() === none;
}
