/**
 * The state table of posts, pages and comments (docs/design.md §6): which moves are allowed from which
 * state and what they lead to, one function per move. Anything else is 409 `conflict` naming the current and the
 * requested state. The functions take and give plain records (a status, the times the move sets); storing them
 * is the caller's.
 */
import { conflict, invalid } from '../util/errors.js';
import type { CommentStatus, PageStatus, PostStatus } from '../schema/params.js';

type Kind = 'post' | 'page';
type Content = { status: PostStatus | PageStatus; published?: string; trashed?: string };

const refuse = (kind: string, action: string, from: string, to: string) =>
  conflict(`Cannot ${action} this ${kind}: it is ${from}${to ? ` (requested ${to})` : ''}`);

/**
 * The state a new post or page starts in: DRAFT with `isDraft`, else LIVE — or SCHEDULED for a post whose
 * `published` is still ahead (a page is never scheduled; a past time back-dates it).
 */
export function insertedStatus(
  kind: Kind,
  isDraft: boolean | undefined,
  published: string | undefined,
  now: string,
): PostStatus {
  if (isDraft) return 'DRAFT';
  return kind === 'post' && published !== undefined && published > now ? 'SCHEDULED' : 'LIVE';
}

/**
 * posts.publish / publish:true, from DRAFT or SCHEDULED. Without a date: the saved publish time if it is still
 * ahead, else now. A future time schedules, a present or past one goes LIVE. LIVE stays LIVE, but not with a new
 * date (409); from the trash it is 409.
 */
export function publishPost<R extends { status: PostStatus; published?: string }>(
  p: R,
  publishDate: string | undefined,
  now: string,
): R {
  if (p.status === 'SOFT_TRASHED')
    throw refuse('post', 'publish', p.status, publishDate && publishDate > now ? 'SCHEDULED' : 'LIVE');
  if (p.status === 'LIVE') {
    if (publishDate !== undefined) throw refuse('post', 'reschedule', 'LIVE', 'SCHEDULED');
    return p;
  }
  const at = publishDate ?? (p.published && p.published > now ? p.published : now);
  return { ...p, status: at > now ? 'SCHEDULED' : 'LIVE', published: at };
}

/** pages.publish / publish:true, from DRAFT: LIVE now (or at its saved time, if that is past). LIVE stays LIVE. */
export function publishPage<R extends { status: PageStatus; published?: string }>(p: R, now: string): R {
  if (p.status === 'SOFT_TRASHED') throw refuse('page', 'publish', p.status, 'LIVE');
  if (p.status === 'LIVE') return p;
  return { ...p, status: 'LIVE', published: p.published && p.published <= now ? p.published : now };
}

/** Back to DRAFT from LIVE, SCHEDULED or the trash (restoring it); DRAFT stays. The url stays reserved. */
export function revertTo<R extends Content>(r: R): R {
  if (r.status === 'DRAFT') return r;
  const { trashed: _gone, ...rest } = r;
  return { ...rest, status: 'DRAFT' } as R;
}

/** delete with useTrash: SOFT_TRASHED from any state but SOFT_TRASHED (409), `trashed` set, comments kept. */
export function trash<R extends Content>(kind: Kind, r: R, now: string): R {
  if (r.status === 'SOFT_TRASHED') throw refuse(kind, 'trash', r.status, 'SOFT_TRASHED');
  return { ...r, status: 'SOFT_TRASHED', trashed: now };
}

/**
 * update/patch: refused in the trash (409); the body applied in the same state, then `publish: true` or
 * `revert: true` run that move in the same write (both at once: 400).
 */
export function edit<R extends Content>(
  kind: Kind,
  flags: { publish?: boolean | undefined; revert?: boolean | undefined },
  apply: (r: R) => R,
  publish: (r: R, now: string) => R,
): (r: R, now: string) => R {
  if (flags.publish && flags.revert) throw invalid('revert', 'publish and revert cannot both be true');
  return (r, now) => {
    if (r.status === 'SOFT_TRASHED') throw conflict(`Cannot change this ${kind}: it is SOFT_TRASHED (revert it first)`);
    let next = apply(r);
    if (flags.publish) next = publish(next, now);
    if (flags.revert) next = revertTo(next);
    return next;
  };
}

/** A SCHEDULED post whose time has come is LIVE, by itself: every read from that moment sees it so. */
export const isDue = (p: { status: PostStatus; published?: string }, now: string): boolean =>
  p.status === 'SCHEDULED' && p.published !== undefined && p.published <= now;

/** Comments are taken only on LIVE posts (409 on any other). */
export const acceptsComments = (status: PostStatus): boolean => status === 'LIVE';

/** The moderation moves of a comment: where each leads, and the states it is allowed from. */
export const COMMENT_MOVES = {
  approve: { to: 'LIVE', from: ['PENDING', 'SPAM'] },
  markAsSpam: { to: 'SPAM', from: ['LIVE', 'PENDING'] },
  removeContent: { to: 'EMPTIED', from: ['LIVE', 'PENDING', 'SPAM'] },
} as const satisfies Record<string, { to: CommentStatus; from: readonly CommentStatus[] }>;

/** Whether a moderation move applies to a comment in `status` (bulk moderation leaves the others as they are). */
export const movesFrom = (action: keyof typeof COMMENT_MOVES, status: CommentStatus): boolean =>
  (COMMENT_MOVES[action].from as readonly CommentStatus[]).includes(status);

/** The state a moderation move takes a comment in `status` to: the same state means it stays; else 409. */
export function moveComment(action: keyof typeof COMMENT_MOVES, status: CommentStatus): CommentStatus {
  const move = COMMENT_MOVES[action];
  if (status === move.to) return status;
  if (!movesFrom(action, status)) throw refuse('comment', action, status, move.to);
  return move.to;
}
