/**
 * `toNodeHandler`: a Fetch handler as a `(req, res, next?)` listener for node:http, Express and Fastify
 * (`reply.raw`). Typed structurally so this file imports nothing from Node and still bundles anywhere.
 */
import { notMine, responseText } from './internal.js';

/** The slice of `http.IncomingMessage` (plus Express's `originalUrl`/`body`) the adapter reads. */
export interface NodeRequestLike {
  method?: string | undefined;
  url?: string | undefined;
  /** Express: the URL before a mount prefix was stripped from `url`. */
  originalUrl?: string;
  headers: Record<string, string | string[] | undefined>;
  rawHeaders?: string[];
  /** A body a framework has already parsed (the stream is then consumed). */
  body?: unknown;
  readableEnded?: boolean;
  /** A TLS socket has `encrypted: true`. */
  socket?: object | null;
  on(event: 'data', listener: (chunk: Uint8Array) => void): unknown;
  on(event: 'end', listener: () => void): unknown;
  on(event: 'error', listener: (error: Error) => void): unknown;
  pause(): unknown;
  resume(): unknown;
}

/** The slice of `http.ServerResponse` the adapter writes. */
export interface NodeResponseLike {
  statusCode: number;
  headersSent: boolean;
  setHeader(name: string, value: string | string[]): unknown;
  write(chunk: Uint8Array): boolean;
  end(chunk?: string | Uint8Array): unknown;
  once(event: 'drain', listener: () => void): unknown;
  destroy(error?: Error): unknown;
}

export type NodeHandler = (req: NodeRequestLike, res: NodeResponseLike, next?: (error?: unknown) => void) => Promise<void>;

const NO_BODY = new Set(['GET', 'HEAD']);

/**
 * Adapts a Fetch handler to Node. The Request gets the URL the client asked for (`req.originalUrl` when a
 * framework stripped a mount prefix from `req.url`), so `basePath` is always the public prefix, however the
 * handler is mounted. With `next` (Express), paths outside the handler's base path fall through.
 *
 * @example
 * http.createServer(toNodeHandler(createHttpHandler(service))).listen(8080);
 * app.use(toNodeHandler(handler)); // Express: mount anywhere, set basePath to the public prefix
 */
export function toNodeHandler(handler: (request: Request) => Promise<Response>): NodeHandler {
  return async (req, res, next) => {
    let response: Response;
    try {
      response = await handler(toRequest(req));
    } catch (error) {
      // The handler answers its own errors; this is a broken adapter input (e.g. an invalid header).
      if (next) return next(error);
      if (!res.headersSent) {
        res.statusCode = 500;
        res.setHeader('content-type', 'application/json; charset=UTF-8');
        res.end('{"error":{"code":500,"message":"Backend Error","status":"INTERNAL","errors":[{"domain":"global","reason":"backendError","message":"Backend Error"}]}}');
      } else res.destroy();
      return;
    }
    if (next && notMine.has(response)) return next();
    try {
      await writeResponse(response, res);
    } catch (error) {
      res.destroy(error as Error);
    }
  };
}

function toRequest(req: NodeRequestLike): Request {
  const method = (req.method ?? 'GET').toUpperCase();
  const host = firstHeader(req.headers.host) ?? 'localhost';
  const scheme = (req.socket as { encrypted?: boolean } | null | undefined)?.encrypted ? 'https' : 'http';
  let url: URL;
  try {
    url = new URL(req.originalUrl ?? req.url ?? '/', `${scheme}://${host}`);
  } catch {
    url = new URL(req.originalUrl ?? req.url ?? '/', `${scheme}://localhost`);
  }
  const headers = new Headers();
  const raw = req.rawHeaders;
  if (raw) {
    for (let i = 0; i < raw.length; i += 2) if (!raw[i]!.startsWith(':')) headers.append(raw[i]!, raw[i + 1]!);
  } else {
    for (const [k, v] of Object.entries(req.headers)) {
      if (v === undefined || k.startsWith(':')) continue;
      if (Array.isArray(v)) for (const x of v) headers.append(k, x);
      else headers.set(k, v);
    }
  }
  if (NO_BODY.has(method) || !hasBody(req)) return new Request(url, { method, headers });
  if (req.body !== undefined && req.readableEnded) {
    // A body parser ran first (e.g. express.json()): re-encode what it parsed.
    const b = req.body;
    const data = typeof b === 'string' || b instanceof Uint8Array ? b : JSON.stringify(b);
    headers.delete('content-length');
    return new Request(url, { method, headers, body: data as BodyInit });
  }
  return new Request(url, { method, headers, body: streamOf(req), duplex: 'half' } as RequestInit);
}

function hasBody(req: NodeRequestLike): boolean {
  const len = firstHeader(req.headers['content-length']);
  if (len !== undefined) return len !== '0';
  return req.headers['transfer-encoding'] !== undefined;
}

const firstHeader = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);

/** The request stream with backpressure: paused while the reader is behind, never buffered whole. */
function streamOf(req: NodeRequestLike): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>(
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
        // Node discards the rest of an unread request once the response is sent.
        req.pause();
      },
    },
    { highWaterMark: 1 },
  );
}

async function writeResponse(response: Response, res: NodeResponseLike): Promise<void> {
  res.statusCode = response.status;
  response.headers.forEach((value, key) => {
    if (key !== 'set-cookie') res.setHeader(key, value);
  });
  const cookies = response.headers.getSetCookie?.() ?? [];
  if (cookies.length > 0) res.setHeader('set-cookie', cookies);
  // A refused upload may still be arriving: close the connection rather than read it to the end.
  if (response.status === 413) res.setHeader('connection', 'close');
  const text = responseText.get(response);
  if (text !== undefined) {
    res.end(text);
    return;
  }
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
