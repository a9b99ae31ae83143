/** The request target as a client may send it (RFC 9112 §3.2): origin form, absolute form, or `*`. */
import { BlogError } from '../util/errors.js';

const badTarget = (message: string) => new BlogError({ code: 400, reason: 'invalid', message });

/**
 * Path and query of a request target, or undefined for the asterisk form (`OPTIONS *`), which names no
 * route. An absolute form must be an http(s) URL without user info (RFC 9110 §4.2.4 treats one as an error).
 */
export function splitTarget(target: string): { path: string; query: string } | undefined {
  if (target.charCodeAt(0) !== 47 /* / */) {
    if (target === '*') return undefined;
    let url: URL;
    try {
      url = new URL(target);
    } catch {
      throw badTarget('Malformed request target');
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw badTarget('The request target must be a path or an http(s) URL');
    if (url.username !== '' || url.password !== '') throw badTarget('The request target must not carry user info');
    target = url.pathname + url.search;
  }
  const q = target.indexOf('?');
  return q < 0 ? { path: target, query: '' } : { path: target.slice(0, q), query: target.slice(q + 1) };
}

/** The path after `basePath`, as percent-decoded segments; undefined when the path is outside it. */
export function pathSegments(path: string, basePath: string): string[] | undefined {
  if (basePath !== '' && !((path.startsWith(basePath) && path.charCodeAt(basePath.length) === 47) /* / */))
    return undefined;
  const segments = path.slice(basePath.length + 1).split('/');
  for (let i = 0; i < segments.length; i++) {
    const seg = segments[i]!;
    if (seg.includes('%')) {
      try {
        segments[i] = decodeURIComponent(seg);
      } catch {
        throw badTarget('Malformed percent-encoding in the path');
      }
    }
  }
  return segments;
}
