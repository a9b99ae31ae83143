/**
 * Blogger's own feed paths beside `/v3`: `GET {prefix}/feeds/{blogId}/posts/default` (Atom),
 * `?alt=rss` (RSS 2.0), `…/posts/default/-/{label}`, `max-results=`. Feeds are public: they are read as an
 * anonymous reader whoever asks, and carry an ETag (`If-None-Match` gets 304).
 */
import { BlogError } from '../util/errors.js';
import { shortHash } from '../util/ids.js';
import { atomFeed, rssFeed, type FeedSource } from '../web/feeds.js';
import type { Outgoing } from '../web/dispatch.js';
import { etagMatches } from '../web/conditional.js';
import { onlyGetOrHead } from '../web/methods.js';

const TYPES = { atom: 'application/atom+xml; charset=UTF-8', rss: 'application/rss+xml; charset=UTF-8' } as const;

/** Where the feeds live for a handler's basePath: `/v3` → `/feeds`, `/api/v3` → `/api/feeds`. */
export const feedsBase = (basePath: string) => `${basePath.replace(/\/v3$/, '')}/feeds`;

/** Answers a request under the feeds base; `parts` are the decoded path segments after it. */
export async function serveFeed(
  reader: unknown,
  method: string,
  parts: readonly string[],
  query: string,
  ifNoneMatch: string | null,
  corsHeaders: Record<string, string> | undefined,
  /** The URL the client asked for: the feed's `rel="self"`. */
  selfUrl: string,
): Promise<Outgoing> {
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
  const etag = `"${shortHash(text)}${text.length.toString(36)}"`;
  const headers = { 'cache-control': 'public, max-age=0, must-revalidate', etag, ...corsHeaders };
  if (etagMatches(ifNoneMatch, etag)) return { status: 304, headers, text: null };
  return {
    status: 200,
    headers: { ...headers, 'content-type': TYPES[alt], 'x-content-type-options': 'nosniff' },
    text: method === 'HEAD' ? null : text,
  };
}
