/**
 * `blogcore import` and `blogcore export`: the command-line side of `blogcore/io` (files, terminals).
 * main.ts parses the flags; these run with the values and the `--db` store opened by store.ts.
 */
import { createReadStream, createWriteStream, statSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import { createBlogService, type BlogService } from 'blogcore';
import {
  exportBlog,
  importBlog,
  type ExportFormat,
  type ImportFailure,
  type ImportFormat,
  type ImportReport,
} from 'blogcore/io';
import { CliError, UsageError } from './errors.js';
import { exportSiteCommand } from './site.js';
import { blogIdOf, newStoreFile, openDriver, removeNewStore, shownDb } from './store.js';
import { userLabel } from './users.js';

type Values = Record<string, string | boolean | string[] | undefined>;

export interface IoStreams {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
}

const open = async (db: string, create: boolean): Promise<BlogService> =>
  createBlogService({ driver: await openDriver(db, { create }) });

/** What `export --format` takes: the formats of `exportBlog`, and the static site. */
const EXPORT_FORMATS = ['blogcore-json', 'blogger-atom', 'wxr', 'site'] as const;

/** The `import` and `export` entries of main.ts's COMMANDS. */
export const IO_COMMANDS = {
  import: {
    usage: `blogcore import <file> --db <file> [--blog <url>] [--owner <userId>] [--format <format>] [--redirects <file>] [--media] [--json] [--verbose]
      Imports a Blogger export (Atom or Takeout), a WordPress WXR file, a Ghost JSON export or blogcore-json.
      Running it again with the same file changes nothing; an interrupted import completes when run again.
      --media           also download the pictures the blog uses and point its posts at their new copies
                        (4 at a time; what fails is listed and keeps its old url; a re-run fetches what is missing)
      --allow-private-hosts <host>  let --media download from this host even on a private or loopback
                        address (repeat for more; * for any)
      --blog            the blog's url (default: the file's own; required for Ghost)
      --owner           the user who becomes the blog's ADMIN (default: the file's first author);
                        created with that id when the store has no such user
      --format          blogcore-json, wxr, blogger-atom or ghost-json (default: detected)
      --redirects       also write the map of old permalinks to new urls to a file (JSON for *.json, else
                        "old<TAB>new" lines); the blog keeps it either way and serve --site answers it (301)
      --json            print the report as JSON
      --verbose         list every skipped and drafted item (by default: one line per reason, with its count)`,
    positionals: true,
    options: {
      db: { type: 'string' },
      blog: { type: 'string' },
      owner: { type: 'string' },
      format: { type: 'string' },
      redirects: { type: 'string' },
      media: { type: 'boolean', default: false },
      'allow-private-hosts': { type: 'string', multiple: true },
      json: { type: 'boolean', default: false },
      verbose: { type: 'boolean', default: false },
    },
    run: (values: Values, positionals: string[]) =>
      importCommand(values, positionals, { stdout: process.stdout, stderr: process.stderr }),
  },
  export: {
    usage: `blogcore export --db <file> --blog <url|id> --format ${EXPORT_FORMATS.join('|')} [--out <file|dir>] [--media]
      Streams a blog out (to stdout without --out). --media: blogcore-json carries the pictures' bytes too.
      --format site writes the blog's reading site as static files into the folder --out names; run again
      into the same folder, it rewrites only what changed.`,
    options: {
      db: { type: 'string' },
      blog: { type: 'string' },
      format: { type: 'string' },
      out: { type: 'string' },
      media: { type: 'boolean', default: false },
    },
    run: (values: Values) => exportCommand(values, { stdout: process.stdout, stderr: process.stderr }),
  },
} as const;

export async function importCommand(values: Values, positionals: string[], ctx: IoStreams): Promise<void> {
  const file = positionals[0];
  if (!file || positionals.length > 1) throw new UsageError('import: name one file to import');
  if (typeof values.db !== 'string') throw new UsageError('import: --db <file> is required');
  let size: number;
  try {
    size = statSync(file).size;
  } catch (error) {
    throw new CliError(`${file}: ${(error as Error).message}`);
  }
  // A store this run creates is removed again when the import fails having imported nothing.
  const fresh = newStoreFile(values.db);
  const service = await open(values.db, true);
  const failed = async (error: unknown, imported = false): Promise<never> => {
    await service.close();
    if (fresh && !imported) removeNewStore(fresh);
    throw error;
  };
  const bar = ctx.stderr.isTTY ? progressBar(ctx.stderr, size) : undefined;
  const str = (k: string) => (typeof values[k] === 'string' ? (values[k] as string) : undefined);
  // On the command line there is no other way to make a user: --owner names one, made if missing.
  const ownerId = str('owner');
  if (ownerId && !(await service.users.get({ userId: ownerId }).catch(() => undefined))) {
    await service.users.insert({ body: { id: ownerId, displayName: ownerId } }).catch(failed);
  }
  let report: ImportReport;
  try {
    report = await importBlog(service, createReadStream(file), {
      ...(str('format') ? { format: str('format') as ImportFormat } : {}),
      ...(str('blog') ? { blogUrl: str('blog')! } : {}),
      ...(str('owner') ? { ownerId: str('owner')! } : {}),
      ...(values.media === true ? { media: true, allowPrivateHosts: privateHosts(values['allow-private-hosts']) } : {}),
      ...(bar ? { onProgress: bar.update } : {}),
    });
  } catch (error) {
    bar?.done();
    const partial = (error as Partial<ImportFailure>).report;
    const imported = partial !== undefined && Object.values(partial.created).some((n) => n > 0);
    if (imported)
      ctx.stderr.write(
        `${summary(partial)}\nThe import stopped; what is listed above was imported. Fix the file and run the same command again to complete it.\n`,
      );
    return failed(error, imported);
  }
  bar?.done();
  const owner = await ownerLines(service, report.blogId, values.db);
  await service.close();
  const redirects = str('redirects');
  if (redirects) {
    const text = redirects.endsWith('.json')
      ? `${JSON.stringify(report.redirects, null, 2)}\n`
      : report.redirects.map((r) => `${r.from}\t${r.to}\n`).join('');
    writeFileSync(redirects, text);
  }
  if (values.json === true) ctx.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  else
    ctx.stdout.write(
      `${summary(report, values.verbose === true)}${redirects ? `\nRedirect map written to ${redirects}` : ''}\n${owner}`,
    );
}

/** Who administers the imported blog, and how to sign in as them over HTTP. */
async function ownerLines(service: BlogService, blogId: string, db: string): Promise<string> {
  const blog = await service.blogs.get({ blogId, view: 'ADMIN' });
  const admins = (await service.members.list({ blogId })).items.filter((m) => m.role === 'ADMIN').map((m) => m.userId);
  const lines = [`\nThe blog ${blog.name} (${blog.url}) is administered by:`];
  for (const id of admins) lines.push(`  ${await userLabel(service, id)}`);
  lines.push(
    'To manage it over HTTP, mint a bearer token for one of them, then serve the store:',
    `  blogcore token --db ${shownDb(db)} --user ${admins[0]}`,
    `  blogcore serve --db ${shownDb(db)}`,
  );
  return `${lines.join('\n')}\n`;
}

export async function exportCommand(values: Values, ctx: IoStreams): Promise<void> {
  const { db, blog, format } = values;
  if (typeof db !== 'string' || typeof blog !== 'string' || typeof format !== 'string')
    throw new UsageError(`export: --db, --blog and --format (${EXPORT_FORMATS.join(', ')}) are required`);
  if (!(EXPORT_FORMATS as readonly string[]).includes(format))
    throw new UsageError(`export --format: one of ${EXPORT_FORMATS.join(', ')}, not ${format}`);
  const service = await open(db, false);
  try {
    const blogId = await blogIdOf(service, blog);
    if (format === 'site') {
      if (typeof values.out !== 'string')
        throw new UsageError('export: --format site needs --out <dir>, the folder to write the site into');
      await exportSiteCommand(service, blogId, values.out, ctx.stdout, ctx.stderr);
      return;
    }
    const chunks = exportBlog(service, blogId, { format: format as ExportFormat, media: values.media === true });
    const outFile = typeof values.out === 'string' ? values.out : undefined;
    const out: NodeJS.WritableStream = outFile ? createWriteStream(outFile) : ctx.stdout;
    // A reader that stops early (`| head`) ends the export quietly.
    let closed = false;
    out.on('error', (e: NodeJS.ErrnoException) => {
      if (e.code !== 'EPIPE') throw e;
      closed = true;
    });
    try {
      for await (const chunk of chunks) {
        if (closed) break;
        if (!out.write(chunk)) await once(out, 'drain');
      }
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EPIPE') throw e;
    }
    if (outFile) {
      out.end();
      await once(out, 'finish');
      ctx.stderr.write(`Exported blog ${blogId} as ${format} to ${outFile}\n`);
    }
  } finally {
    await service.close();
  }
}

/** Items with their reasons: one line per item (`verbose`), else one per reason with its count, most frequent first. */
function reasons(items: ImportReport['skipped'], verbose: boolean): string[] {
  if (verbose) return items.map((s) => `    - ${s.source}: ${s.reason}`);
  const counts = new Map<string, number>();
  for (const s of items) counts.set(s.reason, (counts.get(s.reason) ?? 0) + 1);
  return [...counts].sort((a, b) => b[1] - a[1]).map(([reason, n]) => `    - ${n} × ${reason}`);
}

/** The report as people read it: counts per kind, skipped and drafted items by reason (each one with `verbose`). */
export function summary(r: ImportReport, verbose = false): string {
  const lines = [
    `Imported ${r.format} into blog ${r.blogId}`,
    `  created:   ${r.created.posts} posts, ${r.created.pages} pages, ${r.created.comments} comments, ${r.created.users} users`,
    `  unchanged: ${r.unchanged.posts} posts, ${r.unchanged.pages} pages, ${r.unchanged.comments} comments (already imported)`,
    ...(r.created.media || r.unchanged.media
      ? [`  pictures:  ${r.created.media} stored, ${r.unchanged.media} already there`]
      : []),
    `  skipped:   ${r.skipped.length}`,
    ...reasons(r.skipped, verbose),
    `  drafted:   ${r.drafted.length}${r.drafted.length ? ' not public in the source, so imported as DRAFT (never LIVE)' : ''}`,
    ...reasons(r.drafted, verbose),
    `  redirects: ${r.redirects.length} old permalinks → new urls`,
  ];
  if (!verbose && r.skipped.length + r.drafted.length > 0)
    lines.push('  (--verbose lists each item, --json prints the whole report)');
  return lines.join('\n');
}

/** `--allow-private-hosts`: the hosts named, or every host for `*`. */
const privateHosts = (hosts: unknown): boolean | string[] => {
  const list = Array.isArray(hosts) ? (hosts as string[]) : [];
  return list.includes('*') ? true : list.map((h) => h.toLowerCase());
};

/** A one-line bar on a terminal: share of the file read, items, items/s, pictures and the time left. */
function progressBar(stream: IoStreams['stderr'], total: number) {
  const start = Date.now();
  let last = 0;
  let pictures = 0;
  const draw = (items: number, bytes: number, final = false) => {
    const now = Date.now();
    if (!final && now - last < 100) return;
    last = now;
    const share = total ? Math.min(1, bytes / total) : 0;
    const seconds = (now - start) / 1000;
    const rate = seconds > 0 ? items / seconds : 0;
    const eta = share > 0 && share < 1 ? Math.round((seconds / share) * (1 - share)) : 0;
    const width = Math.max(10, Math.min(30, (stream.columns ?? 80) - 60));
    const filled = Math.round(share * width);
    stream.write(
      `\r[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${(share * 100).toFixed(0).padStart(3)}%  ${items} items  ${rate.toFixed(0)} items/s${pictures ? `  ${pictures} pictures` : ''}  ETA ${eta}s   `,
    );
  };
  let latest = { items: 0, bytes: 0 };
  return {
    update: (p: { items: number; bytes: number; media: number }) => {
      latest = p;
      pictures = p.media;
      draw(p.items, p.bytes);
    },
    done: () => {
      draw(latest.items, total, true);
      stream.write('\n');
    },
  };
}
