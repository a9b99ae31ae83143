/** One app server for postgres-http.ts: the HTTP helper on node:http over blogcore on PostgreSQL. Prints `READY <port>`. */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { postgresDriver } from '../../drivers/postgres/index.js';
import { createBlogService } from '../../src/index.js';
import { createHttpHandler, toNodeHandler } from '../../src/http/index.js';

const args = Object.fromEntries(process.argv.slice(2).map((a) => a.replace(/^--/, '').split('=') as [string, string]));
const service = createBlogService({
  driver: postgresDriver({ connectionString: args.url!, schema: args.schema!, max: 10 }),
});
await service.ready();
const server = createServer(toNodeHandler(createHttpHandler(service)));
server.keepAliveTimeout = 10_000;
server.listen(0, '127.0.0.1', () => process.stdout.write(`READY ${(server.address() as AddressInfo).port}\n`));
process.on('SIGTERM', () => {
  server.close();
  void service.close().then(() => process.exit(0));
});
