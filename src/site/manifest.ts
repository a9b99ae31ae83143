/**
 * The static export's record of what it wrote (kept beside the files), and the writer of post pages that keeps
 * it: each post's path, list key and labels, its extra comment pages, and each shown comment's post.
 */
import type { Post } from '../schema/resources.js';
import { type ChunkState, keyOf } from './export-lists.js';
import { COMMENTS_PER_PAGE, renderComments, renderPostResource, type SiteParts } from './render.js';
import { commentsPath, fileOf, relative } from './routes.js';
import { type BlogScope, relOf } from './views.js';

export interface SiteManifest {
  version: 1;
  blogId: string;
  /** The change feed's checkpoint this export is current to. */
  checkpoint: string;
  /** Blog settings, page size and theme: when they change, everything is rewritten. */
  signature: string;
  /** Every file written, with a hash of its bytes. */
  files: Record<string, string>;
  /** Each exported post: its path, list key (published|id), labels, and its extra comment pages. */
  posts: Record<string, { path: string; key: string; labels: string[]; commentFiles: string[] }>;
  /** Each exported page's path. */
  pages: Record<string, string>;
  /** Each shown comment's post. */
  comments: Record<string, string>;
  /** Each list's pages (key: `home`, `label:<label>`, `month:<yyyy-mm>`). */
  lists: Record<string, ChunkState[]>;
}

/**
 * The files of this run: `put` a page at its path relative to the blog (its file is `toFile`'s; a path no file
 * can hold is reported as skipped), or `forget` a file the last run wrote (removed unless put again).
 */
export interface Output {
  put(rel: string, text: string): void;
  forget(file: string | undefined): void;
}

/** Renders a post's page and its further comment pages, keeping the manifest's record of them. */
export class PostWriter {
  constructor(
    private readonly parts: SiteParts,
    private readonly scope: BlogScope,
    private readonly manifest: SiteManifest,
    private readonly out: Output,
  ) {}

  async render(post: Post): Promise<void> {
    const { parts, scope, manifest } = this;
    const path = new URL(post.url!).pathname.slice(scope.base.length - 1);
    const old = manifest.posts[post.id];
    if (old && old.path !== path) this.out.forget(fileOf(relative(old.path)));
    this.out.put(relative(path), (await renderPostResource(parts, scope, post)).body);
    // The comments shown, for a later run to find the post of a comment that disappears.
    const commentFiles: string[] = [];
    let token: string | undefined;
    // A post without LIVE comments shows none (render.ts): nothing to note.
    if (post.replies.totalItems !== '0')
      do {
        const list = await parts.reader.comments.list({
          blogId: scope.blog.id,
          postId: post.id,
          maxResults: COMMENTS_PER_PAGE,
          fetchBodies: false,
          ...(token ? { pageToken: token } : {}),
        });
        for (const c of list.items) manifest.comments[c.id] = post.id;
        if (token) {
          const rel = commentsPath(relOf(scope, path), token);
          const file = fileOf(rel);
          if (file) commentFiles.push(file);
          this.out.put(rel, (await renderComments(parts, scope, path, token, post)).body);
        }
        token = list.nextPageToken;
      } while (token);
    for (const f of old?.commentFiles ?? []) if (!commentFiles.includes(f)) this.out.forget(f);
    manifest.posts[post.id] = { path, key: keyOf(post), labels: [...(post.labels ?? [])], commentFiles };
  }

  remove(id: string): void {
    const old = this.manifest.posts[id];
    if (!old) return;
    this.out.forget(fileOf(relative(old.path)));
    for (const f of old.commentFiles) this.out.forget(f);
    delete this.manifest.posts[id];
  }
}
