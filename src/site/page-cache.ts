/**
 * Rendered pages kept in memory, so a page read again is sent without reading or rendering anything. An entry
 * holds until the service reports a write (any event: a post, page, comment, blog or user changed, in this
 * process or, where the driver shares events, another app server) and for at most 2 s, which bounds how late
 * a write no event reports shows (another process on the same SQLite file, a scheduled post coming due, an
 * import). Bounded twice: at most `size` pages and at most `bytes` bytes of them (a page over a quarter of
 * that is not kept); the least recently used leave first. Pages are kept by what changes them (`pageKey`),
 * so query strings a page does not read cannot fill memory with copies of one page.
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
/** Headers, ETag and the map's own entry: a small page still weighs something. */
const OVERHEAD = 512;

/**
 * The query parameters any page of the site reads; every other one leaves the page as it is. `m`, `p` and
 * `page_id` are old Blogger and WordPress addresses a blog's redirects may answer (handler.ts).
 */
const READ = ['alt', 'comment', 'm', 'p', 'page', 'page_id', 'q'] as const;

/** The key a page is kept under: its blog, its path, and only the query parameters a page reads. */
export function pageKey(blogId: string, path: string, query: string): string {
  if (!query) return `${blogId}\0${path}`;
  const params = new URLSearchParams(query);
  const kept = READ.flatMap((name) => {
    const value = params.get(name);
    return value === null ? [] : [`${name}=${encodeURIComponent(value)}`];
  });
  return `${blogId}\0${path}?${kept.join('&')}`;
}

export function pageCache(
  limits: { size: number; bytes: number },
  events: { on(type: '*', listener: () => void): () => void },
) {
  const pages = new Map<string, { page: CachedPage; at: number; weight: number }>();
  const { size, bytes } = limits;
  let held = 0;
  // A tick per render start and per write: a page whose reads began before the last write is not kept.
  let clock = 0;
  let cleared = 0;
  const drop = (key: string) => {
    const hit = pages.get(key);
    if (!hit) return;
    pages.delete(key);
    held -= hit.weight;
  };
  if (size > 0 && bytes > 0)
    events.on('*', () => {
      pages.clear();
      held = 0;
      cleared = ++clock;
    });
  return {
    get(key: string): CachedPage | undefined {
      const hit = pages.get(key);
      if (!hit) return undefined;
      pages.delete(key);
      if (Date.now() - hit.at > MAX_AGE_MS) {
        held -= hit.weight;
        return undefined;
      }
      pages.set(key, hit);
      return hit.page;
    },
    /** Keeps a page rendered from reads that began at `since` (a write reported meanwhile leaves it out). */
    set(key: string, page: CachedPage, since: number): void {
      const weight = page.body.byteLength + key.length * 2 + OVERHEAD;
      if (size <= 0 || since < cleared || weight > bytes / 4) return;
      drop(key);
      while (pages.size > 0 && (pages.size >= size || held + weight > bytes)) drop(pages.keys().next().value!);
      pages.set(key, { page, at: Date.now(), weight });
      held += weight;
    },
    /** A mark to pass to `set` before reading what a page shows. */
    now: () => ++clock,
    /** What is kept now: pages and their bytes. */
    held: () => ({ pages: pages.size, bytes: held }),
  };
}
