/**
 * Which media a post's or page's content uses (DESIGN §14): every `src`, `href` and `srcset` value naming a
 * media url of the blog, `…/media/{blogId}/{sha256}/…`, whatever the origin in front (the api base url may
 * change, and content may link relatively). Kept as index entries in each write's own commit (records.ts).
 */

/** Uses an item may have on file: past this, further pictures of one post are not tracked. */
export const MAX_MEDIA_REFS = 500;

const ATTRIBUTE = /\b(?:src|href|srcset)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+))/gi;
const SHA = /^[0-9a-f]{64}$/;

/** The media ids (SHA-256 hex) `html` uses in the blog, in the order it first uses them. */
export function mediaRefs(blogId: string, html: string): string[] {
  const marker = `/media/${blogId}/`;
  if (!html.includes(marker)) return [];
  const out = new Set<string>();
  for (const m of html.matchAll(ATTRIBUTE)) {
    const value = m[1] ?? m[2] ?? m[3] ?? '';
    for (let at = value.indexOf(marker); at >= 0 && out.size < MAX_MEDIA_REFS; at = value.indexOf(marker, at + marker.length)) {
      const id = value.slice(at + marker.length, at + marker.length + 64);
      if (SHA.test(id) && value[at + marker.length + 64] === '/') out.add(id);
    }
  }
  return [...out];
}
