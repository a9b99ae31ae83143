/**
 * How IndexedDB is walked, shared by the start-up reads and the search code loaded later (search.ts,
 * segments.ts): the names of a searchable collection's postings stores, and the key range of a query.
 */
import type { RangeQuery } from '../../src/store/driver.js';

/** A searchable collection's postings: segment heads, their bodies, replaced versions (segments.ts). */
export const SEG = (collection: string) => `~seg.${collection}`;
export const POST = (collection: string) => `~post.${collection}`;
export const DEAD = (collection: string) => `~dead.${collection}`;
/** A key part that sorts after every string: `[...prefix, MAX]` bounds "everything with the prefix". */
const MAX: [] = [];

export const cursorDirection = (q: { direction: 'asc' | 'desc' }): IDBCursorDirection =>
  q.direction === 'asc' ? 'next' : 'prev';

/** What `range` uses of a connection: the key order and the key ranges of its IndexedDB. */
interface KeyRanges {
  factory: Pick<IDBFactory, 'cmp'>;
  KeyRange: typeof IDBKeyRange;
}

/** The IDBKeyRange of a query, or undefined when the range is empty. */
export function range(c: KeyRanges, q: RangeQuery): IDBKeyRange | undefined {
  const lower: unknown[] = [...q.prefix, ...(q.lower?.key ?? [])];
  const upper: unknown[] = [...q.prefix, ...(q.upper?.key ?? [MAX])];
  const lowerOpen = !!q.lower?.open;
  const upperOpen = !!q.upper?.open;
  const order = c.factory.cmp(lower, upper);
  if (order > 0 || (order === 0 && (lowerOpen || upperOpen))) return undefined;
  return c.KeyRange.bound(lower, upper, lowerOpen, upperOpen);
}
