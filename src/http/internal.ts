/**
 * What the dispatcher needs from a request and what it produces, so the Node adapter can serve our own
 * handler without building a Fetch `Request` and `Response` per call (both cost more than the routing).
 */

/** A request as the dispatcher reads it: a Fetch Request or a Node IncomingMessage behind it. */
export interface IncomingLike {
  /** Upper-case method. */
  method: string;
  /** The request target: path and query (`/v3/blogs/1?view=ADMIN`), as the client sent it. */
  target: string;
  /** A header value (lower-case name), or null. */
  header(name: string): string | null;
  /** Whether the request has a body at all. */
  hasBody(): boolean;
  /** Reads the whole body, throwing 413 as soon as it passes `maxBytes`. */
  readBody(maxBytes: number): Promise<Uint8Array>;
  /** The Fetch Request for `authenticate` (built on first use by the Node adapter). */
  request(): Request;
}

/** A response as the dispatcher produces it. */
export interface Outgoing {
  status: number;
  headers: Record<string, string>;
  /** The body text; null for 204, 304 and HEAD. */
  text: string | null;
  /** A 404 for a path outside the base path: an Express-style adapter passes it to `next()`. */
  notMine?: boolean;
}

export type Dispatch = (incoming: IncomingLike) => Promise<Outgoing>;

/** The dispatcher behind each handler `createHttpHandler` returned, found by `toNodeHandler`. */
export const dispatchers = new WeakMap<(request: Request) => Promise<Response>, Dispatch>();
