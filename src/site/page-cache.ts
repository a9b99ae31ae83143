/**
 * Rendered pages kept in memory, so a page read again is sent without reading or rendering anything. An entry
 * holds until the service reports a write (any event: a post, page, comment, blog or user changed, in this
 * process or, where the driver shares events, another app server) and for at most 2 s, which bounds how late
 * a write no event reports shows (another process on the same SQLite file, a scheduled post coming due, an
 * import). At most `size` pages; the least recently used leave first.
 */

/** A response as it is kept: its bytes already encoded and their ETag. */
export interface CachedPage {
  status: number;
  headers: Record<string, string>;
  body: Uint8Array<ArrayBuffer>;
  etag: string;
  /** The post a post page shows (its views are counted whether or not the page came from here). */
  postId?: string;
}

const MAX_AGE_MS = 2_000;

export function pageCache(size: number, events: { on(type: '*', listener: () => void): () => void }) {
  const pages = new Map<string, { page: CachedPage; at: number }>();
  // A tick per render start and per write: a page whose reads began before the last write is not kept.
  let clock = 0;
  let cleared = 0;
  if (size > 0)
    events.on('*', () => {
      pages.clear();
      cleared = ++clock;
    });
  return {
    get(key: string): CachedPage | undefined {
      const hit = pages.get(key);
      if (!hit) return undefined;
      pages.delete(key);
      if (Date.now() - hit.at > MAX_AGE_MS) return undefined;
      pages.set(key, hit);
      return hit.page;
    },
    /** Keeps a page rendered from reads that began at `since` (a write reported meanwhile leaves it out). */
    set(key: string, page: CachedPage, since: number): void {
      if (size <= 0 || since < cleared) return;
      pages.delete(key);
      if (pages.size >= size) pages.delete(pages.keys().next().value!);
      pages.set(key, { page, at: Date.now() });
    },
    /** A mark to pass to `set` before reading what a page shows. */
    now: () => ++clock,
  };
}
