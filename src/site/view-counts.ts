/**
 * Page views of the site's post pages, gathered in memory and written with `pageViews.record({ count })` at
 * most once a second per post: a view costs the reader nothing, and a busy post costs the store one small
 * commit a second rather than one per view. A process that stops loses at most its last second of views.
 */
import type { BlogService } from '../service/types.js';

const FLUSH_MS = 1000;

export function viewCounter(service: BlogService, onError: (error: unknown) => void) {
  let pending = new Map<string, { blogId: string; postId: string; count: number }>();
  let timer: ReturnType<typeof setTimeout> | undefined;

  async function flush(): Promise<void> {
    timer = undefined;
    const batch = pending;
    pending = new Map();
    for (const v of batch.values()) await service.pageViews.record(v).catch(onError);
  }

  return {
    /** One view of a post page. */
    count(blogId: string, postId: string): void {
      const key = `${blogId}\0${postId}`;
      const v = pending.get(key);
      if (v) v.count++;
      else pending.set(key, { blogId, postId, count: 1 });
      if (!timer) {
        timer = setTimeout(() => void flush(), FLUSH_MS);
        // Node: a pending write of views does not keep the process alive.
        (timer as { unref?: () => void }).unref?.();
      }
    },
    flush,
  };
}
