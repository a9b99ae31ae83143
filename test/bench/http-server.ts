/**
 * The server half of http.bench.ts, run in a child process so the server and autocannon each get a core.
 *
 *   --mode=blogcore  the HTTP helper on node:http over blogcore + the SQLite driver (anonymous reader);
 *                   `--exclusive=1`: the file is this process's alone (`exclusive: true`)
 *   --mode=blogcore-auth  the same with an `authenticate` hook (reading the Authorization header)
 *   --mode=raw      a hand-written node:http handler running the same SQL on the same file with
 *                   better-sqlite3 and answering JSON.stringify of the stored documents
 *   --mode=raw-bytes --bytes=<file>  node:http answering every request with the bytes and headers in the file
 *                   (a JSON `{ headers, body }`: blogcore's own answer, so both sides send the same bytes)
 *
 * Prints `READY <port>` once listening. `GET /__stats` (answered before either handler) reports the requests
 * served and the process's CPU time, so the bench can compare CPU per request, which a shared machine
 * disturbs far less than requests/s.
 */
import { readFileSync } from 'node:fs';
import type { RequestListener } from 'node:http';
import Database from 'better-sqlite3';
import { sqliteDriver } from '../../drivers/sqlite/index.js';
import { encodeKey, prefixEnd } from '../../drivers/shared/byte-keys.js';
import { createBlogService } from '../../src/index.js';
import { createHttpHandler, keptResponsesOf, toNodeHandler, type RequestHead } from '../../src/http/index.js';
import { serveWithStats } from './cannon.js';

const args = Object.fromEntries(process.argv.slice(2).map((a) => a.replace(/^--/, '').split('=') as [string, string]));
const { mode, db, bytes, exclusive } = args as {
  mode: 'blogcore' | 'blogcore-auth' | 'raw' | 'raw-bytes';
  db: string;
  bytes: string;
  exclusive?: string;
};

let listener: RequestListener;
let close: () => Promise<void>;
let extra = (): object => ({});

if (mode === 'blogcore' || mode === 'blogcore-auth') {
  const service = createBlogService({ driver: sqliteDriver({ filename: db, exclusive: exclusive === '1' }) });
  await service.ready();
  const authenticate = (request: RequestHead) => {
    const auth = request.headers.get('authorization');
    return auth === null ? null : { userId: auth.slice(7) };
  };
  const handler = createHttpHandler(service, mode === 'blogcore-auth' ? { authenticate } : {});
  listener = toNodeHandler(handler);
  close = () => service.close();
  extra = () => ({ kept: keptResponsesOf(handler) });
} else if (mode === 'raw-bytes') {
  const answer = JSON.parse(readFileSync(bytes, 'utf8')) as { headers: Record<string, string>; body: string };
  const body = Buffer.from(answer.body);
  listener = (_req, res) => {
    res.writeHead(200, { ...answer.headers, 'content-length': String(body.byteLength) });
    res.end(body);
  };
  close = async () => undefined;
} else {
  const sqlite = new Database(db);
  sqlite.pragma('journal_mode = WAL');
  const coll = (sqlite.prepare(`SELECT no FROM collections WHERE name = 'posts'`).get() as { no: number }).no;
  const ix = (
    sqlite.prepare(`SELECT no FROM indexes WHERE coll = ? AND name = 'published'`).get(coll) as { no: number }
  ).no;
  // The driver's own statements: a doc by id, and a walk of the (blogId, status, time, id) index.
  const getDoc = sqlite.prepare('SELECT doc FROM docs WHERE coll = ? AND id = ?').pluck();
  const listDocs = sqlite
    .prepare(
      'SELECT d.doc FROM entries e JOIN docs d ON d.rid = e.rid WHERE e.ix = ? AND e.key >= ? AND e.key < ? ORDER BY e.key DESC, e.rid DESC LIMIT ?',
    )
    .pluck();
  listener = (req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    let body: string | undefined;
    if (url.pathname === '/post') {
      const doc = getDoc.get(coll, url.searchParams.get('id')) as string | undefined;
      if (doc !== undefined) body = JSON.stringify(JSON.parse(doc));
    } else if (url.pathname === '/list') {
      const prefix = encodeKey([url.searchParams.get('blog')!, 'LIVE']);
      const docs = listDocs.all(ix, prefix, prefixEnd(prefix), 20) as string[];
      body = JSON.stringify({ items: docs.map((d) => JSON.parse(d)) });
    }
    if (body === undefined) {
      res.statusCode = 404;
      res.end();
      return;
    }
    res.setHeader('content-type', 'application/json; charset=UTF-8');
    res.end(body);
  };
  close = async () => void sqlite.close();
}

serveWithStats(listener, close, extra);
