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
