/**
 * Who may see and do what (docs/design.md §5): each rule is one function here, and every operation,
 * list, change feed and index key that applies it calls that function (test/rules/one-rule.test.ts keeps it so).
 * "Where is the rule that a READER cannot see drafts?": `seesDrafts`.
 */
import { BlogError, forbidden } from '../util/errors.js';
import type { CommentStatus, PageStatus, PostStatus, ReaderComments, Role } from '../schema/params.js';
import { COMMENT_STATUSES, PAGE_STATUSES, POST_STATUSES } from '../schema/values.js';

const LEVEL: Record<Role, number> = { READER: 1, AUTHOR: 2, ADMIN: 3 };
const atLeast = (view: Role, role: Role) => LEVEL[view] >= LEVEL[role];

/** The caller of one operation: trusted host code, a signed-in user, or an anonymous reader. */
export type Actor = { kind: 'host' } | { kind: 'user'; userId: string } | { kind: 'anonymous' };

/** The caller's standing in one blog. `role` is null for anonymous callers and non-members. */
export interface Standing {
  actor: Actor;
  role: Role | null;
  /** The detail level responses are shaped at. */
  view: Role;
}

export const actorUserId = (a: Actor) => (a.kind === 'user' ? a.userId : undefined);

export const authError = (message: string) =>
  new BlogError({ code: 401, reason: 'authError', message, location: 'Authorization', locationType: 'header' });

// ---------------------------------------------------------------- views

/** A caller's role in a blog: host code is ADMIN, a user holds what its membership says, anyone else none. */
export const roleOf = (actor: Actor, member: { role: Role } | undefined): Role | null =>
  actor.kind === 'host' ? 'ADMIN' : actor.kind === 'user' ? (member?.role ?? null) : null;

/** A view (a level of detail) may be asked for by a caller holding at least that role in the blog. */
export const mayUseView = (role: Role | null, view: Role): boolean => atLeast(role ?? 'READER', view);

/** The view an operation answers at: the one asked for (if the caller holds it, else 403), else the caller's own role. */
export function resolveView(role: Role | null, requested: Role | undefined): Role {
  if (requested && !mayUseView(role, requested)) {
    throw forbidden(`The ${requested} view needs the ${requested} role on this blog`);
  }
  return requested ?? role ?? 'READER';
}

/** Refuses (403) a caller below `role` in the blog; `what` ends "Only blog admins may …". */
export function requireRole(s: Standing, role: Role, what: string): void {
  if (!s.role || !atLeast(s.role, role))
    throw forbidden(`Only blog ${role === 'ADMIN' ? 'admins' : 'authors and admins'} may ${what}`);
}

// ---------------------------------------------------------------- what a view sees

/**
 * A READER cannot see drafts: posts and pages that are not LIVE (drafts, scheduled, trashed), their revisions,
 * their labels' counts and their status field are for the AUTHOR view and above. Below it such a post reads as
 * 404 (never revealing that it exists), and a list asking for it is 403.
 */
export const seesDrafts = (view: Role): boolean => atLeast(view, 'AUTHOR');

/** Whether `view` sees a post or page in `status` (`seesDrafts` for anything not LIVE). */
export const seesContent = (status: PostStatus | PageStatus, view: Role): boolean =>
  status === 'LIVE' || seesDrafts(view);

/** The comment statuses every reader sees (and a comment list's default): LIVE, and EMPTIED keeping its place. */
export const PUBLIC_COMMENT_STATUSES: readonly CommentStatus[] = ['LIVE', 'EMPTIED'];

/** PENDING and SPAM comments (and a comment's status field) are for the ADMIN view: the moderators'. */
export const seesHeldComments = (view: Role): boolean => atLeast(view, 'ADMIN');

/** Where an anonymous comment came from (its client address) is for the ADMIN view alone (docs/design.md §25). */
export const seesClientAddress = (view: Role): boolean => atLeast(view, 'ADMIN');

/** Whether `view` sees a comment in `status`. */
export const seesCommentStatus = (status: CommentStatus, view: Role): boolean =>
  PUBLIC_COMMENT_STATUSES.includes(status) || seesHeldComments(view);

/** The post or page statuses `view` sees: what a snapshot of the blog walks. */
export const visibleContentStatuses = (kind: 'post' | 'page', view: Role): ReadonlyArray<PostStatus | PageStatus> =>
  (kind === 'post' ? POST_STATUSES : PAGE_STATUSES).filter((st) => seesContent(st, view));

/** The comment statuses `view` sees: what a snapshot of the blog's comments walks. */
export const visibleCommentStatuses = (view: Role): readonly CommentStatus[] =>
  COMMENT_STATUSES.filter((st) => seesCommentStatus(st, view));

