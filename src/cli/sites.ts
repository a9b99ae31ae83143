/**
 * The reading site as `blogcore serve --site` serves it (docs/design.md §22): every blog of the store by the request's
 * Host and path; on this machine (a Host no blog has) the store's only blog at its path, or an index page
 * linking each blog's local address `http://<its host>.localhost:<port><its path>` (browsers and curl send
 * `*.localhost` to this machine, and the site reads the host before `.localhost`). `--blog` limits it to one.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Blog, BlogService } from 'blogcore';
import type { StorageDriver } from 'blogcore';
import { toNodeHandler } from 'blogcore/http';
import { createSite } from 'blogcore/site';
import { CliError } from './errors.js';

/** Blogs named in the banner and on the index page; a store with more says how many more. */
const LISTED = 50;

export interface ServedBlog {
  id: string;
  name: string;
  url: string;
  /** Where this machine serves it. */
  local: string;
}

type Next = () => void;
type Handler = (req: IncomingMessage, res: ServerResponse, next: Next) => void;

/** The store's blogs, first by url, up to `max` (a blog's old urls are entries of the same index). */
async function storeBlogs(driver: StorageDriver, service: BlogService, max: number): Promise<Blog[]> {
  const entries = await driver.list({
    collection: 'blogs',
    index: 'url',
    prefix: [],
    direction: 'asc',
    limit: max * 4,
  });
  const ids = [...new Set(entries.map((e) => e.id))].slice(0, max);
  const blogs = await Promise.all(ids.map((blogId) => service.blogs.get({ blogId }).catch(() => undefined)));
  return blogs.filter((b): b is Blog => b !== undefined);
}

/** The blog `--blog` names, by id or url; a usage problem when the store has no such blog. */
async function namedBlog(service: BlogService, named: string): Promise<Blog> {
  const found = /^https?:\/\//i.test(named)
    ? await service.blogs.getByUrl({ url: named }).catch(() => undefined)
    : await service.blogs.get({ blogId: named }).catch(() => undefined);
  if (!found) throw new CliError(`--blog: this store has no blog ${named} (blogcore users list names each blog)`);
  return found;
}

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

function indexPage(blogs: readonly ServedBlog[]): string {
  const items = blogs
    .map(
      (b) =>
        `<li><a href="${escapeHtml(b.local)}">${escapeHtml(b.name || b.url)}</a> <small>(${escapeHtml(b.url)})</small></li>`,
    )
    .join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex"><title>Blogs served here</title></head>
<body><main><h1>Blogs served here</h1>
<p>Each blog answers at its own address (its host and path); on this machine, at these:</p>
<ul>
${items}
</ul><p>The API is at <a href="/v3/">/v3/</a>.</p></main></body></html>`;
}

/**
 * The site's handler for `serve`, and the blogs it serves with their local addresses (for the banner). What it
 * does not answer (the API's paths, a path no blog has) goes to `next`.
 */
export async function siteOfStore(
  driver: StorageDriver,
  service: BlogService,
  options: {
    origin: string;
    blog?: string;
    trustProxy?: number | readonly string[];
    onError: (error: unknown) => void;
  },
): Promise<{ handler: Handler; blogs: ServedBlog[]; more: boolean }> {
  const limited = options.blog === undefined ? undefined : await namedBlog(service, options.blog);
  const found = limited ? [limited] : await storeBlogs(driver, service, LISTED + 1);
  const origin = new URL(options.origin);
  const one = found.length === 1;
  const blogs = found.slice(0, LISTED).map((b) => {
    const url = new URL(b.url);
    const local = one
      ? `${options.origin}${url.pathname}`
      : `http://${url.hostname}.localhost:${origin.port}${url.pathname}`;
    return { id: b.id, name: b.name, url: b.url, local };
  });
  // Behind proxies, the comment limits count the client their X-Forwarded-For names (docs/comments.md).
  const common = {
    onError: options.onError,
    ...(options.trustProxy !== undefined ? { trustProxy: options.trustProxy } : {}),
  };
  const only = one ? toNodeHandler(createSite(service, { blogId: found[0]!.id, ...common })) : undefined;
  const byHost = limited ? undefined : toNodeHandler(createSite(service, common));
  const index = indexPage(blogs);

  const here: Handler = (req, res, next) => {
    const path = (req.url ?? '').split('?')[0]!;
    const read = req.method === 'GET' || req.method === 'HEAD';
    if (read && path === '/favicon.ico') {
      res.writeHead(204, { 'cache-control': 'public, max-age=86400' }).end();
      return;
    }
    if (read && path === '/' && blogs.length) {
      // The only blog lives under a path: that is where its site is. Several: a page naming each.
      if (only) res.writeHead(302, { location: new URL(blogs[0]!.url).pathname, 'cache-control': 'no-store' }).end();
      else {
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
        res.end(req.method === 'HEAD' ? undefined : index);
      }
      return;
    }
    next();
  };
  const handler: Handler = (req, res, next) => {
    const local = () => (only ? void only(req, res, () => here(req, res, next)) : here(req, res, next));
    if (byHost) void byHost(req, res, local);
    else local();
  };
  return { handler, blogs, more: found.length > LISTED };
}
