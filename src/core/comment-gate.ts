/**
 * The comment limits' counters (docs/design.md §25): a token bucket per client address or user, in this
 * process's memory, checked before anything is read from the store, so refusing a flood costs a map lookup.
 * With `commentLimits.shared` the same bucket is also kept in the store (`limits`), read and written in the
 * comment's own commit (resources/comments.ts), so app servers on one store share one limit.
 */
import { type Bucket, fullAt, type Rate, takeToken } from '../rules/comments.js';

/** Buckets kept in memory at most; past it, full ones go first, then the least recently used. */
const MAX_BUCKETS = 100_000;

export class CommentGate {
  private readonly buckets = new Map<string, { bucket: Bucket; rate: Rate }>();

  /**
   * Takes a token of `key`'s bucket at `now` (ms): a function that gives it back (the comment was refused for
   * another reason: nothing it did may count), or how many seconds until one is back.
   */
  take(key: string, rate: Rate, now: number): { ok: true; giveBack: () => void } | { ok: false; retryAfter: number } {
    const kept = this.buckets.get(key);
    const r = takeToken(kept?.bucket, rate, now);
    if (!r.ok) return r;
    this.buckets.delete(key);
    if (this.buckets.size >= MAX_BUCKETS) this.trim(now);
    const entry = { bucket: r.bucket, rate };
    this.buckets.set(key, entry);
    return {
      ok: true,
      giveBack: () => {
        entry.bucket = { tokens: Math.min(rate.capacity, entry.bucket.tokens + 1), at: entry.bucket.at };
      },
    };
  }

  /**
   * Seconds until `key`'s bucket holds a token again, if it is empty at `now`: a peek that takes nothing, so the
   * HTTP helper refuses a flood before reading a body (the call that follows takes the token).
   */
  refuses(key: string, now: number): number | undefined {
    const kept = this.buckets.get(key);
    const r = kept && takeToken(kept.bucket, kept.rate, now);
    return r && !r.ok ? r.retryAfter : undefined;
  }

  /** Another server's count (the store's bucket) is newer than ours: ours follows it, so a refusal needs no read. */
  follow(key: string, rate: Rate, bucket: Bucket): void {
    const kept = this.buckets.get(key);
    if (kept) kept.bucket = bucket;
    else this.buckets.set(key, { bucket, rate });
  }

  private trim(now: number): void {
    for (const [key, { bucket, rate }] of this.buckets) if (fullAt(bucket, rate) <= now) this.buckets.delete(key);
    // Still full of live buckets: the oldest tenth goes (Map keeps insertion order, and a take re-inserts).
    let drop = this.buckets.size >= MAX_BUCKETS ? MAX_BUCKETS / 10 : 0;
    for (const key of this.buckets.keys()) {
      if (drop-- <= 0) break;
      this.buckets.delete(key);
    }
  }
}
