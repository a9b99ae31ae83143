/**
 * Keeps the replica in step with the server: a sync when the editor opens and whenever the browser comes
 * back online, the replica's live mode while online, and a sync shortly after each local write (so a change
 * leaves as soon as it can). Views read the status here and are told when it changes.
 */
import type { BlogService } from 'blogcore';
import type { Replica } from './replica.js';

export interface SyncStatus {
  /** offline: no network; syncing: a sync runs; synced: the last one worked; failed: it did not (see `error`). */
  state: 'offline' | 'syncing' | 'synced' | 'failed';
  /** Local writes not yet confirmed by the server. */
  pending: number;
  /** Edits the server refused because its copy moved; each waits for a choice. */
  conflicts: number;
  lastSynced: Date | null;
  error: unknown;
}

export interface Syncer {
  readonly replica: Replica;
  status(): SyncStatus;
  /** Calls `listener` on every change of the status; returns the unsubscribe. */
  subscribe(listener: (status: SyncStatus, pulled: number) => void): () => void;
  /** Syncs now (or once more after the running sync). */
  now(): Promise<void>;
  resolve(id: string, choice: 'mine' | 'theirs'): Promise<void>;
  stop(): Promise<void>;
}

/** How long after a local write the editor syncs (a burst of typing-and-saving goes out as one sync). */
const AFTER_WRITE_MS = 300;

export function startSync(replica: Replica, local: BlogService): Syncer {
  const listeners = new Set<(status: SyncStatus, pulled: number) => void>();
  let status: SyncStatus = { state: navigator.onLine ? 'syncing' : 'offline', pending: 0, conflicts: 0, lastSynced: null, error: null };
  let running: Promise<void> | null = null;
  let again = false;
  let stopLive: (() => void) | null = null;
  let writeTimer: number | undefined;
  let stopped = false;

  const set = (next: Partial<SyncStatus>, pulled = 0) => {
    status = { ...status, ...next };
    for (const l of listeners) l(status, pulled);
  };
  const count = async () => set({ pending: (await replica.pending()).length, conflicts: (await replica.conflicts()).length });

  async function once(): Promise<void> {
    if (!navigator.onLine) {
      set({ state: 'offline' });
      return count();
    }
    set({ state: 'syncing' });
    try {
      const result = await replica.sync();
      await count();
      set({ state: 'synced', lastSynced: new Date(), error: null }, result.pulled);
    } catch (error) {
      await count().catch(() => undefined);
      set({ state: navigator.onLine ? 'failed' : 'offline', error });
    }
  }

  function now(): Promise<void> {
    if (stopped) return Promise.resolve();
    if (running) {
      again = true;
      return running;
    }
    running = (async () => {
      do {
        again = false;
        await once();
      } while (again && !stopped);
      running = null;
    })();
    return running;
  }

  const online = () => {
    void now().then(() => {
      if (!stopped && navigator.onLine && !stopLive) stopLive = replica.live();
    });
  };
  const offline = () => {
    stopLive?.();
    stopLive = null;
    set({ state: 'offline' });
  };
  window.addEventListener('online', online);
  window.addEventListener('offline', offline);
  // A write of the person queues a change (what the replica stores from a pull queues none): send it soon.
  const unwatch = local.on('*', () => {
    void count().then(() => {
      clearTimeout(writeTimer);
      if (status.pending > 0 && navigator.onLine && !stopped) writeTimer = window.setTimeout(() => void now(), AFTER_WRITE_MS);
    });
  });
  if (navigator.onLine) online();
  else void count();

  return {
    replica,
    status: () => status,
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    now,
    async resolve(id, choice) {
      await replica.resolve(id, choice);
      await count();
      await now();
    },
    async stop() {
      stopped = true;
      clearTimeout(writeTimer);
      window.removeEventListener('online', online);
      window.removeEventListener('offline', offline);
      unwatch();
      stopLive?.();
      await running;
      await replica.close();
    },
  };
}
