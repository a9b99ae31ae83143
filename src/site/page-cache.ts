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

/**
 * The kept pages of one site. The service's event listener holds them only weakly, so a site the host lets go
 * of (one per test or tenant) takes its pages with it, and its listener leaves the service once it is collected.
 */
export function pageCache(
  limits: { size: number; bytes: number },
  events: { on(type: '*', listener: () => void): () => void },
): PageCache {
  const cache = new PageCache(limits.size, limits.bytes);
  if (limits.size > 0 && limits.bytes > 0) {
    const ref = new WeakRef(cache);
    forget.register(
      cache,
      events.on('*', () => ref.deref()?.clear()),
    );
  }
  return cache;
}

/** Takes a collected site's listener off its service. */
const forget = new FinalizationRegistry<() => void>((off) => off());

class PageCache {
  private readonly pages = new Map<string, { page: CachedPage; at: number; weight: number }>();
  private bytesHeld = 0;
  // A tick per render start and per write: a page whose reads began before the last write is not kept.
  private clock = 0;
  private cleared = 0;

  constructor(
    private readonly size: number,
    private readonly bytes: number,
  ) {}

  /** A write was reported: nothing kept may be sent again. */
  clear(): void {
    this.pages.clear();
    this.bytesHeld = 0;
    this.cleared = ++this.clock;
  }

  get(key: string): CachedPage | undefined {
    const hit = this.pages.get(key);
    if (!hit) return undefined;
    this.pages.delete(key);
    if (Date.now() - hit.at > MAX_AGE_MS) {
      this.bytesHeld -= hit.weight;
      return undefined;
    }
    this.pages.set(key, hit);
    return hit.page;
  }

  /** Keeps a page rendered from reads that began at `since` (a write reported meanwhile leaves it out). */
  set(key: string, page: CachedPage, since: number): void {
    const weight = page.body.byteLength + key.length * 2 + OVERHEAD;
    if (this.size <= 0 || since < this.cleared || weight > this.bytes / 4) return;
    this.drop(key);
    while (this.pages.size > 0 && (this.pages.size >= this.size || this.bytesHeld + weight > this.bytes))
      this.drop(this.pages.keys().next().value!);
    this.pages.set(key, { page, at: Date.now(), weight });
    this.bytesHeld += weight;
  }

  /** A mark to pass to `set` before reading what a page shows. */
  now(): number {
    return ++this.clock;
  }

  /** What is kept now: pages and their bytes. */
  held(): { pages: number; bytes: number } {
    return { pages: this.pages.size, bytes: this.bytesHeld };
  }

  private drop(key: string): void {
    const hit = this.pages.get(key);
    if (!hit) return;
    this.pages.delete(key);
    this.bytesHeld -= hit.weight;
  }
}
