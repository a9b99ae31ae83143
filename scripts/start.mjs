/**
 * `npm start`: builds dist/ only when a source is newer than it, then runs the command in this same process.
 * npm runs this under a shell that does not pass signals on: when that parent goes away (npm stopped by
 * SIGTERM), this process stops itself as if it had been sent SIGTERM, so no server is left behind.
 */
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { buildIfStale } from './build-if-stale.mjs';

const parent = process.ppid;
const watch = setInterval(() => {
  if (process.ppid === parent) return;
  clearInterval(watch);
  process.kill(process.pid, 'SIGTERM');
}, 500).unref();

const code = await buildIfStale();
if (code !== 0) process.exit(code);

const cli = join(fileURLToPath(new URL('..', import.meta.url)), 'dist/cli.js');
process.argv = [process.argv[0], cli, ...process.argv.slice(2)];
await import(pathToFileURL(cli).href);
