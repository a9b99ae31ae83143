/**
 * The `blogcore` command: `blogcore serve` runs the /v3 API on a SQLite file (creating a demo blog and an
 * admin token on the first run); `blogcore token` replaces the admin token. Node only.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, isAbsolute, relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { sqliteDriver } from '../drivers/sqlite/index.js';
import type { StorageDriver } from './driver.js';
import { BlogError, createBlogService } from './index.js';
import { createHttpHandler, toNodeHandler, type Actor } from './http/index.js';
import { exportCommand, importCommand, IO_USAGE } from './io-cli.js';

type Service = ReturnType<typeof createBlogService>;

const USAGE = `Usage:
  blogcore serve [--db <file>] [--port <n>] [--host <addr>] [--api-base-url <url>]
      Serves the Blogger v3 API under /v3 on a SQLite file (default ./data/blog.db, 127.0.0.1:8080).
      The first run creates a demo blog and prints an admin bearer token.
  blogcore token [--db <file>]
      Prints a new admin bearer token for the database; the old one stops working.
${IO_USAGE}`;

/** The CLI's own record in the store's `settings` collection; the token is kept only as a SHA-256 hash. */
interface CliSettings {
  adminUserId: string;
  blogId: string;
  tokenHash: string;
  [key: string]: string;
}
const SETTINGS_ID = 'cli';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const newToken = () => `bk_${randomBytes(24).toString('base64url')}`;

async function readSettings(driver: StorageDriver): Promise<{ version: number; settings?: CliSettings }> {
  const found = await driver.get('settings', SETTINGS_ID);
  return found ? { version: found.version, settings: found.doc as unknown as CliSettings } : { version: 0 };
}

async function writeSettings(driver: StorageDriver, expect: number, settings: CliSettings): Promise<void> {
  await driver.commit([{ type: 'put', collection: 'settings', id: SETTINGS_ID, expect, doc: { ...settings }, keys: {} }]);
}

/** A demo user, blog, posts in every state, pages and comments (one awaiting moderation). */
const DEMO_URL = 'https://demo.blogcore.example/';

async function seedDemo(service: Service): Promise<{ adminUserId: string; blogId: string }> {
  // A first run that stopped after creating the blog: adopt it rather than fail on its taken url.
  const existing = await service.blogs.getByUrl({ url: DEMO_URL }).catch(() => undefined);
  if (existing) {
    const admin = (await service.members.list({ blogId: existing.id })).items.find((m) => m.role === 'ADMIN');
    if (admin) return { adminUserId: admin.userId, blogId: existing.id };
  }
  const admin = await service.users.insert({ body: { displayName: 'Demo Admin', about: 'Created by blogcore serve on its first run.' } });
  const blog = await service.blogs.insert({
    body: { name: 'blogcore demo', url: DEMO_URL, description: 'A demo blog created by blogcore serve.' },
    ownerId: admin.id,
  });
  const as = service.as({ userId: admin.id });
  const blogId = blog.id;
  const hello = await as.posts.insert({
    blogId,
    body: {
      title: 'Hello, blogcore',
      content: '<p>This blog is served by <b>blogcore</b>: the Blogger v3 API, embedded.</p><p><img src="https://demo.blogcore.example/hello.png" alt=""></p>',
      labels: ['news', 'blogcore'],
    },
  });
  await as.posts.insert({
    blogId,
    body: { title: 'Talking to the API with curl', content: '<p>Every route lives under <code>/v3</code>, as on blogger.googleapis.com.</p>', labels: ['howto'] },
  });
  await as.posts.insert({ blogId, isDraft: true, body: { title: 'A draft in progress', content: '<p>Only authors and admins see this.</p>', labels: ['drafts'] } });
  await as.posts.insert({
    blogId,
    body: {
      title: 'Coming next week',
      content: '<p>Scheduled: it goes live by itself when its time comes.</p>',
      published: new Date(Date.now() + 7 * 86_400_000).toISOString(),
    },
  });
  await as.pages.insert({ blogId, body: { title: 'About', content: '<p>A demo page.</p>' } });
  await as.pages.insert({ blogId, isDraft: true, body: { title: 'Contact', content: '<p>A draft page.</p>' } });
  const first = await as.comments.insert({ blogId, postId: hello.id, body: { content: 'Welcome! Comments by the blog admin go live at once.' } });
  await service.as(null).comments.insert({
    blogId,
    postId: hello.id,
    body: { content: 'Nice post. (An anonymous comment: it waits for moderation.)', inReplyTo: { id: first.id }, author: { displayName: 'A visitor' } },
  });
  return { adminUserId: admin.id, blogId };
}

/** Opens the database, creating the demo content on first use. Returns the token when it was just created. */
async function setUp(filename: string, apiBaseUrl?: string) {
  mkdirSync(dirname(resolve(filename)), { recursive: true });
  const driver = sqliteDriver({ filename });
  const service = createBlogService({ driver, ...(apiBaseUrl ? { apiBaseUrl } : {}) });
  await service.ready();
  const { version, settings: stored } = await readSettings(driver);
  let settings = stored;
  let token: string | undefined;
  if (!settings) {
    const seeded = await seedDemo(service);
    token = newToken();
    settings = { ...seeded, tokenHash: sha256(token) };
    await writeSettings(driver, version, settings);
  }
  return { driver, service, settings, token };
}

const authError = (message: string) =>
  new BlogError({ code: 401, reason: 'authError', message, location: 'Authorization', locationType: 'header' });

