/**
 * How IndexedDB is walked, shared by the start-up reads and the code loaded later (search.ts, segments.ts,
 * upgrade.ts): the names of the stores, which indexes are kept as postings, and the key range of a query.
 */
import type { CollectionDef, RangeQuery } from '../../src/store/driver.js';

export const LOG = '~log';
export const CHANGES = '~changes';
export const META = '~meta';
export const BLOBS = '~blobs';
export const STREAM_INDEX = 'stream';

/** A collection's postings: segment heads, their bodies, replaced versions (segments.ts). */
export const SEG = (collection: string) => `~seg.${collection}`;
export const POST = (collection: string) => `~post.${collection}`;
export const DEAD = (collection: string) => `~dead.${collection}`;
/** The index of segment heads by their number of documents (`n`): how a commit sees a size class fill up. */
export const SIZE = 'n';
/**
 * The indexes kept as postings (layout 5, key-postings.ts): those declared with many entries per record and not
 * unique (one entry per label). Their entries share the collection's segments with its search terms.
 */
export const keyed = (def: CollectionDef) => def.indexes.filter((i) => i.entries === 'many' && !i.unique);
export const isKeyed = (def: CollectionDef, index: string) => keyed(def).some((i) => i.name === index);
/** Whether a collection keeps postings: search terms, or keyed indexes' entries. */
export const hasPostings = (def: CollectionDef) => !!def.search || keyed(def).length > 0;
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
