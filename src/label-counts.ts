/**
 * Label counts kept in step with posts: every write that changes a post's labels or status carries, in the
 * same commit, the puts of the counters it moves (compare-and-set like the post), so `labels.list` reads
 * counters instead of recounting, and a counter never disagrees with the posts.
 */
import type { StorageDriver, StoredDoc, WriteOp } from './driver.js';
import { del, labelId, put, type LabelRecord, type PostRecord } from './records.js';

type Counted = Pick<PostRecord, 'blogId' | 'labels' | 'status'>;

/** The counter ops for a post going from `before` to `after` (undefined: not there). Empty when nothing moves. */
export async function labelCounterOps(driver: StorageDriver, before: Counted | undefined, after: Counted | undefined): Promise<WriteOp[]> {
  const blogId = (after ?? before)!.blogId;
  const deltas = new Map<string, { live: number; all: number }>();
  const add = (p: Counted | undefined, sign: 1 | -1) => {
    for (const label of p?.labels ?? []) {
      const d = deltas.get(label) ?? { live: 0, all: 0 };
      d.all += sign;
      if (p!.status === 'LIVE') d.live += sign;
      deltas.set(label, d);
    }
  };
  add(before, -1);
  add(after, 1);
  const moved = [...deltas].filter(([, d]) => d.live !== 0 || d.all !== 0);
  if (moved.length === 0) return [];
  const stored = (await driver.getMany(
    'labels',
    moved.map(([label]) => labelId(blogId, label)),
  )) as Array<StoredDoc<LabelRecord> | undefined>;
  return moved.map(([label, d], i) => {
    const current = stored[i];
    const next: LabelRecord = {
      id: labelId(blogId, label),
      blogId,
      label,
      live: (current?.doc.live ?? 0) + d.live,
      all: (current?.doc.all ?? 0) + d.all,
    };
    return next.all <= 0 && current ? del('labels', next.id, current.version) : put('labels', next, current?.version ?? 0);
  });
}
