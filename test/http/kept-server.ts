/**
 * One app server for the kept-responses tests (kept.test.ts): the HTTP helper on node:http over a store another
 * process shares, kept responses on (the default). `Authorization: Bearer <userId>` names the caller; a request
 * without one goes to a handler with no `authenticate`, whose kept answers the Node adapter sends at once (no
 * promise: `AnswerNow`), so both ways to a kept answer face the same reads and writes.
 *   sqlite <file>                 the SQLite file
 *   postgres <url> <schema>       the PostgreSQL schema
 * Prints `READY <port>`.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { postgresDriver } from '../../drivers/postgres/index.js';
import { sqliteDriver } from '../../drivers/sqlite/index.js';
import { createHttpHandler, toNodeHandler } from '../../src/http/index.js';
import { createBlogService } from '../../src/index.js';

const [kind, a, b] = process.argv.slice(2) as ['sqlite' | 'postgres', string, string];
const driver =
  kind === 'sqlite' ? sqliteDriver({ filename: a }) : postgresDriver({ connectionString: a, schema: b, max: 3 });
const service = createBlogService({ driver });
await service.ready();
const handler = createHttpHandler(service, {
  authenticate: (request) => {
    const auth = request.headers.get('authorization');
    return auth === null ? null : { userId: auth.slice('Bearer '.length) };
  },
});
const users = toNodeHandler(handler);
const anonymous = toNodeHandler(createHttpHandler(service));
const route = (req: IncomingMessage, res: ServerResponse) => (req.headers.authorization ? users : anonymous)(req, res);
const server = createServer(route).listen(0, '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(`READY ${typeof address === 'object' && address ? address.port : 0}\n`);
});
process.on('SIGTERM', () => {
  server.close();
  server.closeAllConnections();
  void service.close().then(() => process.exit(0));
});
