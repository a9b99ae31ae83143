/**
 * Label counts kept in step with posts: every write that changes a post's labels or status carries, in the
 * same commit, the puts of the counters it moves (compare-and-set like the post), so `labels.list` reads
 * counters instead of recounting, and a counter never disagrees with the posts.
 */
import type { WriteOp } from './driver.js';
import type { RecordStore } from './record-store.js';
import { del, labelId, put, type LabelRecord, type PostRecord } from './records.js';

/** A post before or after a write (a page has no labels: it moves nothing). */
type Counted = Pick<PostRecord, 'blogId' | 'status'> & { labels?: readonly string[] };

/** The counter ops for a post going from `before` to `after` (undefined: not there). Empty when nothing moves. */
export const labelCounterOps = (
  driver: RecordStore,
  before: Counted | undefined,
  after: Counted | undefined,
): Promise<WriteOp[]> => labelCountsOps(driver, [[before, after]]);

/** The same for several posts written in one commit (each counter moves once, by the sum). */
export async function labelCountsOps(
  driver: Pick<RecordStore, 'getMany'>,
  moves: ReadonlyArray<readonly [Counted | undefined, Counted | undefined]>,
): Promise<WriteOp[]> {
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
  const moved = [...deltas].filter(([, d]) => d.live !== 0 || d.all !== 0);
  if (moved.length === 0) return [];
  const stored = await driver.getMany(
    'labels',
    moved.map(([id]) => id),
  );
  return moved.map(([id, { blogId, label, live, all }], i) => {
    const current = stored[i];
    const next: LabelRecord = {
      id,
      blogId,
      label,
      live: (current?.doc.live ?? 0) + live,
      all: (current?.doc.all ?? 0) + all,
    };
    return next.all <= 0 && current ? del('labels', id, current.version) : put('labels', next, current?.version ?? 0);
  });
}
