/**
 * `exportSite`: the reading site of one blog as static files. The first run writes everything; a run given the
 * manifest of the last one reads the blog's change feed since then (deletions included) and rewrites only the
 * pages of the posts, pages and comments that changed and the list pages that show them. A file is written only
 * when its bytes differ from what the last run wrote, and the report lists every file written and removed.
 */
import type { BlogService } from '../service/types.js';
import { BlogError } from '../util/errors.js';
import { shortHash } from '../util/ids.js';
import { atomFeed, rssFeed } from '../web/feeds.js';
import { defaultTheme } from './default-theme.js';
import { listKey, listOfKey, updateList } from './export-lists.js';
import { applyChanges, pull } from './export-changes.js';
import { type Output, PostWriter, type SiteManifest } from './manifest.js';
import { siteParts } from './parts.js';
import { exportRedirects } from './export-redirects.js';
import { renderNotFound, renderPage, type SiteParts } from './render.js';
import { segmentProblem } from '../rules/paths.js';
import { feedPaths, monthOf, outsideProblem, relative, toFile } from './routes.js';
import { robotsTxt, sitemapPart, sitemapRoot, windowRange } from './sitemap.js';
import type { Theme } from './theme.js';
import { type BlogScope, scopeOf } from './views.js';

/**
 * Where the files go: paths are relative to the export's folder, with `/` between folders. Every path handed
 * out stays below the folder (no `..`, `.` or empty step, no backslash, NUL or drive; docs/design.md §17), so a
 * writer may join it to its folder as it is. A call that throws an error whose `code` names a problem of that
 * one file (`ENAMETOOLONG`, `EINVAL`, `EILSEQ`, `ENOTDIR`, `EISDIR`) skips that file, reported in `skipped`;
 * any other error stops the export.
 */
export interface SiteFiles {
  /** Writes a text file (a page, a feed, the sitemap), creating its folders. */
  write(path: string, text: string): Promise<void>;
  /** Removes a file an earlier export wrote that the blog no longer has. */
  remove(path: string): Promise<void>;
  /**
   * Writes a picture's bytes. With it, the blog's pictures that the pages show are exported beside them
   * (`media/{blogId}/{mediaId}/{filename}`) and the pages link them there; without it, the pages keep the
   * pictures' urls as stored (served by the HTTP helper).
   */
  writeBytes?(path: string, bytes: ReadableStream<Uint8Array>): Promise<void>;
}

export type { SiteManifest } from './manifest.js';

export interface SiteExportOptions {
  /** The blog to export (its url decides the pages' links). */
  blogId: string;
  /** Parts replacing the default theme's, as `createSite` takes them. */
  theme?: Partial<Theme>;
  /** Posts per list page (1 to 50, default 10). */
  pageSize?: number;
  /** The manifest the last export into the same folder answered; without it (or for another blog) all is written. */
  previous?: SiteManifest | undefined;
  /** Where the files go. */
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
  /**
   * What could not be written, and why: a page or picture whose path no file below the folder can hold (a
   * segment that decodes to `/`, `\`, `..` or NUL, a name over 255 bytes), or a write the writer refused for
   * that file alone. Everything else is written.
   */
  skipped: SkippedFile[];
  /** Keep it (e.g. as a JSON file beside the export) and pass it as `previous` next time. */
  manifest: SiteManifest;
}

export interface SkippedFile {
  /** The page's path relative to the blog (as its url names it), or the file's path for a refused write. */
  path: string;
  reason: string;
}

/** Bumped when the site's own markup changes in a way a theme's signature cannot show. */
const FORMAT = 1;

function signatureOf(scope: BlogScope, pageSize: number, theme: Partial<Theme> | undefined): string {
  const parts = Object.entries({ ...defaultTheme, ...theme }).map(([k, f]) => `${k}:${String(f)}`);
  return shortHash(JSON.stringify([FORMAT, scope.blog, pageSize, parts]));
}

/**
 * Writes the reading site of one blog as static files through `files`: the pages `createSite` would serve, the
 * feeds, the sitemap and robots.txt. Given the `manifest` of the last run as `previous`, it renders only what
 * changed since; the report lists what it wrote and removed. `blogcore export --format site` runs it.
 */
