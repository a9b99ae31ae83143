/**
 * The command as a new user meets it: a mistake is one line naming it (with what was meant) and where the
 * command's help is; `--help` after a command prints that command's help; a failed import leaves no store
 * behind that it created, and never touches one that was there.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, requireBuild } from '../http/spawn.js';

let dir: string;
beforeAll(() => {
  requireBuild();
  dir = mkdtempSync(join(tmpdir(), 'blogcore-usage-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function run(...args: string[]) {
  const r = spawnSync(process.execPath, [join(ROOT, 'dist/cli.js'), ...args], { cwd: dir, encoding: 'utf8' });
  return { code: r.status, out: `${r.stdout}${r.stderr}` };
}
const digest = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

describe('usage errors', () => {
  it.each([
    [['serv'], 'unknown command "serv" (did you mean serve?); see `blogcore --help`'],
    [['imprt', 'a.xml'], 'unknown command "imprt" (did you mean import?); see `blogcore --help`'],
    [['serve', '--prot', '1'], 'unknown option --prot for serve (did you mean --port?); see `blogcore serve --help`'],
    [
      ['export', '--fromat', 'wxr'],
      'unknown option --fromat for export (did you mean --format?); see `blogcore export --help`',
    ],
    [
      ['import', 'a.xml', '--redirect', 'r.txt'],
      'unknown option --redirect for import (did you mean --redirects?); see `blogcore import --help`',
    ],
    [['serve', '--zzz'], 'unknown option --zzz for serve; see `blogcore serve --help`'],
    [['import'], 'import: name one file to import; see `blogcore import --help`'],
    [['serve', '--port', 'x'], '--port: not a port number: x; see `blogcore serve --help`'],
  ])('%j → one line', (args, line) => {
    const { code, out } = run(...args);
    expect(code).toBe(2);
    expect(out).toBe(`blogcore: ${line}\n`);
  });

  it('export --format names every format, site included, before opening anything', () => {
    const { code, out } = run('export', '--db', 'none.db', '--blog', 'x', '--format', 'csv');
    expect(code).toBe(2);
    expect(out).toContain('one of blogcore-json, blogger-atom, wxr, site, not csv');
    expect(existsSync(join(dir, 'none.db'))).toBe(false);
    expect(run('export', '--help').out).toContain('--format blogcore-json|blogger-atom|wxr|site');
  });
});

describe('--help', () => {
  it.each(['serve', 'import', 'export', 'token', 'users', 'media', 'redirects', 'comments'])(
    '%s --help prints its own usage',
    (name) => {
      for (const args of [
        [name, '--help'],
        ['help', name],
      ]) {
        const { code, out } = run(...args);
        expect(code).toBe(0);
        expect(out).toContain(`  blogcore ${name} `);
        // Only that command's usage: no other command is described.
        expect(out.match(/^ {2}blogcore \w+/gm)).toEqual([`  blogcore ${name}`]);
      }
    },
  );

  it('--help alone still lists every command', () => {
    const { out } = run('--help');
    for (const name of ['serve', 'import', 'export', 'token', 'users', 'media', 'redirects', 'comments'])
      expect(out).toContain(`  blogcore ${name} `);
  });
});

describe('a failed import and the store', () => {
  const ghost = join(ROOT, 'test/io/fixtures/ghost.json');

  it('removes a store file it created itself (a file that is no blog; Ghost without --blog)', () => {
    writeFileSync(join(dir, 'notes.txt'), 'my notes, not a blog');
    for (const [file, db] of [
      ['notes.txt', 'new1.db'],
      [ghost, 'sub/new2.db'],
    ] as const) {
      const { code, out } = run('import', file, '--db', db);
      expect(code, out).toBe(1);
      expect(existsSync(join(dir, db)), db).toBe(false);
    }
    expect(readdirSync(dir).filter((f) => f.includes('.db'))).toEqual([]);
  });

  it('leaves a store that was there exactly as it was', () => {
    expect(run('import', ghost, '--db', 'kept.db', '--blog', 'https://g.example.test/').code).toBe(0);
    const before = digest(join(dir, 'kept.db'));
    const { code } = run('import', 'notes.txt', '--db', 'kept.db');
    expect(code).toBe(1);
    expect(digest(join(dir, 'kept.db'))).toBe(before);
  });
});
