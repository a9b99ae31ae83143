/**
 * Which media a post's or page's content uses (docs/design.md §19): every `src`, `href` and `srcset` value naming a
 * media url of the blog, `…/media/{blogId}/{sha256}/…`, whatever the origin in front (the api base url may
 * change, and content may link relatively). Kept as index entries in each write's own commit (records.ts).
 */

/** Uses an item may have on file: past this, further pictures of one post are not tracked. */
export const MAX_MEDIA_REFS = 500;

/** The media ids (SHA-256 hex) `html` uses in the blog, in the order it first uses them. */
export function mediaRefs(blogId: string, html: string): string[] {
  const out = new Set<string>();
  if (html.includes(`/media/${blogId}/`)) {
    for (const [value] of html.matchAll(/\b(?:src|href|srcset)\s*=\s*("[^"]*"|'[^']*'|[^\s"'=<>`]+)/gi)) {
      for (const m of value.matchAll(/\/media\/([^/"'\s]+)\/([0-9a-f]{64})\//g)) if (m[1] === blogId && out.size < MAX_MEDIA_REFS) out.add(m[2]!);
    }
  }
  return [...out];
}
