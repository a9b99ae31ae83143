/**
 * The enum values and the limits the checks of src/schema/schemas.ts, the store and import share. Plain values
 * apart from the schemas, so `blogcore` exports them (and its `.d.ts` declares them) without zod.
 */
import type { CommentStatus, PageStatus, PageViewsRange, PostStatus, ReaderComments, Role } from './params.js';

/** Every state a post can be in (docs/design.md §5): published, draft, waiting for its time, in the trash. */
export const POST_STATUSES = ['LIVE', 'DRAFT', 'SCHEDULED', 'SOFT_TRASHED'] as const satisfies readonly PostStatus[];
/** Every state a page can be in: as a post's, without SCHEDULED (a page is never scheduled). */
export const PAGE_STATUSES = ['LIVE', 'DRAFT', 'SOFT_TRASHED'] as const satisfies readonly PageStatus[];
/** Every state a comment can be in: shown, emptied (kept in its thread without content), held, spam. */
export const COMMENT_STATUSES = ['LIVE', 'EMPTIED', 'PENDING', 'SPAM'] as const satisfies readonly CommentStatus[];
/** A member's roles in a blog, lowest first; each one is also a `view` (a level of detail). */
export const ROLES = ['READER', 'AUTHOR', 'ADMIN'] as const satisfies readonly Role[];
/** What a post allows of comments: new ones from anyone, none new (old ones shown), none at all (old ones hidden). */
export const READER_COMMENTS = [
  'ALLOW',
  'DONT_ALLOW_SHOW_EXISTING',
  'DONT_ALLOW_HIDE_EXISTING',
] as const satisfies readonly ReaderComments[];

/**
 * The largest values the service takes (a bigger one is 400 `invalid`, naming the field). Text lengths count
 * UTF-16 units, as JavaScript's `length` does.
 */
export const LIMITS = {
  /** Characters in a post's or page's title. */
  title: 1_000,
  /** Characters in a post's or page's HTML content. */
  content: 1_000_000,
  /** Characters in a comment's content. */
  commentContent: 4_096,
  /** Characters in one label. */
  label: 200,
  /** Labels on one post. */
  labels: 100,
  /** Labels one query may name: each is an index walk, so the work of a request stays bounded (docs/design.md §10). */
  queryLabels: 20,
  /** Characters in a blog's name. */
  blogName: 200,
  /** Characters in a blog's description. */
  description: 2_000,
  /** Characters in a user's or a comment author's display name. */
  displayName: 200,
  /** Characters in a URL or a path (a blog's address, a link, `getByPath`'s path). */
  url: 2_000,
  /** Characters in a search query (`posts.search`'s `q`). */
  q: 1_000,
  /** `maxResults` of one list page. */
  maxResults: 500,
  /** Items filled in inside a resource: `maxComments` on a post, `maxPosts` on a blog. */
  maxInline: 500,
  /** Characters in an id (a host may bring its own user ids). */
  id: 200,
  /** Characters in what a comment's sender is known by: its client address, `User-Agent`, `Referer`. */
  clientHeader: 2_000,
  /** Entries of a blog's `disallowedCommentWords`, and characters in each. */
  disallowedWords: 1_000,
  disallowedWord: 200,
  /** Comments `comments.moderate` acts on in one call. */
  moderateBatch: 500,
  /** Characters in the other free texts: `customMetaData`, a location's name, a user's `about`. */
  text: 10_000,
} as const;

/** The ranges `pageViews.get` counts over: the last 7 days, the last 30 days, or since the blog began. */
export const PAGE_VIEWS_RANGES = ['7DAYS', '30DAYS', 'all'] as const satisfies readonly PageViewsRange[];

/** The limits of writing together (`service.collab`, docs/collab.md). */
export const COLLAB_LIMITS = {
  /** Bytes one pushed update may hold: a larger one is refused with 413 and stored nowhere. */
  update: 256 * 1024,
  /** Bytes of the presence (cursor, name) one push may carry. */
  presence: 8 * 1024,
  /** Milliseconds a pull may wait for news (`wait`). */
  wait: 30_000,
} as const;

/** The limits of a picture's texts (`service.media`): a longer `alt` is refused, a longer file name is cut. */
export const MEDIA_LIMITS = {
  /** Characters of alternative text (`alt`): more is 400 `invalid`. */
  alt: 1_000,
  /** Characters a stored file name keeps: a longer name is cut before its extension. */
  filename: 200,
} as const;
