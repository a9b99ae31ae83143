/**
 * What a comment from the public goes through before it is stored (docs/design.md §25): the limits (in memory
 * first, so a flood is refused before anything is read; then the store's counter with `commentLimits.shared`),
 * the blog's room for held comments, duplicates, the content rules and the host's `checkComment`. The rules
 * themselves are src/rules/comments.ts; this file reads what they need and turns their answers into errors.
 */
import type { Core } from '../core/core.js';
import type { Actor } from '../rules/access.js';
import {
  type Bucket,
  COMMENT_DEFAULTS,
  commentRate,
  fullAt,
  type Rate,
  sameText,
  spamByContent,
  statusOfVerdict,
  rateLimited,
  takeToken,
  tooManyComments,
} from '../rules/comments.js';
import type { CheckComment, CommentCheckContext, CommentToCheck } from '../rules/comment-options.js';
import type { CommentStatus, Role } from '../schema/schemas.js';
import { put, whoOf, type BlogRecord, type LimitRecord } from '../store/records.js';
import { CommentGate } from '../core/comment-gate.js';
import type { WriteOp } from '../store/driver.js';
import { BlogError } from '../util/errors.js';

/** A comment let through the limits: its key and rate, and how to undo the count if it is refused after all. */
export interface Admitted {
  key: string;
  rate: Rate;
  giveBack: () => void;
}

/**
 * The caller's limit, counted in this process's memory: undefined when the caller is not limited (host code,
 * AUTHORs and ADMINs, an anonymous caller with no address), else the admission; 429 when the bucket is empty.
 * Reads nothing from the store.
 */
export function admit(
  core: Core,
  actor: Actor,
  role: Role | null,
  clientAddress: string | undefined,
): Admitted | undefined {
  const limit = commentRate(
    { kind: actor.kind, ...(actor.kind === 'user' ? { userId: actor.userId } : {}), role },
    clientAddress,
    core.commentOptions.commentLimits,
  );
  if (!limit) return undefined;
  const taken = (core.commentGate ??= new CommentGate()).take(limit.key, limit.rate, core.now().getTime());
  if (!taken.ok) throw tooManyComments(taken.retryAfter);
  return { ...limit, giveBack: taken.giveBack };
}

/**
 * With `commentLimits.shared`: the store's bucket of the same key, taken in the comment's own commit (a
 * conflict there means another server counted meanwhile, and the write reads again). Refused: this process's
 * bucket follows the store's, so the next refusal needs no read.
 */
export async function sharedLimit(core: Core, admitted: Admitted | undefined): Promise<WriteOp[]> {
  if (!admitted || !core.commentOptions.commentLimits?.shared) return [];
  const now = core.now().getTime();
  const id = `comment:${admitted.key}`;
  const found = await core.driver.get('limits', id);
  const kept: Bucket | undefined = found ? { tokens: found.doc.tokens, at: found.doc.at } : undefined;
  const taken = takeToken(kept, admitted.rate, now);
  if (!taken.ok) {
    if (kept) (core.commentGate ??= new CommentGate()).follow(admitted.key, admitted.rate, kept);
    throw tooManyComments(taken.retryAfter);
  }
  const record: LimitRecord = {
    id,
    ...taken.bucket,
    expires: new Date(fullAt(taken.bucket, admitted.rate)).toISOString(),
  };
  return [put('limits', record, found?.version ?? 0)];
}

/** An anonymous comment finds no room: the blog holds `maxPendingComments` anonymous PENDING and SPAM already. */
export async function requireRoom(core: Core, blogId: string): Promise<void> {
  const max = core.commentOptions.maxPendingComments ?? COMMENT_DEFAULTS.maxPendingComments;
  const held = await core.driver.count({ collection: 'comments', index: 'held', prefix: [blogId] });
  if (held >= max) throw rateLimited('This blog holds too many comments awaiting moderation: try again later', 3600);
}

/** Comments of one author or address looked at for a duplicate, per status: a bounded read. */
const DUPLICATE_WINDOW = 20;

/** 409 when the same author or address said the same on the same post within the hour. */
export async function refuseDuplicate(
  core: Core,
  c: { blogId: string; postId: string; content: string; authorId?: string; clientAddress?: string },
): Promise<void> {
  const who = whoOf(c);
  if (who === undefined) return;
  const since = new Date(core.now().getTime() - COMMENT_DEFAULTS.duplicateMs).toISOString();
  for (const status of ['PENDING', 'LIVE', 'SPAM'] as const) {
    const recent = await core.driver.list({
      collection: 'comments',
      index: 'who',
      prefix: [c.blogId, who, status],
      lower: { key: [since] },
      direction: 'desc',
      limit: DUPLICATE_WINDOW,
    });
    if (recent.some((h) => h.doc.postId === c.postId && sameText(h.doc.content, c.content)))
      throw new BlogError({
        code: 409,
        reason: 'conflict',
        message: 'Duplicate comment: the same was said on this post within the hour',
        location: 'body.content',
        locationType: 'body',
      });
  }
}

/**
 * The state a comment from outside the blog's AUTHORs and ADMINs starts in: SPAM by its content (links,
 * disallowed words of the service and the blog), else what `checkComment` answers within its time, else `held`.
 */
export async function judge(
  core: Core,
  blog: BlogRecord,
  held: CommentStatus,
  comment: CommentToCheck & { authorName?: string; authorUrl?: string },
  context: Omit<CommentCheckContext, 'signal'>,
): Promise<CommentStatus> {
  const o = core.commentOptions;
  const words = [...(o.disallowedCommentWords ?? []), ...(blog.disallowedCommentWords ?? [])];
  if (spamByContent(comment, o.maxCommentLinks ?? COMMENT_DEFAULTS.maxCommentLinks, words)) return 'SPAM';
  if (!o.checkComment) return held;
  const verdict = await ask(
    o.checkComment,
    comment,
    context,
    o.checkCommentTimeoutMs ?? COMMENT_DEFAULTS.checkCommentTimeoutMs,
  );
  return verdict === undefined ? held : statusOfVerdict(verdict);
}

/** The hook's answer within `ms`, or undefined (timed out, threw, or answered something else). */
async function ask(
  hook: CheckComment,
  comment: CommentToCheck,
  context: Omit<CommentCheckContext, 'signal'>,
  ms: number,
): Promise<'ham' | 'pending' | 'spam' | undefined> {
  const abort = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => {
      abort.abort(new Error('checkComment timed out'));
      resolve(undefined);
    }, ms);
  });
  try {
    const asked = Promise.resolve().then(() => hook(comment, { ...context, signal: abort.signal }));
    // A hook that fails after its time is up is nobody's error.
    asked.catch(() => undefined);
    const v = await Promise.race([asked, late]);
    return v === 'ham' || v === 'pending' || v === 'spam' ? v : undefined;
  } catch {
    return undefined;
  } finally {
    clearTimeout(timer);
  }
}
