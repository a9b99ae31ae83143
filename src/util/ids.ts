import { monotonicFactory } from 'ulid';

/**
 * Record ids are ULIDs (https://github.com/ulid/spec) from the `ulid` package: 10 characters of milliseconds,
 * 16 random. Monotonic: an id made in the same millisecond as the last one (or an earlier one, when the clock
 * steps back) keeps the last time and adds one to its random part, so it still sorts after it. One factory per
 * realm, so every service in it shares the order.
 */
const ulid = monotonicFactory(pooledRandom());

/**
 * Fractions in [0, 1) from the platform's cryptographic source, 256 bytes at a time: ulid asks for one per
 * character, and one `getRandomValues` call per character was a visible share of a busy server's time.
 */
function pooledRandom(): () => number {
  const pool = new Uint8Array(256);
  let at = pool.length;
  return () => {
    if (at === pool.length) {
      globalThis.crypto.getRandomValues(pool);
      at = 0;
    }
    return pool[at++]! / 256;
  };
}

/** A ULID for a record made at `now` (the core's clock, so an injected `now` sets the time part). */
export function newId(now: Date): string {
  return ulid(now.getTime());
}

/** A short, stable, non-cryptographic hash (FNV-1a, 32 bit) in base 36: for etags and query fingerprints. */
export function shortHash(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0).toString(36);
}