/** DONT_ALLOW_HIDE_EXISTING hides a post's existing comments below the ADMIN view (lists, replies, reads by id). */
export const hidesComments = (readerComments: ReaderComments, view: Role): boolean =>
  readerComments === 'DONT_ALLOW_HIDE_EXISTING' && !atLeast(view, 'ADMIN');

/** A list asking for post or page statuses the caller's view does not see is refused (403), not answered short. */
export function requireVisibleContent(
  kind: 'post' | 'page',
  statuses: ReadonlyArray<PostStatus | PageStatus>,
  view: Role,
): void {
  if (statuses.some((st) => !seesContent(st, view)))
    throw forbidden(`Listing ${kind}s that are not LIVE needs the AUTHOR view`);
}

/** A list asking for comment statuses the caller's view does not see is refused (403). */
export function requireVisibleComments(statuses: readonly CommentStatus[], view: Role): void {
  if (statuses.some((st) => !seesCommentStatus(st, view)))
    throw forbidden('Listing PENDING or SPAM comments needs the ADMIN view');
}

/**
 * The visibility class of a post's comments, which the comment indexes are keyed by (core/comment-visibility.ts):
 * 'hidden' (DONT_ALLOW_HIDE_EXISTING), 'open' (the post is LIVE), else 'draft'.
 */
export type CommentVis = 'open' | 'draft' | 'hidden';
export const COMMENT_VIS: readonly CommentVis[] = ['open', 'draft', 'hidden'];
export const commentVisOf = (p: { status: PostStatus; readerComments: ReaderComments }): CommentVis =>
  p.readerComments === 'DONT_ALLOW_HIDE_EXISTING' ? 'hidden' : p.status === 'LIVE' ? 'open' : 'draft';

/** The classes of comments `view` sees: those of LIVE posts; of drafts (`seesDrafts`); of hiding posts (not `hidesComments`). */
export const visibleClasses = (view: Role): CommentVis[] => [
  'open',
  ...(seesDrafts(view) ? (['draft'] as const) : []),
  ...(hidesComments('DONT_ALLOW_HIDE_EXISTING', view) ? [] : (['hidden'] as const)),
];

/** Whether `view` sees a comment: its status, and its post's class. */
export const seesComment = (
  c: { status: CommentStatus },
  post: { status: PostStatus; readerComments: ReaderComments },
  view: Role,
): boolean => seesCommentStatus(c.status, view) && visibleClasses(view).includes(commentVisOf(post));

/** Media records (a blog's pictures as resources) are for the AUTHOR view and above; readers load pictures by url. */
export const seesMedia = (view: Role): boolean => atLeast(view, 'AUTHOR');

// ---------------------------------------------------------------- what a caller may do

/**
 * ADMINs change anything in their blog; AUTHORs change their own posts and the media they uploaded; pages are
 * for ADMINs only.
 */
export function mayEdit(
  role: Role | null,
  userId: string | undefined,
  kind: 'post' | 'page' | 'media',
  record: { authorId: string },
): boolean {
  if (role === 'ADMIN') return true;
  return kind !== 'page' && role === 'AUTHOR' && userId !== undefined && record.authorId === userId;
}

/** AUTHORs and ADMINs of the blog (and host code, an ADMIN) are trusted commenters: theirs start LIVE, not PENDING. */
const trustedCommenter = (role: Role | null): boolean => role !== null && atLeast(role, 'AUTHOR');

/** The state a new comment starts in: LIVE from a trusted commenter, else PENDING (held for moderation). */
export const newCommentStatus = (role: Role | null): CommentStatus => (trustedCommenter(role) ? 'LIVE' : 'PENDING');

/** AUTHORs and ADMINs of the blog (and host code) are never held to the comment limits (docs/design.md §25). */
export const limitsComments = (role: Role | null): boolean => !trustedCommenter(role);

/** A post's `readerComments` other than ALLOW refuses new comments from callers below AUTHOR. */
export const mayComment = (readerComments: ReaderComments, role: Role | null): boolean =>
  readerComments === 'ALLOW' || trustedCommenter(role);

/**
 * A blog keeps at least one ADMIN: removing (`to` null) or demoting its last one is refused (409). `roles` are the
 * blog's members' roles now, `from` the changed member's.
 */
export const leavesNoAdmin = (roles: readonly Role[], from: Role, to: Role | null): boolean =>
  from === 'ADMIN' && to !== 'ADMIN' && roles.filter((r) => r === 'ADMIN').length === 1;
