/**
 * Strings as PostgreSQL text. PostgreSQL text holds neither U+0000 nor lone surrogates (and Node would turn a
 * lone surrogate into U+FFFD on the way), so a string holding one — or starting with U+0001 or U+0002, the
 * escape marks — is stored as U+0001 + the hex of its UTF-16 code units. Ordinary strings are stored as they are.
 */

const SPECIAL = /^[\x01\x02]|[\0\uD800-\uDFFF]/;

export function pgText(s: string): string {
  if (!SPECIAL.test(s)) return s;
  let hex = '\x01';
  for (let i = 0; i < s.length; i++) hex += s.charCodeAt(i).toString(16).padStart(4, '0');
  return hex;
}

export function fromPgText(s: string): string {
  if (s.charCodeAt(0) !== 1) return s;
  let out = '';
  for (let i = 1; i < s.length; i += 4) out += String.fromCharCode(parseInt(s.slice(i, i + 4), 16));
  return out;
}

/**
 * Key parts and ids as text whose "C" collation order (UTF-8 bytes) is JavaScript's UTF-16 code-unit order
 * (`compareKeys`): every code unit from U+D800 up (surrogates, then U+E000–U+FFFF) is written as the code point
 * U+F0000 + (unit − 0xD800), above every other character and in unit order; U+0000 and U+0001 are escaped as
 * U+0001 U+0001 and U+0001 U+0002. Text without those characters — nearly all text, every ASCII id and time — is
 * stored as it is, so a person reading the tables sees the values.
 */
const KEY_SPECIAL = /[\0\x01\uD800-\uFFFF]/;
const KEY_STORED_SPECIAL = /[\x01\uD800-\uDFFF]/;

export function keyText(s: string): string {
  if (!KEY_SPECIAL.test(s)) return s;
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const u = s.charCodeAt(i);
    if (u === 0) out += '\x01\x01';
    else if (u === 1) out += '\x01\x02';
    else if (u >= 0xd800) out += String.fromCodePoint(0xf0000 + u - 0xd800);
    else out += s[i];
  }
  return out;
}

export function fromKeyText(s: string): string {
  if (!KEY_STORED_SPECIAL.test(s)) return s;
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const u = s.charCodeAt(i);
    if (u === 1) out += String.fromCharCode(s.charCodeAt(++i) - 1);
    else if (u >= 0xd800 && u <= 0xdbff) {
      out += String.fromCharCode(s.codePointAt(i)! - 0xf0000 + 0xd800);
      i++;
    } else out += s[i];
  }
  return out;
}

/**
 * A `text[]` parameter as PostgreSQL's array literal, made with one join: `pg` makes it element by element (two
 * replaces and a concatenation each), which for a post's ~170 search tokens was the largest allocation of its
 * commit (40 KB of the 190 KB an insert allocated).
 */
export function textArray(values: readonly string[]): string {
  if (values.length === 0) return '{}';
  if (!/["\\]/.test(values.join(''))) return `{"${values.join('","')}"}`;
  return `{${values.map((v) => `"${v.replace(/["\\]/g, '\\$&')}"`).join(',')}}`;
}

/** A double-quoted identifier. */
export const ident = (name: string): string => `"${name.replace(/"/g, '""')}"`;
