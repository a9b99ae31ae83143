/** Methods a resource does not take: 405 with the `Allow` header (errorOut sends it). */
import { BlogError } from '../util/errors.js';

/** The 405 for `method` where only the methods of `allow` (`'GET, HEAD'`) are served. */
export const methodNotAllowed = (method: string, allow: string): BlogError =>
  Object.assign(
    new BlogError({
      code: 405,
      reason: 'methodNotAllowed',
      message: `Method ${method} not allowed here; allowed: ${allow}`,
    }),
    { allow },
  );

/** Refuses every method but GET and HEAD (what serves bytes, feeds and documents takes). */
export function onlyGetOrHead(method: string): void {
  if (method !== 'GET' && method !== 'HEAD') throw methodNotAllowed(method, 'GET, HEAD');
}
