/** What a file's records become: stable ids, times as the core stores them, labels within the limits. */
import type { UserRecord } from '../service/store.js';
import { isHttpUrl, LIMITS } from '../schema/schemas.js';

const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

function fnv(text: string, seed: number): number {
  let h = seed >>> 0;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  // A final avalanche so close inputs differ in every bit.
  h ^= h >>> 15;
  h = Math.imul(h, 0x2c1b3c6d);
  h ^= h >>> 12;
  return h >>> 0;
}

/**
 * The id a record of the file gets: ULID-shaped (26 Crockford base32 characters, the first at most 7), all
 * of it a hash of where the record comes from (the blog and the file's own id for it). The same file always
 * gives the same ids, which is how a second run knows what the first one wrote, and how a comment finds the
 * post and the comment it answers before or after they are read.
 */
export function stableId(key: string): string {
  const words = [
    fnv(key, 0x811c9dc5),
    fnv(key, 0x01000193),
    fnv(key, 0x9e3779b9),
    fnv(key, 0x7f4a7c15),
    fnv(key, 0x2545f491),
    fnv(key, 0x6c8e9cf5),
  ];
  let id = ALPHABET[words[5]! & 7]!;
  for (let i = 0; i < 25; i++) id += ALPHABET[(words[i % 5]! >>> (5 * Math.floor(i / 5))) & 31];
  return id;
}

/** A time as the core stores it (UTC, milliseconds), or undefined for what is not a real date (`0000-00-00`). */
export function isoTime(text: string | undefined, assumeUtc = true): string | undefined {
  if (!text) return undefined;
  let s = text.trim();
  if (/^0000-00-00/.test(s) || s === '') return undefined;
  // WordPress writes "2019-04-01 10:00:00" (its _gmt fields in UTC).
  if (/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}(:\d{2})?$/.test(s)) s = `${s.replace(' ', 'T')}${assumeUtc ? 'Z' : ''}`;
  const ms = Date.parse(s);
  if (Number.isNaN(ms)) return undefined;
  const d = new Date(ms);
  if (d.getUTCFullYear() < 1 || d.getUTCFullYear() > 9999) return undefined;
  return d.toISOString();
}

/** Labels as the service keeps them: trimmed, distinct, within the limits. */
export function cleanLabels(labels: readonly string[]): string[] {
  const out = [...new Set(labels.map((l) => l.trim()).filter((l) => l && l.length <= LIMITS.label))];
  return out.slice(0, LIMITS.labels);
}

export const idFor = (blogId: string, kind: string, key: string) => stableId(`${blogId}|${kind}|${key}`);

/** An imported author as a user: the id a hash of the blog url and the author's key in the file. */
export function authorUser(blogUrl: string, key: string, displayName: string, url?: string): UserRecord {
  return {
    id: stableId(`${blogUrl}|user|${key}`),
    displayName: displayName || key,
    ...(url && isHttpUrl(url) ? { url } : {}),
    created: '',
  };
}

/**
 * A copy of a string that shares no memory with the text it was cut from. Strings the parser hands out may be
 * slices of a whole read chunk; one kept for the report (a redirect, a skip) would keep that chunk alive.
 */
export const own = (s: string): string => JSON.parse(JSON.stringify(s)) as string;
