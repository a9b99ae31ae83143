/**
 * `toNodeHandler`: a Fetch handler as a `(req, res, next?)` listener for node:http, Express and Fastify
 * (`reply.raw`). Typed structurally so this file imports nothing from Node and still bundles anywhere.
 */
import { answersNow, dispatchers, type Outgoing } from './dispatch.js';
import { NodeIncoming, hasBody, isDestroyed, parsedBody, urlOf, type NodeRequestLike } from './node-request.js';

export type { NodeRequestLike } from './node-request.js';

/** The slice of `http.ServerResponse` the adapter writes. */
export interface NodeResponseLike {
  statusCode: number;
  headersSent: boolean;
  /** True once the connection is gone (nothing written then reaches anyone). */
  destroyed?: boolean;
  setHeader(name: string, value: string | string[]): unknown;
  /** Headers as an object, or as a flat [name, value, …] list. */
  writeHead(status: number, headers: Record<string, string> | string[]): unknown;
  write(chunk: Uint8Array): boolean;
  end(chunk?: string | Uint8Array): unknown;
  once(event: 'drain' | 'close', listener: () => void): unknown;
  destroy(error?: Error): unknown;
}

export type NodeHandler = (
  req: NodeRequestLike,
  res: NodeResponseLike,
  next?: (error?: unknown) => void,
) => Promise<void>;

const BACKEND_ERROR =
  '{"error":{"code":500,"message":"Backend Error","status":"INTERNAL","errors":[{"domain":"global","reason":"backendError","message":"Backend Error"}]}}';

/**
 * Adapts a Fetch handler to Node. The handler sees the URL the client asked for (`req.originalUrl` when a
 * framework stripped a mount prefix from `req.url`), so `basePath` is always the public prefix, however the
 * handler is mounted. With `next` (Express), paths outside the handler's base path fall through.
 *
 * A handler from `createHttpHandler` (or `createSite` of blogcore/site) is served directly from the Node
 * request (no Fetch Request/Response per call); `authenticate` then gets a `RequestHead`: method, URL and
 * read-only `Headers` (the body is the helper's). A handler that answers `null` falls through to `next()`
 * (or a plain 404 without one).
 *
 * @example
 * http.createServer(toNodeHandler(createHttpHandler(service))).listen(8080);
 * app.use(toNodeHandler(handler)); // Express: mount anywhere, set basePath to the public prefix
 */
export function toNodeHandler(handler: (request: Request) => Promise<Response | null>): NodeHandler {
  const dispatch = dispatchers.get(handler);
  const now = answersNow.get(handler);
  const served = async (req: NodeRequestLike, res: NodeResponseLike, next?: (error?: unknown) => void) => {
    try {
      if (dispatch) {
        const out = await dispatch(new NodeIncoming(req));
        if (next && out.notMine) return next();
        // A client that hung up (or whose broken body Node's parser already answered) gets nothing more.
        if (res.destroyed || (out.gone && isDestroyed(req))) {
          await out.body?.cancel().catch(() => undefined);
          return;
        }
        if (out.body) await writeStream(out, res);
        else writeOutgoing(out, res);
      } else {
        const response = await handler(toRequest(req));
        // A handler that answers null (blogcore/site: not one of its pages) passes the request on.
        if (response === null) {
          if (next) return next();
          writeOutgoing(
            { status: 404, headers: { 'content-type': 'text/plain; charset=utf-8' }, text: 'Not Found' },
            res,
          );
          return;
        }
        await writeResponse(response, res);
      }
    } catch (error) {
      // Our dispatcher answers its own errors; this is a foreign handler's failure or a broken socket.
      if (next) return next(error);
      if (!res.headersSent) {
        res.statusCode = 500;
        res.setHeader('content-type', 'application/json; charset=UTF-8');
        res.end(BACKEND_ERROR);
      } else res.destroy();
    }
  };
  if (!now) return served;
  // An answer ready at once (a kept one) is written in this turn: no request object, no promise of its own.
  return (req, res, next) => {
    if (req.method === 'GET' && !res.destroyed && !hasBody(req)) {
      const out = now(req.originalUrl ?? req.url ?? '/', req.headers);
      if (out) {
        writeOutgoing(out, res);
        return DONE;
      }
    }
    return served(req, res, next);
  };
}

const DONE = Promise.resolve();

function fetchHeaders(req: NodeRequestLike): Headers {
  const headers = new Headers();
  for (const [k, v] of Object.entries(req.headers)) {
    if (v === undefined || k.startsWith(':')) continue;
    if (Array.isArray(v)) for (const x of v) headers.append(k, x);
    else headers.set(k, v);
  }
  return headers;
}

function writeOutgoing(out: Outgoing, res: NodeResponseLike): void {
  if (out.head) {
    res.writeHead(out.status, out.head as string[]);
    res.end(out.text ?? undefined);
    return;
  }
  if (out.text === null) {
    res.writeHead(out.status, out.headers);
    res.end();
    return;
  }
  // With a Content-Length, Node sends head and body in one write rather than as chunked encoding.
  out.headers['content-length'] = String(Buffer.byteLength(out.text));
  res.writeHead(out.status, out.headers);
  res.end(out.text);
}

/** A streamed body (media bytes): written at the client's pace; a client that leaves stops the reading. */
async function writeStream(out: Outgoing, res: NodeResponseLike): Promise<void> {
  const reader = out.body!.getReader();
  res.writeHead(out.status, out.headers);
  const closed = new Promise<void>((resolve) => res.once('close', resolve));
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (res.destroyed) {
        await reader.cancel();
        return;
      }
      if (!res.write(value)) await Promise.race([new Promise<void>((resolve) => res.once('drain', resolve)), closed]);
    }
    res.end();
  } catch {
    // The store failed mid-way: the status is sent, so the only honest answer left is a cut connection.
    await reader.cancel().catch(() => undefined);
    res.destroy();
  }
}

/** A foreign Fetch handler's path: a full Request in, its Response streamed out. */
function toRequest(req: NodeRequestLike): Request {
  const method = (req.method ?? 'GET').toUpperCase();
  const url = urlOf(req);
  const headers = fetchHeaders(req);
  if (!hasBody(req)) return new Request(url, { method, headers });
  const parsed = parsedBody(req);
  if (parsed) {
    headers.delete('content-length');
    return new Request(url, { method, headers, body: parsed as Uint8Array<ArrayBuffer> });
  }
  const body = new ReadableStream<Uint8Array>(
    {
      start(controller) {
        req.on('data', (chunk) => {
          controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
          if ((controller.desiredSize ?? 0) <= 0) req.pause();
        });
        req.on('end', () => controller.close());
        req.on('error', (e) => controller.error(e));
      },
      pull() {
        req.resume();
      },
      cancel() {
        req.pause();
      },
    },
    { highWaterMark: 1 },
  );
  return new Request(url, { method, headers, body, duplex: 'half' } as RequestInit);
}

async function writeResponse(response: Response, res: NodeResponseLike): Promise<void> {
  res.statusCode = response.status;
  response.headers.forEach((value, key) => {
    if (key !== 'set-cookie') res.setHeader(key, value);
  });
  const cookies = response.headers.getSetCookie?.() ?? [];
  if (cookies.length > 0) res.setHeader('set-cookie', cookies);
  if (response.body === null) {
    res.end();
    return;
  }
  const reader = response.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (!res.write(value)) await new Promise<void>((resolve) => res.once('drain', resolve));
  }
  res.end();
}
