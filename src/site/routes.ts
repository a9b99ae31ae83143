/**
 * The reading site's addresses, in one place: what each kind of page is called (relative to the blog's own
 * url), how a request path is read back, and which static file holds each page. Posts and pages keep the
 * paths their `url`s already name (`2026/11/hello.html`, `p/about.html`); lists are paged by the service's
 * keyset tokens, placed in the path so a static export can hold every page as a file.
 */

import { segmentProblem } from '../rules/paths.js';

/** A list of posts: the blog's newest, one label's, or one month's. */
export type ListRef =
  | { kind: 'home' }
  | { kind: 'label'; label: string }
  | { kind: 'month'; year: number; month: number };

export type Route =
  | { kind: 'list'; list: ListRef; token?: string }
  | { kind: 'post'; path: string }
  | { kind: 'page'; path: string }
  | { kind: 'comments'; path: string; token: string }
  | { kind: 'search'; q: string; token?: string }
  | { kind: 'sitemap'; part?: string }
  | { kind: 'robots' }
  | { kind: 'feed'; label?: string; rss: boolean };

const enc = encodeURIComponent;
const two = (n: number) => String(n).padStart(2, '0');

/** The path of a list page, relative to the blog's url: its first page, or the page a token starts. */
export function listPath(list: ListRef, token?: string): string {
  const more = token === undefined ? '' : `page/${token}`;
  if (list.kind === 'home') return more;
  if (list.kind === 'month') return `${list.year}/${two(list.month)}/${more}`;
  return `search/label/${enc(list.label)}${more && `/${more}`}`;
}

/** A post's path (`/2026/11/hello.html`, as stored) relative to the blog url, and the page of its comments after a token. */
export const relative = (path: string) => path.replace(/^\/+/, '');
export const commentsPath = (path: string, token: string) =>
  `${relative(path).replace(/\.html$/, '')}/comments/${token}`;

export const searchPath = (q: string, token?: string) => `search?q=${enc(q)}${token ? `&page=${enc(token)}` : ''}`;

/** The month a time falls in (UTC, as post paths are). */
export const monthOf = (iso: string): ListRef & { kind: 'month' } => ({
  kind: 'month',
  year: Number(iso.slice(0, 4)),
  month: Number(iso.slice(5, 7)),
});

/** A month's first instant and the next month's, as RFC 3339 times. */
export function monthRange(year: number, month: number): { start: string; end: string } {
  return {
    start: new Date(Date.UTC(year, month - 1, 1)).toISOString(),
    end: new Date(Date.UTC(year, month, 1)).toISOString(),
  };
}

/** Where the feeds are: Blogger's own paths when served live; plain files in a static export. */
export function feedPaths(live: boolean, label?: string): { atom: string; rss: string } {
  if (!live) return { atom: 'feeds/posts/default.xml', rss: 'feeds/posts/rss.xml' };
  const atom = `feeds/posts/default${label === undefined ? '' : `/-/${enc(label)}`}`;
  return { atom, rss: `${atom}?alt=rss` };
}

const TOKEN = /^[A-Za-z0-9_-]{1,512}$/;

