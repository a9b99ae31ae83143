/**
 * `blogcore serve`: the /v3 API on a store (creating a demo blog and an admin token on the first run), with
 * the server limits a public endpoint needs and one log line per request.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { isAbsolute, relative } from 'node:path';
import { performance } from 'node:perf_hooks';
import { type BlogService, createBlogService } from 'blogcore';
import { createHttpHandler, toNodeHandler } from 'blogcore/http';
import { createSite } from 'blogcore/site';
import { seedDemo } from './demo.js';
import { bearerAuth, type CliSettings, newToken, readSettings, sha256, writeSettings } from './settings.js';
import { describeSqliteError, openDriver, shownDb } from './store.js';

/**
 * The server's limits. Headers must arrive within 10 s and a whole request (1 MiB body at most) within 30 s,
 * so a slow client cannot hold a connection for Node's default 300 s; idle keep-alive connections close after
 * 5 s; at most 1000 connections at once (more are refused, not queued).
 */
export const SERVER_LIMITS = {
  headersTimeout: 10_000,
  // The whole request, body included: a picture of maxMediaBytes (20 MiB) needs about 1.5 Mbit/s to make it.
  requestTimeout: 120_000,
  keepAliveTimeout: 5_000,
  maxConnections: 1000,
} as const;

export interface ServeOptions {
  db: string;
  port: number;
  host: string;
  apiBaseUrl?: string;
  quiet: boolean;
  maxConnections: number;
  /** Origins whose pages may call the API (CORS); `*` for any. Empty: none. */
  cors?: readonly string[];
  /** Serve the blog's reading site at `/` (blogcore/site), beside the API. */
  site?: boolean;
  version: string;
}

/** Opens the store, creating the demo content on first use. Returns the token when it was just created. */
async function setUp(db: string, apiBaseUrl: string) {
  const driver = await openDriver(db, { create: true });
  const service = createBlogService({ driver, apiBaseUrl });
  await service.ready().catch(async (error: unknown) => {
    await service.close().catch(() => undefined);
    throw describeSqliteError(db, error);
  });
  const { version, settings: stored } = await readSettings(driver);
  let settings: CliSettings | undefined = stored;
  let token: string | undefined;
  if (!settings) {
    const seeded = await seedDemo(service);
    token = newToken();
    settings = { ...seeded, tokenHash: sha256(token) };
    await writeSettings(driver, version, settings);
  }
  return { driver, service, settings, token };
}

/** How to run this command again, as the user started it (`node dist/cli.js` in a checkout, else `blogcore`). */
function selfCommand(): string {
  const script = process.argv[1] ?? '';
  if (/[\\/]dist[\\/]cli\.js$/.test(script)) {
    const rel = relative(process.cwd(), script);
    if (!rel.startsWith('..') && !isAbsolute(rel)) return `node ${rel}`;
  }
  return 'blogcore';
}

/** `GET /` and `GET /v3/`: what this server is and where to start, so the printed API root answers. */
function rootDocument(api: string, blogId: string, version: string) {
  const blog = `${api}/blogs/${blogId}`;
  return {
    kind: 'blogcore#api',
    name: 'blogcore',
    version,
    basePath: '/v3',
    blog: { id: blogId, selfLink: blog },
    links: { posts: `${blog}/posts`, pages: `${blog}/pages`, comments: `${blog}/comments`, search: `${blog}/posts/search?q=blogcore` },
  };
}

/** Logs `METHOD /path STATUS 1.2 ms` when the response is done (the query is left out: it may carry a token). */
function logRequest(req: IncomingMessage, res: ServerResponse): void {
  const started = performance.now();
  res.once('close', () => {
    const path = (req.url ?? '').split('?')[0];
    const ms = (performance.now() - started).toFixed(1);
    console.log(`${req.method} ${path} ${res.writableFinished ? res.statusCode : 'aborted'} ${ms} ms`);
  });
}

