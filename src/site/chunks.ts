/**
 * How a list of posts (home, a label, a month) is cut into pages. A page ends at a post chosen by its id
 * alone (about one post in `pageSize / 2` qualifies), once the page holds enough posts, so where pages
 * end depends on the posts themselves, not on how many came before: a new post changes the first page only,
 * an edit or a deletion only the page that holds the post (and at most the next one). The pages after the
 * first are addressed by the service's own keyset token for the place right after the previous page's last
 * post, so an address keeps meaning the same place whatever is published later, and a static export
 * rewrites only the pages that changed.
 *
 * Bounded work: a page reads at most `first page size + 3 × pageSize` posts, in service list calls of
 * `2 × pageSize`, and one call without bodies for the token after its last post.
 */
import type { Post, PostList } from '../schema/resources.js';
import { shortHash } from '../util/ids.js';

/** One page of a list from a keyset token (the service's `posts.list` with the list's own filters). */
export type ListSource = (pageToken: string | undefined, maxResults: number, fetchBodies: boolean) => Promise<PostList>;

export interface Chunk {
  items: Post[];
  /** The token of the page after this one, if more posts follow. */
  next?: string;
  /** Posts already read after this page (the next page's first ones), and the token after the last of them. */
  rest: Post[];
  restNext?: string;
}

/** Whether a post may end a page: a fixed share of ids, by hash. */
export const mayEnd = (id: string, pageSize: number) =>
  Number.parseInt(shortHash(id), 36) % Math.max(1, Math.floor(pageSize / 2)) === 0;

/**
 * The page of a list that starts after `start` (undefined: the list's first page, which shows at least
 * `pageSize` posts; later pages at least half of that). `carry` are posts already read right after `start`
 * (with `carryNext`, the token after the last of them), as a walk over the whole list passes them on.
 */
export async function readChunk(
  source: ListSource,
  start: string | undefined,
  pageSize: number,
  carry: Post[] = [],
  carryNext?: string,
): Promise<Chunk> {
  const min = start === undefined ? pageSize : Math.ceil(pageSize / 2);
  const max = min + 3 * pageSize;
  const items = [...carry];
  // The token after items[items.length - 1], once a read has given it; `more` is false once the list has ended.
  let after = carryNext;
  let more = carry.length === 0 || carryNext !== undefined;
  let i = Math.max(0, min - 1);
  for (;;) {
    for (; i < items.length; i++) {
      if (i === max - 1 || mayEnd(items[i]!.id, pageSize)) {
        const last = i === items.length - 1;
        // The token right after items[i]: the read's own when it ended there, else one read without bodies.
        const next = last ? after : (await source(start, i + 1, false)).nextPageToken;
        return {
          items: items.slice(0, i + 1),
          ...(next ? { next } : {}),
          rest: items.slice(i + 1),
          ...(after && !last ? { restNext: after } : {}),
        };
      }
    }
    if (!more || items.length >= max) return { items, rest: [] };
    const page = await source(items.length === 0 ? start : after, Math.min(2 * pageSize, max - items.length), true);
    items.push(...page.items);
    after = page.nextPageToken;
    more = after !== undefined && page.items.length > 0;
  }
}

/** Every page of a list, first to last (a static export's walk). */
export async function* walkChunks(
  source: ListSource,
  pageSize: number,
): AsyncGenerator<{ token: string | undefined; chunk: Chunk }> {
  let token: string | undefined;
  let carry: Post[] = [];
  let carryNext: string | undefined;
  for (;;) {
    const chunk = await readChunk(source, token, pageSize, carry, carryNext);
    yield { token, chunk };
    if (!chunk.next || chunk.items.length === 0) return;
    token = chunk.next;
    carry = chunk.rest;
    carryNext = chunk.restNext;
  }
}
