/**
 * Google's partial-response selector (`fields=`): `items(id,title),nextPageToken`, `author/displayName`,
 * `items/replies/totalItems`, `*`. A selection applies to every element of an array.
 */
import { BlogError } from '../util/errors.js';

/** name → sub-selection; `null` keeps the whole value. */
export type FieldMask = Map<string, FieldMask | null>;

const invalid = (message: string) =>
  new BlogError({
    code: 400,
    reason: 'invalid',
    message: `Invalid field selection: ${message}`,
    location: 'fields',
    locationType: 'parameter',
  });

/** Blogger resources nest a few levels deep; the limits keep a hostile selector's work (and recursion) small. */
const MAX_DEPTH = 12;
const MAX_NAMES = 200;

export function parseFields(text: string): FieldMask {
  let i = 0;
  let names = 0;
  const name = (): string => {
    if (++names > MAX_NAMES) throw invalid(`more than ${MAX_NAMES} names`);
    const start = i;
    while (i < text.length && /[A-Za-z0-9_$*.-]/.test(text[i]!)) i++;
    if (i === start) throw invalid(i < text.length ? `unexpected "${text[i]}" at ${i}` : 'unexpected end');
    const n = text.slice(start, i);
    if (n.includes('*') && n !== '*') throw invalid(`"${n}"`);
    return n;
  };
  /** `level`: how many names deep this list starts (bounds the recursion here and in merge/applyFields). */
  const list = (depth: number, level: number): FieldMask => {
    const mask: FieldMask = new Map();
    for (;;) {
      while (text[i] === ' ') i++;
      // One item: a/b/c, optionally followed by (sub-list).
      const path = [name()];
      while (text[i] === '/') {
        i++;
        path.push(name());
        if (level + path.length > MAX_DEPTH) throw invalid(`nested deeper than ${MAX_DEPTH} levels`);
      }
      let leaf: FieldMask | null = null;
      if (text[i] === '(') {
        i++;
        if (level + path.length >= MAX_DEPTH) throw invalid(`nested deeper than ${MAX_DEPTH} levels`);
        leaf = list(depth + 1, level + path.length);
        if (text[i] !== ')') throw invalid('missing ")"');
        i++;
      }
      let sub: FieldMask | null = leaf;
      for (let k = path.length - 1; k >= 1; k--) sub = new Map([[path[k]!, sub]]);
      merge(mask, path[0]!, sub);
      while (text[i] === ' ') i++;
      if (text[i] === ',') {
        i++;
        continue;
      }
      if (depth > 0 && text[i] === ')') return mask;
      if (depth === 0 && i === text.length) return mask;
      throw invalid(i < text.length ? `unexpected "${text[i]}" at ${i}` : 'missing ")"');
    }
  };
  return list(0, 0);
}

function merge(mask: FieldMask, key: string, sub: FieldMask | null): void {
  if (!mask.has(key)) {
    mask.set(key, sub);
    return;
  }
  const prev = mask.get(key)!;
  if (prev === null || sub === null) {
    mask.set(key, null);
    return;
  }
  for (const [k, v] of sub) merge(prev, k, v);
}

/** The parts of `value` the mask selects (a new value; the input is not changed). */
export function applyFields(value: unknown, mask: FieldMask): unknown {
  if (Array.isArray(value)) return value.map((v) => applyFields(v, mask));
  if (value === null || typeof value !== 'object') return undefined;
  const src = value as Record<string, unknown>;
  // Null prototype: a stored key named `__proto__` is copied as data, never as the prototype.
  const out: Record<string, unknown> = Object.create(null);
  const all = mask.get('*');
  if (all !== undefined) {
    for (const k of Object.keys(src)) if (!mask.has(k)) out[k] = all === null ? src[k] : applyFields(src[k], all);
  }
  for (const [k, sub] of mask) {
    if (k === '*' || !Object.hasOwn(src, k)) continue;
    const picked = sub === null ? src[k] : applyFields(src[k], sub);
    if (picked !== undefined) out[k] = picked;
  }
  return out;
}
