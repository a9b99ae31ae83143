/**
 * `toNodeHandler`: a Fetch handler as a `(req, res, next?)` listener for node:http, Express and Fastify
 * (`reply.raw`). Typed structurally so this file imports nothing from Node and still bundles anywhere.
 */
import { concat, tooLarge } from './body.js';
import { dispatchers, type IncomingLike, type Outgoing } from './internal.js';

/** The slice of `http.IncomingMessage` (plus Express's `originalUrl`/`body`) the adapter reads. */
export interface NodeRequestLike {
  method?: string | undefined;
  url?: string | undefined;
  /** Express: the URL before a mount prefix was stripped from `url`. */
  originalUrl?: string;
  headers: Record<string, string | string[] | undefined>;
  /** A body a framework has already parsed (the stream is then consumed). */
  body?: unknown;
  readableEnded?: boolean;
  /** A TLS socket has `encrypted: true`. */
  socket?: object | null;
  on(event: 'data', listener: (chunk: Uint8Array) => void): unknown;
  on(event: 'end', listener: () => void): unknown;
  on(event: 'error', listener: (error: Error) => void): unknown;
  removeListener(event: string, listener: (...args: never[]) => void): unknown;
  pause(): unknown;
  resume(): unknown;
}

/** The slice of `http.ServerResponse` the adapter writes. */
export interface NodeResponseLike {
  statusCode: number;
  headersSent: boolean;
  setHeader(name: string, value: string | string[]): unknown;
  writeHead(status: number, headers: Record<string, string>): unknown;
  write(chunk: Uint8Array): boolean;
  end(chunk?: string | Uint8Array): unknown;
  once(event: 'drain', listener: () => void): unknown;
  destroy(error?: Error): unknown;
}

export type NodeHandler = (req: NodeRequestLike, res: NodeResponseLike, next?: (error?: unknown) => void) => Promise<void>;

const BACKEND_ERROR =
  '{"error":{"code":500,"message":"Backend Error","status":"INTERNAL","errors":[{"domain":"global","reason":"backendError","message":"Backend Error"}]}}';

/**
 * Adapts a Fetch handler to Node. The handler sees the URL the client asked for (`req.originalUrl` when a
 * framework stripped a mount prefix from `req.url`), so `basePath` is always the public prefix, however the
 * handler is mounted. With `next` (Express), paths outside the handler's base path fall through.
 *
 * A handler from `createHttpHandler` is served directly from the Node request (no Fetch Request/Response
 * per call); `authenticate` then gets a Request with the method, URL and headers (the body is the helper's).
 *
 * @example
 * http.createServer(toNodeHandler(createHttpHandler(service))).listen(8080);
 * app.use(toNodeHandler(handler)); // Express: mount anywhere, set basePath to the public prefix
 */
export function toNodeHandler(handler: (request: Request) => Promise<Response>): NodeHandler {
  const dispatch = dispatchers.get(handler);
  return async (req, res, next) => {
    try {
      if (dispatch) {
        const out = await dispatch(nodeIncoming(req));
        if (next && out.notMine) return next();
        writeOutgoing(out, res);
      } else {
        const response = await handler(toRequest(req));
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
}

function urlOf(req: NodeRequestLike): string {
  const host = header(req, 'host') ?? 'localhost';
  const scheme = (req.socket as { encrypted?: boolean } | null | undefined)?.encrypted ? 'https' : 'http';
  const path = req.originalUrl ?? req.url ?? '/';
  try {
    return new URL(path, `${scheme}://${host}`).href;
  } catch {
    return new URL(path, `${scheme}://localhost`).href;
  }
}

function header(req: NodeRequestLike, name: string): string | null {
  const v = req.headers[name];
  return v === undefined ? null : Array.isArray(v) ? v.join(', ') : v;
}

function hasBody(req: NodeRequestLike): boolean {
  const method = (req.method ?? 'GET').toUpperCase();
  if (method === 'GET' || method === 'HEAD') return false;
  const len = header(req, 'content-length');
  if (len !== null) return len !== '0';
  return req.headers['transfer-encoding'] !== undefined || (req.body !== undefined && req.readableEnded === true);
}

function fetchHeaders(req: NodeRequestLike): Headers {
  const headers = new Headers();
  for (const [k, v] of Object.entries(req.headers)) {
    if (v === undefined || k.startsWith(':')) continue;
    if (Array.isArray(v)) for (const x of v) headers.append(k, x);
    else headers.set(k, v);
  }
  return headers;
}

/** A body a framework parsed before us (e.g. express.json()), re-encoded. */
function parsedBody(req: NodeRequestLike): Uint8Array | undefined {
  if (req.body === undefined || !req.readableEnded) return undefined;
  const b = req.body;
  if (b instanceof Uint8Array) return b;
  return new TextEncoder().encode(typeof b === 'string' ? b : JSON.stringify(b));
}

function nodeIncoming(req: NodeRequestLike): IncomingLike {
  const method = (req.method ?? 'GET').toUpperCase();
  let request: Request | undefined;
  return {
    method,
    target: req.originalUrl ?? req.url ?? '/',
    header: (name) => header(req, name),
    hasBody: () => hasBody(req),
    readBody: (maxBytes) => {
      const parsed = parsedBody(req);
      if (parsed) return parsed.byteLength > maxBytes ? Promise.reject(tooLarge(maxBytes)) : Promise.resolve(parsed);
      return readNodeBody(req, maxBytes);
    },
    request: () => (request ??= new Request(urlOf(req), { method, headers: fetchHeaders(req) })),
  };
}

/** Collects the request stream, stopping (and pausing it) as soon as it passes `maxBytes`. */
function readNodeBody(req: NodeRequestLike, maxBytes: number): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    const chunks: Uint8Array[] = [];
    let total = 0;
    const cleanup = () => {
      req.removeListener('data', onData);
      req.removeListener('end', onEnd);
      req.removeListener('error', onError);
    };
    const onData = (chunk: Uint8Array) => {
      total += chunk.byteLength;
      if (total > maxBytes) {
        chunks.length = 0;
        cleanup();
        req.pause();
        reject(tooLarge(maxBytes));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      resolve(concat(chunks, total));
    };
    const onError = (e: Error) => {
      cleanup();
      reject(e);
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
  });
}

function writeOutgoing(out: Outgoing, res: NodeResponseLike): void {
  res.writeHead(out.status, out.headers);
  res.end(out.text ?? undefined);
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
