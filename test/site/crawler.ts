/**
 * A crawler for the tests: from a start url, it parses each HTML answer with parse5 (the WHATWG parser) and
 * follows every `a[href]`, `link[href]` and GET `form[action]` on the same origin, once each. It records every
 * url's status and type, and who linked to it.
 */
import { parse } from 'parse5';

export interface Fetched {
  status: number;
  type: string;
  body: string;
}

export interface Crawl {
  /** Every url reached (no fragment), with what it answered. */
  pages: Map<string, Fetched>;
  /** The page that first linked to each url. */
  from: Map<string, string>;
}

interface Node {
  nodeName: string;
  attrs?: Array<{ name: string; value: string }>;
  childNodes?: Node[];
  content?: Node;
}

/** The urls an HTML document links to, resolved against its own url. */
export function linksOf(html: string, base: string): string[] {
  const out: string[] = [];
  const visit = (node: Node) => {
    const attr = (name: string) => node.attrs?.find((a) => a.name === name)?.value;
    if ((node.nodeName === 'a' || node.nodeName === 'link') && attr('href') !== undefined) out.push(attr('href')!);
    if (node.nodeName === 'form' && (attr('method') ?? 'get').toLowerCase() === 'get' && attr('action') !== undefined)
      out.push(attr('action')!);
    for (const child of node.childNodes ?? []) visit(child);
    if (node.content) visit(node.content);
  };
  visit(parse(html) as unknown as Node);
  return out.flatMap((href) => {
    try {
      const u = new URL(href, base);
      u.hash = '';
      return [u.href];
    } catch {
      return [];
    }
  });
}

export async function crawl(start: string, fetchUrl: (url: string) => Promise<Fetched>, limit = 2000): Promise<Crawl> {
  const origin = new URL(start).origin;
  const pages = new Map<string, Fetched>();
  const from = new Map<string, string>();
  const queue = [start];
  from.set(start, '(start)');
  while (queue.length) {
    const url = queue.shift()!;
    if (pages.has(url)) continue;
    if (pages.size >= limit) throw new Error(`more than ${limit} pages reached from ${start}`);
    const page = await fetchUrl(url);
    pages.set(url, page);
    if (!page.type.startsWith('text/html')) continue;
    for (const link of linksOf(page.body, url)) {
      if (new URL(link).origin !== origin || from.has(link)) continue;
      from.set(link, url);
      queue.push(link);
    }
  }
  return { pages, from };
}

/** Over HTTP. */
export const httpFetch = async (url: string): Promise<Fetched> => {
  const r = await fetch(url, { redirect: 'manual' });
  return { status: r.status, type: r.headers.get('content-type') ?? '', body: await r.text() };
};
