/**
 * Atom 1.0 and RSS 2.0 feeds of a blog's LIVE posts, newest first (all posts, or one label). A feed is one
 * page of `posts.list` at the READER view, so it shows exactly what the public sees and its cost is that
 * page's. No Node built-ins: the HTTP helper and the reading site serve these; blogcore/io exports them.
 */
import { BlogError } from '../util/errors.js';
import { LIMITS } from '../schema/schemas.js';
import type { Blog, Post, PostList } from '../schema/resources.js';
import { esc, rfc822 } from '../util/xml.js';
import { internalsOf } from '../service/internals.js';
import { featuredSrc } from '../rules/media-refs.js';
import { featuredPicture, mediaPathOf, pictureFacts, type SizedPicture } from './pictures.js';

export interface FeedOptions {
  blogId: string;
  /** Only posts with this label. */
  label?: string;
  /** Newest first; default 25, at most 500. */
  maxResults?: number;
  /**
   * The feed's own address, for its `rel="self"` link (feed readers and validators want it). The HTTP helper
   * passes the URL it was asked for. Default: the feed's path beside the service's `apiBaseUrl` when that is an
   * absolute URL (`https://blog.example.com/feeds/{blogId}/posts/default`), else no self link.
   */
  selfUrl?: string;
}

/** The slice of a BlogService a feed reads (any service: the host, a scoped user, an anonymous reader). */
export interface FeedSource {
  blogs: { get(p: { blogId: string; view: 'READER' }): Promise<Blog> };
  posts: {
    list(p: {
      blogId: string;
      view: 'READER';
      maxResults: number;
      labels?: string;
      fetchBodies: boolean;
    }): Promise<PostList>;
  };
}

async function read(service: FeedSource, options: FeedOptions) {
  if (!options || typeof options.blogId !== 'string') {
    throw new BlogError({
      code: 400,
      reason: 'required',
      message: 'Required: blogId',
      location: 'blogId',
      locationType: 'parameter',
    });
  }
  const maxResults = options.maxResults ?? 25;
  if (!Number.isInteger(maxResults) || maxResults < 1 || maxResults > LIMITS.maxResults) {
    throw new BlogError({
      code: 400,
      reason: 'invalid',
      message: `maxResults must be an integer from 1 to ${LIMITS.maxResults}`,
      location: 'maxResults',
      locationType: 'parameter',
    });
  }
  // A label with a comma would name two labels in posts.list: a feed is for exactly one.
  if (options.label !== undefined && (options.label.includes(',') || !options.label.trim())) {
    throw new BlogError({
      code: 400,
      reason: 'invalid',
      message: 'label must be one non-empty label without commas',
      location: 'label',
      locationType: 'parameter',
    });
  }
  const [blog, list] = await Promise.all([
    service.blogs.get({ blogId: options.blogId, view: 'READER' }),
    service.posts.list({
      blogId: options.blogId,
      view: 'READER',
      maxResults,
      ...(options.label !== undefined ? { labels: options.label } : {}),
      fetchBodies: true,
    }),
  ]);
  let updated = blog.updated;
  for (const p of list.items) if (p.updated > updated) updated = p.updated;
  const thumbnails = await thumbnailsOf(service, blog.id, list.items);
  return { blog, posts: list.items, thumbnails, updated, self: options.selfUrl ?? defaultSelf(blog, options) };
}

/** Media RSS thumbnails' widest, as Blogger's feeds carry a small picture of each post (docs/design.md §23). */
const THUMBNAIL_WIDTH = 640;

/**
 * Each post's featured picture at most THUMBNAIL_WIDTH wide, with its size, where it is one of the blog's
 * pictures (one read of their records for the whole feed). A source that is not a service made by
 * `createBlogService` gets none.
 */
async function thumbnailsOf(service: FeedSource, blogId: string, posts: readonly Post[]) {
  const out = new Map<string, SizedPicture>();
  const core = internalsOf(service)?.core;
  if (!core) return out;
  const sha = mediaPathOf(blogId);
  const shas = posts.map((p) => sha.exec(featuredSrc(p.content ?? '') ?? '')?.[1]).filter((s) => s !== undefined);
  const facts = await pictureFacts(core, blogId, [...new Set(shas)]);
  for (const p of posts) {
    const picture = await featuredPicture(undefined, blogId, p.content ?? '', postUrl(p), THUMBNAIL_WIDTH, facts);
    if (picture?.width) out.set(p.id, picture);
  }
  return out;
}

