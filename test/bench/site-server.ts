/**
 * The server half of site.bench.ts, in a child process:
 *
 *   --mode=site --db=<file> --blog=<id>  blogcore/site on node:http (toNodeHandler) over the SQLite driver
 *   --mode=raw --page=<file>             a plain node:http handler sending one prerendered page (the same
 *                                        bytes and headers the site sends for the measured post)
 */
import { readFileSync } from 'node:fs';
import type { RequestListener } from 'node:http';
import { sqliteDriver } from '../../drivers/sqlite/index.js';
import { toNodeHandler } from '../../src/http/index.js';
import { createBlogService } from '../../src/index.js';
import { createSite } from '../../src/site/index.js';
import { serveWithStats } from './cannon.js';

const args = Object.fromEntries(process.argv.slice(2).map((a) => a.replace(/^--/, '').split('=') as [string, string]));

if (args.mode === 'site') {
  const service = createBlogService({ driver: sqliteDriver({ filename: args.db! }) });
  await service.ready();
  serveWithStats(toNodeHandler(createSite(service, { blogId: args.blog! })) as RequestListener, () => service.close());
} else {
  const { headers, text } = JSON.parse(readFileSync(args.page!, 'utf8')) as {
    headers: Record<string, string>;
    text: string;
  };
  const body = Buffer.from(text);
  serveWithStats(
    (_req, res) => {
      res.writeHead(200, { ...headers, 'content-length': String(body.byteLength) });
      res.end(body);
    },
    async () => {},
  );
}
