/**
 * Service resources → the data a theme is given (theme.ts): links made root-relative under the blog's own
 * path, dates kept as RFC 3339, text kept as text. One place, so the live site and the static export show
 * the same thing.
 */
import type { Author, Blog, Comment, Page, Post } from '../schema/resources.js';
import { moveMediaUrls } from '../rules/media-refs.js';
import { htmlToText } from '../rules/text.js';
import { raw } from './html.js';
import { listPath, monthOf, relative, searchPath } from './routes.js';
import type { CommentView, Link, PageView, Person, PostSummary, SiteBlog } from './theme.js';

/** The blog as a page of it needs it: the theme's blog data, where its paths start, and whether it is live. */
export interface BlogScope {
  blog: SiteBlog;
  /** The root-relative path of the blog's url (`/`, or `/notes/` for a blog at https://example.com/notes/). */
  base: string;
  /** Served live (search, comment form) or written as static files. */
  live: boolean;
  /** Where the site serves the blog's pictures (`{base}media/`), or null: their urls are left as stored. */
  media: string | null;
}

/** The blog's locale as a BCP 47 tag, `en` when it names none usable. */
function langOf(locale: Blog['locale'] | undefined): string {
  const tag = [locale?.language, locale?.country].filter(Boolean).join('-');
  return /^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$/.test(tag) ? tag : 'en';
}

export function scopeOf(
  blog: Pick<Blog, 'id' | 'name' | 'description' | 'url' | 'locale'>,
  live: boolean,
  pictures = live,
): BlogScope {
  const base = new URL(blog.url).pathname;
  return {
    base,
    live,
    media: pictures ? `${base}media/` : null,
    blog: {
      id: blog.id,
      name: blog.name,
      description: blog.description,
      url: blog.url,
      lang: langOf(blog.locale),
      home: base,
      search: live ? `${base}search` : null,
    },
  };
}

/** A root-relative link to a path relative to the blog url. */
export const href = (scope: BlogScope, rel: string) => scope.base + rel;

/** "November 2026" in the blog's language, kept per language and month (there are few of either). */
const monthNames = new Map<string, string>();
function monthName(iso: string, lang: string): string {
  const key = `${lang} ${iso.slice(0, 7)}`;
  let name = monthNames.get(key);
  if (name === undefined) {
    const options = { month: 'long', year: 'numeric', timeZone: 'UTC' } as const;
    let format: Intl.DateTimeFormat;
    try {
      format = new Intl.DateTimeFormat(lang, options);
    } catch {
      format = new Intl.DateTimeFormat('en', options);
    }
    name = format.format(new Date(iso));
    if (monthNames.size >= 10_000) monthNames.clear();
    monthNames.set(key, name);
  }
  return name;
}

export const monthLink = (scope: BlogScope, iso: string): Link => ({
  path: href(scope, listPath(monthOf(iso))),
  text: monthName(iso, scope.blog.lang),
});

/** Up to about `max` characters of a post's text, cut at a word. */
export function excerptOf(content: string | undefined, max = 300): string {
  // The opening of the post is enough (a post may hold a megabyte: reading it all per page would not be bounded).
  const text = htmlToText((content ?? '').slice(0, 50 * max))
    .replace(/\s+/g, ' ')
    .trim();
  if (text.length <= max) return text;
  const cut = text.slice(0, max);
  const space = cut.lastIndexOf(' ');
  return `${(space > max * 0.6 ? cut.slice(0, space) : cut).replace(/[\s,.;:!?-]+$/, '')}…`;
}

const person = (a: Author): Person => ({ name: a.displayName || 'Anonymous', url: a.url || null });

/** The path of a post or page from its url (the service builds urls from the blog's current url). */
export const pathOf = (scope: BlogScope, url: string | undefined): string => (url ? new URL(url).pathname : scope.base);

export function summaryOf(scope: BlogScope, p: Post): PostSummary {
  const published = p.published ?? p.updated;
  return {
    id: p.id,
    title: p.title,
    path: pathOf(scope, p.url),
    url: p.url ?? scope.blog.url,
    published,
    updated: p.updated,
    author: person(p.author),
    labels: (p.labels ?? []).map((label) => ({ path: href(scope, listPath({ kind: 'label', label })), text: label })),
    excerpt: excerptOf(p.content),
    month: monthLink(scope, published),
  };
}

export function pageViewOf(scope: BlogScope, p: Page): PageView {
  return {
    id: p.id,
    title: p.title,
    path: pathOf(scope, p.url),
    url: p.url ?? scope.blog.url,
    published: p.published ?? p.updated,
    updated: p.updated,
    author: person(p.author),
    content: raw(contentOf(scope, p.content)),
  };
}

/** A post's or page's content as the site shows it: the blog's pictures at the site's own address. */
export const contentOf = (scope: BlogScope, content: string | undefined) =>
  scope.media === null ? (content ?? '') : moveMediaUrls(scope.blog.id, content ?? '', scope.media);

export function commentViewOf(c: Comment): CommentView {
  return {
    id: c.id,
    author: person(c.author),
    published: c.published,
    content: raw(c.content ?? ''),
    removed: !c.content,
    inReplyTo: c.inReplyTo?.id ?? null,
  };
}

/** The post path relative to the blog url, for route building. */
export const relOf = (scope: BlogScope, path: string) =>
  relative(path.startsWith(scope.base) ? path.slice(scope.base.length) : path);

export const searchLink = (scope: BlogScope, q: string, token?: string) => href(scope, searchPath(q, token));
