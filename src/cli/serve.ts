/**
 * `blogcore serve`: the /v3 API on a store (a demo blog and its admin's token on the first run on an empty
 * store), with the server limits a public endpoint needs and one log line per request.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { isAbsolute, relative } from 'node:path';
import { performance } from 'node:perf_hooks';
import { inspect } from 'node:util';
import { type BlogService, createBlogService } from 'blogcore';
import { createHttpHandler, toNodeHandler } from 'blogcore/http';
import { seedDemo } from './demo.js';
import { bearerAuth, mintToken, readSettings, writeSettings } from './settings.js';
import { describeSqliteError, openDriver, redactSecrets, shownDb } from './store.js';
import { type ServedBlog, siteOfStore } from './sites.js';
import { blogLabel, blogsAndAdmins, userLabel } from './users.js';

/**
 * The server's limits. Headers must arrive within 10 s and a whole request within 15 s (a picture upload within
 * 120 s), so a slow client cannot hold a connection for Node's default 300 s; idle keep-alive connections close
 * after 5 s; at most 1000 connections at once (more are refused, not queued).
 */
export const SERVER_LIMITS = {
  headersTimeout: 10_000,
  // A picture upload, body included: one of maxMediaBytes (20 MiB) needs about 1.5 Mbit/s to make it.
  requestTimeout: 120_000,
  // Every other request (a JSON body of 1 MiB at most, a comment form): a slow sender is cut off after this.
  bodyTimeout: 15_000,
  keepAliveTimeout: 5_000,
  maxConnections: 1000,
} as const;

export interface ServeOptions {
  db: string;
  /** Streaming replicas of a postgres:// `db` to read from. */
  replicas?: readonly string[];
  port: number;
  host: string;
  apiBaseUrl?: string;
  quiet: boolean;
  maxConnections: number;
  /** Origins whose pages may call the API (CORS); `*` for any. Empty: none. */
  cors?: readonly string[];
  /** Serve the reading site of the store's blogs (blogcore/site) beside the API. */
  site?: boolean;
  /** The proxies whose X-Forwarded-For names the client: a hop count, or their addresses and CIDRs. */
  trustProxy?: number | readonly string[];
  /** Serve the site of this blog only (an id or url), whatever the Host. */
  blog?: string;
  version: string;
}

/**
 * Opens the store. The first run on an empty store creates the demo content and a token for its admin; a store
 * that holds blogs (imported, or made by an app) is served as it is, never given a demo blog. Returns the blog the
 * API root points at, and the token when it was just made.
 */
