/**
 * Which media a post's or page's content uses (docs/design.md §19): every `src`, `href` and `srcset` value naming a
 * media url of the blog, `…/media/{blogId}/{sha256}/…`, whatever the origin in front (the api base url may
 * change, and content may link relatively). Kept as index entries in each write's own commit (records.ts).
 */

/** Uses an item may have on file: past this, further pictures of one post are not tracked. */
export const MAX_MEDIA_REFS = 500;

/** The media ids (SHA-256 hex) `html` uses in the blog, in the order it first uses them. */
export const mediaRefs = (blogId: string, html: string): string[] => [...mediaUses(blogId, html).keys()];

/**
 * The media `html` uses in the blog: SHA-256 → the file name its first url gives it (the last path segment,
 * decoded; '' when there is none), in the order it first uses them.
 */
export function mediaUses(blogId: string, html: string): Map<string, string> {
  const out = new Map<string, string>();
  if (html.includes(`/media/${blogId}/`)) {
    for (const [value] of html.matchAll(/\b(?:src|href|srcset)\s*=\s*("[^"]*"|'[^']*'|[^\s"'=<>`]+)/gi)) {
      for (const m of value.matchAll(/\/media\/([^/"'\s]+)\/([0-9a-f]{64})\/([^/"'\s?#]*)/g)) {
        if (m[1] === blogId && out.size < MAX_MEDIA_REFS && !out.has(m[2]!))
          out.set(m[2]!, decoded(m[3]!.replace(/,$/, '')));
      }
    }
  }
  return out;
}

const decoded = (segment: string) => {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
};

/**
 * `html` with every url of the blog's media in a `src`, `href` or `srcset` (whatever origin or path leads to
 * `/media/{blogId}/{sha256}/`) moved to `folder` (e.g. a reading site's own `/media/`), the rest unchanged.
 */
export function moveMediaUrls(blogId: string, html: string, folder: string): string {
  if (!html.includes(`/media/${blogId}/`)) return html;
  const url = new RegExp(`[^\\s"',]*/media/${blogId.replace(/[^\w-]/g, '\\$&')}/(?=[0-9a-f]{64}/)`, 'g');
  return html.replace(
    /\b((?:src|href|srcset)\s*=\s*)("[^"]*"|'[^']*'|[^\s"'=<>`]+)/gi,
    (_, attr: string, value: string) => attr + value.replace(url, `${folder}${blogId}/`),
  );
}

const srcOf = (tag: string) => {
  const m = /\ssrc\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+))/i.exec(tag);
  return m ? (m[1] ?? m[2] ?? m[3]) || undefined : undefined;
};

/**
 * The `src` of a post's featured picture (docs/design.md §23): the `<img>` marked `data-featured`, or the first
 * `<img>` of a `<figure data-featured>`; else the content's first `<img>` with a `src`. og:image and the feeds'
 * `<media:thumbnail>` name it.
 */
export function featuredSrc(html: string): string | undefined {
  const marked = /<(img|figure)\b[^>]*?\sdata-featured(?=[\s=/>])[^>]*>/i.exec(html);
  if (marked) {
    const tag = marked[1]!.toLowerCase() === 'img' ? marked[0] : /<img\b[^>]*>/i.exec(html.slice(marked.index))?.[0];
    const src = tag && srcOf(tag);
    if (src) return src;
  }
  for (const [tag] of html.matchAll(/<img\b[^>]*>/gi)) {
    const src = srcOf(tag);
    if (src) return src;
  }
  return undefined;
}
