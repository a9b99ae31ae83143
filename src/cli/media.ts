/**
 * `blogcore media add <file…>` and `blogcore media list`: a blog's pictures from the command line (the
 * store `--db` names, as the host: pictures added here are the blog owner's).
 */
import { createReadStream } from 'node:fs';
import { basename } from 'node:path';
import { BlogError, createBlogService, type BlogService, type Media } from 'blogcore';
import { cleanMedia, type CleanMediaReport } from 'blogcore/io';
import { CliError, UsageError } from './errors.js';
import type { IoStreams } from './io.js';
import { blogIdOf, openDriver } from './store.js';

type Values = Record<string, string | boolean | string[] | undefined>;

export const MEDIA_COMMANDS = {
  media: {
    usage: `blogcore media add <file…> | list | clean --db <file> --blog <url|id> [--alt <text>] [--post <postId>] [--json]
      add: adds pictures (JPEG, PNG, GIF, WebP, AVIF) to a blog and prints their urls (--alt: their text);
      the same picture added twice is kept once. list: the blog's pictures, newest first, or those --post uses.
      clean: stores pictures kept with their metadata (location, camera serial…) again without it, under new
      ids; posts and pages are rewritten to the new urls and the old ones answer 301. Safe to run again.`,
    positionals: true,
    options: {
      db: { type: 'string' },
      blog: { type: 'string' },
      alt: { type: 'string' },
      post: { type: 'string' },
      json: { type: 'boolean', default: false },
    },
    run: (values: Values, positionals: string[]) =>
      mediaCommand(values, positionals, { stdout: process.stdout, stderr: process.stderr }),
  },
} as const;

const line = (m: Media) => `${m.id}  ${m.width}×${m.height}  ${m.bytes} bytes  ${m.filename}  ${m.url}`;

export async function mediaCommand(values: Values, positionals: string[], ctx: IoStreams): Promise<void> {
  const [sub, ...files] = positionals;
  if (sub !== 'add' && sub !== 'list' && sub !== 'clean') throw new UsageError('media: add <file…>, list or clean');
  if (typeof values.db !== 'string' || typeof values.blog !== 'string')
    throw new UsageError(`media ${sub}: --db and --blog are required`);
  if (sub === 'add' && files.length === 0) throw new UsageError('media add: name the picture files to add');
  if (sub !== 'add' && files.length > 0) throw new UsageError(`media ${sub}: takes no files`);
  const service = createBlogService({ driver: await openDriver(values.db, { create: false }) });
  try {
    const blog = values.blog;
    const blogId = await blogIdOf(service, blog);
    if (sub === 'add') await add(service, blogId, files, values, ctx);
    else if (sub === 'clean') await clean(service, blogId, values, ctx);
    else await list(service, blogId, values, ctx);
  } finally {
    await service.close();
  }
}

async function add(
  service: BlogService,
  blogId: string,
  files: string[],
  values: Values,
  ctx: IoStreams,
): Promise<void> {
  const added: Media[] = [];
  const failed: string[] = [];
  for (const file of files) {
    try {
      const m = await service.media.upload({
        blogId,
        body: createReadStream(file),
        filename: basename(file),
        ...(typeof values.alt === 'string' ? { alt: values.alt } : {}),
      });
      added.push(m);
      if (values.json !== true) ctx.stdout.write(`${file} → ${line(m)}\n`);
    } catch (error) {
      if (!BlogError.is(error) && !(error as { code?: string }).code) throw error;
      failed.push(file);
      ctx.stderr.write(`${file}: ${(error as Error).message}\n`);
    }
  }
  if (values.json === true) ctx.stdout.write(`${JSON.stringify(added, null, 2)}\n`);
  if (failed.length > 0) throw new CliError(`${failed.length} of ${files.length} files not added`);
}

async function list(service: BlogService, blogId: string, values: Values, ctx: IoStreams): Promise<void> {
  const all: Media[] = [];
  let pageToken: string | undefined;
  do {
    const page = await service.media.list({
      blogId,
      maxResults: 500,
      ...(typeof values.post === 'string' ? { postId: values.post } : {}),
      ...(pageToken ? { pageToken } : {}),
    });
    all.push(...page.items);
    if (values.json !== true) for (const m of page.items) ctx.stdout.write(`${line(m)}\n`);
    pageToken = page.nextPageToken;
  } while (pageToken);
  if (values.json === true) ctx.stdout.write(`${JSON.stringify(all, null, 2)}\n`);
  else if (all.length === 0) ctx.stdout.write('No pictures\n');
}

/** Every picture of the blog through `cleanMedia`, a page at a time; prints each one cleaned, then the totals. */
async function clean(service: BlogService, blogId: string, values: Values, ctx: IoStreams): Promise<void> {
  const total: Omit<CleanMediaReport, 'nextPageToken'> = {
    kind: 'blogcore#mediaCleanReport',
    cleaned: [],
    unchanged: 0,
    failed: [],
  };
  let pageToken: string | undefined;
  do {
    const page = await cleanMedia(service, { blogId, maxResults: 20, ...(pageToken ? { pageToken } : {}) });
    total.cleaned.push(...page.cleaned);
    total.unchanged += page.unchanged;
    total.failed.push(...page.failed);
    if (values.json !== true) {
      for (const c of page.cleaned)
        ctx.stdout.write(
          `${c.from} → ${c.to}  ${c.bytesBefore} → ${c.bytesAfter} bytes  ${c.rewritten} posts and pages rewritten\n`,
        );
      for (const f of page.failed) ctx.stderr.write(`${f.id}: ${f.reason}\n`);
    }
    pageToken = page.nextPageToken;
  } while (pageToken);
  if (values.json === true) ctx.stdout.write(`${JSON.stringify(total, null, 2)}\n`);
  else
    ctx.stdout.write(
      `${total.cleaned.length} cleaned, ${total.unchanged} already clean, ${total.failed.length} left as they were\n`,
    );
  if (total.failed.length > 0) throw new CliError(`${total.failed.length} pictures not cleaned`);
}
