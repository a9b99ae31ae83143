/**
 * Token search over the in-memory inverted index (scope -> token -> ids). Two ways to one ordered page,
 * whichever reads less: walk the merged index in order and test each record against the token sets (cheap
 * when matches are dense), or take the rarest token's records, keep those whose index entries fall in range,
 * and sort them (cheap when they are few). The walk gives up after as many records as the rarest token has,
 * so neither way reads more than about twice the cheaper one.
 */
import {
  compareKeys,
  mergeWalks,
  suffixInBounds,
  type IndexEntry,
  type Key,
  type SearchQuery,
} from '../../src/store/driver.js';
import { range } from './reads.js';
import type { Store } from './schema.js';

export function search(store: Store, q: SearchQuery): IndexEntry[] {
  const c = store.collection(q.collection);
  const limit = Math.max(0, Math.floor(q.limit));
  const byToken = c.tokens.get(q.scope);
  if (!byToken || q.tokens.length === 0 || limit === 0) return [];
  const sets: Set<string>[] = [];
  for (const token of new Set(q.tokens)) {
    const set = byToken.get(token);
    if (!set) return [];
    sets.push(set);
  }
  sets.sort((a, b) => a.size - b.size);
  const rarest = sets[0]!;
  const matches = (id: string) => sets.every((s) => s.has(id));
  const width = q.prefixes[0]?.length ?? 0;
  const entries = store.index(c, q.index);

  // Ordered walk, one cursor per prefix, merged by suffix.
  const cursors = q.prefixes.map((prefix) => {
    const [start, end] = range(entries, { ...q, prefix });
    return { start, end, at: q.direction === 'asc' ? start : end - 1 };
  });
  const sign = q.direction === 'asc' ? 1 : -1;
  const out: IndexEntry[] = [];
  let last: Key | undefined;
  for (let budget = rarest.size; budget > 0 && out.length < limit; budget--) {
    let best = -1;
    for (let w = 0; w < cursors.length; w++) {
      const k = cursors[w]!;
      if (k.at < k.start || k.at >= k.end) continue;
      if (
        best < 0 ||
        sign * compareKeys(entries[k.at]!.key.slice(width), entries[cursors[best]!.at]!.key.slice(width)) < 0
      )
        best = w;
    }
    if (best < 0) return out; // walked the whole range
    const e = entries[cursors[best]!.at]!;
    cursors[best]!.at += sign;
    const suffix = e.key.slice(width);
    if (last && compareKeys(suffix, last) === 0) continue;
    last = suffix;
    if (matches(e.id)) out.push({ id: e.id, key: e.key });
  }
  if (out.length >= limit) return out;

  // Too sparse for the walk: sort the rarest token's records that fall in range.
  const prefixes = new Map(q.prefixes.map((p, i) => [JSON.stringify(p), i]));
  const walks: IndexEntry[][] = q.prefixes.map(() => []);
  for (const id of rarest) {
    if (!matches(id)) continue;
    for (const key of c.slots.get(id)!.keys[q.index] ?? []) {
      const w = prefixes.get(JSON.stringify(key.slice(0, width)));
      if (w !== undefined && key.length > width && suffixInBounds(key.slice(width), q)) walks[w]!.push({ id, key });
    }
  }
  for (const walk of walks) walk.sort((a, b) => sign * compareKeys(a.key, b.key));
  return mergeWalks(walks, width, q.direction, limit);
}
