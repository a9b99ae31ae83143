/**
 * `exportSite`: the reading site of one blog as static files. The first run writes everything; a run given the
 * manifest of the last one reads the blog's change feed since then (deletions included) and rewrites only the
 * pages of the posts, pages and comments that changed and the list pages that show them. A file is written only
 * when its bytes differ from what the last run wrote, and the report lists every file written and removed.
 */
import type { BlogService } from '../service/create.js';
import type { Comment, Page, Post } from '../schema/resources.js';
import { BlogError } from '../util/errors.js';
import { shortHash } from '../util/ids.js';
import { atomFeed, rssFeed } from '../io/feeds.js';
import { defaultTheme } from './default-theme.js';
import { type ChunkState, keyOf, listKey, listOfKey, updateList } from './export-lists.js';
import { siteParts } from './parts.js';
import { COMMENTS_PER_PAGE, renderComments, renderNotFound, renderPage, renderPostResource, type SiteParts } from './render.js';
import { commentsPath, feedPaths, fileOf, type ListRef, monthOf, relative } from './routes.js';
import { robotsTxt, sitemapPart, sitemapRoot } from './sitemap.js';
import type { Theme } from './theme.js';
import { type BlogScope, relOf, scopeOf } from './views.js';

/** Where the files go: paths are relative to the export's folder, with `/` between folders. */
export interface SiteFiles {
  write(path: string, text: string): Promise<void>;
  remove(path: string): Promise<void>;
}

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

export interface SiteExportOptions {
  blogId: string;
  theme?: Partial<Theme>;
  pageSize?: number;
  /** The manifest the last export into the same folder answered; without it (or for another blog) all is written. */
  previous?: SiteManifest | undefined;
  files: SiteFiles;
}

export interface SiteExportReport {
  /** Whether everything was rendered (no usable previous manifest, or the blog's settings or theme changed). */
  full: boolean;
  /** Files written because they are new or their bytes changed. */
  written: string[];
  /** Files of the last export that no longer exist. */
  removed: string[];
  /** Files rendered again and found unchanged. */
  unchanged: number;
  manifest: SiteManifest;
}

/** Bumped when the site's own markup changes in a way a theme's signature cannot show. */
const FORMAT = 1;

function signatureOf(scope: BlogScope, pageSize: number, theme: Partial<Theme> | undefined): string {
  const parts = Object.entries({ ...defaultTheme, ...theme }).map(([k, f]) => `${k}:${String(f)}`);
  return shortHash(JSON.stringify([FORMAT, scope.blog, pageSize, parts]));
}

/** The checkpoint now, and what changed since `since` (every page of the pull). */
async function pull(reader: BlogService, blogId: string, since?: string) {
  const items: Array<{ kind: string; id: string; resource?: Post | Page | Comment }> = [];
  let pageToken: string | undefined;
  for (;;) {
    const page = await reader.changes.list({
      blogId,
      maxResults: since === undefined ? 1 : 500,
      ...(since ? { since } : {}),
      ...(pageToken ? { pageToken } : {}),
    });
    if (since === undefined) return { checkpoint: page.checkpoint, items };
    items.push(...page.items);
    if (!page.nextPageToken) return { checkpoint: page.checkpoint, items };
    pageToken = page.nextPageToken;
  }
}

