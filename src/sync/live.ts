/**
 * Live syncing (`replica.live()`, sync/index.ts): loaded when an app first asks for it.
 */
import type { Remote } from './remote.js';
import type { ReplicaOptions } from './types.js';

/**
 * Syncs, then waits on the server's long poll (or a local write) and syncs again, until the answer is called;
 * after a failure it waits 1 s, doubling up to 30 s.
 */
export function keepSyncing(
  options: ReplicaOptions,
  remote: Remote,
  sync: () => Promise<unknown>,
  checkpoint: () => string | undefined,
): () => void {
  const blogId = options.blogId;
  let stopped = false;
  let wake: (() => void) | undefined;
  let abort: AbortController | undefined;
  const kick = () => {
    abort?.abort();
    wake?.();
  };
  // Local writes (the app's, through the local service) are sent soon; the replica's own writes emit nothing.
  const off = options.local.on('*', (event) => {
    if (event.blogId === blogId) kick();
  });
  const waitSeconds = Math.min(60, options.wait ?? 30);
  void (async () => {
    let pause = 1_000;
    while (!stopped) {
      try {
        // Made before the sync, so a local write during it wakes the wait at once.
        const woken = new Promise<void>((r) => (wake = r));
        await sync();
        pause = 1_000;
        abort = new AbortController();
        const since = checkpoint();
        await Promise.race([
          remote.pull(blogId, { since, maxResults: 1, wait: waitSeconds, signal: abort.signal }).catch(() => undefined),
          woken,
        ]);
        abort.abort();
      } catch (error) {
        if (stopped) break;
        options.onError?.(error);
        await new Promise<void>((r) => {
          wake = r;
          setTimeout(r, pause);
        });
        pause = Math.min(pause * 2, 30_000);
      }
    }
  })();
  return () => {
    stopped = true;
    off();
    kick();
  };
}
