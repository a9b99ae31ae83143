/**
 * The server side of the collab bench (collab.bench.ts), in a process of its own so its CPU is its own: blogcore's
 * HTTP helper on node:http + SQLite with one post, and the raw baseline beside it: a plain node:http relay of the
 * same routes that keeps the updates in an array (no storage, no checks, no render). Prints its ports as JSON;
 * answers "cpu" on stdin with its CPU time so far (µs).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import * as Y from 'yjs';
import { sqliteDriver } from '../../drivers/sqlite/index.js';
import { createBlogService } from '../../src/index.js';
import { createHttpHandler, toNodeHandler } from '../../src/http/index.js';

const dir = process.argv[2]!;
const service = createBlogService({ driver: sqliteDriver({ filename: join(dir, 'collab.db') }) });
const owner = await service.users.insert({ body: { displayName: 'Owner', id: 'w0' } });
const blog = await service.blogs.insert({ body: { name: 'Bench', url: 'https://bench.example/' }, ownerId: owner.id });
const post = await service.posts.insert({ blogId: blog.id, body: { title: 'Together', content: '<p>Start</p>' } });
const ours = createServer(toNodeHandler(createHttpHandler(service, { authenticate: () => ({ userId: 'w0' }) }))).listen(
  0,
  '127.0.0.1',
);

// The raw relay: the same wire (octet-stream, the position header), updates in memory, waiters woken on a push.
const updates: Uint8Array[] = [];
const waiters = new Set<() => void>();
const send = (res: ServerResponse, since: number) => {
  const fresh = updates.slice(since);
  const body = fresh.length ? Y.mergeUpdates(fresh) : new Uint8Array(0);
  res.writeHead(200, {
    'content-type': 'application/octet-stream',
    'blogcore-collab-position': String(updates.length),
  });
  res.end(body);
};
const raw = createServer((req: IncomingMessage, res: ServerResponse) => {
  const url = new URL(req.url!, 'http://x');
  if (req.method === 'POST') {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      if (body.byteLength > 2) updates.push(new Uint8Array(body));
      for (const w of [...waiters]) w();
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ position: String(updates.length) }));
    });
    return;
  }
  const since = url.searchParams.get('since');
  if (since === null) return send(res, 0);
  const from = Number(since);
  if (updates.length > from) return send(res, from);
  const timer = setTimeout(wake, Number(url.searchParams.get('wait') ?? 0));
  function wake() {
    clearTimeout(timer);
    waiters.delete(wake);
    send(res, from);
  }
  waiters.add(wake);
}).listen(0, '127.0.0.1');

await Promise.all([ours, raw].map((s) => new Promise((r) => (s.listening ? r(null) : s.once('listening', r)))));
const port = (s: typeof ours) => (s.address() as AddressInfo).port;
console.log(JSON.stringify({ ours: port(ours), raw: port(raw), blogId: blog.id, postId: post.id }));
createInterface({ input: process.stdin }).on('line', (line) => {
  if (line === 'cpu') {
    const u = process.cpuUsage();
    console.log(JSON.stringify({ cpu: u.user + u.system }));
  } else if (line === 'exit') process.exit(0);
});
