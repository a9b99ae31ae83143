/**
 * What the dispatcher needs from a request and what it produces, so the Node adapter can serve our own
 * handler without building a Fetch `Request` and `Response` per call (both cost more than the routing).
 */
import type { RequestHead } from './head.js';

/** A request as the dispatcher reads it: a Fetch Request or a Node IncomingMessage behind it. */
export interface IncomingLike {
  /** Upper-case method. */
  readonly method: string;
  /** The request target as the client sent it: a path and query (`/v3/blogs/1?view=ADMIN`), an absolute URL or `*`. */
  readonly target: string;
  /** A header value (lower-case name), or null. */
  header(name: string): string | null;
  /** Whether the request has a body at all (whatever its method). */
  hasBody(): boolean;
  /**
   * Reads the whole body, throwing 413 as soon as it passes `maxBytes`, and `ClientGone` when the body
   * cannot be read to its end (the client hung up, or sent a malformed chunk).
   */
  readBody(maxBytes: number): Promise<Uint8Array>;
  /**
   * The body as it arrives, a piece at a time, for uploads that are streamed through rather than read whole
   * (media). Pulled at the reader's pace; a hang-up throws `ClientGone`; leaving early reads no further.
   */
  bodyStream(): AsyncIterable<Uint8Array>;
  /** Method, URL and headers for `authenticate` and `onError`. */
  head(): RequestHead;
  /** The address of the connection (the Node adapter's socket); absent on the Fetch path. */
  readonly peer?: string | undefined;
}

/** A request body that could not be read to its end: the client's failure, never logged as the server's. */
export class ClientGone extends Error {
  constructor(cause: unknown) {
    super('The request body could not be read to its end', { cause });
  }
}

/** A response as the dispatcher produces it. */
export interface Outgoing {
  status: number;
  headers: Record<string, string>;
  /** The body (text, or bytes already encoded); null for 204, 304, HEAD, and a streamed body. */
  text: string | Uint8Array<ArrayBuffer> | null;
  /**
   * A prepared header block (a kept answer's, src/http/kept.ts): `headers` and content-length as a flat
   * [name, value, …] list, written by the Node adapter as it is.
   */
  head?: readonly string[];
  /** A body streamed as it is read (media bytes), instead of `text`. */
  body?: ReadableStream<Uint8Array>;
  /** A 404 for a path outside the base path: an Express-style adapter passes it to `next()`. */
  notMine?: boolean;
  /** The client is gone: there is nobody to answer. */
  gone?: boolean;
}

export type Dispatch = (incoming: IncomingLike) => Promise<Outgoing>;

/** The dispatcher behind each handler `createHttpHandler` (or blogcore/site's `createSite`) returned, found by `toNodeHandler`. */
export const dispatchers = new WeakMap<(request: Request) => Promise<Response | null>, Dispatch>();

/**
 * An answer the Node adapter can send at once, without a promise (a kept one, src/http/index.ts `keptNow`): given
 * a GET without a body, its target as sent and its headers; undefined sends it through the dispatcher.
 */
export type AnswerNow = (
  target: string,
  headers: Readonly<Record<string, string | string[] | undefined>>,
) => Outgoing | undefined;

/** The `AnswerNow` of a handler that has one, found by `toNodeHandler`. */
export const answersNow = new WeakMap<(request: Request) => Promise<Response | null>, AnswerNow>();