/** `Authorization: Bearer <token>` (or Google's `access_token` parameter) → the admin; none → anonymous. */
function bearerAuth(driver: StorageDriver) {
  return async (request: Request): Promise<Actor | null> => {
    const header = request.headers.get('authorization');
    let token: string | null;
    if (header !== null) {
      const m = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header);
      if (!m) throw authError('Invalid Credentials: use Authorization: Bearer <token>');
      token = m[1]!;
    } else {
      const q = new URL(request.url).searchParams;
      token = q.get('access_token') ?? q.get('oauth_token');
      if (token === null || token === '') return null;
    }
    // Read the hash on every signed request, so `blogcore token` revokes the old token at once.
    const { settings } = await readSettings(driver);
    const given = Buffer.from(sha256(token), 'hex');
    if (!settings || !timingSafeEqual(given, Buffer.from(settings.tokenHash, 'hex'))) throw authError('Invalid Credentials');
    return { userId: settings.adminUserId };
  };
}

/** How to run this command again, as the user started it (`node dist/cli.js` in a checkout, else `blogcore`). */
function selfCommand(): string {
  const script = process.argv[1] ?? '';
  if (/[\\/]dist[\\/]cli\.js$/.test(script) || /[\\/]src[\\/]cli\.ts$/.test(script)) {
    const rel = relative(process.cwd(), script);
    if (!rel.startsWith('..') && !isAbsolute(rel)) return script.endsWith('.ts') ? `npx tsx ${rel}` : `node ${rel}`;
  }
  return 'blogcore';
}

async function serve(opts: { db: string; port: number; host: string; apiBaseUrl?: string }): Promise<void> {
  let ready: ((req: IncomingMessage, res: ServerResponse) => Promise<void>) | undefined;
  const pending: Array<() => void> = [];
  const server = createServer((req, res) => {
    if (ready) void ready(req, res);
    else pending.push(() => void ready!(req, res));
  });
  await new Promise<void>((resolveListen, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => resolveListen());
  });
  const { port } = server.address() as AddressInfo;
  const hostInUrl = opts.host.includes(':') ? `[${opts.host}]` : opts.host === '0.0.0.0' ? '127.0.0.1' : opts.host;
  const origin = `http://${hostInUrl}:${port}`;
  const { driver, service, settings, token } = await setUp(opts.db, opts.apiBaseUrl ?? origin);

  const handler = createHttpHandler(service, {
    authenticate: bearerAuth(driver),
    onError: (error) => console.error('blogcore: unexpected error:', error),
  });
  ready = toNodeHandler(handler);
  for (const run of pending.splice(0)) run();

  const api = `${origin}/v3`;
  const posts = `${api}/blogs/${settings.blogId}/posts`;
  const shownToken = token ?? '$TOKEN';
  const lines = [
    `blogcore is serving ${opts.db}`,
    `  API:  ${api}/`,
    `  Blog: ${api}/blogs/${settings.blogId}`,
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
    lines.push(
      'The admin token was printed on the first run. To replace it (the old one stops working):',
      `  ${selfCommand()} token --db ${opts.db}`,
      '',
    );
  }
  lines.push(
    'Try:',
    `  curl ${posts}`,
    `  curl -H "Authorization: Bearer ${shownToken}" "${posts}?status=draft,scheduled&fields=items(id,title,status)"`,
    `  curl -X POST -H "Authorization: Bearer ${shownToken}" -H "Content-Type: application/json" \\`,
    `       -d '{"title":"Hello","content":"<p>Hi!</p>"}' ${posts}`,
    '',
    'Ctrl+C stops the server.',
  );
  console.log(lines.join('\n'));

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) {
      process.exit(1); // a second signal: do not wait any longer
    }
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
}

async function rotateToken(db: string): Promise<void> {
  const { driver, service, token: firstToken } = await setUp(db);
  let token = firstToken;
  if (!token) {
    const { version, settings } = await readSettings(driver);
    token = newToken();
    await writeSettings(driver, version, { ...settings!, tokenHash: sha256(token) });
  }
  await service.close();
  console.error('New admin bearer token (the previous one no longer works):');
  console.log(token);
}

async function main(argv: string[]): Promise<void> {
  if (argv[0] === 'import' || argv[0] === 'export') {
    const open = async (db: string) => (mkdirSync(dirname(resolve(db)), { recursive: true }), createBlogService({ driver: sqliteDriver({ filename: db }) }));
    return (argv[0] === 'import' ? importCommand : exportCommand)(argv.slice(1), { open, stdout: process.stdout, stderr: process.stderr });
  }
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      db: { type: 'string', default: './data/blog.db' },
      port: { type: 'string', default: '8080' },
      host: { type: 'string', default: '127.0.0.1' },
      'api-base-url': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const command = positionals[0];
  if (values.help || command === undefined || command === 'help') {
    console.log(USAGE);
    return;
  }
  if (command === 'serve') {
    const port = Number(values.port);
    if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`--port: not a port number: ${values.port}`);
    return serve({ db: values.db!, port, host: values.host!, ...(values['api-base-url'] ? { apiBaseUrl: values['api-base-url'] } : {}) });
  }
  if (command === 'token') return rotateToken(values.db!);
  throw new Error(`unknown command "${command}"\n\n${USAGE}`);
}

main(process.argv.slice(2)).catch((error: unknown) => {
  console.error(`blogcore: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
