/**
 * Which blog a request's host serves: the blog whose url has that host (http or https), at the root or under
 * the path's first segments (at most DEPTH: Blogger's `www.blogger.com/blogspot/<name>/` has two), longest first. `blogs.getByUrl` also finds a blog by an old url (the handler then redirects).
 * `<host>.localhost[:port]` stands for `<host>`, so each blog of a store has a local address as well.
 * Answers are kept for 30 s per host and first segment, for at most 1,000 of them.
 */
import type { BlogService } from '../service/types.js';
import { BlogError } from '../util/errors.js';

const TTL_MS = 30_000;
const SIZE = 1000;
const DEPTH = 3;

export interface HostMatch {
  blogId: string;
  /** The path the matched url starts with (`/`, or `/notes/`). */
  base: string;
  /** The host the matched url names (the request's, without `.localhost`). */
  host: string;
}

export function hostResolver(reader: BlogService) {
  const known = new Map<string, { found: HostMatch | undefined; until: number }>();
  const byUrl = (url: string) =>
    reader.blogs.getByUrl({ url }).catch((e: unknown) => {
      if (BlogError.is(e) && (e.code === 404 || e.code === 400)) return undefined;
      throw e;
    });
  return async (named: string, path: string): Promise<HostMatch | undefined> => {
    // `a.example.localhost:8080` is a.example's blog served on this machine (browsers send *.localhost to it).
    const host = /^(.+)\.localhost(:\d+)?$/.exec(named)?.[1] ?? named;
    // The folders the path starts with (the last segment is a page, not a folder), DEPTH at most.
    const folders = path.split(/[?#]/)[0]!.split('/').slice(1, -1).slice(0, DEPTH);
    const bases = folders.map((_, i) => `/${folders.slice(0, folders.length - i).join('/')}/`);
    const key = `${host}\0${folders.join('/')}`;
    const cached = known.get(key);
    if (cached && cached.until > Date.now()) return cached.found;
    let found: HostMatch | undefined;
    search: for (const base of [...bases, '/']) {
      for (const scheme of ['https', 'http']) {
        const blog = await byUrl(`${scheme}://${host}${base}`);
        if (blog) {
          found = { blogId: blog.id, base, host };
          break search;
        }
      }
    }
    if (known.size >= SIZE) known.delete(known.keys().next().value!);
    known.set(key, { found, until: Date.now() + TTL_MS });
    return found;
  };
}
