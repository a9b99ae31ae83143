/**
 * Blogger's own feed paths beside `/v3`: `GET {prefix}/feeds/{blogId}/posts/default` (Atom),
 * `?alt=rss` (RSS 2.0), `…/posts/default/-/{label}`, `max-results=`. Feeds are public: they are read as an
 * anonymous reader whoever asks, and carry an ETag (`If-None-Match` gets 304).
 */
import { BlogError } from '../util/errors.js';
import { shortHash } from '../util/ids.js';
import { atomFeed, rssFeed, type FeedSource } from '../web/feeds.js';
import { onlyGetOrHead } from '../web/methods.js';

const TYPES = { atom: 'application/atom+xml; charset=UTF-8', rss: 'application/rss+xml; charset=UTF-8' } as const;

/** Where the feeds live for a handler's basePath: `/v3` → `/feeds`, `/api/v3` → `/api/feeds`. */
export const feedsBase = (basePath: string) => `${basePath.replace(/\/v3$/, '')}/feeds`;

/**
 * A feed's answer for a GET or HEAD under the feeds base (`parts` are the decoded path segments after it): its
 * headers, ETag among them, and its text, whatever the client has (the caller answers 304 or HEAD from them).
 */
export async function readFeed(
  reader: unknown,
  method: string,
  parts: readonly string[],
  query: string,
  /** The URL the client asked for: the feed's `rel="self"`. */
  selfUrl: string,
): Promise<{ headers: Record<string, string>; text: string }> {
  const [blogId, posts, def, dash, label, ...extra] = parts;
  const ok =
    blogId &&
    posts === 'posts' &&
    def === 'default' &&
    extra.length === 0 &&
    (dash === undefined || (dash === '-' && label));
  if (!ok)
    throw new BlogError({
      code: 404,
      reason: 'notFound',
      message: 'Not Found: no such feed (try /feeds/{blogId}/posts/default)',
    });
  onlyGetOrHead(method);
  const params = new URLSearchParams(query);
  const alt = params.get('alt') ?? 'atom';
  if (alt !== 'atom' && alt !== 'rss')
    throw new BlogError({
      code: 400,
      reason: 'invalid',
      message: 'alt must be atom or rss',
      location: 'alt',
      locationType: 'parameter',
    });
  const max = params.get('max-results');
  const maxResults = max === null ? undefined : /^\d{1,4}$/.test(max) ? Number(max) : NaN;
  const options = {
    blogId: blogId!,
    selfUrl,
    ...(label ? { label } : {}),
    ...(maxResults !== undefined ? { maxResults } : {}),
  };
  const text =
    alt === 'rss' ? await rssFeed(reader as FeedSource, options) : await atomFeed(reader as FeedSource, options);
  const headers = {
    'cache-control': 'public, max-age=0, must-revalidate',
    etag: `"${shortHash(text)}${text.length.toString(36)}"`,
    'content-type': TYPES[alt],
    'x-content-type-options': 'nosniff',
  };
  return { headers, text };
}