function decode(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

/**
 * The route of a path relative to the blog url (no leading slash, still percent-encoded) and its query;
 * undefined when no page of the site has that shape.
 */
export function parseRoute(rel: string, query: URLSearchParams): Route | undefined {
  if (rel === '') return { kind: 'list', list: { kind: 'home' } };
  if (rel === 'robots.txt') return { kind: 'robots' };
  if (rel === 'sitemap.xml') return { kind: 'sitemap' };
  const part = /^sitemap-([a-z0-9-]{1,40})\.xml$/.exec(rel);
  if (part) return { kind: 'sitemap', part: part[1]! };
  const s = rel.split('/');
  if (s[0] === 'page' && s.length === 2 && TOKEN.test(s[1]!))
    return { kind: 'list', list: { kind: 'home' }, token: s[1]! };
  if (s[0] === 'p' && s.length === 2 && s[1]!.endsWith('.html')) return { kind: 'page', path: `/${rel}` };
  if (s[0] === 'search') {
    if (s.length === 1) {
      const token = query.get('page') ?? undefined;
      if (token !== undefined && !TOKEN.test(token)) return undefined;
      return { kind: 'search', q: query.get('q') ?? '', ...(token ? { token } : {}) };
    }
    if (s[1] !== 'label' || !s[2]) return undefined;
    const label = decode(s[2]);
    if (label === undefined) return undefined;
    const list: ListRef = { kind: 'label', label };
    if (s.length === 3) return { kind: 'list', list };
    if (s.length === 5 && s[3] === 'page' && TOKEN.test(s[4]!)) return { kind: 'list', list, token: s[4]! };
    return undefined;
  }
  if (s[0] === 'feeds' && s[1] === 'posts' && s[2] === 'default') {
    const rss = query.get('alt') === 'rss';
    if (s.length === 3) return { kind: 'feed', rss };
    const label = s.length === 5 && s[3] === '-' && s[4] ? decode(s[4]) : undefined;
    return label === undefined ? undefined : { kind: 'feed', label, rss };
  }
  if (/^\d{4}$/.test(s[0]!) && /^(0[1-9]|1[0-2])$/.test(s[1] ?? '')) {
    const list: ListRef = { kind: 'month', year: Number(s[0]), month: Number(s[1]) };
    if (s.length === 3 && s[2] === '') return { kind: 'list', list };
    if (s.length === 4 && s[2] === 'page' && TOKEN.test(s[3]!)) return { kind: 'list', list, token: s[3]! };
    if (s.length === 3 && s[2]!.endsWith('.html')) return { kind: 'post', path: `/${rel}` };
    if (s.length === 5 && s[3] === 'comments' && TOKEN.test(s[4]!))
      return { kind: 'comments', path: `/${s[0]}/${s[1]}/${s[2]}.html`, token: s[4]! };
  }
  return undefined;
}

/**
 * The file a static export keeps a page in: the path as a static server decodes it, with `.html` added to
 * extensionless pages and `index.html` to folders (servers with clean urls answer `/search/label/x` from
 * `search/label/x.html`); else why no file below the export's folder can hold it. Each segment is decoded on
 * its own and must stay one name: `..%2f` or `%5c` never become a step out of the folder.
 */
export function toFile(rel: string): string | { reason: string } {
  const path =
    rel === '' || rel.endsWith('/') ? `${rel}index.html` : /\.(html|xml|txt)$/.test(rel) ? rel : `${rel}.html`;
  const names: string[] = [];
  for (const segment of path.split('/')) {
    const name = decode(segment);
    const problem = name === undefined ? 'a path segment is not valid percent-encoding' : segmentProblem(name);
    if (problem) return { reason: problem };
    names.push(name!);
  }
  const file = names.join('/');
  const outside = outsideProblem(file);
  return outside ? { reason: outside } : file;
}

/** `toFile` without the reason: undefined for a path no file can hold. */
export function fileOf(rel: string): string | undefined {
  const file = toFile(rel);
  return typeof file === 'string' ? file : undefined;
}

/**
 * The last check before a path reaches the writer, whoever made it (a page, a picture, a manifest read back):
 * split into steps at `/` and `\` as POSIX or Windows would, no step is empty, `.` or `..`, and it names no
 * drive, so resolved below any folder it stays below it. Undefined when the path is safe to hand out.
 */
export function outsideProblem(file: string): string | undefined {
  if (file.includes('\0')) return 'the path holds a NUL character';
  if (/^[a-z]:/i.test(file)) return 'the path names a drive';
  const steps = file.split(/[/\\]/);
  if (steps.some((s) => s === '' || s === '.' || s === '..')) return 'the path leaves the export folder';
  return undefined;
}