export async function exportSite(service: BlogService, options: SiteExportOptions): Promise<SiteExportReport> {
  const parts = siteParts(service, options);
  const { blogId, files } = options;
  const scope = scopeOf(await parts.store.blog(blogId), false, files.writeBytes !== undefined);
  const signature = signatureOf(scope, parts.pageSize, options.theme);
  const prev = options.previous;
  const { incremental, changes, manifest } = await startFrom(parts, blogId, signature, prev);

  const pending = new Map<string, string>();
  const drop = new Set<string>();
  const skipped = new Map<string, string>();
  const out: Output = {
    put(rel, text) {
      const file = toFile(rel);
      if (typeof file !== 'string') {
        skipped.set(rel, file.reason);
        return;
      }
      pending.set(file, text);
      drop.delete(file);
    },
    forget(file) {
      if (file && !pending.has(file)) drop.add(file);
    },
  };
  const put = out.put;
  const writer = new PostWriter(parts, scope, manifest, out);

  let changed: Awaited<ReturnType<typeof applyChanges>> | undefined;
  if (incremental) changed = await applyChanges(parts, scope, manifest, changes.items, writer, out);
  else await renderAll(parts, scope, manifest, writer, put);
  if (!incremental || changes.items.length > 0)
    await exportAround(parts, scope, out, changed && { ...changed, had: manifest.files });
  // Redirects are not in the change feed: put each run (unchanged files are not written again).
  await exportRedirects(
    parts,
    scope,
    put,
    (file, text) => pending.set(file, text),
    // A page of the blog wins; in a run after the first, a file already there stays as it is.
    (file) => pending.has(file) || (incremental && file in manifest.files),
  );
  return writeOut(parts, scope, files, { manifest, previous: prev, incremental, pending, drop, skipped });
}

/**
 * Where a run starts: after the last run's checkpoint when its manifest is this blog's with the same signature
 * and the change feed still reaches back to it, else from nothing (a full run).
 */
async function startFrom(parts: SiteParts, blogId: string, signature: string, prev: SiteManifest | undefined) {
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
  return { incremental, changes: changes!, manifest };
}

/** A full run's pages: every page, every post through the home list, each month's and label's list, 404, robots. */
async function renderAll(
  parts: SiteParts,
  scope: BlogScope,
  manifest: SiteManifest,
  writer: PostWriter,
  put: Output['put'],
): Promise<void> {
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

/**
 * Writes what changed (and the pictures); removes what the last export had and this one has not; the report
 * and the new manifest's file list follow what was done.
 */
async function writeOut(
  parts: SiteParts,
  scope: BlogScope,
  files: SiteExportOptions['files'],
  run: {
    manifest: SiteManifest;
    incremental: boolean;
    previous: SiteManifest | undefined;
    pending: Map<string, string>;
    drop: Set<string>;
    skipped: Map<string, string>;
  },
): Promise<SiteExportReport> {
  const { manifest, incremental, pending, skipped } = run;
  const before = manifest.files;
  const after: Record<string, string> = incremental ? { ...before } : {};
  const report: SiteExportReport = {
    full: !incremental,
    written: [],
    removed: [],
    unchanged: 0,
    skipped: [],
    manifest,
  };
  const attempt = (file: string, call: () => Promise<void>) => tryFile(file, call, skipped);
  for (const [file, text] of pending) {
    const hash = `${shortHash(text)}${text.length.toString(36)}`;
    if (before[file] === hash && incremental) report.unchanged++;
    else if (await attempt(file, () => files.write(file, text))) report.written.push(file);
    else continue; // not in the manifest: the next run tries it again
    after[file] = hash;
  }
  if (files.writeBytes) {
    const writeBytes = files.writeBytes.bind(files);
    await exportPictures(parts, scope, pending, before, after, report, skipped, (path, bytes) =>
      attempt(path, () => writeBytes(path, bytes)),
    );
  }
  const gone = incremental ? [...run.drop] : Object.keys(run.previous?.files ?? {}).filter((f) => !(f in after));
  for (const file of gone) {
    if (incremental && !(file in before)) continue; // never written
    if (!(await attempt(file, () => files.remove(file)))) continue;
    delete after[file];
    report.removed.push(file);
  }
  manifest.files = after;
  report.written.sort();
  report.removed.sort();
  report.skipped = [...skipped].map(([path, reason]) => ({ path, reason })).sort((a, b) => (a.path < b.path ? -1 : 1));
  return report;
}

/** Errors of one file that skip it, not the export (docs/design.md §17). */
const FILE_ERRORS = new Set(['ENAMETOOLONG', 'EINVAL', 'EILSEQ', 'ENOTDIR', 'EISDIR']);

/**
 * Hands one path to the writer once it passes the last check; answers whether it was written. A path that
 * fails the check, or a write that fails for that file alone, is noted in `skipped`; other errors propagate.
 */
async function tryFile(file: string, call: () => Promise<void>, skipped: Map<string, string>): Promise<boolean> {
  const outside = outsideProblem(file);
  if (outside) {
    skipped.set(file, outside);
    return false;
  }
  try {
    await call();
    return true;
  } catch (e) {
    const code = (e as { code?: unknown } | null)?.code;
    if (typeof code !== 'string' || !FILE_ERRORS.has(code)) throw e;
    skipped.set(file, `${code}: ${(e as Error).message ?? code}`);
    return false;
  }
}

/**
 * The pictures of the blog that the written pages show, as files at the path the pages link (a picture's bytes
 * never change under its id, so one the last export wrote is not written again). A picture no longer stored is
 * left out, its link broken as on the live site.
 */
async function exportPictures(
  parts: SiteParts,
  scope: BlogScope,
  pending: ReadonlyMap<string, string>,
  before: Record<string, string>,
  after: Record<string, string>,
  report: SiteExportReport,
  skipped: Map<string, string>,
  writeBytes: (path: string, bytes: ReadableStream<Uint8Array>) => Promise<boolean>,
): Promise<void> {
  const at = `${scope.media}${scope.blog.id}/`;
  // `{id}/{name}` names the picture, `{id}/w{N}/{name}` a variant of it (docs/design.md §23).
  const link = new RegExp(`${at.replace(/[^\w/-]/g, '\\$&')}([0-9a-f]{64})/(?:w(\\d{1,5})/)?([^"'\\s?#<>/]+)`, 'g');
  const wanted = new Map<string, { mediaId: string; width?: number }>();
  for (const [file, text] of pending) {
    if (!file.endsWith('.html') || !text.includes(at)) continue;
    for (const [, mediaId, width, name] of text.matchAll(link)) {
      let filename: string;
      try {
        filename = decodeURIComponent(name!.replace(/&amp;/g, '&'));
      } catch {
        continue;
      }
      const path = `media/${scope.blog.id}/${mediaId}/${width ? `w${width}/` : ''}${filename}`;
      const problem = segmentProblem(filename);
      if (problem) skipped.set(path, problem);
      else wanted.set(path, { mediaId: mediaId!, ...(width ? { width: Number(width) } : {}) });
    }
  }
  for (const [path, { mediaId, width }] of wanted) {
    if (before[path] !== mediaId) {
      const body = width
        ? await variantBytes(parts, scope.blog.id, mediaId, width, path)
        : await parts.reader.media.read({ blogId: scope.blog.id, mediaId }).then(
            (r) => r.body,
            (e: unknown) => {
              if (BlogError.is(e) && e.code < 500) return undefined;
              throw e;
            },
          );
      if (!body) continue;
      if (!(await writeBytes(path, body))) {
        await body.cancel().catch(() => {});
        continue;
      }
      report.written.push(path);
    } else report.unchanged++;
    after[path] = mediaId;
  }
}

/** A variant's bytes as a stream, or undefined when it is not offered (its link broken as on the live site). */
async function variantBytes(parts: SiteParts, blogId: string, mediaId: string, width: number, path: string) {
  const bytes = await parts.store.variant(blogId, mediaId, width, path.slice(path.lastIndexOf('.') + 1));
  return (
    bytes &&
    new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(bytes);
        c.close();
      },
    })
  );
}

