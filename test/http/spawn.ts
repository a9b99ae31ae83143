/** Starting a server process and reading what it prints. */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** The built package (dist/) is what `npm start` and the examples run; CI builds before testing. */
export function requireBuild(): void {
  for (const f of ['dist/cli.js', 'dist/index.js', 'dist/http.js', 'dist/memory.js', 'dist/sqlite.js']) {
    if (!existsSync(resolve(ROOT, f))) throw new Error(`${f} is missing: run \`npm run build\` before these tests`);
  }
}

export interface Proc {
  child: ChildProcess;
  /** Everything printed so far (stdout and stderr). */
  output(): string;
  /** Resolves with the first match of `pattern` in the output (waits for it to be printed). */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  /** The exit code once the process ends by itself. */
  exited: Promise<number | null>;
  /** Sends the signal and resolves with the exit code (null if killed by a signal). */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

export function start(args: string[], env: Record<string, string> = {}): Proc {
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const waiters = new Set<() => void>();
  const onData = (d: Buffer) => {
    out += d.toString();
    for (const w of waiters) w();
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  child.once('exit', () => {
    for (const w of waiters) w();
  });
  return {
    child,
    exited,
    output: () => out,
    waitFor(pattern, timeoutMs = 30_000) {
      return new Promise((resolveMatch, reject) => {
        const check = () => {
          const m = out.match(pattern);
          if (m) {
            done();
            resolveMatch(m);
          } else if (child.exitCode !== null || child.signalCode !== null) {
            done();
            reject(new Error(`process exited before printing ${pattern}:\n${out}`));
          }
        };
        const timer = setTimeout(() => {
          done();
          reject(new Error(`timed out waiting for ${pattern}:\n${out}`));
        }, timeoutMs);
        const done = () => {
          clearTimeout(timer);
          waiters.delete(check);
        };
        waiters.add(check);
        check();
      });
    },
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}
