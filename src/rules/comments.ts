/**
 * The rules of comments from the public (docs/design.md §25): who is limited and how fast, what counts as a
 * link, which words send a comment to SPAM, and what a duplicate is. Pure functions of their inputs; the
 * counters live in src/core/comment-gate.ts, the checks run in src/resources/comment-admission.ts.
 */
import type { Role } from '../schema/schemas.js';
import type { CommentLimits, CommentVerdict } from './comment-options.js';
import { BlogError } from '../util/errors.js';
import { limitsComments } from './access.js';
import { v6 } from '../util/addresses.js';
import { hasPhrase, htmlToText, words } from './text.js';

/** The defaults of the comment options, and the rules' own constants. */
export const COMMENT_DEFAULTS = {
  anonymous: { everySeconds: 15, burst: 3 },
  reader: { perMinute: 30 },
  maxPendingComments: 10_000,
  maxCommentLinks: 2,
  checkCommentTimeoutMs: 2_000,
  /** Spam, and the client address of any comment, are kept this long. */
  keepDays: 30,
  /** The same text from the same author or address on the same post within this is a duplicate. */
  duplicateMs: 3_600_000,
} as const;

/** The state a comment starts in by `checkComment`'s verdict: ham is published, spam is SPAM, else PENDING. */
export const statusOfVerdict = (v: CommentVerdict): 'LIVE' | 'PENDING' | 'SPAM' =>
  v === 'ham' ? 'LIVE' : v === 'spam' ? 'SPAM' : 'PENDING';

/** 429: too many comments too fast ; try again in `retryAfter` seconds. */
export const rateLimited = (message: string, retryAfter: number) =>
  new BlogError({ code: 429, reason: 'rateLimitExceeded', message, retryAfter });

/** The 429 of a comment over its limit: try again in `retryAfter` seconds. */
export const tooManyComments = (retryAfter: number) =>
  rateLimited(`Too many comments: try again in ${retryAfter} s`, retryAfter);

/** A token bucket: `capacity` at most, one token back every `refillMs`. */
export interface Rate {
  capacity: number;
  refillMs: number;
}

/** A bucket's state: tokens left at `at` (ms). A key with no bucket is full. */
export interface Bucket {
  tokens: number;
  at: number;
}

/**
 * Who a comment is counted against, and how fast they may go: anonymous callers by client address (none known:
 * not limited), READERs and signed-in non-members by user; AUTHORs, ADMINs and host code never.
 */
export function commentRate(
  caller: { kind: 'host' | 'user' | 'anonymous'; userId?: string; role: Role | null },
  clientAddress: string | undefined,
  limits: CommentLimits | undefined,
): { key: string; rate: Rate } | undefined {
  if (caller.kind === 'host' || !limitsComments(caller.role)) return undefined;
  if (caller.kind === 'user') {
    const perMinute = limits?.reader?.perMinute ?? COMMENT_DEFAULTS.reader.perMinute;
    return { key: `u:${caller.userId}`, rate: { capacity: perMinute, refillMs: 60_000 / perMinute } };
  }
  if (clientAddress === undefined) return undefined;
  const a = limits?.anonymous ?? COMMENT_DEFAULTS.anonymous;
  return { key: `a:${addressKey(clientAddress)}`, rate: { capacity: a.burst, refillMs: a.everySeconds * 1000 } };
}

/** The limit key of an address: IPv6 by its /64 (what one subscriber gets), IPv4 as it is. */
export function addressKey(address: string): string {
  const groups = address.includes(':') ? v6(address) : undefined;
  return groups
    ? `${groups
        .slice(0, 4)
        .map((g) => g.toString(16))
        .join(':')}::/64`
    : address;
}

/**
 * Takes one token from a bucket at `now` (ms). Answers the bucket after, or how many seconds until a token is
 * back (the 429's Retry-After).
 */
export function takeToken(
  bucket: Bucket | undefined,
  rate: Rate,
  now: number,
): { ok: true; bucket: Bucket } | { ok: false; retryAfter: number } {
  const tokens = refill(bucket, rate, now);
  if (tokens >= 1) return { ok: true, bucket: { tokens: tokens - 1, at: now } };
  // (Whole milliseconds first: 5.000000001 s is a wait of 5.)
  return { ok: false, retryAfter: Math.max(1, Math.ceil(Math.round((1 - tokens) * rate.refillMs) / 1000)) };
}

/** The tokens a bucket holds at `now`. */
export function refill(bucket: Bucket | undefined, rate: Rate, now: number): number {
  if (!bucket) return rate.capacity;
  return Math.min(rate.capacity, bucket.tokens + Math.max(0, now - bucket.at) / rate.refillMs);
}

/** When a bucket is full again (ms): a counter kept after that holds nothing. */
export const fullAt = (bucket: Bucket, rate: Rate) => bucket.at + (rate.capacity - bucket.tokens) * rate.refillMs;

const ANCHOR = /<a\b[^>]*>[\s\S]*?(?:<\/a\s*>|$)/gi;
const BARE_URL = /\b(?:https?:\/\/|www\.)[^\s<>"']+/gi;

/** The links of a comment's HTML: each `<a>`, and each address written out in the text beside them. */
export function countLinks(html: string): number {
  let anchors = 0;
  const rest = html.replace(ANCHOR, () => {
    anchors++;
    return ' ';
  });
  return anchors + (htmlToText(rest).match(BARE_URL)?.length ?? 0);
}

/**
 * The first entry of `disallowed` found in the comment's text, author name or url (whole words, case and accents
 * aside; an entry of several words matches them in a row), or undefined.
 */
export function disallowedWord(
  comment: { content: string; authorName?: string | undefined; authorUrl?: string | undefined },
  disallowed: readonly string[],
): string | undefined {
  if (disallowed.length === 0) return undefined;
  const fields = [words(htmlToText(comment.content)), words(comment.authorName ?? ''), words(comment.authorUrl ?? '')];
  for (const entry of disallowed) {
    const phrase = words(entry);
    if (phrase.length > 0 && hasPhrase(fields, phrase)) return entry;
  }
  return undefined;
}

/** SPAM by its content alone: too many links, or a disallowed word. */
export function spamByContent(
  comment: { content: string; authorName?: string | undefined; authorUrl?: string | undefined },
  maxLinks: number,
  disallowed: readonly string[],
): boolean {
  return countLinks(comment.content) > maxLinks || disallowedWord(comment, disallowed) !== undefined;
}

/** What two comments must share to be duplicates: their text, words only (markup, case and spacing aside). */
export const sameText = (a: string, b: string) => words(htmlToText(a)).join(' ') === words(htmlToText(b)).join(' ');
