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