/**
 * The files around the posts: the sitemap (and the parts its index names), the feeds. After changes, only the
 * sitemap parts whose time window holds a changed post (or new parts) are read again; parts the index no longer
 * names go.
 */
async function exportAround(
  parts: SiteParts,
  scope: BlogScope,
  out: Output,
  changed?: { times: readonly string[]; pages: boolean; had: Record<string, string> },
) {
  const root = await sitemapRoot(parts, scope);
  out.put('sitemap.xml', root.text);
  for (const file of root.files) {
    const part = file.replace(/^sitemap-|\.xml$/g, '');
    const range = part.startsWith('posts-') ? windowRange(part.slice(6)) : undefined;
    const stale =
      !changed ||
      !(file in changed.had) ||
      (range ? changed.times.some((t) => t >= range.start && t < range.end) : changed.pages);
    if (!stale) continue;
    const text = await sitemapPart(parts, scope, part);
    if (text !== undefined) out.put(file, text);
  }
  for (const file of Object.keys(changed?.had ?? {}))
    if (/^sitemap-.+\.xml$/.test(file) && !root.files.includes(file)) out.forget(file);
  const feeds = feedPaths(false);
  out.put(feeds.atom, await atomFeed(parts.reader, { blogId: scope.blog.id, selfUrl: scope.blog.url + feeds.atom }));
  out.put(feeds.rss, await rssFeed(parts.reader, { blogId: scope.blog.id, selfUrl: scope.blog.url + feeds.rss }));
}

/** Every LIVE page as a file; answers id → path. */
async function exportPages(
  parts: SiteParts,
  scope: BlogScope,
  put: (rel: string, text: string) => void,
): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  let pageToken: string | undefined;
  do {
    const list = await parts.reader.pages.list({
      blogId: scope.blog.id,
      maxResults: 100,
      fetchBodies: false,
      ...(pageToken ? { pageToken } : {}),
    });
    for (const p of list.items) {
      const path = new URL(p.url!).pathname.slice(scope.base.length - 1);
      out[p.id] = path;
      put(relative(path), (await renderPage(parts, scope, path)).body);
    }
    pageToken = list.nextPageToken;
  } while (pageToken);
  return out;
}
