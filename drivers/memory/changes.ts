/** The change log in memory: every change in log order, and per stream its own list of the same objects. */
import type { Change, LogBounds, LogPosition, PruneQuery } from '../../src/store/driver.js';

export class ChangeLog {
  #log: Change[] = [];
  /** Per stream, its entries in log order (the same objects as in `#log`). */
  #streams = new Map<string, Change[]>();
  /** The last commit's sequence number. */
  seq = 0;
  #pruned = 0;

  /** Keeps at most `maxChanges` entries (oldest dropped first) when given. */
  constructor(private readonly maxChanges: number | undefined) {}

  append(change: Change): void {
    this.#log.push(change);
    if (change.stream !== undefined) {
      let list = this.#streams.get(change.stream);
      if (!list) this.#streams.set(change.stream, (list = []));
      list.push(change);
    }
  }

  /** After a commit: drops the oldest entries beyond `maxChanges`. */
  trim(): void {
    const max = this.maxChanges;
    if (max !== undefined && this.#log.length > max) this.#drop(this.#log.length - max);
  }

  since(seq: number, limit = 1000): Change[] {
    // The log is ordered by seq, so find the first entry after `seq` by binary search.
    let lo = 0;
    let hi = this.#log.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.#log[mid]!.seq <= seq) lo = mid + 1;
      else hi = mid;
    }
    return this.#log.slice(lo, lo + limit).map((c) => ({ ...c }));
  }

  stream(stream: string, after: LogPosition, limit: number): Change[] {
    const list = this.#streams.get(stream) ?? [];
    let lo = 0;
    let hi = list.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const c = list[mid]!;
      if (c.seq < after.seq || (c.seq === after.seq && c.pos <= after.pos)) lo = mid + 1;
      else hi = mid;
    }
    return list.slice(lo, lo + Math.max(0, Math.floor(limit))).map((c) => ({ ...c }));
  }

  /** Whether `stream` has an entry after `seq`, or the log was pruned past it (CommitOptions.unchanged). */
  movedPast(stream: string, seq: number): boolean {
    return this.#pruned > seq || (this.#streams.get(stream)?.at(-1)?.seq ?? 0) > seq;
  }

  bounds(): LogBounds {
    return { newest: this.seq, pruned: this.#pruned };
  }

  prune(q: PruneQuery): number {
    let n = 0;
    const limit = Math.max(0, Math.floor(q.limit));
    while (n < Math.min(limit, this.#log.length)) {
      const c = this.#log[n]!;
      if (!((q.before !== undefined && c.time < q.before) || (q.through !== undefined && c.seq <= q.through))) break;
      n++;
    }
    this.#drop(n);
    return n;
  }

  /** Removes the `n` oldest entries (the oldest of each stream go with them). */
  #drop(n: number): void {
    if (n <= 0) return;
    for (const c of this.#log.splice(0, n)) {
      this.#pruned = Math.max(this.#pruned, c.seq);
      if (c.stream === undefined) continue;
      const list = this.#streams.get(c.stream)!;
      list.shift();
      if (list.length === 0) this.#streams.delete(c.stream);
    }
  }
}
