/** A web ReadableStream as an async iterable of its pieces; a reader that leaves early cancels it (reads no further). */
export async function* piecesOfStream<T>(stream: ReadableStream<T>): AsyncGenerator<T> {
  const reader = stream.getReader();
  let ended = false;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) {
        ended = true;
        return;
      }
      yield value;
    }
  } finally {
    if (!ended) await reader.cancel().catch(() => undefined);
  }
}

/** Pieces as one array of bytes (`total` their length); a single piece is handed back as it is, not copied. */
export function concat(
  pieces: readonly Uint8Array[],
  total = pieces.reduce((n, p) => n + p.byteLength, 0),
): Uint8Array {
  if (pieces.length === 1) return pieces[0]!;
  const out = new Uint8Array(total);
  let at = 0;
  for (const p of pieces) {
    out.set(p, at);
    at += p.byteLength;
  }
  return out;
}
