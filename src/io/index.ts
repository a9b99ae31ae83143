/**
 * `blogcore/io`: whole blogs in and out. `importBlog` reads a Blogger export (legacy Atom or Takeout), a
 * WordPress WXR file, a Ghost JSON export or blogcore's own `blogcore-json`; `exportBlog` streams
 * `blogcore-json`, Blogger Atom (Takeout dialect) or WXR; `atomFeed`/`rssFeed` render a blog's LIVE posts.
 * No Node built-ins: this module bundles for browsers (reading files is the caller's, e.g. `fs.createReadStream`).
 */
import { BlogError } from '../util/errors.js';
import type { BlogService } from '../service/types.js';
import { exportBlogger, importBlogger } from './blogger.js';
import { importGhost } from './ghost.js';
import { importJson } from './json.js';
import { exportJson } from './json-out.js';
import { storeRedirects } from '../service/redirects.js';
import { coreOf, Restorer } from './restore.js';
import { peek, textChunks, type ImportSource } from './source.js';
import type { ExportFormat, ExportOptions, ImportFormat, ImportOptions, ImportReport } from './types.js';
import { exportWxr, importWxr } from './wxr.js';
import { DEFAULT_MEDIA_DEADLINE_MS, DEFAULT_MEDIA_TIMEOUT_MS, importMedia } from './media.js';

export { atomFeed, rssFeed, type FeedOptions, type FeedSource } from '../web/feeds.js';
export { cleanMedia, type CleanedPicture, type CleanMediaOptions, type CleanMediaReport } from './clean-media.js';
export type { ImportSource } from './source.js';
export type {
  ExportFormat,
  ExportOptions,
  ImportFormat,
  ImportOptions,
  ImportProgress,
  ImportReport,
} from './types.js';

const FORMATS: readonly ImportFormat[] = ['blogcore-json', 'wxr', 'blogger-atom', 'ghost-json'];

/** The format of a file from its first characters. */
export function detectFormat(head: string): ImportFormat {
  const text = head.replace(/^\uFEFF/, '').trimStart();
  if (text.startsWith('{')) {
    if (/^\{\s*"format"\s*:\s*"blogcore-json"/.test(text)) return 'blogcore-json';
    if (/"db"\s*:\s*\[|"ghost"|"posts_tags"|"meta"\s*:\s*\{\s*"exported_on"/.test(text)) return 'ghost-json';
  } else if (text.startsWith('<')) {
    if (/<rss[\s>]/.test(text) && /wordpress\.org\/export|<wp:/.test(text)) return 'wxr';
    // Atom's feed, with or without a prefix (`<ns0:feed xmlns:ns0="http://www.w3.org/2005/Atom">`, as some converters write it).
    if (/<(?:[\w.-]+:)?feed[\s>]/.test(text) && /blogger/i.test(text)) return 'blogger-atom';
  }
  throw new BlogError({
    code: 400,
    reason: 'invalid',
    message:
      'Unknown file format: expected a Blogger export (Atom), a WordPress WXR file, a Ghost JSON export or blogcore-json',
    location: 'format',
    locationType: 'parameter',
  });
}

/** An import that stopped on a broken file: what was imported before the break is kept, and reported here. */
export interface ImportFailure extends BlogError {
  report: ImportReport;
}

/**
 * Imports a whole blog. Running it again with the same file changes nothing (records already there are
 * counted `unchanged`), and an import that was interrupted completes when run again.
 */
export async function importBlog(
  service: BlogService,
  source: ImportSource,
  options: ImportOptions = {},
): Promise<ImportReport> {
  const core = coreOf(service);
  if (options.format !== undefined && !FORMATS.includes(options.format)) {
    throw new BlogError({
      code: 400,
      reason: 'invalid',
      message: `Unknown format ${String(options.format)}: one of ${FORMATS.join(', ')}`,
      location: 'format',
      locationType: 'parameter',
    });
  }
  await core.ready();
  const counter = { bytes: 0 };
  const { head, rest } = await peek(textChunks(source, counter)[Symbol.asyncIterator](), 4096);
  const format = options.format ?? detectFormat(head);
  const restorer = new Restorer(core, format, options, counter);
  try {
    if (format === 'blogcore-json') await importJson(restorer, rest);
    else if (format === 'wxr') await importWxr(restorer, rest);
    else if (format === 'blogger-atom') await importBlogger(restorer, rest);
    else await importGhost(restorer, rest);
    // The redirects go with the blog, so its site answers the old addresses (docs/design.md §22).
    if (restorer.report.blogId) await storeRedirects(core, restorer.report.blogId, restorer.report.redirects);
    if (options.media) {
      await importMedia(restorer, {
        allowPrivateHosts: options.allowPrivateHosts,
        timeoutMs: options.mediaTimeoutMs ?? DEFAULT_MEDIA_TIMEOUT_MS,
        deadlineMs: options.mediaDeadlineMs ?? DEFAULT_MEDIA_DEADLINE_MS,
      });
    }
  } catch (error) {
    if (BlogError.is(error) && restorer.report.blogId) Object.assign(error, { report: restorer.finish() });
    throw error;
  }
  return restorer.finish();
}

/** Streams a blog out as text chunks. */
export function exportBlog(service: BlogService, blogId: string, options: ExportOptions): AsyncIterable<string> {
  const core = coreOf(service);
  const format: ExportFormat | undefined = options?.format;
  if (format === 'blogcore-json') return exportJson(core, blogId, options.media === true);
  if (format === 'wxr') return exportWxr(core, blogId);
  if (format === 'blogger-atom') return exportBlogger(core, blogId);
  throw new BlogError({
    code: 400,
    reason: 'invalid',
    message: `Unknown export format ${String(format)}: one of blogcore-json, blogger-atom, wxr`,
    location: 'format',
    locationType: 'parameter',
  });
}