export async function exportSite(service: BlogService, options: SiteExportOptions): Promise<SiteExportReport> {
  const parts = siteParts(service, options);
  const { blogId, files } = options;
  const scope = scopeOf(await parts.store.blog(blogId), false);
  const signature = signatureOf(scope, parts.pageSize, options.theme);
  const prev = options.previous;
  let incremental = prev?.version === 1 && prev.blogId === blogId && prev.signature === signature;
  let changes: Awaited<ReturnType<typeof pull>> | undefined;
  if (incremental) {
    changes = await pull(parts.reader, blogId, prev!.checkpoint).catch((e: unknown) => {
      if (BlogError.is(e) && (e.code === 410 || e.code === 400)) return undefined;
      throw e;
    });
    incremental = changes !== undefined;
  }
  if (!incremental) changes = await pull(parts.reader, blogId);
  const manifest: SiteManifest = incremental
    ? structuredClone(prev!)
    : { version: 1, blogId, checkpoint: '', signature, files: {}, posts: {}, pages: {}, comments: {}, lists: {} };
  manifest.checkpoint = changes!.checkpoint;

  const pending = new Map<string, string>();
  const drop = new Set<string>();
  const out: Output = {
    put(file, text) {
      if (!file) return;
      pending.set(file, text);
      drop.delete(file);
    },
    forget(file) {
      if (file && !pending.has(file)) drop.add(file);
    },
  };
  const put = out.put;
  const writer = new PostWriter(parts, scope, manifest, out);

  if (incremental) await applyChanges(parts, scope, manifest, changes!.items, writer, out);
  else {
    for (const [id, path] of Object.entries(await exportPages(parts, scope, put))) manifest.pages[id] = path;
    const seen = { labels: new Set<string>(), months: new Set<string>() };
    manifest.lists.home = await updateList(parts, scope, { kind: 'home' }, undefined, [], true, {
      write: put,
      posts: async (posts) => {
        for (const p of posts) {
          for (const l of p.labels ?? []) seen.labels.add(listKey({ kind: 'label', label: l }));
          seen.months.add(listKey(monthOf(p.published ?? p.updated)));
          await writer.render(p);
        }
      },
    });
    for (const key of [...seen.months, ...seen.labels])
      manifest.lists[key] = await updateList(parts, scope, listOfKey(key), undefined, [], true, { write: put });
    put('404.html', renderNotFound(parts, scope).body);
    if (scope.base === '/') put('robots.txt', robotsTxt(scope));
  }
  if (!incremental || changes!.items.length > 0) await exportAround(parts, scope, put);

  // Write what changed; remove what the last export had and this one has not.
  const before = manifest.files;
  const after: Record<string, string> = incremental ? { ...before } : {};
  const report: SiteExportReport = { full: !incremental, written: [], removed: [], unchanged: 0, manifest };
  for (const [file, text] of pending) {
    const hash = `${shortHash(text)}${text.length.toString(36)}`;
    if (before[file] === hash && incremental) report.unchanged++;
    else {
      await files.write(file, text);
      report.written.push(file);
    }
    after[file] = hash;
  }
  const gone = incremental ? [...drop] : Object.keys(prev?.files ?? {}).filter((f) => !pending.has(f));
  for (const file of gone) {
    if (incremental && !(file in before)) continue; // never written
    delete after[file];
    await files.remove(file);
    report.removed.push(file);
  }
  manifest.files = after;
  report.written.sort();
  report.removed.sort();
  return report;
}

/** The files around the posts: the sitemap (and the parts its index names), the feeds. */
async function exportAround(parts: SiteParts, scope: BlogScope, put: (file: string | undefined, text: string) => void) {
  const root = await sitemapRoot(parts, scope);
  put('sitemap.xml', root.text);
  for (const file of root.files) {
    const text = await sitemapPart(parts, scope, file.replace(/^sitemap-|\.xml$/g, ''));
    if (text !== undefined) put(file, text);
  }
  const feeds = feedPaths(false);
  put(feeds.atom, await atomFeed(parts.reader, { blogId: scope.blog.id }));
  put(feeds.rss, await rssFeed(parts.reader, { blogId: scope.blog.id }));
}

/** Every LIVE page as a file; answers id → path. */
async function exportPages(parts: SiteParts, scope: BlogScope, put: (file: string | undefined, text: string) => void): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  let pageToken: string | undefined;
  do {
    const list = await parts.reader.pages.list({ blogId: scope.blog.id, maxResults: 100, fetchBodies: false, ...(pageToken ? { pageToken } : {}) });
    for (const p of list.items) {
      const path = new URL(p.url!).pathname.slice(scope.base.length - 1);
      out[p.id] = path;
      put(fileOf(relative(path)), (await renderPage(parts, scope, path)).body);
    }
    pageToken = list.nextPageToken;
  } while (pageToken);
  return out;
}

