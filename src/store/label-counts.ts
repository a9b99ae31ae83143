/**
 * Label counts kept in step with posts: every write that changes a post's labels or status carries, in the
 * same commit, an add to each counter it moves (driver.ts `AddOp`: the driver adds, nothing is read first), so
 * `labels.list` reads counters instead of recounting, a counter never disagrees with the posts, and writers of
 * posts that share a label never retry for it. A counter at 0 stays, out of the label indexes (schema.ts).
 */
import type { AddOp } from './driver.js';
import { addTo, labelId, type PostRecord } from './records.js';

/** A post before or after a write (a page has no labels: it moves nothing). */
type Counted = Pick<PostRecord, 'blogId' | 'status'> & { labels?: readonly string[] };

/** The counter adds for a post going from `before` to `after` (undefined: not there). Empty when nothing moves. */
export const labelCounterOps = (before: Counted | undefined, after: Counted | undefined): AddOp[] =>
  labelCountsOps([[before, after]]);

/** The same for several posts written in one commit (each counter moves once, by the sum), in counter id order. */
export function labelCountsOps(moves: ReadonlyArray<readonly [Counted | undefined, Counted | undefined]>): AddOp[] {
  const deltas = new Map<string, { blogId: string; label: string; live: number; all: number }>();
  const add = (p: Counted | undefined, sign: 1 | -1) => {
    for (const label of p?.labels ?? []) {
      const id = labelId(p!.blogId, label);
      const d = deltas.get(id) ?? { blogId: p!.blogId, label, live: 0, all: 0 };
      d.all += sign;
      if (p!.status === 'LIVE') d.live += sign;
      deltas.set(id, d);
    }
  };
  for (const [before, after] of moves) {
    add(before, -1);
    add(after, 1);
  }
  // In id order: two commits adding to the same counters lock them in the same order.
  return [...deltas]
    .filter(([, d]) => d.live !== 0 || d.all !== 0)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([id, { blogId, label, live, all }]) =>
      addTo('labels', { id, blogId, label, live: 0, all: 0 }, { live, all }),
    );
}
