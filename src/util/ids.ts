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

/** FNV-1a, 32 bit, unsigned: a stable, non-cryptographic hash of a text. */
export function fnv1a(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/** A short hash in base 36 (FNV-1a): for etags and query fingerprints. */
export function shortHash(text: string): string {
  return fnv1a(text).toString(36);
}
