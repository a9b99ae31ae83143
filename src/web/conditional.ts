/** Conditional requests (RFC 9110 §13): whether a client's copy is current, so the answer is a 304. */

/** RFC 9110 weak comparison of an If-None-Match list against the current etag. */
export function etagMatches(header: string | null, etag: string): boolean {
  if (header === null) return false;
  const trimmed = header.trim();
  if (trimmed === '*') return true;
  const strip = (t: string) => (t.startsWith('W/') ? t.slice(2) : t);
  const want = strip(etag);
  return trimmed.split(',').some((t) => strip(t.trim()) === want);
}
