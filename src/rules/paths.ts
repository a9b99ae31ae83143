/**
 * What a post's or page's path may be, in one place: the site serves it, the static export writes it as a file,
 * and an import stores what a file says. A segment, percent-decoded, is one name: never a slash, `.`, `..` or NUL.
 */

/** A file name's longest length in UTF-8 bytes on common file systems (ext4, APFS, NTFS in UTF-16 units). */
const NAME_BYTES = 255;
const utf8 = new TextEncoder();

/** Why a decoded path segment cannot be a file or folder name below a folder; undefined when it can. */
export function segmentProblem(name: string): string | undefined {
  if (name === '' || name === '.' || name === '..') return `a path segment is ${name ? `"${name}"` : 'empty'}`;
  if (/[/\\]/.test(name)) return 'a path segment holds a slash or backslash';
  if (name.includes('\0')) return 'a path segment holds a NUL character';
  if (utf8.encode(name).length > NAME_BYTES) return `a path segment is longer than ${NAME_BYTES} bytes`;
  return undefined;
}

/**
 * Why a path cannot be stored as a post's or page's (`/2020/01/hello.html`, `/p/about.html`): it starts with
 * `/` and each segment, percent-decoded on its own, is a name `segmentProblem` accepts. Undefined when it can.
 */
export function storedPathProblem(path: string): string | undefined {
  if (!path.startsWith('/')) return 'the path does not start with /';
  for (const segment of path.slice(1).split('/')) {
    let name: string;
    try {
      name = decodeURIComponent(segment);
    } catch {
      return 'a path segment is not valid percent-encoding';
    }
    const problem = segmentProblem(name);
    if (problem) return problem;
  }
  return undefined;
}

/** The longest old address a redirect keeps (a path and query). */
export const REDIRECT_FROM_MAX = 2_000;

/**
 * The old address a redirect answers, as it is kept and looked up: the path and query of a url or of a
 * root-relative path (`https://old.example/2019/05/x.html?m=1` → `/2019/05/x.html?m=1`), the fragment dropped;
 * undefined when it is neither. The host is not kept: a blog's redirects answer on the blog's own host.
 */
export function redirectFrom(from: string): string | undefined {
  let url: URL;
  try {
    url = new URL(from, 'http://x.invalid');
  } catch {
    return undefined;
  }
  if (!/^https?:$/.test(url.protocol) || (!/^https?:\/\//i.test(from) && !from.startsWith('/'))) return undefined;
  const kept = url.pathname + url.search;
  return kept.length <= REDIRECT_FROM_MAX ? kept : undefined;
}
