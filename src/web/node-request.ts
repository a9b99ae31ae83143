/**
 * A Node request (node:http, Express, Fastify's `req.raw`) as the dispatcher reads it, typed structurally so
 * nothing here imports Node: its headers, its body (read whole, capped, a hang-up reported as `ClientGone`),
 * and its method, URL and headers for `authenticate`.
 */
import { concat } from '../util/streams.js';
import { tooLarge } from './body.js';
import { NodeHeaders, type RequestHead } from './head.js';
import { ClientGone, type IncomingLike } from './dispatch.js';

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
  /** A TLS socket has `encrypted: true`; a closed one `destroyed: true`; its `remoteAddress` is the peer's. */
  socket?: object | null;
  // One overload per event, for `on` and `removeListener` alike: @types/node 20–26 all accept them (26 types the
  // events of IncomingMessage, so a catch-all `(event: string, listener: (...args: never[]) => void)` no longer fits).
  on(event: 'data', listener: (chunk: Uint8Array) => void): unknown;
  on(event: 'end', listener: () => void): unknown;
  on(event: 'error', listener: (error: Error) => void): unknown;
  on(event: 'close', listener: () => void): unknown;
  removeListener(event: 'data', listener: (chunk: Uint8Array) => void): unknown;
  removeListener(event: 'end', listener: () => void): unknown;
  removeListener(event: 'error', listener: (error: Error) => void): unknown;
  removeListener(event: 'close', listener: () => void): unknown;
  pause(): unknown;
  resume(): unknown;
}

/** The absolute URL the client asked for, without user info; never throws, whatever the target and Host. */
export function urlOf(req: NodeRequestLike): string {
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

export const isDestroyed = (req: NodeRequestLike) =>
  (req.socket as { destroyed?: boolean } | null | undefined)?.destroyed === true;

export function header(req: NodeRequestLike, name: string): string | null {
  const v = req.headers[name];
  return v === undefined ? null : Array.isArray(v) ? v.join(', ') : v;
}

/** Whatever the method: a GET or DELETE with a body is read (and size-checked) like any other. */
export function hasBody(req: NodeRequestLike): boolean {
  const len = header(req, 'content-length');
  if (len !== null) return len !== '0';
  return req.headers['transfer-encoding'] !== undefined || (req.body !== undefined && req.readableEnded === true);
}

/** A body a framework parsed before us (e.g. express.json()), re-encoded. */
export function parsedBody(req: NodeRequestLike): Uint8Array | undefined {
  if (req.body === undefined || !req.readableEnded) return undefined;
  const b = req.body;
  if (b instanceof Uint8Array) return b;
  return new TextEncoder().encode(typeof b === 'string' ? b : JSON.stringify(b));
}

/** A Node request as the dispatcher reads it (a class: no closures built per request). */
export class NodeIncoming implements IncomingLike {
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

  get peer(): string | undefined {
    return (this.req.socket as { remoteAddress?: string } | null | undefined)?.remoteAddress;
  }

  hasBody(): boolean {
    return hasBody(this.req);
  }

  readBody(maxBytes: number): Promise<Uint8Array> {
    const parsed = parsedBody(this.req);
    if (parsed) return parsed.byteLength > maxBytes ? Promise.reject(tooLarge(maxBytes)) : Promise.resolve(parsed);
    return readNodeBody(this.req, maxBytes);
  }

  bodyStream(): AsyncIterable<Uint8Array> {
    const parsed = parsedBody(this.req);
    return parsed ? once(parsed) : streamNodeBody(this.req);
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

async function* once(bytes: Uint8Array): AsyncGenerator<Uint8Array> {
  yield bytes;
}

/**
 * The request stream a piece at a time: paused after each piece until the reader asks for the next, so a
 * slow store slows the sender (TCP back-pressure) instead of filling memory. A reader that leaves early
 * leaves the rest unread (the answer then closes the connection).
 */
async function* streamNodeBody(req: NodeRequestLike): AsyncGenerator<Uint8Array> {
  if (req.readableEnded) return;
  if (req.destroyed) throw new ClientGone(new Error('aborted'));
  const queue: Uint8Array[] = [];
  let ended = false;
  let failed: ClientGone | undefined;
  let wake: (() => void) | undefined;
  const onData = (chunk: Uint8Array) => {
    queue.push(chunk);
    req.pause();
    wake?.();
  };
  const onEnd = () => {
    ended = true;
    wake?.();
  };
  const onError = (e: Error) => {
    failed ??= new ClientGone(e);
    wake?.();
  };
  const onClose = () => {
    if (!ended) onError(new Error('aborted'));
  };
  req.on('data', onData);
  req.on('end', onEnd);
  req.on('error', onError);
  req.on('close', onClose);
  try {
    for (;;) {
      if (queue.length > 0) {
        yield queue.shift()!;
        continue;
      }
      if (failed) throw failed;
      if (ended) return;
      await new Promise<void>((resolve) => {
        wake = resolve;
        req.resume();
      });
      wake = undefined;
    }
  } finally {
    req.removeListener('data', onData);
    req.removeListener('end', onEnd);
    req.removeListener('error', onError);
    req.removeListener('close', onClose);
    if (!ended) req.pause();
  }
}
