/** ULIDs: 48-bit time + 80 random bits in Crockford base32, monotonic within one millisecond. */
const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

let lastTime = -1;
let lastRandom: number[] = [];

function randomDigits(): number[] {
  const bytes = new Uint8Array(16);
  globalThis.crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b & 31);
}

export function newId(now: Date): string {
  let t = now.getTime();
  let random: number[];
  if (t <= lastTime) {
    // Same (or an earlier, injected) millisecond: keep the last time and add one to the random part so ids stay ordered.
    t = lastTime;
    random = [...lastRandom];
    for (let i = random.length - 1; i >= 0; i--) {
      if (random[i]! < 31) {
        random[i]!++;
        break;
      }
      random[i] = 0;
    }
  } else {
    random = randomDigits();
  }
  lastTime = t;
  lastRandom = random;
  let time = '';
  for (let i = 0; i < 10; i++) {
    time = ALPHABET[t % 32]! + time;
    t = Math.floor(t / 32);
  }
  return time + random.map((d) => ALPHABET[d]).join('');
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
