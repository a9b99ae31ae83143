/**
 * `fsBlobs({ dir })`: media bytes as files under a directory (`<dir>/<blogId>/<upload id>`). A put writes a
 * file in `<dir>/.staging/`, flushes it to disk and renames it to its name: a file under its final name is
 * always whole, even after a crash or a power cut. Files a crash left in `.staging/` go at the next `sweep`.
 */
import { randomUUID } from 'node:crypto';
import { type FileHandle, mkdir, open, readdir, rename, unlink } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { BlobRange, BlobStore } from '../../store/driver.js';

export interface FsBlobsOptions {
  /** The directory that holds the files (created when missing). */
  dir: string;
}

const STAGING = '.staging';
/** A key part the core writes: never empty, `.`-led (so never `.staging`, `.` or `..`) or a path of its own. */
const PART = /^[A-Za-z0-9_-][A-Za-z0-9._-]*$/;
const READ_SIZE = 256 * 1024;

const isMissing = (e: unknown) => (e as { code?: string }).code === 'ENOENT';

/**
 * A blob store for media bytes in files under `dir` (Node only): pass it as `blobs` to `createBlogService`.
 * Every file under its final name is whole (written aside, flushed, then renamed); the records stay in the driver.
 *
 * @example
 * createBlogService({ driver: sqliteDriver({ filename: 'blog.db' }), blobs: fsBlobs({ dir: 'media' }) });
 */
export function fsBlobs(options: FsBlobsOptions): BlobStore {
  const dir = options?.dir;
  if (typeof dir !== 'string' || dir === '')
    throw new TypeError('fsBlobs needs { dir }: the directory to keep media files in');
  const staging = join(dir, STAGING);
  const pathOf = (key: string) => {
    const parts = key.split('/');
    if (!parts.every((p) => PART.test(p))) throw new Error(`fsBlobs: ${JSON.stringify(key)} is not a blob key`);
    return join(dir, ...parts);
  };

  // Folders this store made or found: a put makes each once (a folder removed meanwhile is made again).
  const made = new Set<string>();
  const folder = async (path: string) => {
    if (made.has(path)) return;
    await mkdir(path, { recursive: true });
    made.add(path);
  };

  return {
    async put(key, source) {
      const path = pathOf(key);
      await folder(staging);
      // The start time leads the name, so sweep needs no stat.
      const temp = join(staging, `${Date.now()}-${randomUUID()}`);
      const file = await open(temp, 'wx').catch(async (error: unknown) => {
        if (!isMissing(error)) throw error;
        made.clear();
        await folder(staging);
        return open(temp, 'wx');
      });
      let size = 0;
      try {
        try {
          for await (const chunk of source) {
            for (let at = 0; at < chunk.byteLength; ) at += (await file.write(chunk, at)).bytesWritten;
            size += chunk.byteLength;
          }
          await file.sync();
        } finally {
          await file.close();
        }
        await folder(dirname(path));
        await rename(temp, path).catch(async (error: unknown) => {
          if (!isMissing(error)) throw error;
          made.clear();
          await folder(dirname(path));
          await rename(temp, path);
        });
      } catch (error) {
        await unlink(temp).catch(() => undefined);
        throw error;
      }
      return size;
    },

    async read(key: string, range?: BlobRange) {
      let file: FileHandle;
      try {
        file = await open(pathOf(key), 'r');
      } catch (error) {
        if (isMissing(error)) return undefined;
        throw error;
      }
      const end = range ? range.offset + range.length : (await file.stat()).size;
      return fileStream(file, range ? range.offset : 0, end);
    },

    async delete(key) {
      await unlink(pathOf(key)).catch((error: unknown) => {
        if (!isMissing(error)) throw error;
      });
    },

    sweep: (before, limit) => sweepStaging(staging, before, limit),
  };
}

/** A file's bytes from `at` to `end`, read as the reader pulls them; the file closes at the end or on cancel. */
function fileStream(file: FileHandle, at: number, end: number): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          const want = Math.min(READ_SIZE, end - at);
          // allocUnsafe: every byte handed on is one just read (no zero-filling of what is overwritten anyway).
          const { bytesRead, buffer } =
            want > 0 ? await file.read(Buffer.allocUnsafe(want), 0, want, at) : { bytesRead: 0, buffer: undefined };
          if (bytesRead > 0) controller.enqueue(bytesRead === want ? buffer! : buffer!.subarray(0, bytesRead));
          at += bytesRead;
          if (bytesRead === 0 || at >= end) {
            await file.close();
            controller.close();
          }
        } catch (error) {
          await file.close().catch(() => undefined);
          controller.error(error);
        }
      },
      async cancel() {
        await file.close().catch(() => undefined);
      },
    },
    { highWaterMark: 0 },
  );
}

/** Removes up to `limit` files a crash left in `.staging/`, started before `before` (their names lead with it). */
async function sweepStaging(staging: string, before: number, limit: number): Promise<number> {
  let names: string[];
  try {
    names = await readdir(staging);
  } catch (error) {
    if (isMissing(error)) return 0;
    throw error;
  }
  let removed = 0;
  for (const name of names) {
    if (removed >= limit) break;
    const started = Number(name.split('-', 1)[0]);
    if (!(started < before)) continue;
    await unlink(join(staging, name)).then(
      () => removed++,
      (error: unknown) => {
        if (!isMissing(error)) throw error;
      },
    );
  }
  return removed;
}
