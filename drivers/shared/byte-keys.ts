/**
 * Index keys as order-preserving byte strings, so the memcmp order of SQLite's BLOB and PostgreSQL's bytea
 * columns equals `compareKeys` (src/store/driver.ts) exactly; and a range query as bytes. Both SQL drivers
 * use this file.
 *
 * Each key part is written one UTF-16 code unit at a time in the UTF-8 byte layout (a surrogate is
 * written as its own 3-byte sequence, as in CESU-8), then a 0x00 terminator. Code units 0x00 and 0x01
 * are escaped as 0x01 0x01 and 0x01 0x02. This keeps JavaScript's code-unit order even where plain
 * UTF-8 would not (astral characters vs U+E000–U+FFFF), and a part that is a prefix of another sorts
 * first, as does a shorter tuple. For the usual text (no surrogates, no U+0000/U+0001) the bytes are
 * plain UTF-8, so encoding and decoding take Node's native fast path.
 */
import type { RangeQuery } from '../../src/store/driver.js';

const SPECIAL = /[\0\x01\uD800-\uDFFF]/;

/** Greater than every encoded key: 0xFF never occurs in one. */
export const AFTER_ALL: Buffer = Buffer.from([0xff]);
export const EMPTY: Buffer = Buffer.alloc(0);

export function encodeKey(key: readonly string[]): Buffer {
  let s = '';
  for (const part of key) {
    if (SPECIAL.test(part)) return encodeSlow(key);
    s += `${part}\0`;
  }
  return Buffer.from(s, 'utf8');
}

function encodeSlow(key: readonly string[]): Buffer {
  const out: number[] = [];
  for (const part of key) {
    for (let i = 0; i < part.length; i++) {
      const c = part.charCodeAt(i);
      if (c === 0) out.push(1, 1);
      else if (c === 1) out.push(1, 2);
      else if (c < 0x80) out.push(c);
      else if (c < 0x800) out.push(0xc0 | (c >> 6), 0x80 | (c & 63));
      else out.push(0xe0 | (c >> 12), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
    }
    out.push(0);
  }
  return Buffer.from(out);
}

export function decodeKey(buf: Buffer): string[] {
  // The usual key: plain UTF-8 parts (no escape, no surrogate or U+D000–U+D7FF lead byte), decoded at once.
  if (buf.indexOf(1) < 0 && buf.indexOf(0xed) < 0) return partsOf(buf.toString('utf8'));
  const parts: string[] = [];
  let start = 0;
  while (start < buf.length) {
    const end = buf.indexOf(0, start);
    const esc = buf.indexOf(1, start);
    const sur = buf.indexOf(0xed, start);
    // 0xED also leads U+D000–U+D7FF, which plain UTF-8 decodes the same way; the slow path handles both.
    parts.push(
      (esc >= 0 && esc < end) || (sur >= 0 && sur < end)
        ? decodeSlow(buf, start, end)
        : buf.toString('utf8', start, end),
    );
    start = end + 1;
  }
  return parts;
}

/**
 * A key as a SQL driver hands it out: the text of a plain key (SQLite's `keyColumn`) or its bytes. Text costs a
 * JS string where bytes cost a Buffer with an ArrayBuffer of its own per row, whose allocation and sweeping were
 * a third of a list page's time at 1M posts.
 */
export const keyOf = (v: string | Buffer): string[] => (typeof v === 'string' ? partsOf(v) : decodeKey(v));

/** The parts of a plain key's text: each ends with its 0x00 terminator. */
function partsOf(text: string): string[] {
  const parts = text.split('\0');
  parts.pop();
  return parts;
}

/** The bytes of a key `keyOf` reads, to bind again as a bound (a walk's next chunk). */
export const keyBytes = (v: string | Buffer): Buffer => (typeof v === 'string' ? Buffer.from(v, 'utf8') : v);

function decodeSlow(buf: Buffer, start: number, end: number): string {
  const units: number[] = [];
  for (let i = start; i < end; ) {
    const b = buf[i]!;
    if (b === 1) {
      units.push(buf[i + 1]! - 1);
      i += 2;
    } else if (b < 0x80) {
      units.push(b);
      i += 1;
    } else if (b < 0xe0) {
      units.push(((b & 0x1f) << 6) | (buf[i + 1]! & 63));
      i += 2;
    } else {
      units.push(((b & 0x0f) << 12) | ((buf[i + 1]! & 63) << 6) | (buf[i + 2]! & 63));
      i += 3;
    }
  }
  let s = '';
  for (let i = 0; i < units.length; i += 4096) s += String.fromCharCode(...units.slice(i, i + 4096));
  return s;
}

/** The smallest byte string above every key that starts with the encoded, non-empty tuple `prefix`. */
export function prefixEnd(prefix: Buffer): Buffer {
  if (prefix.length === 0) return AFTER_ALL;
  const end = Buffer.from(prefix);
  end[end.length - 1] = 1; // an encoded tuple ends with its 0x00 terminator
  return end;
}

/** A key range as bytes: rows with `from <lower> key AND key <upper> to`. */
export interface ByteRange {
  lower: '>=' | '>';
  from: Buffer;
  upper: '<=' | '<';
  to: Buffer;
}

/** The byte range of a range query (prefix, bounds on the rest of the key), for SQL on the encoded keys. */
export function byteRange(q: Pick<RangeQuery, 'prefix' | 'lower' | 'upper'>): ByteRange {
  const prefix = q.prefix.length ? encodeKey(q.prefix) : EMPTY;
  const lower = q.lower?.open ? '>' : '>=';
  const from = q.lower ? encodeKey([...q.prefix, ...q.lower.key]) : prefix;
  // A closed upper bound admits the bound key itself but not longer keys it prefixes: `<=` on bytes does that.
  const upper = q.upper ? (q.upper.open ? '<' : '<=') : '<';
  const to = q.upper ? encodeKey([...q.prefix, ...q.upper.key]) : q.prefix.length ? prefixEnd(prefix) : AFTER_ALL;
  return { lower, from, upper, to };
}
