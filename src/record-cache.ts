/**
 * The core's cache of users and blogs. Both change now (users.update, blogs.update/patch/delete): a write in
 * this process drops what it changed (`forget`). A change made by another process on the same store is not
 * seen here until the entry is dropped (the cache holds at most LIMIT entries per collection).
 */
const LIMIT = 2_000;

export class RecordCache<T> {
  private readonly maps = new Map<string, Map<string, T>>();

  constructor(collections: readonly string[]) {
    for (const c of collections) this.maps.set(c, new Map());
  }

  /** The record, from the cache, else from `load` (then cached). */
  async get(collection: string, id: string, load: () => Promise<T | undefined>): Promise<T | undefined> {
    const map = this.maps.get(collection)!;
    const hit = map.get(id);
    if (hit !== undefined) return hit;
    const found = await load();
    if (found !== undefined) {
      if (map.size >= LIMIT) map.clear();
      map.set(id, found);
    }
    return found;
  }

  /** Drops a record this process changed. */
  forget(collection: string, id: string): void {
    this.maps.get(collection)?.delete(id);
  }
}
