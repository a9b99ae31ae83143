/** Crockford's base32, the ULID alphabet: digits then letters without I, L, O and U, so ids sort as strings. */
const B32 = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

// The last id's time and its 16 random base32 digits (80 bits from Web Crypto, in browsers and Node >= 20 alike).
let lastTime = 0;
const digits = new Uint8Array(16);

/**
 * A ULID (https://github.com/ulid/spec) for a record made at `now`: 10 characters of milliseconds, 16 random.
 * Monotonic: an id made in the same millisecond as the last one (or an earlier one, when the clock steps back)
 * keeps the last time and adds one to its random part, so it still sorts after it.
 */
export function newId(now: Date): string {
  let t = now.getTime() || Date.now();
  if (!(t > 0 && t < 2 ** 48)) throw new RangeError(`ULID time out of range: ${t}`);
  if (t <= lastTime) {
    t = lastTime;
    let i = 15;
    while (digits[i] === 31) digits[i--] = 0;
    // All 2^80 random parts of this millisecond used up: go on in the next one.
    if (i < 0) t++;
    else digits[i]!++;
  }
  if (t > lastTime) {
    lastTime = t;
    globalThis.crypto.getRandomValues(digits);
    for (let i = 0; i < 16; i++) digits[i]! &= 31;
  }
  let id = '';
  for (let i = 0; i < 10; i++, t = Math.floor(t / 32)) id = B32[t % 32] + id;
  for (const d of digits) id += B32[d];
  return id;
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
