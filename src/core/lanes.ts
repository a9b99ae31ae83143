/**
 * One lane per record, so that writers of one process never race each other for a record.
 *
 * Writes are compare-and-set (docs/design.md §3): an attempt reads, decides and commits the versions it read. Many
 * writers touching one record at once — a label's counter, a post's comment counts, a day's page views — would
 * each read the same version and all but one would fail, over and over. So a write holds the lanes of the
 * records it commits while it commits, and a write that found one moved keeps holding its lanes while it reads
 * again: another writer of this process touching those records waits its turn instead of racing. Writes of
 * other processes can still move a record; those retries back off with jitter (core.ts `transact`).
 *
 * A lane is a record (`collection/id`) or a key of a unique index (two posts claiming one path). Adds to counters
 * (a label's, a day's page views) need none: they read nothing and never conflict, so writers sharing a counter
 * commit side by side.
 */
import type { WriteOp } from '../store/driver.js';
import { STORE_SCHEMA } from '../store/schema.js';

const UNIQUE = new Map(
  STORE_SCHEMA.collections.map((c) => [c.name, c.indexes.filter((i) => i.unique).map((i) => i.name)]),
);

/** The lanes a commit of `ops` needs. */
export function lanesOf(ops: readonly WriteOp[]): string[] {
  const out = new Set<string>();
  for (const op of ops) {
    if (op.type === 'add') continue;
    out.add(`${op.collection}/${op.id}`);
    if (op.type !== 'put') continue;
    for (const index of UNIQUE.get(op.collection) ?? [])
      for (const key of op.keys[index] ?? []) out.add(`${op.collection}#${index}:${JSON.stringify(key)}`);
  }
  return [...out];
}

export class Lanes {
  /** Held lanes, each with the writers waiting for it, first come first served. */
  private readonly held = new Map<string, Array<() => void>>();

  /** Takes every lane of `lanes` not yet taken, if none is held by another writer; false (taking nothing) otherwise. */
  tryTake(lanes: readonly string[]): boolean {
    if (lanes.some((l) => this.held.has(l))) return false;
    for (const l of lanes) this.held.set(l, []);
    return true;
  }

  /** Takes the lanes, waiting for each in turn (always in sorted order, so two writers never wait on each other). */
  async take(lanes: readonly string[]): Promise<void> {
    for (const l of [...lanes].sort()) {
      const waiting = this.held.get(l);
      if (waiting) await new Promise<void>((resolve) => waiting.push(resolve));
      else this.held.set(l, []);
    }
  }

  /** Gives the lanes back; each goes to the writer that waited longest for it. */
  release(lanes: readonly string[]): void {
    for (const l of lanes) {
      const next = this.held.get(l)?.shift();
      if (next) next();
      else this.held.delete(l);
    }
  }
}
