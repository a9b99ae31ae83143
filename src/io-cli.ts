/**
 * `blogcore import` and `blogcore export`: the CLI side of `blogcore/io` (Node only: files, terminals).
 * `src/cli.ts` hands these commands their arguments and a way to open the `--db` it was given.
 */
import { createReadStream, createWriteStream, statSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import { parseArgs } from 'node:util';
import type { BlogService } from './index.js';
import { exportBlog, importBlog, type ExportFormat, type ImportFailure, type ImportFormat, type ImportReport } from './io/index.js';

export const IO_USAGE = `  blogcore import <file> --db <file|url> [--blog <url>] [--owner <userId>] [--format <format>] [--redirects <file>] [--json]
      Imports a Blogger export (Atom or Takeout), a WordPress WXR file, a Ghost JSON export or blogcore-json.
      Running it again with the same file changes nothing; an interrupted import completes when run again.
      --redirects writes the map of old permalinks to new urls (JSON for *.json, else "old<TAB>new" lines).
  blogcore export --db <file|url> --blog <url|id> --format blogcore-json|blogger-atom|wxr [--out <file>]
      Streams a blog out (to stdout without --out).
`;

export interface IoCliContext {
  /** Opens the service for a `--db` value (a SQLite file, or whatever else the CLI supports). */
  open(db: string): Promise<BlogService>;
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
}

const fail = (message: string) => new Error(message);

export async function importCommand(argv: string[], ctx: IoCliContext): Promise<void> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      db: { type: 'string' },
      blog: { type: 'string' },
      owner: { type: 'string' },
      format: { type: 'string' },
      redirects: { type: 'string' },
      json: { type: 'boolean', default: false },
    },
  });
  const file = positionals[0];
  if (!file) throw fail(`import: name the file to import\n\n${IO_USAGE}`);
  if (!values.db) throw fail('import: --db <file|url> is required');
  const size = statSync(file).size;
  const service = await ctx.open(values.db);
  const bar = ctx.stderr.isTTY ? progressBar(ctx.stderr, size) : undefined;
  let report: ImportReport;
  try {
    report = await importBlog(service, createReadStream(file), {
      ...(values.format ? { format: values.format as ImportFormat } : {}),
      ...(values.blog ? { blogUrl: values.blog } : {}),
      ...(values.owner ? { ownerId: values.owner } : {}),
      ...(bar ? { onProgress: bar.update } : {}),
    });
  } catch (error) {
    bar?.done();
    const partial = (error as Partial<ImportFailure>).report;
    if (partial) ctx.stderr.write(`${summary(partial)}\nThe import stopped; what is listed above was imported. Fix the file and run the same command again to complete it.\n`);
    await service.close();
    throw error;
  }
  bar?.done();
  await service.close();
  if (values.redirects) {
    const text = values.redirects.endsWith('.json')
      ? `${JSON.stringify(report.redirects, null, 2)}\n`
      : report.redirects.map((r) => `${r.from}\t${r.to}\n`).join('');
    writeFileSync(values.redirects, text);
  }
  if (values.json) ctx.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  else ctx.stdout.write(`${summary(report)}${values.redirects ? `\nRedirect map written to ${values.redirects}` : ''}\n`);
}

export async function exportCommand(argv: string[], ctx: IoCliContext): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    allowPositionals: false,
    options: { db: { type: 'string' }, blog: { type: 'string' }, format: { type: 'string' }, out: { type: 'string' } },
  });
  if (!values.db || !values.blog || !values.format) throw fail(`export: --db, --blog and --format are required\n\n${IO_USAGE}`);
  const service = await ctx.open(values.db);
  try {
    const blogId = /^https?:\/\//i.test(values.blog) ? (await service.blogs.getByUrl({ url: values.blog })).id : (await service.blogs.get({ blogId: values.blog })).id;
    const chunks = exportBlog(service, blogId, { format: values.format as ExportFormat });
    const out: NodeJS.WritableStream = values.out ? createWriteStream(values.out) : ctx.stdout;
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
    if (values.out) {
      (out as ReturnType<typeof createWriteStream>).end();
      await once(out, 'finish');
      ctx.stderr.write(`Exported blog ${blogId} as ${values.format} to ${values.out}\n`);
    }
  } finally {
    await service.close();
  }
}

/** The report as people read it: counts per kind, every skipped record with its reason. */
export function summary(r: ImportReport): string {
  const lines = [
    `Imported ${r.format} into blog ${r.blogId}`,
    `  created:   ${r.created.posts} posts, ${r.created.pages} pages, ${r.created.comments} comments, ${r.created.users} users`,
    `  unchanged: ${r.unchanged.posts} posts, ${r.unchanged.pages} pages, ${r.unchanged.comments} comments (already imported)`,
    `  skipped:   ${r.skipped.length}`,
    ...r.skipped.map((s) => `    - ${s.source}: ${s.reason}`),
    `  redirects: ${r.redirects.length} old permalinks → new urls`,
  ];
  return lines.join('\n');
}

/** A one-line bar on a terminal: share of the file read, items, items/s and the time left. */
function progressBar(stream: IoCliContext['stderr'], total: number) {
  const start = Date.now();
  let last = 0;
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
    stream.write(`\r[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${(share * 100).toFixed(0).padStart(3)}%  ${items} items  ${rate.toFixed(0)} items/s  ETA ${eta}s   `);
  };
  let latest = { items: 0, bytes: 0 };
  return {
    update: (p: { items: number; bytes: number }) => {
      latest = p;
      draw(p.items, p.bytes);
    },
    done: () => {
      draw(latest.items, total, true);
      stream.write('\n');
    },
  };
}
