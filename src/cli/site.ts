/**
 * `blogcore export --format site --out <dir>`: the blog's reading site as static files in a folder. The folder
 * keeps the export's manifest (`.blogcore-site.json`), so the next run into it rewrites only what changed since.
 */
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
      // Written under a temporary name and renamed: an interrupted export never leaves half a picture.
      const temp = `${file}.part`;
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

export async function exportSiteCommand(
  service: BlogService,
  blogId: string,
  out: string,
  stdout: NodeJS.WritableStream,
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
      `  ${report.written.length} files written, ${report.removed.length} removed`,
      ...list('wrote', report.written),
      ...list('removed', report.removed),
    ].join('\n')}\n`,
  );
}
