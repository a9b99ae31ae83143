import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const CLI = join(ROOT, 'dist/cli.js');
if (!existsSync(CLI)) throw new Error('dist/cli.js is missing: run `npm run build` before these tests');
const dir = mkdtempSync(join(tmpdir(), 'blogcore-io-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const fixture = (name: string) => join(ROOT, 'test/io/fixtures', name);

function run(...args: string[]) {
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8' });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('blogcore import / export', () => {
  it('imports with a report, writes the redirect map, and a second run changes nothing', () => {
    const db = join(dir, 'wp.db');
    const map = join(dir, 'redirects.json');
    const first = run('import', fixture('wordpress-1.2.xml'), '--db', db, '--redirects', map);
    expect(first.code).toBe(0);
    expect(first.stdout).toContain('created:   6 posts, 2 pages, 6 comments, 2 users');
    expect(first.stdout).toContain('item 40 "photo.jpg": WordPress attachment items are not imported');
    // No progress bar when stderr is not a terminal.
    expect(first.stderr).toBe('');
    expect(JSON.parse(readFileSync(map, 'utf8'))).toEqual([
      { from: 'https://cafe.example.org/2025/11/le-cafe-parfait/', to: 'https://cafe.example.org/2025/11/unicode-le-cafe-parfait.html' },
      { from: 'https://cafe.example.org/a-propos/', to: 'https://cafe.example.org/p/a-propos.html' },
    ]);
    const again = run('import', fixture('wordpress-1.2.xml'), '--db', db, '--json');
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({
      format: 'wxr',
      created: { posts: 0, pages: 0, comments: 0, users: 0, media: 0 },
      unchanged: { posts: 6, pages: 2, comments: 6, media: 0 },
    });
  });

  it('exports to a file that imports into another database with the same content', () => {
    const db = join(dir, 'blogger.db');
    expect(run('import', fixture('blogger-legacy.xml'), '--db', db).code).toBe(0);
    for (const format of ['blogcore-json', 'blogger-atom', 'wxr']) {
      const out = join(dir, `out.${format}`);
      const exported = run('export', '--db', db, '--blog', 'https://reisen.blogspot.com/', '--format', format, '--out', out);
      expect(exported.code).toBe(0);
      const copy = run('import', out, '--db', join(dir, `copy-${format}.db`), '--json');
      expect(copy.code).toBe(0);
      expect(JSON.parse(copy.stdout)).toMatchObject({ created: { posts: 4, pages: 1, comments: 4 }, skipped: [] });
    }
  });

  it('fails clearly: a missing blog url, a broken file', () => {
    const ghost = run('import', fixture('ghost.json'), '--db', join(dir, 'g.db'));
    expect(ghost.code).toBe(1);
    expect(ghost.stderr).toMatch(/--blog/);
    expect(run('import', fixture('ghost.json'), '--db', join(dir, 'g.db'), '--blog', 'https://g.example.test/').code).toBe(0);
    const bad = run('export', '--db', join(dir, 'g.db'), '--blog', 'https://g.example.test/', '--format', 'pdf');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/Unknown export format pdf/);
  });
});
