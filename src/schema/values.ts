/**
 * The enum values and the limits the checks of src/schema/schemas.ts, the store and import share. Plain values
 * apart from the schemas, so `blogcore` exports them (and its `.d.ts` declares them) without zod.
 */
import type { CommentStatus, PageStatus, PageViewsRange, PostStatus, ReaderComments, Role } from './params.js';

export const POST_STATUSES = ['LIVE', 'DRAFT', 'SCHEDULED', 'SOFT_TRASHED'] as const satisfies readonly PostStatus[];
export const PAGE_STATUSES = ['LIVE', 'DRAFT', 'SOFT_TRASHED'] as const satisfies readonly PageStatus[];
export const COMMENT_STATUSES = ['LIVE', 'EMPTIED', 'PENDING', 'SPAM'] as const satisfies readonly CommentStatus[];
export const ROLES = ['READER', 'AUTHOR', 'ADMIN'] as const satisfies readonly Role[];
export const READER_COMMENTS = [
  'ALLOW',
  'DONT_ALLOW_SHOW_EXISTING',
  'DONT_ALLOW_HIDE_EXISTING',
] as const satisfies readonly ReaderComments[];

export const LIMITS = {
  title: 1_000,
  content: 1_000_000,
  commentContent: 4_096,
  label: 200,
  labels: 100,
  /** Labels one query may name: each is an index walk, so the work of a request stays bounded (docs/design.md §10). */
  queryLabels: 20,
  blogName: 200,
  description: 2_000,
  displayName: 200,
  url: 2_000,
  q: 1_000,
  maxResults: 500,
  maxInline: 500,
  id: 200,
  text: 10_000,
} as const;

export const PAGE_VIEWS_RANGES = ['7DAYS', '30DAYS', 'all'] as const satisfies readonly PageViewsRange[];
