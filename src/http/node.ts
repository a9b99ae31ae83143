/**
 * `toNodeHandler`: a Fetch handler as a `(req, res, next?)` listener for node:http, Express and Fastify
 * (`reply.raw`). Typed structurally so this file imports nothing from Node and still bundles anywhere.
 */
import { concat, tooLarge } from './body.js';
import { NodeHeaders, type RequestHead } from './head.js';
import { ClientGone, dispatchers, type IncomingLike, type Outgoing } from './internal.js';

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
  /** True once the stream is torn down (e.g. the client hung up before the body was read). */
  destroyed?: boolean;
  /** A TLS socket has `encrypted: true`; a closed one `destroyed: true`. */
  socket?: object | null;
  on(event: 'data', listener: (chunk: Uint8Array) => void): unknown;
  on(event: 'end', listener: () => void): unknown;
  on(event: 'error', listener: (error: Error) => void): unknown;
  on(event: 'close', listener: () => void): unknown;
  removeListener(event: string, listener: (...args: never[]) => void): unknown;
  pause(): unknown;
  resume(): unknown;
}

/** The slice of `http.ServerResponse` the adapter writes. */
export interface NodeResponseLike {
  statusCode: number;
  headersSent: boolean;
  /** True once the connection is gone (nothing written then reaches anyone). */
  destroyed?: boolean;
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
 * per call); `authenticate` then gets a `RequestHead`: method, URL and read-only `Headers` (the body is the
 * helper's).
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
        const out = await dispatch(new NodeIncoming(req));
        if (next && out.notMine) return next();
        // A client that hung up (or whose broken body Node's parser already answered) gets nothing more.
        if (res.destroyed || (out.gone && isDestroyed(req))) return;
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

/** The absolute URL the client asked for, without user info; never throws, whatever the target and Host. */
function urlOf(req: NodeRequestLike): string {
  const host = header(req, 'host') ?? 'localhost';
  const scheme = (req.socket as { encrypted?: boolean } | null | undefined)?.encrypted ? 'https' : 'http';
  const path = req.originalUrl ?? req.url ?? '/';
  let url: URL;
  try {
    url = new URL(path, `${scheme}://${host}`);
  } catch {
    try {
      url = new URL(path, `${scheme}://localhost`);
    } catch {
      url = new URL(`${scheme}://localhost/`);
    }
  }
  url.username = '';
  url.password = '';
  return url.href;
}

const isDestroyed = (req: NodeRequestLike) => (req.socket as { destroyed?: boolean } | null | undefined)?.destroyed === true;

function header(req: NodeRequestLike, name: string): string | null {
  const v = req.headers[name];
  return v === undefined ? null : Array.isArray(v) ? v.join(', ') : v;
}

/** Whatever the method: a GET or DELETE with a body is read (and size-checked) like any other. */
function hasBody(req: NodeRequestLike): boolean {
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

/** A Node request as the dispatcher reads it (a class: no closures built per request). */
class NodeIncoming implements IncomingLike {
  readonly method: string;
  readonly target: string;
  private headCache: RequestHead | undefined;

  constructor(private readonly req: NodeRequestLike) {
    this.method = (req.method ?? 'GET').toUpperCase();
    this.target = req.originalUrl ?? req.url ?? '/';
  }

  header(name: string): string | null {
    return header(this.req, name);
  }

  hasBody(): boolean {
    return hasBody(this.req);
  }

  readBody(maxBytes: number): Promise<Uint8Array> {
    const parsed = parsedBody(this.req);
    if (parsed) return parsed.byteLength > maxBytes ? Promise.reject(tooLarge(maxBytes)) : Promise.resolve(parsed);
    return readNodeBody(this.req, maxBytes);
  }

  head(): RequestHead {
    return (this.headCache ??= new NodeRequestHead(this.req, this.method));
  }
}

/** Method, URL (built on first read) and headers of a Node request, for `authenticate` and `onError`. */
class NodeRequestHead implements RequestHead {
  readonly headers: Headers;
  private href: string | undefined;

  constructor(
    private readonly req: NodeRequestLike,
    readonly method: string,
  ) {
    this.headers = new NodeHeaders(req.headers);
  }

  get url(): string {
    return (this.href ??= urlOf(this.req));
  }
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
      req.removeListener('close', onClose);
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
    // The body breaks off: the client hung up, or Node's parser refused a malformed chunk (and answered 400).
    const onError = (e: Error) => {
      cleanup();
      reject(new ClientGone(e));
    };
    const onClose = () => onError(new Error('aborted'));
    if (req.readableEnded) return resolve(new Uint8Array(0));
    // Torn down while we were still deciding (authenticating, parsing the query): no 'close' will come again.
    if (req.destroyed) return reject(new ClientGone(new Error('aborted')));
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('close', onClose);
  });
}

function writeOutgoing(out: Outgoing, res: NodeResponseLike): void {
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