async function setUp(db: string, apiBaseUrl: string, replicas: readonly string[]) {
  const driver = await openDriver(db, { create: true, replicas });
  const service = createBlogService({ driver, apiBaseUrl });
  await service.ready().catch(async (error: unknown) => {
    await service.close().catch(() => undefined);
    throw describeSqliteError(db, error);
  });
  const { version, settings } = await readSettings(driver);
  const [anyBlog] = await driver.list({ collection: 'blogs', index: 'url', prefix: [], direction: 'asc', limit: 1 });
  if (!settings && !anyBlog) {
    const demo = await seedDemo(service);
    const token = await mintToken(driver, demo.adminUserId);
    await writeSettings(driver, version, { setUp: new Date().toISOString(), ...demo });
    return { driver, service, blogId: demo.blogId as string | undefined, token: { token, ...demo } };
  }
  if (!settings) await writeSettings(driver, version, { setUp: new Date().toISOString() });
  return { driver, service, blogId: settings?.blogId ?? anyBlog?.id, token: undefined };
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

/** `GET /` and `GET /v3/`: what this server is and where to start (a blog of the store), so the printed API root answers. */
function rootDocument(api: string, blogId: string | undefined, version: string) {
  const blog = `${api}/blogs/${blogId}`;
  return {
    kind: 'blogcore#api',
    name: 'blogcore',
    version,
    basePath: '/v3',
    ...(blogId
      ? {
          blog: { id: blogId, selfLink: blog },
          links: {
            posts: `${blog}/posts`,
            pages: `${blog}/pages`,
            comments: `${blog}/comments`,
            search: `${blog}/posts/search?q=blogcore`,
          },
        }
      : {}),
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

const UPLOAD = /^\/v3\/blogs\/[^/]+\/media\/?(\?|$)/;
const TOO_SLOW =
  '{"error":{"code":408,"message":"The request took too long to arrive","status":"DEADLINE_EXCEEDED","errors":[{"domain":"global","reason":"requestTimeout","message":"The request took too long to arrive"}]}}';

/**
 * Node's `requestTimeout` is the upload's (120 s): every other request must have arrived whole within
 * `bodyTimeout`, so an anonymous POST trickled in a byte at a time holds its connection 15 s, not 120.
 */
function bodyDeadline(req: IncomingMessage, res: ServerResponse): void {
  if (req.method === 'POST' && UPLOAD.test(req.url ?? '')) return;
  const timer = setTimeout(() => {
    if (req.complete) return;
    if (!res.headersSent) {
      res.writeHead(408, { 'content-type': 'application/json; charset=UTF-8', connection: 'close' });
      res.end(TOO_SLOW);
    }
    req.destroy();
  }, SERVER_LIMITS.bodyTimeout);
  timer.unref();
  res.once('close', () => clearTimeout(timer));
}

/**
 * A server never dies of its own logging: when whatever reads its output goes away (`blogcore serve | head`, a
 * log shipper that dies), writes fail with EPIPE, which would be an unhandled 'error' event. Logging stops instead.
 */
function surviveLogReaders(): void {
  for (const stream of [process.stdout, process.stderr]) stream.on('error', () => stream.destroy());
}

export async function serve(opts: ServeOptions): Promise<void> {
  surviveLogReaders();
  // From the first moment: a signal during start-up lets it finish, then stops as cleanly as one sent later.
  const signals = stopSignals();
  let ready: ((req: IncomingMessage, res: ServerResponse) => void) | undefined;
  const pending: Array<() => void> = [];
  // Checks the timeouts every second (Node's default is every 30 s).
  const server = createServer({ connectionsCheckingInterval: 1000 }, (req, res) => {
    if (!opts.quiet) logRequest(req, res);
    bodyDeadline(req, res);
    if (ready) ready(req, res);
    else pending.push(() => ready!(req, res));
  });
  server.headersTimeout = SERVER_LIMITS.headersTimeout;
  server.requestTimeout = SERVER_LIMITS.requestTimeout;
  server.keepAliveTimeout = SERVER_LIMITS.keepAliveTimeout;
  server.maxConnections = opts.maxConnections;

  await new Promise<void>((resolveListen, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        error.code === 'EADDRINUSE' ? new Error(`${opts.host}:${opts.port} is in use (choose another --port)`) : error,
      ),
    );
    server.listen(opts.port, opts.host, () => resolveListen());
  });
  const { port } = server.address() as AddressInfo;
  const hostInUrl = opts.host.includes(':') ? `[${opts.host}]` : opts.host === '0.0.0.0' ? '127.0.0.1' : opts.host;
  const origin = `http://${hostInUrl}:${port}`;
  let setup: Awaited<ReturnType<typeof setUp>>;
  try {
    setup = await setUp(opts.db, opts.apiBaseUrl ?? origin, opts.replicas ?? []);
  } catch (error) {
    server.close();
    throw error;
  }
  const { driver, service, blogId } = setup;

  const api = `${opts.apiBaseUrl ?? origin}/v3`;
  const logError = (error: unknown) => console.error(redactSecrets(`blogcore: unexpected error: ${inspect(error)}`));
  const root = JSON.stringify(rootDocument(api, blogId, opts.version), null, 2);
  const handle = toNodeHandler(
    createHttpHandler(service, {
      authenticate: bearerAuth(driver),
      ...(opts.cors?.length ? { cors: { origin: opts.cors.includes('*') ? '*' : opts.cors } } : {}),
      ...(opts.trustProxy !== undefined ? { trustProxy: opts.trustProxy } : {}),
      onError: logError,
    }),
  );
  // The site answers its blogs' pages (src/cli/sites.ts); everything else, and the API's /v3 and /media, goes to
  // the API.
  let site: Awaited<ReturnType<typeof siteOfStore>> | undefined;
  try {
    site = opts.site
      ? await siteOfStore(driver, service, {
          origin,
          blog: opts.blog,
          ...(opts.trustProxy !== undefined ? { trustProxy: opts.trustProxy } : {}),
          onError: logError,
        })
      : undefined;
  } catch (error) {
    server.close();
    await service.close().catch(() => undefined);
    throw error;
  }
  ready = (req, res) => {
    const path = (req.url ?? '').split('?')[0]!;
    if (site && !path.startsWith('/v3') && !path.startsWith('/media/')) {
      site.handler(req, res, () => void handle(req, res));
      return;
    }
    if ((req.method === 'GET' || req.method === 'HEAD') && (path === '/' || path === '/v3' || path === '/v3/')) {
      res.writeHead(200, {
        'content-type': 'application/json; charset=utf-8',
        'content-length': Buffer.byteLength(root),
      });
      res.end(req.method === 'HEAD' ? undefined : root);
      return;
    }
    void handle(req, res);
  };
  for (const run of pending.splice(0)) run();

  if (!signals.received()) {
    printBanner(opts, `${origin}/v3`, setup, await whoAdministers(setup), site, await picturesLine());
  }
  await signals.stopped;
  process.exit(await shutdown(server, service));
}

/** Whether pictures get variants for readers (docs/design.md §23): sharp loads here, or why not and what readers get instead. */
async function picturesLine(): Promise<string> {
  const name = 'sharp'; // the optional dependency the library loads the same way (src/media/variants.ts)
  try {
    await import(name);
    return '  Pictures: resized for readers with sharp (/media/…/w{N}/…)';
  } catch (error) {
    const why = error instanceof Error ? error.message.split('\n', 1)[0] : String(error);
    return `  Pictures: sharp did not load (${why}): readers get originals; \`npm install sharp\` resizes them`;
  }
}

/** The token's user and blog on a first run; else up to three blogs of the store with their admins, and the first admin. */
async function whoAdministers({
  driver,
  service,
  token,
}: Awaited<ReturnType<typeof setUp>>): Promise<{ lines: string[]; first?: string }> {
  if (token)
    return {
      lines: [`${await userLabel(service, token.adminUserId)}, ADMIN of ${await blogLabel(service, token.blogId)}`],
    };
  const blogs = await blogsAndAdmins(driver, service, 3);
  const lines = await Promise.all(
    blogs.map(
      async (b) =>
        `${b.line}: admins ${(await Promise.all(b.admins.map((id) => userLabel(service, id)))).join(', ') || 'none'}`,
    ),
  );
  const first = blogs.find((b) => b.admins.length)?.admins[0];
  return { lines, ...(first ? { first } : {}) };
}

function printBanner(
  opts: ServeOptions,
  api: string,
  setup: Awaited<ReturnType<typeof setUp>>,
  admins: { lines: string[]; first?: string },
  site: { blogs: ServedBlog[]; more: boolean } | undefined,
  pictures: string,
): void {
  const { blogId, token } = setup;
  const lines = [
    `blogcore ${opts.version} is serving ${shownDb(opts.db)}`,
    ...(site ? siteLines(site.blogs, site.more) : []),
    `  API:  ${api}/`,
    ...(blogId ? [`  Blog: ${api}/blogs/${blogId}`] : []),
    pictures,
    '',
  ];
  if (token) {
    lines.push(
      'First run on an empty store: created a demo user, a blog, posts (live, draft, scheduled), pages and comments (one pending).',
      '',
      `Bearer token for ${admins.lines[0]} (shown only now; the database keeps just its SHA-256 hash):`,
      `  ${token.token}`,
      '',
    );
  } else {
    lines.push(
      ...(admins.lines.length
        ? ['Blogs in this store, and who administers them:', ...admins.lines.map((a) => `  ${a}`)]
        : ['This store holds no blog.']),
      '',
      "Tokens are shown only when they are made. A new one for a user (that user's previous token stops working):",
      `  ${selfCommand()} token --db ${shownDb(opts.db)} --user ${admins.first ?? '<id>'}`,
      `  (${selfCommand()} users list --db ${shownDb(opts.db)} lists every user with a role in a blog)`,
      '',
    );
  }
  if (blogId) {
    const posts = `${api}/blogs/${blogId}/posts`;
    const shownToken = token?.token ?? '$TOKEN';
    lines.push(
      'Try:',
      `  curl ${posts}`,
      `  curl -H "Authorization: Bearer ${shownToken}" "${posts}?status=draft,scheduled&fields=items(id,title,status)"`,
      `  curl -X POST -H "Authorization: Bearer ${shownToken}" -H "Content-Type: application/json" \\`,
      `       -d '{"title":"Hello","content":"<p>Hi!</p>"}' ${posts}`,
      '',
    );
  }
  lines.push(
    opts.quiet
      ? 'Ctrl+C stops the server.'
      : 'Each request is logged as: method path status time (--quiet turns this off). Ctrl+C stops the server.',
  );
  console.log(lines.join('\n'));
}

/** Where each blog's site is on this machine (path included), and the address it has for its readers. */
function siteLines(blogs: readonly ServedBlog[], more: boolean): string[] {
  if (!blogs.length) return ['  Site: none yet (this store holds no blog)'];
  if (blogs.length === 1)
    return [`  Site: ${blogs[0]!.local}${blogs[0]!.local === blogs[0]!.url ? '' : `  (${blogs[0]!.url})`}`];
  return [
    `  Sites (each blog by its Host and path; the index at ${new URL(blogs[0]!.local).protocol}//127.0.0.1:${new URL(blogs[0]!.local).port}/ links each):`,
    ...blogs.map((b) => `    ${b.local}  (${b.url})`),
    ...(more ? ['    … and more'] : []),
  ];
}

/**
 * SIGINT, SIGTERM and SIGHUP stop the server, handled from the start of `serve`: the first one resolves `stopped`
 * (start-up, if under way, finishes first; nothing is closed under it). One more while stopping changes nothing
 * (a supervisor, or `npm start` passing on a Ctrl+C, may send a second at once), except Ctrl+C pressed again
 * after a second: that ends the process at once (130).
 */
function stopSignals(): { stopped: Promise<string>; received(): boolean } {
  let first: { signal: string; at: number } | undefined;
  let resolve!: (signal: string) => void;
  const stopped = new Promise<string>((r) => (resolve = r));
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.on(signal, () => {
      if (!first) {
        first = { signal, at: Date.now() };
        console.log(`\n${signal}: shutting down`);
        resolve(signal);
      } else if (signal === 'SIGINT' && Date.now() - first.at > 1000) {
        process.exit(130);
      }
    });
  }
  return { stopped, received: () => first !== undefined };
}

/**
 * Stops taking requests, gives those under way 2 s to finish, then closes the store. Answers the exit code: 0,
 * or 1 when closing the store failed (said on stderr, not thrown: a failed close is no crash).
 */
async function shutdown(server: ReturnType<typeof createServer>, service: BlogService): Promise<number> {
  const closed = new Promise<void>((r) => server.close(() => r()));
  server.closeIdleConnections();
  setTimeout(() => server.closeAllConnections(), 2000).unref();
  await closed;
  try {
    await service.close();
    return 0;
  } catch (error) {
    console.error(redactSecrets(`blogcore: closing the store failed: ${inspect(error)}`));
    return 1;
  }
}
