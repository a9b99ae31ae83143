// The `blogcore` command's arguments and its refusals: every failure names the file and the cause, and a
// refused file is left exactly as it was.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, requireBuild } from './spawn.js';

let dir: string;

beforeAll(() => {
  requireBuild();
  dir = mkdtempSync(join(tmpdir(), 'blogcore-cli-errors-'));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** Runs the command to its end (a server that should have refused is stopped after 20 s); as another user when given. */
function run(args: string[], as?: { uid: number; gid: number }): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['dist/cli.js', ...args], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 20_000,
      ...as,
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    child.once('close', (code) => resolve({ code, out }));
  });
}

const digest = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };

describe('blogcore arguments', () => {
  it('--version prints the package version', async () => {
    const { code, out } = await run(['--version']);
    expect(code).toBe(0);
    expect(out.trim()).toBe(pkg.version);
  });

  it('an unknown option is one line naming it, not Node’s parser message', async () => {
    const { code, out } = await run(['serve', '--prot', '8080']);
    expect(code).toBe(2);
    expect(out.trim()).toBe(
      'blogcore: unknown option --prot for serve (did you mean --port?); see `blogcore serve --help`',
    );
    expect(out).not.toMatch(/positional argument|TypeError|ERR_PARSE_ARGS|Usage:/);
  });

  it('an unknown command and a stray argument: one line each', async () => {
    const unknown = await run(['srve']);
    expect(unknown.code).toBe(2);
    expect(unknown.out.trim()).toBe('blogcore: unknown command "srve" (did you mean serve?); see `blogcore --help`');
    const stray = await run(['token', 'blog.db']);
    expect(stray.code).toBe(2);
    expect(stray.out.trim()).toBe('blogcore: unexpected argument blog.db for token; see `blogcore token --help`');
  });

  it('--api-base-url must be an http(s) URL', async () => {
    const { code, out } = await run(['serve', '--api-base-url', 'blog.example.com', '--port', '0']);
    expect(code).toBe(2);
    expect(out).toContain('--api-base-url: an http(s) URL such as https://blog.example.com, not blog.example.com');
  });
});

describe('blogcore refuses a database it cannot or must not use', () => {
  it('a file that is not a database', async () => {
    const file = join(dir, 'notes.db');
    writeFileSync(file, 'These are my notes, not a database. '.repeat(200));
    const before = digest(file);
    const { code, out } = await run(['serve', '--db', file, '--port', '0']);
    expect(code).toBe(1);
    expect(out).toContain(`${file}: file is not a database`);
    expect(digest(file)).toBe(before);
  });

  it('a path under a regular file', async () => {
    const file = join(dir, 'plain.txt');
    writeFileSync(file, 'text');
    const { code, out } = await run(['serve', '--db', join(file, 'blog.db'), '--port', '0']);
    expect(code).toBe(1);
    expect(out).toContain(`${join(file, 'blog.db')}: ${file} is a regular file, not a folder`);
  });

  it('a place SQLite cannot open', async () => {
    const { code, out } = await run(['serve', '--db', '/proc/blogcore-test.db', '--port', '0']);
    expect(code).toBe(1);
    expect(out).toContain('/proc/blogcore-test.db: unable to open database file');
  });

  it('a read-only database', async () => {
    const ro = mkdtempSync(join(dir, 'ro-'));
    const file = join(ro, 'blog.db');
    const made = new Database(file);
    made.exec('CREATE TABLE t (x)');
    made.exec('DROP TABLE t'); // a valid, empty database
    made.close();
    chmodSync(file, 0o444);
    chmodSync(ro, 0o555);
    chmodSync(dir, 0o755);
    // Root may write anything: run as 'nobody' then.
    const as = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : undefined;
    const { code, out } = await run(['serve', '--db', file, '--port', '0'], as);
    chmodSync(ro, 0o755);
    expect(code).toBe(1);
    expect(out).toContain(`${file}: read-only`);
  });

  it('serve leaves another application’s SQLite file alone (its tables, or its user_version)', async () => {
    const tables = join(dir, 'app.db');
    const app = new Database(tables);
    app.exec("CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO users (name) VALUES ('ada')");
    app.close();
    const versioned = join(dir, 'versioned.db');
    const other = new Database(versioned);
    other.pragma('user_version = 7');
    other.close();
    for (const [file, cause] of [
      [tables, 'tables blogcore does not own: users'],
      [versioned, 'user_version 7'],
    ] as const) {
      const before = digest(file);
      const { code, out } = await run(['serve', '--db', file, '--port', '0']);
      expect(code).toBe(1);
      expect(out).toContain(`${file}: belongs to another application (${cause})`);
      expect(digest(file)).toBe(before);
    }
  });

  it('token refuses a database that does not exist, and does not create it', async () => {
    const file = join(dir, 'missing', 'blog.db');
    const { code, out } = await run(['token', '--db', file]);
    expect(code).toBe(1);
    expect(out).toContain(`${file}: no such database`);
    expect(existsSync(file)).toBe(false);
    expect(existsSync(join(dir, 'missing'))).toBe(false);
  });
});
