/**
 * Builds dist/ (tsup) only when it is missing or a source is newer than it: `npm start` and `prepack` (which
 * `npm pack`, `npm publish` and a git install run) then cost nothing when dist/ is current. `prepack`, not
 * `prepare`: npm counts `prepare` as an install script of the published package and warns every installer.
 */
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const INPUTS = ['src', 'drivers', 'scripts/entries.ts', 'tsup.config.ts', 'tsconfig.json', 'package.json'];
const OUTPUTS = ['dist/cli.js', 'dist/index.js', 'dist/index.cjs', 'dist/index.d.ts'];

/** The newest modification time under a file or folder. */
function newest(path) {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(0, ...readdirSync(path).map((name) => newest(join(path, name))));
}

/** Whether the build in `outDir` (default dist/) is missing a file or older than a source. */
export function stale(outDir = join(root, 'dist')) {
  const out = OUTPUTS.map((f) => join(outDir, f.replace(/^dist\//, '')));
  if (!out.every((f) => existsSync(f))) return true;
  const built = Math.min(...out.map((f) => statSync(f).mtimeMs));
  return INPUTS.some((f) => existsSync(join(root, f)) && newest(join(root, f)) > built);
}

/** Resolves with tsup's exit code (0 when nothing needed building); a signal meanwhile stops the build too. */
export async function buildIfStale() {
  if (!stale()) return 0;
  console.error('blogcore: building dist/ (sources changed)');
  const tsup = spawn(process.execPath, [join(root, 'node_modules/tsup/dist/cli-default.js'), '--silent'], {
    cwd: root,
    stdio: 'inherit',
  });
  const forward = (signal) => tsup.kill(signal);
  process.on('SIGINT', forward).on('SIGTERM', forward);
  const code = await new Promise((resolve) => tsup.on('exit', (c, signal) => resolve(signal ? 1 : (c ?? 1))));
  process.off('SIGINT', forward).off('SIGTERM', forward);
  return code;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) process.exitCode = await buildIfStale();
