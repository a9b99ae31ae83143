/**
 * The server half of media.bench.ts (one per process): `sqlite` and `fs` serve a 1 MB picture through the HTTP
 * helper (bytes in the SQLite file, or in fsBlobs); `raw` streams the same bytes from a file with node:http;
 * `variant` serves a picture's w960 WebP kept in SQLite after its first request, `raw-variant` the same bytes
 * from a file (start it after `variant`, which writes them).
 * Prints `READY <port> <path>`; `GET /__stats` answers the requests served and the process's CPU time. Usage: node --import tsx media-server.ts <sqlite|fs|raw> <dir>
 */
import { createReadStream, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { sqliteDriver } from '../../drivers/sqlite/index.js';
import { fsBlobs } from '../../src/media/blobs/index.js';
import { createHttpHandler, toNodeHandler } from '../../src/http/index.js';
import { createBlogService } from '../../src/index.js';
import { makePng } from '../media/pictures.js';

const [mode, dir] = [process.argv[2]!, process.argv[3]!];
let listener: Parameters<typeof createServer>[1];
let path: string;
if (mode === 'raw' || mode === 'raw-variant') {
  // The same bytes blogcore serves, from a file: the 1 MB picture, or the variant the `variant` server wrote.
  const [name, type] = mode === 'raw' ? ['serve.png', 'image/png'] : ['variant.webp', 'image/webp'];
  const file = join(dir, name);
  if (mode === 'raw') writeFileSync(file, makePng(577, 577, 1));
  path = `/${name}`;
  const headers = {
    'content-type': type,
    'content-length': String(statSync(file).size),
    etag: '"x"',
    'cache-control': 'public, max-age=31536000, immutable',
    'x-content-type-options': 'nosniff',
  };
  listener = (_req, res) => {
    res.writeHead(200, headers);
    createReadStream(file).pipe(res);
  };
} else {
  const service = createBlogService({
    driver: sqliteDriver({ filename: join(dir, `serve-${mode}.db`) }),
    ...(mode === 'fs' ? { blobs: fsBlobs({ dir: join(dir, 'serve-files') }) } : {}),
  });
  const owner = await service.users.insert({ body: { displayName: 'Bench' } });
  const blog = await service.blogs.insert({
    body: { name: 'Serve', url: 'https://serve.example/' },
    ownerId: owner.id,
  });
  const handler = createHttpHandler(service);
  if (mode === 'variant') {
    // A 1600×1200 picture's w960 WebP, made by its first request here and kept; the bench then reads it again.
    const { url } = await service.media.upload({ blogId: blog.id, body: makePng(1600, 1200, 3), filename: 'v.png' });
    path = url.replace(/[^/]+$/, 'w960/v.webp');
    const first = await handler(new Request(`https://serve.example${path}`));
    if (first.status !== 200) throw new Error(`variant: ${first.status}`);
    writeFileSync(join(dir, 'variant.webp'), new Uint8Array(await first.arrayBuffer()));
  } else
    path = (await service.media.upload({ blogId: blog.id, body: makePng(577, 577, 1), filename: 'serve.png' })).url;
  listener = toNodeHandler(handler);
}
// GET /__stats: requests served and this process's CPU time, so the bench compares CPU per request (which a
// shared machine disturbs far less than requests/s).
let requests = 0;
const serve = listener!;
const server = createServer((req, res) => {
  if (req.url === '/__stats') {
    const cpu = process.cpuUsage();
    return res.end(JSON.stringify({ requests, cpuMicros: cpu.user + cpu.system }));
  }
  requests++;
  serve(req, res);
});
server.listen(0, '127.0.0.1', () => console.log(`READY ${(server.address() as AddressInfo).port} ${path}`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
