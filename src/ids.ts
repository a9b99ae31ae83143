import { monotonicFactory } from 'ulid';

/**
 * Random numbers for ULIDs from the Web Crypto API (browsers and Node >= 20 alike), drawn 256 bytes at a
 * time: the factory asks for one number per character, 16 per id.
 */
const bytes = new Uint8Array(256);
let next = bytes.length;
function random(): number {
  if (next === bytes.length) {
    globalThis.crypto.getRandomValues(bytes);
    next = 0;
  }
  return bytes[next++]! / 256;
}

const ulid = monotonicFactory(random);

/** A ULID for a record made at `now`: sorts by time, and ids made in one millisecond (or an earlier one) keep increasing. */
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
