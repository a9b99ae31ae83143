/**
 * A static export's redirects (docs/design.md §22): the blog's stored redirects as an `_redirects` file in the
 * Netlify/Cloudflare Pages format (`from to 301` a line, `redirectLine`) and a small page at each old path with a canonical
 * link and a meta refresh, for hosts that read no `_redirects`. Both go through the export's one checked path
 * (`put`, then the last check before the writer), so an old address never names a file outside the folder.
 * An old address with a query (`/?p=12`), or outside the blog's path, has no file: the live site answers it.
 */
import { escapeHtml } from './html.js';
import type { SiteParts } from './render.js';
import { toFile } from './routes.js';
import type { BlogScope } from './views.js';

const CHUNK = 500;

/**
 * One `_redirects` line. An address with a query is written as Netlify matches one (`/ p=12 /to 301`: the
 * parameters as their own tokens); Cloudflare Pages matches no query and skips such a line (not 3 tokens), where
 * `/?p=12 /to 301` would have made it redirect the home page itself (docs/design.md §24).
 */
function redirectLine(from: string, to: string): string {
  const at = from.indexOf('?');
  if (at < 0) return `${from} ${to} 301`;
  const params = from
    .slice(at + 1)
    .split('&')
    .filter((p) => p !== '')
    .map((p) => (p.includes('=') ? p : `${p}=`));
  return `${from.slice(0, at)} ${params.join(' ')} ${to} 301`;
}

function movedPage(to: string): string {
  const at = escapeHtml(to);
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Moved</title><link rel="canonical" href="${at}">
<meta http-equiv="refresh" content="0; url=${at}"><meta name="robots" content="noindex"></head>
<body><p>This page moved to <a href="${at}">${at}</a>.</p></body></html>
`;
}

/**
 * Puts the redirect pages and `_redirects` (when the blog keeps any). `taken(file)`: a page of the blog already
 * holds that file, which wins over a redirect.
 */
export async function exportRedirects(
  parts: SiteParts,
  scope: BlogScope,
  put: (rel: string, text: string) => void,
  putFile: (file: string, text: string) => void,
  taken: (file: string) => boolean,
): Promise<void> {
  const home = new URL(scope.blog.url);
  const lines: string[] = [];
  for (let after: string | undefined; ; ) {
    const chunk = await parts.store.redirects(scope.blog.id, after, CHUNK);
    for (const { from, to } of chunk) {
      const url = new URL(to, home);
      const location = url.origin === home.origin ? url.pathname + url.search + url.hash : url.href;
      if (!/\s/.test(from + location)) lines.push(redirectLine(from, location));
      if (from.includes('?') || !from.startsWith(scope.base)) continue;
      const rel = from.slice(scope.base.length);
      const file = toFile(rel);
      if (typeof file === 'string' && taken(file)) continue;
      put(rel, movedPage(url.href));
    }
    if (chunk.length < CHUNK) break;
    after = chunk[chunk.length - 1]!.from;
  }
  if (lines.length) putFile('_redirects', `${lines.join('\n')}\n`);
}
