/**
 * Crash safety: a process writing in a loop is killed with SIGKILL (no chance to clean up) several times
 * over on one file; each time the file must be sound and hold whole commits only.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { sqliteDriver } from '../../../drivers/sqlite/index.js';
import { crashSchema, type CrashPost } from './crash-schema.js';
import { runAndKill } from './child.js';
import { checkStore } from './invariants.js';

const dir = mkdtempSync(join(tmpdir(), 'blogcore-sqlite-crash-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('sqlite driver: crash safety', () => {
  it('holds only whole commits after the writer is killed with SIGKILL, round after round', async () => {
    const file = join(dir, 'crash-driver.db');
    for (let round = 0; round < 3; round++) {
      const done = await runAndKill('test/drivers/sqlite/crash-writer-driver.ts', [file], 3 + round);
      expect(done).toBeGreaterThan(0);

      const check = checkStore(file);
      expect(check.integrity).toBe('ok');
      expect(check.problems).toEqual([]);
      expect(check.docs).toBeGreaterThan(0);

      const d = sqliteDriver({ filename: file });
      await d.open(crashSchema);
      const posts = await d.list({
        collection: 'posts',
        index: 'time',
        prefix: ['b'],
        direction: 'asc',
        limit: 100_000,
      });
      const ids = new Set(posts.map((p) => p.id));
      for (const p of posts) {
        const doc = p.doc as unknown as CrashPost;
        // Every label of the post has its entry, and no other entry names the post.
        for (const label of doc.labels) {
          const e = await d.list({
            collection: 'posts',
            index: 'label',
            prefix: ['b', label, doc.time, p.id],
            direction: 'asc',
            limit: 2,
          });
          expect(e.map((x) => x.id)).toEqual([p.id]);
        }
        const found = await d.search({
          collection: 'posts',
          scope: 'b',
          tokens: doc.words,
          index: 'time',
          prefixes: [['b']],
          lower: { key: [doc.time, p.id] },
          upper: { key: [doc.time, p.id] },
          direction: 'asc',
          limit: 1,
        });
        expect(found.map((x) => x.id)).toContain(p.id);
      }
      const labelled = await d.list({
        collection: 'posts',
        index: 'label',
        prefix: ['b'],
        direction: 'asc',
        limit: 100_000,
      });
      expect(labelled.length).toBe(posts.reduce((s, p) => s + (p.doc as unknown as CrashPost).labels.length, 0));
      // No note outlives its post (a post and its notes are deleted in one commit).
      const notes = await d.list({ collection: 'notes', index: 'post', prefix: [], direction: 'asc', limit: 100_000 });
      for (const n of notes) expect(ids.has(n.doc.postId as string), `orphan note ${n.id}`).toBe(true);
      await d.close();
    }
  }, 120_000);
});
