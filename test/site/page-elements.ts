/** What the site's picture tests read of a page (parse5) and how they serve the site and API over node:http. */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { DefaultTreeAdapterMap } from 'parse5';
import type { Browser } from 'playwright-core';
import { memoryDriver } from '../../drivers/memory/index.js';
import { createBlogService, type BlogService } from '../../src/index.js';
import { createHttpHandler, toNodeHandler } from '../../src/http/index.js';
import { createSite } from '../../src/site/index.js';

export type Element = DefaultTreeAdapterMap['element'];

/** Every element under `node`, in document order. */
export const walk = (node: DefaultTreeAdapterMap['parentNode'], out: Element[] = []): Element[] => {
  for (const child of node.childNodes)
    if ('tagName' in child) {
      out.push(child);
      walk(child, out);
    }
  return out;
};

export const attrs = (e: Element) => Object.fromEntries(e.attrs.map((a) => [a.name, a.value]));

/** The site and the API of `service` on 127.0.0.1 (a free port); its origin. */
export async function serveSite(service: BlogService): Promise<{ server: Server; origin: string }> {
  const api = createHttpHandler(service);
  const site = createSite(service);
  const server = createServer(toNodeHandler(async (req) => (await site(req)) ?? api(req)));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

/** A blog named `name` of a new memory store, its site and API served at `origin`. */
export async function servedBlog(name: string) {
  const service = createBlogService({ driver: memoryDriver() });
  const { server, origin } = await serveSite(service);
  await service.users.insert({ body: { id: 'ada', displayName: 'Ada' } });
  const blog = await service.blogs.insert({ body: { name, url: `${origin}/` }, ownerId: 'ada' });
  return { service, server, origin, blog };
}

/** Closes what a test opened: the browser, then the server with its connections. */
export async function closeAll(opened: { browser?: Browser | undefined; server?: Server | undefined }) {
  await opened.browser?.close();
  opened.server?.closeAllConnections();
  await new Promise((resolve) => opened.server?.close(resolve));
}