export async function serve(opts: ServeOptions): Promise<void> {
  let ready: ((req: IncomingMessage, res: ServerResponse) => void) | undefined;
  const pending: Array<() => void> = [];
  // Checks the timeouts every second (Node's default is every 30 s).
  const server = createServer({ connectionsCheckingInterval: 1000 }, (req, res) => {
    if (!opts.quiet) logRequest(req, res);
    if (ready) ready(req, res);
    else pending.push(() => ready!(req, res));
  });
  server.headersTimeout = SERVER_LIMITS.headersTimeout;
  server.requestTimeout = SERVER_LIMITS.requestTimeout;
  server.keepAliveTimeout = SERVER_LIMITS.keepAliveTimeout;
  server.maxConnections = opts.maxConnections;

  await new Promise<void>((resolveListen, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(error.code === 'EADDRINUSE' ? new Error(`${opts.host}:${opts.port} is in use (choose another --port)`) : error),
    );
    server.listen(opts.port, opts.host, () => resolveListen());
  });
  const { port } = server.address() as AddressInfo;
  const hostInUrl = opts.host.includes(':') ? `[${opts.host}]` : opts.host === '0.0.0.0' ? '127.0.0.1' : opts.host;
  const origin = `http://${hostInUrl}:${port}`;
  let setup: Awaited<ReturnType<typeof setUp>>;
  try {
    setup = await setUp(opts.db, opts.apiBaseUrl ?? origin);
  } catch (error) {
    server.close();
    throw error;
  }
  const { driver, service, settings, token } = setup;

  const api = `${opts.apiBaseUrl ?? origin}/v3`;
  const root = JSON.stringify(rootDocument(api, settings.blogId, opts.version), null, 2);
  const handle = toNodeHandler(
    createHttpHandler(service, {
      authenticate: bearerAuth(driver),
      ...(opts.cors?.length ? { cors: { origin: opts.cors.includes('*') ? '*' : opts.cors } } : {}),
      onError: (error) => console.error('blogcore: unexpected error:', error),
    }),
  );
  // The site answers its own pages (whatever the Host: the store's blog); everything else, and the API's /v3
  // and /media, goes to the API.
  const site = opts.site
    ? toNodeHandler(createSite(service, { blogId: settings.blogId, onError: (error) => console.error('blogcore: unexpected error:', error) }))
    : undefined;
  ready = (req, res) => {
    const path = (req.url ?? '').split('?')[0]!;
    if (site && !path.startsWith('/v3') && !path.startsWith('/media/')) {
      void site(req, res, () => void handle(req, res));
      return;
    }
    if ((req.method === 'GET' || req.method === 'HEAD') && (path === '/' || path === '/v3' || path === '/v3/')) {
      res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(root) });
      res.end(req.method === 'HEAD' ? undefined : root);
      return;
    }
    void handle(req, res);
  };
  for (const run of pending.splice(0)) run();

  printBanner(opts, `${origin}/v3`, settings.blogId, token, opts.site ? `${origin}/` : undefined);
  stopOnSignals(server, service);
}

function printBanner(opts: ServeOptions, api: string, blogId: string, token: string | undefined, site: string | undefined): void {
  const posts = `${api}/blogs/${blogId}/posts`;
  const shownToken = token ?? '$TOKEN';
  const lines = [
    `blogcore ${opts.version} is serving ${shownDb(opts.db)}`,
    ...(site ? [`  Site: ${site}`] : []),
    `  API:  ${api}/`,
    `  Blog: ${api}/blogs/${blogId}`,
    '',
  ];
  if (token) {
    lines.push(
      'First run: created a demo user, a blog, posts (live, draft, scheduled), pages and comments (one pending).',
      '',
      'Admin bearer token (shown only now; the database keeps just its SHA-256 hash):',
      `  ${token}`,
      '',
    );
  } else {
    lines.push('The admin token was printed on the first run. To replace it (the old one stops working):', `  ${selfCommand()} token --db ${opts.db}`, '');
  }
  lines.push(
    'Try:',
    `  curl ${posts}`,
    `  curl -H "Authorization: Bearer ${shownToken}" "${posts}?status=draft,scheduled&fields=items(id,title,status)"`,
    `  curl -X POST -H "Authorization: Bearer ${shownToken}" -H "Content-Type: application/json" \\`,
    `       -d '{"title":"Hello","content":"<p>Hi!</p>"}' ${posts}`,
    '',
    opts.quiet ? 'Ctrl+C stops the server.' : 'Each request is logged as: method path status time (--quiet turns this off). Ctrl+C stops the server.',
  );
  console.log(lines.join('\n'));
}

function stopOnSignals(server: ReturnType<typeof createServer>, service: BlogService): void {
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) process.exit(1); // a second signal: do not wait any longer
    stopping = true;
    console.log(`\n${signal}: shutting down`);
    const closed = new Promise<void>((r) => server.close(() => r()));
    server.closeIdleConnections();
    setTimeout(() => server.closeAllConnections(), 2000).unref();
    await closed;
    await service.close();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGHUP', () => void stop('SIGHUP'));
}