/** The files of this run: `put` one, or `forget` one the last run wrote (removed unless put again). */
interface Output {
  put(file: string | undefined, text: string): void;
  forget(file: string | undefined): void;
}

/** Renders a post's page and its further comment pages, keeping the manifest's record of them. */
class PostWriter {
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
    this.out.put(fileOf(relative(path)), (await renderPostResource(parts, scope, post)).body);
    // The comments shown, for a later run to find the post of a comment that disappears.
    const commentFiles: string[] = [];
    let token: string | undefined;
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
        const file = fileOf(commentsPath(relOf(scope, path), token))!;
        commentFiles.push(file);
        this.out.put(file, (await renderComments(parts, scope, path, token, post)).body);
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

/** An incremental run: the changed posts' and pages' own files, then the stretches of the lists around them. */
async function applyChanges(
  parts: SiteParts,
  scope: BlogScope,
  manifest: SiteManifest,
  items: Awaited<ReturnType<typeof pull>>['items'],
  writer: PostWriter,
  out: Output,
) {
  const blogId = scope.blog.id;
  const posts = new Map<string, Post | null>();
  const touched = new Set<string>();
  let pagesChanged = false;
  for (const item of items) {
    if (item.kind === 'blogger#post') posts.set(item.id, (item.resource as Post | undefined) ?? null);
    else if (item.kind === 'blogger#comment') {
      const postId = (item.resource as Comment | undefined)?.post.id ?? manifest.comments[item.id];
      if (!item.resource) delete manifest.comments[item.id];
      if (postId) touched.add(postId);
    } else {
      pagesChanged = true;
      const old = manifest.pages[item.id];
      const page = item.resource as Page | undefined;
      const path = page?.url ? new URL(page.url).pathname.slice(scope.base.length - 1) : undefined;
      if (old && old !== path) out.forget(fileOf(relative(old)));
      if (path) {
        manifest.pages[item.id] = path;
        out.put(fileOf(relative(path)), (await renderPage(parts, scope, path)).body);
      } else delete manifest.pages[item.id];
    }
  }
  // Which list positions moved: old and new places of every changed post, per list.
  const dirty = new Map<string, Set<string>>();
  const mark = (list: ListRef, key: string) => {
    const k = listKey(list);
    if (!dirty.has(k)) dirty.set(k, new Set());
    dirty.get(k)!.add(key);
  };
  const place = (key: string, labels: readonly string[], published: string) => {
    mark({ kind: 'home' }, key);
    mark(monthOf(published), key);
    for (const label of labels) mark({ kind: 'label', label }, key);
  };
  for (const [id, post] of posts) {
    const old = manifest.posts[id];
    if (old) place(old.key, old.labels, old.key.split('|')[0]!);
    if (post?.url) {
      place(keyOf(post), post.labels ?? [], post.published ?? post.updated);
      await writer.render(post);
    } else writer.remove(id);
  }
  for (const id of touched) {
    if (posts.has(id)) continue;
    const post = await parts.reader.posts.get({ blogId, postId: id }).catch((e: unknown) => {
      if (BlogError.is(e) && e.code === 404) return undefined;
      throw e;
    });
    if (post?.url) await writer.render(post);
  }
  if (pagesChanged) dirty.set('home', dirty.get('home') ?? new Set());
  for (const [key, keys] of dirty) {
    const old = manifest.lists[key];
    const chain = await updateList(parts, scope, listOfKey(key), old, [...keys], key === 'home' && pagesChanged, { write: out.put });
    for (const c of old ?? []) if (!chain.some((n) => n.file === c.file)) out.forget(c.file);
    if (chain.length) manifest.lists[key] = chain;
    else delete manifest.lists[key];
  }
}