const MEDIA_RSS = 'http://search.yahoo.com/mrss/';
const thumbnail = (t: SizedPicture | undefined) =>
  t ? `<media:thumbnail url="${esc(t.url)}" width="${t.width}" height="${t.height}"/>\n` : '';

/** The feed's address beside the API (its Blogger path), when the service knows its absolute base. */
function defaultSelf(blog: Blog, options: FeedOptions): string | undefined {
  const at = blog.selfLink.lastIndexOf('/v3/blogs/');
  if (!/^https?:\/\//.test(blog.selfLink) || at < 0) return undefined;
  const label = options.label !== undefined ? `/-/${encodeURIComponent(options.label)}` : '';
  return `${blog.selfLink.slice(0, at)}/feeds/${encodeURIComponent(blog.id)}/posts/default${label}`;
}

const selfLink = (self: string | undefined, type: string, tag = 'link') =>
  self ? `<${tag} rel="self" type="${type}" href="${esc(self)}"/>\n` : '';

const postUrl = (p: Post) => p.url ?? p.selfLink;

/** The blog's LIVE posts as an Atom 1.0 feed. */
export async function atomFeed(service: FeedSource, options: FeedOptions): Promise<string> {
  const { blog, posts, thumbnails, updated, self } = await read(service, options);
  const entries = posts.map(
    (p) => `<entry>
<id>urn:blogcore:post:${esc(p.id)}</id>
<title type="text">${esc(p.title)}</title>
<published>${p.published ?? p.updated}</published>
<updated>${p.updated}</updated>
<link rel="alternate" type="text/html" href="${esc(postUrl(p))}"/>
<author><name>${esc(p.author.displayName)}</name>${p.author.url ? `<uri>${esc(p.author.url)}</uri>` : ''}</author>
${(p.labels ?? []).map((l) => `<category term="${esc(l)}"/>\n`).join('')}${thumbnail(thumbnails.get(p.id))}<content type="html">${esc(p.content ?? '')}</content>
</entry>
`,
  );
  return `<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom" xmlns:media="${MEDIA_RSS}">
<id>urn:blogcore:blog:${esc(blog.id)}${options.label ? `:label:${esc(encodeURIComponent(options.label))}` : ''}</id>
<title type="text">${esc(blog.name)}${options.label ? ` — ${esc(options.label)}` : ''}</title>
${blog.description ? `<subtitle type="text">${esc(blog.description)}</subtitle>\n` : ''}<updated>${updated}</updated>
<link rel="alternate" type="text/html" href="${esc(blog.url)}"/>
${selfLink(self, 'application/atom+xml')}<generator>blogcore</generator>
${entries.join('')}</feed>
`;
}

/** The blog's LIVE posts as an RSS 2.0 feed. */
export async function rssFeed(service: FeedSource, options: FeedOptions): Promise<string> {
  const { blog, posts, thumbnails, updated, self } = await read(service, options);
  const rssSelf = self && options.selfUrl === undefined ? `${self}?alt=rss` : self;
  const items = posts.map(
    (p) => `<item>
<title>${esc(p.title)}</title>
<link>${esc(postUrl(p))}</link>
<guid isPermaLink="${p.url ? 'true' : 'false'}">${esc(postUrl(p))}</guid>
<pubDate>${rfc822(p.published ?? p.updated)}</pubDate>
<dc:creator>${esc(p.author.displayName)}</dc:creator>
${(p.labels ?? []).map((l) => `<category>${esc(l)}</category>\n`).join('')}${thumbnail(thumbnails.get(p.id))}<description>${esc(p.content ?? '')}</description>
</item>
`,
  );
  return `<?xml version="1.0" encoding="utf-8"?>
<rss version="2.0" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:atom="http://www.w3.org/2005/Atom" xmlns:media="${MEDIA_RSS}">
<channel>
<title>${esc(blog.name)}${options.label ? ` — ${esc(options.label)}` : ''}</title>
<link>${esc(blog.url)}</link>
${selfLink(rssSelf, 'application/rss+xml', 'atom:link')}
<description>${esc(blog.description || blog.name)}</description>
<lastBuildDate>${rfc822(updated)}</lastBuildDate>
<generator>blogcore</generator>
${items.join('')}</channel>
</rss>
`;
}
