/** Reading a JSON request body without ever holding more than `maxBytes` of it. */
import { BlogError } from '../util/errors.js';
import { concat } from '../util/streams.js';
import { ClientGone, type IncomingLike } from './dispatch.js';

/** A JSON body that is not an object (an array, a string, null). */
export const notAnObject = () =>
  new BlogError({
    code: 400,
    reason: 'invalid',
    message: 'The request body must be a JSON object',
    location: 'body',
    locationType: 'body',
  });

export const tooLarge = (maxBytes: number) =>
  new BlogError({ code: 413, reason: 'requestTooLarge', message: `Request body larger than ${maxBytes} bytes` });

const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i;

/**
 * Reads the whole request body, on every route (a write never starts while its request is still arriving):
 * 413 over the limit (by Content-Length before reading, else while reading). With `json`, the parsed object
 * (undefined when there is no body): 415 for a non-JSON media type, 400 parseError for malformed JSON or
 * text that is not UTF-8, 400 invalid when the JSON is not an object. Without, the body is read and dropped.
 */
export async function readRequestBody(
  incoming: IncomingLike,
  maxBytes: number,
  json: boolean,
): Promise<Record<string, unknown> | undefined> {
  const declared = incoming.header('content-length');
  if (declared !== null && /^\d+$/.test(declared) && Number(declared) > maxBytes) throw tooLarge(maxBytes);
  if (!incoming.hasBody()) return undefined;
  if (json) {
    const type = incoming.header('content-type');
    if (type === null || !JSON_TYPE.test(type)) {
      throw new BlogError({
        code: 415,
        reason: 'unsupportedMediaType',
        message: `Unsupported media type ${JSON.stringify(type ?? '')}: send JSON with Content-Type: application/json`,
        location: 'Content-Type',
        locationType: 'header',
      });
    }
  }
  const bytes = await incoming.readBody(maxBytes);
  if (!json || bytes.byteLength === 0) return undefined;
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw parseError('Request body is not valid UTF-8');
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw parseError(`Invalid JSON payload: ${(e as Error).message}`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw notAnObject();
  }
  return value as Record<string, unknown>;
}

const parseError = (message: string) => new BlogError({ code: 400, reason: 'parseError', message });

/** A Fetch body stream, cancelled as soon as the total passes `maxBytes` (the crossing chunk is not kept). */
export async function readStreamLimited(stream: ReadableStream<Uint8Array>, maxBytes: number): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  let total = 0;
  // Leaving the loop (the throw) cancels the stream: streamOf's finally.
  for await (const value of streamOf(stream)) {
    total += value.byteLength;
    if (total > maxBytes) throw tooLarge(maxBytes);
    chunks.push(value);
  }
  return concat(chunks, total);
}

/** A Fetch body a piece at a time (none: no pieces); a broken stream is the client's `ClientGone`; leaving early cancels it. */
export async function* streamOf(stream: ReadableStream<Uint8Array> | null): AsyncGenerator<Uint8Array> {
  if (!stream) return;
  const reader = stream.getReader();
  let ended = false;
  try {
    for (;;) {
      let next: ReadableStreamReadResult<Uint8Array>;
      try {
        next = await reader.read();
      } catch (e) {
        throw new ClientGone(e);
      }
      if (next.done) {
        ended = true;
        return;
      }
      yield next.value;
    }
  } finally {
    if (!ended) await reader.cancel().catch(() => undefined);
  }
}

/** A Fetch Request as the dispatchers read it (the host from its URL when no Host header came with it). */
export function fetchIncoming(request: Request): IncomingLike {
  const url = new URL(request.url);
  return {
    method: request.method.toUpperCase(),
    target: url.pathname + url.search,
    header: (name) => request.headers.get(name) ?? (name === 'host' ? url.host : null),
    hasBody: () => request.body !== null,
    readBody: (maxBytes) =>
      request.body ? readStreamLimited(request.body, maxBytes) : Promise.resolve(new Uint8Array(0)),
    bodyStream: () => streamOf(request.body),
    head: () => request,
  };
}
