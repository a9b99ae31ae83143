// `npm start` as a contributor runs it: the demo blog at `/` beside the API, no rebuild when dist/ is current, and
// stopping npm stops the server.
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, requireBuild } from './spawn.js';

let dir: string;
const groups: number[] = [];

beforeAll(() => {
  requireBuild();
  dir = mkdtempSync(join(tmpdir(), 'blogcore-npm-start-'));
});
afterAll(() => {
  // Whatever a failed test left behind in npm's process group.
  for (const pgid of groups) {
    try {
      process.kill(-pgid, 'SIGKILL');
    } catch {}
  }
  rmSync(dir, { recursive: true, force: true });
});

function npmStart(db: string) {
  // Its own process group, so cleanup can reach an orphan; npm itself is the process we signal.
  const child = spawn('npm', ['start', '--', '--db', db, '--port', '0'], {
    cwd: ROOT,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  groups.push(child.pid!);
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<void>((r) => child.once('close', () => r()));
  const api = new Promise<string>((resolve, reject) => {
    const check = () => {
      const m = /API: +(\S+)/.exec(out);
      if (m) resolve(m[1]!);
    };
    child.stdout.on('data', check);
    void exited.then(() => reject(new Error(`npm start ended:\n${out}`)));
  });
  return { child, api, exited, output: () => out };
}

const answers = (url: string) =>
  fetch(url).then(
    (r) => r.status,
    () => 0,
  );

describe('npm start', () => {
  // SIGTERM goes to npm alone (a process manager); Ctrl+C is SIGINT to the terminal's whole process group.
  for (const signal of ['SIGTERM', 'Ctrl+C'] as const) {
    it(`does not rebuild a current dist/, and ${signal} leaves no server running`, async () => {
      // Make dist/ current whatever was edited before this run (the files stay as built).
      const now = new Date();
      for (const f of readdirSync(join(ROOT, 'dist'))) utimesSync(join(ROOT, 'dist', f), now, now);
      const before = statSync(join(ROOT, 'dist/cli.js')).mtimeMs;

      const npm = npmStart(join(dir, `${signal === 'SIGTERM' ? 'term' : 'int'}.db`));
      const api = await npm.api;
      expect(await answers(api)).toBe(200);
      // The first look: the demo blog's pages at the server's root, beside the API, and the banner says where.
      const site = /Site: +(\S+)/.exec(npm.output())?.[1];
      expect(site).toBe(`${new URL(api).origin}/`);
      const home = await fetch(site!);
      expect(home.headers.get('content-type')).toMatch(/^text\/html/);
      expect(await home.text()).toContain('<html');
      expect(npm.output()).not.toContain('building dist/');
      expect(statSync(join(ROOT, 'dist/cli.js')).mtimeMs).toBe(before);

      if (signal === 'SIGTERM') npm.child.kill('SIGTERM');
      else process.kill(-npm.child.pid!, 'SIGINT');
      await npm.exited;
      // The server goes once npm has gone: wait for it to stop answering (an orphan would answer forever).
      let status = 200;
      for (let i = 0; i < 100 && status !== 0; i++) {
        await new Promise((r) => setTimeout(r, 100));
        status = await answers(api);
      }
      expect(status).toBe(0);
    });
  }
});
