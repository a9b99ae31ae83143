import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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
    expect(first.stdout).toContain('created:   7 posts, 2 pages, 6 comments, 2 users');
    expect(first.stdout).toContain('drafted:   2 not public in the source, so imported as DRAFT (never LIVE)');
    expect(first.stdout).toContain('    - 1 × password-protected in WordPress');
    // No progress bar when stderr is not a terminal.
    expect(first.stderr).toBe('');
    expect(JSON.parse(readFileSync(map, 'utf8'))).toEqual([
      {
        from: 'https://cafe.example.org/2025/11/le-cafe-parfait/',
        to: 'https://cafe.example.org/2025/11/unicode-le-cafe-parfait.html',
      },
      { from: 'https://cafe.example.org/?p=11', to: 'https://cafe.example.org/2025/11/unicode-le-cafe-parfait.html' },
      { from: 'https://cafe.example.org/a-propos/', to: 'https://cafe.example.org/p/a-propos.html' },
    ]);
    const again = run('import', fixture('wordpress-1.2.xml'), '--db', db, '--json');
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({
      format: 'wxr',
      created: { posts: 0, pages: 0, comments: 0, users: 0, media: 0 },
      unchanged: { posts: 7, pages: 2, comments: 6, media: 0 },
    });
  });

  it('groups skipped items by reason with counts; --verbose and --json give every item', () => {
    const item = (id: number, type: string) =>
      `<item><title>t${id}</title><wp:post_id>${id}</wp:post_id><wp:status>publish</wp:status><wp:post_type>${type}</wp:post_type></item>`;
    const file = join(dir, 'many.xml');
    writeFileSync(
      file,
      `<?xml version="1.0"?><rss version="2.0" xmlns:wp="http://wordpress.org/export/1.2/"><channel><title>M</title><link>https://m.example.test</link>${[
        item(1, 'post'),
        ...[2, 3, 4].map((id) => item(id, 'attachment')),
        item(5, 'nav_menu_item'),
      ].join('')}</channel></rss>`,
    );
    const db = join(dir, 'many.db');
    // The file names no author: --owner names the blog's admin, a user made with that id.
    expect(run('import', file, '--db', db).stderr).toMatch(/declares no author/);
    const plain = run('import', file, '--db', db, '--owner', 'mia');
    expect(plain.stdout).toContain('user mia (mia)');
    expect(plain.stdout).toContain(
      '  skipped:   4\n    - 3 × WordPress attachment items are not imported\n    - 1 × WordPress nav_menu_item items are not imported\n',
    );
    expect(plain.stdout).not.toContain('item 2');
    const verbose = run('import', file, '--db', db, '--verbose');
    for (const id of [2, 3, 4])
      expect(verbose.stdout).toContain(`    - item ${id} "t${id}": WordPress attachment items are not imported`);
    expect(JSON.parse(run('import', file, '--db', db, '--json').stdout).skipped).toHaveLength(4);
  });

  it('exports to a file that imports into another database with the same content', () => {
    const db = join(dir, 'blogger.db');
    expect(run('import', fixture('blogger-legacy.xml'), '--db', db).code).toBe(0);
    for (const format of ['blogcore-json', 'blogger-atom', 'wxr']) {
      const out = join(dir, `out.${format}`);
      const exported = run(
        'export',
        '--db',
        db,
        '--blog',
        'https://reisen.blogspot.com/',
        '--format',
        format,
        '--out',
        out,
      );
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
    expect(
      run('import', fixture('ghost.json'), '--db', join(dir, 'g.db'), '--blog', 'https://g.example.test/').code,
    ).toBe(0);
    const bad = run('export', '--db', join(dir, 'g.db'), '--blog', 'https://g.example.test/', '--format', 'pdf');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/export --format: one of blogcore-json, blogger-atom, wxr, site, not pdf/);
  });
});
