/**
 * The options of comments from the public (docs/design.md §25) as `createBlogService` takes them, and their
 * check (on the first comment written, and when the HTTP helper is made: kept out of a browser's first download). The rules that use them are src/rules/comments.ts, which
 * loads with the first comment written; this much is read at start.
 */
import type { Role } from '../schema/schemas.js';

/** `commentLimits` of createBlogService: how often comments may come (ADMINs and AUTHORs are never limited). */
export interface CommentLimits {
  /** Anonymous comments per client address: one every `everySeconds`, at most `burst` at once. Default 15 s, 3. */
  anonymous?: { everySeconds: number; burst: number };
  /** Signed-in readers (READERs and non-members): at most `perMinute` per user. Default 30. */
  reader?: { perMinute: number };
  /**
   * Count in the store as well as in memory, so several app servers on one store share one limit per address
   * and user (one more read, and one counter write with each accepted comment). Default false: each process
   * counts alone, and N app servers admit up to N times the limit.
   */
  shared?: boolean;
}

/** What `checkComment` answers: publish it (LIVE), keep it for moderation (PENDING), or file it as SPAM. */
export type CommentVerdict = 'ham' | 'pending' | 'spam';

/** The comment `checkComment` is asked about (its content already sanitized). */
export interface CommentToCheck {
  blogId: string;
  postId: string;
  /** The comment's HTML as it will be stored. */
  content: string;
  author: { displayName: string; url?: string; id?: string };
  inReplyTo?: string;
}

/** Where a comment comes from, for `checkComment` (an Akismet-like service wants all of it). */
export interface CommentCheckContext {
  blog: { id: string; name: string; url: string };
  post: { id: string; title: string; url?: string };
  /** The caller's role in the blog (null: anonymous or not a member). */
  role: Role | null;
  clientAddress?: string;
  userAgent?: string;
  referrer?: string;
  /** Aborted when `checkCommentTimeoutMs` has passed: the comment then stays PENDING. */
  signal: AbortSignal;
}

export type CheckComment = (
  comment: CommentToCheck,
  context: CommentCheckContext,
) => CommentVerdict | Promise<CommentVerdict>;

/** The service options of comments from the public (docs/design.md §25), as `createBlogService` takes them. */
export interface CommentOptions {
  /**
   * How often comments may come (docs/comments.md): anonymous ones at most one per 15 s per client address
   * (a burst of 3), signed-in readers 30 a minute; AUTHORs and ADMINs never. Beyond: 429 `rateLimitExceeded`.
   */
  commentLimits?: CommentLimits;
  /** Anonymous PENDING and SPAM comments a blog holds at most; past it anonymous comments get 429. Default 10,000. */
  maxPendingComments?: number;
  /** A comment with more links than this is SPAM. Default 2. */
  maxCommentLinks?: number;
  /** Words (or phrases) that make a comment SPAM in every blog, beside each blog's own list. Default none. */
  disallowedCommentWords?: readonly string[];
  /** Asks a service (Akismet-like) about each comment from outside the blog's AUTHORs and ADMINs. */
  checkComment?: CheckComment;
  /** How long `checkComment` may take before the comment stays PENDING (ms). Default 2,000. */
  checkCommentTimeoutMs?: number;
}

/**
 * The comment options checked, so a host's mistake is a TypeError (on the first comment written, or when the
 * HTTP helper is made) rather than a wrong limit; their defaults are applied where they are used (COMMENT_DEFAULTS, src/rules/comments.ts).
 */
export function commentOptionsOf(o: CommentOptions): CommentOptions {
  const { anonymous: a, reader: r } = o.commentLimits ?? {};
  const count = (n: unknown) => n === undefined || (Number.isInteger(n) && (n as number) >= 0);
  if (
    (a && !(a.everySeconds > 0 && a.burst > 0)) ||
    (r && !(r.perMinute > 0)) ||
    ![o.maxPendingComments, o.maxCommentLinks, o.checkCommentTimeoutMs].every(count) ||
    (o.checkComment !== undefined && typeof o.checkComment !== 'function') ||
    (o.disallowedCommentWords !== undefined && !Array.isArray(o.disallowedCommentWords))
  )
    throw new TypeError('Invalid comment options: limits > 0, counts integers ≥ 0 (docs/comments.md)');
  return o;
}
