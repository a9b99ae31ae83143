/**
 * The core's cache of users and blogs, kept right through the driver's change log: before a cached record
 * is trusted, the changes committed since the cache's log position (by this process or any other on the
 * same store) are read and what they touched is dropped. The check is one indexed read of an empty tail in
 * the usual case, shared by the lookups waiting on it at the same moment.
 */
import type { StorageDriver } from './driver.js';

const LIMIT = 2_000;
const TAIL = 500;

/** The last sequence number in the change log: an exponential probe, then a binary search (about 2·log2(n) reads). */
async function headSeq(driver: StorageDriver): Promise<number> {
  const after = async (s: number) => (await driver.changesSince(s, 1)).length > 0;
  if (!(await after(0))) return 0;
  let lo = 0; // invariant: some change lies after lo, none after hi (once found)
  let hi = 1;
  while (await after(hi)) {
    lo = hi;
    hi *= 2;
  }
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (await after(mid)) lo = mid;
    else hi = mid;
  }
  return hi; // after(hi) is false and after(lo) true: hi is the last seq
}

export class RecordCache<T> {
  private readonly maps = new Map<string, Map<string, T>>();
  /** The change-log position up to which the cached records are known current. */
  private seq: number | undefined;
  private checking: Promise<void> | undefined;

  constructor(
    private readonly driver: StorageDriver,
    collections: readonly string[],
  ) {
    for (const c of collections) this.maps.set(c, new Map());
  }

  /** The record, from the cache when nothing changed it since, else from `load` (then cached). */
  async get(collection: string, id: string, load: () => Promise<T | undefined>): Promise<T | undefined> {
    await this.fresh();
    const map = this.maps.get(collection)!;
    const hit = map.get(id);
    if (hit !== undefined) return hit;
    const at = this.seq;
    const found = await load();
    // Only a record read within one log position may be kept: a change that landed meanwhile may already
    // have been passed over by another check.
    if (found !== undefined && this.seq === at) {
      if (map.size >= LIMIT) map.clear();
      map.set(id, found);
    }
    return found;
  }

  /** Drops a record this process just changed (the next check would too; this makes it immediate). */
  forget(collection: string, id: string): void {
    this.maps.get(collection)?.delete(id);
  }

  private fresh(): Promise<void> {
    this.checking ??= this.check().finally(() => {
      this.checking = undefined;
    });
    return this.checking;
  }

  private async check(): Promise<void> {
    if (this.seq === undefined) {
      this.seq = await headSeq(this.driver);
      return;
    }
    const changes = await this.driver.changesSince(this.seq, TAIL);
    if (changes.length === TAIL) {
      // Far behind: start over from the head rather than walk the whole log.
      for (const map of this.maps.values()) map.clear();
      this.seq = await headSeq(this.driver);
      return;
    }
    for (const c of changes) this.maps.get(c.collection)?.delete(c.id);
    if (changes.length) this.seq = changes[changes.length - 1]!.seq;
  }
}
