/**
 * SIGKILL during uploads (docs/design.md §19): on SQLite (bytes in the same file) and with fsBlobs, a process killed
 * mid-upload leaves no half media: every media record reads back whole with the SHA-256 of its id, no key names
 * half a picture, and what the killed put had staged is removed by the store's sweep.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { sqliteDriver } from '../../drivers/sqlite/index.js';
import { fsBlobs } from '../../src/media/blobs/index.js';
import { createBlogService } from '../../src/index.js';
import { STORE_SCHEMA } from '../../src/store/schema.js';
import { bytesOf } from '../blobs/suite.js';
import { sha256Hex } from './pictures.js';

const root = mkdtempSync(join(tmpdir(), 'blogcore-media-crash-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Runs the uploader until `pieces` pieces went out after its second finished upload, then kills it. */
function uploadAndKill(kind: string, dir: string): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'test/media/crash-uploader.ts', kind, dir], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const done: string[] = [];
    let after = 0;
    let stderr = '';
    child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
    child.stdout.on('data', (b: Buffer) => {
      for (const line of b.toString().split('\n').filter(Boolean)) {
        if (line.startsWith('done ')) done.push(line.slice(5));
        else if (done.length >= 2 && ++after === 4) child.kill('SIGKILL');
      }
    });
    child.on('exit', (code, signal) =>
      signal === 'SIGKILL' ? resolve(done) : reject(new Error(`uploader exited (code ${code}): ${stderr}`)),
    );
  });
}

describe('SIGKILL during uploads', () => {
  for (const kind of ['sqlite', 'fs'] as const) {
    it(`${kind}: leaves whole media only, and the sweep removes what the killed upload staged`, async () => {
      const dir = join(root, kind);
      mkdirSync(dir);
      const finished = await uploadAndKill(kind, dir);
      expect(finished.length).toBeGreaterThanOrEqual(2);

      const db = new Database(join(dir, 'blog.db'));
      expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
      const staged = () =>
        kind === 'sqlite'
          ? Number(db.prepare('SELECT count(*) FROM blobs WHERE key IS NULL').pluck().get())
          : readdirSync(join(dir, 'blobs', '.staging')).length;
      expect(staged(), 'the killed upload left staged bytes').toBeGreaterThan(0);

      const blobs = kind === 'fs' ? fsBlobs({ dir: join(dir, 'blobs') }) : undefined;
      const service = createBlogService({
        driver: sqliteDriver({ filename: join(dir, 'blog.db') }),
        ...(blobs ? { blobs } : {}),
      });
      const blogId = (await service.blogs.getByUrl({ url: 'https://crash-media.example/' })).id;
      const media = (await service.media.list({ blogId, maxResults: 500 })).items;
      expect(media.map((m) => m.id).sort()).toEqual(expect.arrayContaining([...finished].sort()));
      for (const m of media) {
        const bytes = await bytesOf((await service.media.read({ blogId, mediaId: m.id })).body);
        expect(bytes!.byteLength).toBe(m.bytes);
        expect(await sha256Hex(bytes!)).toBe(m.id);
      }
      // Opening swept only stale staging (an hour old); now sweep it all, as an hour later would.
      const driver = sqliteDriver({ filename: join(dir, 'blog.db') });
      await driver.open(STORE_SCHEMA);
      expect(await (blobs ?? driver.blobs).sweep(Date.now() + 1, 100)).toBeGreaterThan(0);
      expect(staged()).toBe(0);
      // Every named blob belongs to a record (at most one more: a kill between a put and its record's commit).
      const named =
        kind === 'sqlite'
          ? Number(db.prepare('SELECT count(*) FROM blobs WHERE key IS NOT NULL').pluck().get())
          : readdirSync(join(dir, 'blobs', blogId)).length;
      expect(named).toBeGreaterThanOrEqual(media.length);
      expect(named).toBeLessThanOrEqual(media.length + 1);
      await driver.close();
      await service.close();
      db.close();
    }, 60_000);
  }
});
