/**
 * `npm run fuzz -- --runs=100000 [--seed=N]`: the HTTP fuzz test (test/http/fuzz.test.ts) for a long run.
 * Vitest takes no options of its own here, so they travel as FUZZ_RUNS / FUZZ_SEED.
 */
import { spawnSync } from 'node:child_process';

const opt = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1];
const env = {
  ...process.env,
  FUZZ_RUNS: opt('runs') ?? '100000',
  FUZZ_SEED: opt('seed') ?? String(Date.now() % 2 ** 31),
};
console.log(`fuzzing ${env.FUZZ_RUNS} requests with seed ${env.FUZZ_SEED}`);
const run = spawnSync('npx', ['vitest', 'run', '--project', 'node', 'test/http/fuzz.test.ts'], {
  stdio: 'inherit',
  env,
});
process.exit(run.status ?? 1);
