/**
 * `blogcore export --format site --out <dir>`: the blog's reading site as static files in a folder. The folder
 * keeps the export's manifest (`.blogcore-site.json`), so the next run into it rewrites only what changed since.
 */
import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, readFile, rename, rm, rmdir, writeFile } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import type { BlogService } from 'blogcore';
import { exportSite, type SiteFiles, type SiteManifest } from 'blogcore/site';
import { CliError } from './errors.js';

export const MANIFEST = '.blogcore-site.json';
/** Files listed one per line in the summary; more are counted. */
const LISTED = 200;

/** Files under `root`, written whole and removed with the folders they leave empty. */
export function folderFiles(root: string): SiteFiles {
  const full = (path: string) => {
    const file = resolve(root, ...path.split('/'));
    if (!file.startsWith(root + sep)) throw new CliError(`refusing to write outside ${root}: ${path}`);
    return file;
  };
  return {
    async write(path, text) {
      const file = full(path);
      await mkdir(dirname(file), { recursive: true });
      await writeFile(file, text);
    },
    async writeBytes(path, bytes) {
      const file = full(path);
      await mkdir(dirname(file), { recursive: true });
      // Written under a temporary name and renamed: an interrupted export never leaves half a picture. The name
      // is short, so a picture whose own name is just under the file system's limit still fits.
      const temp = join(dirname(file), `.${randomUUID()}.part`);
      await pipeline(
        Readable.fromWeb(bytes as import('node:stream/web').ReadableStream<Uint8Array>),
        createWriteStream(temp),
      );
      await rename(temp, file);
    },
    async remove(path) {
      const file = full(path);
      await rm(file, { force: true });
      for (let dir = dirname(file); dir !== root && dir.startsWith(root); dir = dirname(dir)) {
        if (
          !(await rmdir(dir).then(
            () => true,
            () => false,
          ))
        )
          break;
      }
    },
  };
}

/**
 * Writes the site and lists what it wrote, removed and skipped. Skipped files (a path no file can hold, a name
 * too long for the file system) are listed with why, and a line on stderr says how many; the exit code stays 0,
 * as the rest of the site is written and usable (docs/design.md §17).
 */
export async function exportSiteCommand(
  service: BlogService,
  blogId: string,
  out: string,
  stdout: NodeJS.WritableStream,
  stderr: NodeJS.WritableStream,
): Promise<void> {
  const root = resolve(out);
  await mkdir(root, { recursive: true });
  const manifestFile = join(root, MANIFEST);
  const previous = await readFile(manifestFile, 'utf8').then(
    (text) => JSON.parse(text) as SiteManifest,
    () => undefined,
  );
  const report = await exportSite(service, { blogId, previous, files: folderFiles(root) });
  await writeFile(manifestFile, JSON.stringify(report.manifest));
  const shown = relative(process.cwd(), root) || '.';
  const list = (verb: string, files: string[]) => [
    ...files.slice(0, LISTED).map((f) => `  ${verb} ${f}`),
    ...(files.length > LISTED ? [`  … and ${files.length - LISTED} more`] : []),
  ];
  stdout.write(
    `${[
      `Exported blog ${blogId} as a static site to ${shown} (${report.full ? 'everything rendered' : `only what changed since the last export; ${report.unchanged} files rendered again were unchanged`})`,
      `  ${report.written.length} files written, ${report.removed.length} removed${report.skipped.length ? `, ${report.skipped.length} skipped` : ''}`,
      ...list('wrote', report.written),
      ...list('removed', report.removed),
      ...list(
        'skipped',
        report.skipped.map((s) => `${s.path} (${s.reason})`),
      ),
    ].join('\n')}\n`,
  );
  if (report.skipped.length)
    stderr.write(
      `blogcore: ${report.skipped.length} ${report.skipped.length === 1 ? 'file was' : 'files were'} not written (listed above as skipped); the rest of the site was\n`,
    );
}
