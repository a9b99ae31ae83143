/**
 * docs/operations.md's container and systemd unit, run exactly as written (in a project whose node_modules/blogcore
 * is this checkout; the store's path and the port swapped for a temporary file and a free port), then stopped
 * with SIGTERM as `docker stop` and `systemctl stop` do: a request under way is answered, the process exits 0
 * within 5 s, and its port is free again.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { type AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { blocksOf } from '../docs/snippets.js';
import { ROOT, requireBuild } from './spawn.js';

let project: string;
const children: ChildProcess[] = [];
beforeAll(() => {
  requireBuild();
  project = mkdtempSync(join(tmpdir(), 'blogcore-supervisor-'));
  mkdirSync(join(project, 'node_modules'));
  symlinkSync(ROOT, join(project, 'node_modules/blogcore'), 'dir');
  writeFileSync(join(project, 'package.json'), JSON.stringify({ private: true, dependencies: { blogcore: '*' } }));
});
afterAll(() => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  rmSync(project, { recursive: true, force: true });
});

const textBlock = (marker: string) => {
  const block = blocksOf('docs/operations.md').find((b) => b.lang === 'text' && b.code.includes(marker));
  if (!block) throw new Error(`docs/operations.md has no text block with ${marker}`);
  return block.code;
};

/** The Dockerfile's exec-form CMD, as Docker runs it. */
function dockerCommand(): string[] {
  const cmd = /^CMD (\[.*\])$/m.exec(textBlock('\nCMD ['))?.[1];
  return JSON.parse(cmd!) as string[];
}

/** The unit's ExecStart, split on spaces as systemd does (no quoting used). */
function systemdCommand(): string[] {
  return /^ExecStart=(.*)$/m.exec(textBlock('ExecStart='))![1]!.trim().split(/\s+/);
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

/** Whether something listens on the port (a connection is accepted). */
function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createServer().listen(port, '127.0.0.1');
    socket.once('listening', () => socket.close(() => resolve(false)));
    socket.once('error', () => resolve(true));
  });
}

it.each([
  ['the Dockerfile', dockerCommand],
  ['the systemd unit', systemdCommand],
] as const)(
  "%s's command stops on SIGTERM: the request under way answered, exit 0 within 5 s, the port free",
  async (_, commandOf) => {
    const [program, ...args] = commandOf();
    expect(program === 'node' || program === '/usr/bin/node').toBe(true);
    expect(args.slice(0, 2)).toEqual(['node_modules/blogcore/dist/cli.js', 'serve']);
    const port = await freePort();
    const db = join(project, `${port}.db`);
    const argv = args.map((a, i) => (args[i - 1] === '--db' ? db : a === '8080' ? String(port) : a));
    const child = spawn(process.execPath, argv, { cwd: project, stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(child);
    let out = '';
    child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    const deadline = Date.now() + 120_000;
    while (!/Ctrl\+C stops the server/.test(out)) {
      if (Date.now() > deadline || child.exitCode !== null) throw new Error(`no banner:\n${out}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    const token = /^ +(bc_[\w-]{20,})$/m.exec(out)![1]!;
    const blogId = /\/v3\/blogs\/(\w+)/.exec(out)![1]!;

    // A post whose body is still arriving when SIGTERM comes.
    const body = JSON.stringify({ title: 'Sent while stopping', content: '<p>kept</p>' });
    const answer = new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port,
          method: 'POST',
          path: `/v3/blogs/${blogId}/posts`,
          headers: {
            authorization: `Bearer ${token}`,
            'content-type': 'application/json',
            'content-length': body.length,
          },
        },
        (res) => {
          let text = '';
          res.on('data', (d: Buffer) => (text += d.toString()));
          res.on('end', () => resolve({ status: res.statusCode!, text }));
        },
      );
      req.on('error', reject);
      req.write(body.slice(0, 10));
      setTimeout(() => {
        child.kill('SIGTERM');
        setTimeout(() => req.end(body.slice(10)), 300);
      }, 300);
    });
    const stoppedBy = Date.now() + 300;
    const res = await answer;
    expect(res.status, res.text).toBe(200);
    expect(JSON.parse(res.text)).toMatchObject({ title: 'Sent while stopping' });
    expect(await exited, out).toBe(0);
    expect(Date.now() - stoppedBy).toBeLessThan(5000);
    expect(await listening(port)).toBe(false);
  },
);
