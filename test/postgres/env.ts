/** What PostgreSQL test files share: the server URL (see global-setup.ts) and a fresh schema per store. */
import { inject } from 'vitest';

export const pgUrl = (): string => inject('pgUrl');

let n = 0;
const run = `${process.pid.toString(36)}${Date.now().toString(36).slice(-4)}`;

/** A schema name no other test (file, worker or run) uses: each store starts empty and stays apart. */
export function freshSchema(label: string): string {
  return `t_${label}_${run}_${n++}`.toLowerCase().replace(/[^a-z0-9_]/g, '_');
}
