/** What `importBlog` reads: text, bytes, a web stream or any async iterable of chunks, as UTF-8 text chunks. */
import { BlogError } from '../util/errors.js';

export type ImportSource =
  | string
  | Uint8Array
  | ReadableStream<Uint8Array | string>
  | AsyncIterable<string | Uint8Array>;

/** Text chunks of the source, decoded as UTF-8 across chunk borders; `bytes` counts what was read so far. */
export async function* textChunks(source: ImportSource, counter: { bytes: number }): AsyncGenerator<string> {
  const decoder = new TextDecoder('utf-8');
  const text = (chunk: unknown): string => {
    if (typeof chunk === 'string') {
      counter.bytes += chunk.length;
      return chunk;
    }
    if (chunk instanceof Uint8Array) {
      counter.bytes += chunk.byteLength;
      return decoder.decode(chunk, { stream: true });
    }
    throw new BlogError({
      code: 400,
      reason: 'invalid',
      message: 'The import source must yield strings or Uint8Array chunks',
      location: 'source',
      locationType: 'parameter',
    });
  };
  if (typeof source === 'string') {
    // Large strings are handed on in slices so the parsers' progress and memory stay even.
    for (let i = 0; i < source.length; i += 1 << 16) yield text(source.slice(i, i + (1 << 16)));
    return;
  }
  if (source instanceof Uint8Array) {
    for (let i = 0; i < source.byteLength; i += 1 << 16) yield text(source.subarray(i, i + (1 << 16)));
  } else if (isReadableStream(source)) {
    const reader = source.getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        yield text(value);
      }
    } finally {
      reader.releaseLock();
    }
  } else if (source && typeof (source as AsyncIterable<unknown>)[Symbol.asyncIterator] === 'function') {
    for await (const chunk of source as AsyncIterable<unknown>) yield text(chunk);
  } else {
    throw new BlogError({
      code: 400,
      reason: 'invalid',
      message: 'The import source must be a string, a Uint8Array, a ReadableStream or an AsyncIterable of chunks',
      location: 'source',
      locationType: 'parameter',
    });
  }
  const rest = decoder.decode();
  if (rest) yield rest;
}

function isReadableStream(x: unknown): x is ReadableStream<Uint8Array | string> {
  return typeof x === 'object' && x !== null && typeof (x as ReadableStream).getReader === 'function';
}

/** Takes the first chunks until `n` characters are seen; returns them and an iterator that replays them first. */
export async function peek(
  chunks: AsyncIterator<string>,
  n: number,
): Promise<{ head: string; rest: AsyncIterable<string> }> {
  const seen: string[] = [];
  let head = '';
  while (head.length < n) {
    const next = await chunks.next();
    if (next.done) break;
    seen.push(next.value);
    head += next.value;
  }
  return {
    head,
    rest: {
      async *[Symbol.asyncIterator]() {
        yield* seen;
        for (;;) {
          const next = await chunks.next();
          if (next.done) return;
          yield next.value;
        }
      },
    },
  };
}
