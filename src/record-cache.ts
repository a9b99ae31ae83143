/**
 * The core's cache of users and blogs. Both change now (users.update, blogs.update/patch/delete): a write in
 * this process drops what it changed (`forget`), and an entry is trusted for at most TTL_MS, so a change made
 * by another process on the same store is seen here within that time.
 */
const LIMIT = 2_000;
const TTL_MS = 1_000;

export class RecordCache<T> {
  private readonly maps = new Map<string, Map<string, { value: T; at: number }>>();

  constructor(collections: readonly string[]) {
    for (const c of collections) this.maps.set(c, new Map());
  }

  /** The record, from the cache while fresh, else from `load` (then cached). */
  async get(collection: string, id: string, load: () => Promise<T | undefined>): Promise<T | undefined> {
    const map = this.maps.get(collection)!;
    const hit = map.get(id);
    const now = Date.now();
    if (hit !== undefined && now - hit.at < TTL_MS && now >= hit.at) return hit.value;
    const found = await load();
    if (found === undefined) map.delete(id);
    else {
      if (map.size >= LIMIT) map.clear();
      map.set(id, { value: found, at: now });
    }
    return found;
  }

  /** Drops a record this process changed. */
  forget(collection: string, id: string): void {
    this.maps.get(collection)?.delete(id);
  }
}
