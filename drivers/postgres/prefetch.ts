/**
 * Documents a walk found: `keys` reads each entry's document in the same statement, and the `getMany` the core
 * sends right after for the page's documents is answered from here, one round trip instead of two. A document is
 * answered only while nothing may have changed it since it was read — no commit of this driver and no notification
 * of another's on the store's LISTEN connection (the `stamp`) — and for at most TTL_MS.
 */
const TTL_MS = 1000;
const MAX = 2000;

export class Prefetched {
  private readonly docs = new Map<string, { row: readonly unknown[]; stamp: string; at: number }>();

  put(collection: string, id: string, row: readonly unknown[], stamp: string): void {
    const k = `${collection}\0${id}`;
    this.docs.delete(k);
    this.docs.set(k, { row, stamp, at: Date.now() });
    if (this.docs.size > MAX) this.docs.delete(this.docs.keys().next().value!);
  }

  /** The row read for the record, if it is still the store's (taken: each prefetched read answers once). */
  take(collection: string, id: string, stamp: string | undefined): readonly unknown[] | undefined {
    const k = `${collection}\0${id}`;
    const hit = this.docs.get(k);
    if (!hit) return undefined;
    this.docs.delete(k);
    return stamp !== undefined && hit.stamp === stamp && Date.now() - hit.at < TTL_MS ? hit.row : undefined;
  }
}
