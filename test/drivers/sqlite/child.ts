import { spawn } from 'node:child_process';

/** Starts the writer, lets it make `lines` progress reports, then kills it with SIGKILL mid-stream. */
export function runAndKill(script: string, args: string[], lines: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', script, ...args], {
      cwd: process.cwd(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let seen = 0;
    let last = 0;
    let stderr = '';
    child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
    child.stdout.on('data', (b: Buffer) => {
      for (const line of b.toString().split('\n').filter(Boolean)) {
        last = Number(line);
        if (++seen === lines) child.kill('SIGKILL');
      }
    });
    child.on('exit', (code, signal) => {
      if (signal === 'SIGKILL') resolve(last);
      else reject(new Error(`writer exited on its own (code ${code}): ${stderr}`));
    });
  });
}
