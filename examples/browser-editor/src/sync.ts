/**
 * Keeps the replica in step with the server: a sync when the editor opens, the replica's live mode while the
 * browser is online (it pulls what the server changes and pushes what is written here), and a fresh sync
 * when the browser comes back online. Views read the status here and are told when it changes.
 */
import type { BlogService } from 'blogcore';
import type { Connection } from './connection.js';
import { createReplica, type ConflictChoice, type Replica, type SyncResult } from './replica.js';

export interface SyncStatus {
  /**
   * offline: no network; syncing: a sync runs; synced: the last one worked; failed: it did not (see `error`);
   * elsewhere: another tab of this editor syncs this store (this one takes over when it closes).
   */
  state: 'offline' | 'syncing' | 'synced' | 'failed' | 'elsewhere';
  /** Local writes not yet confirmed by the server. */
  pending: number;
  /** Edits the server refused because its copy moved (or went); each waits for a choice. */
  conflicts: number;
  lastSynced: Date | null;
  error: unknown;
}

export interface Syncer {
  readonly replica: Replica;
  status(): SyncStatus;
  /** Calls `listener` on every change of the status (with how many items the last round pulled); returns the unsubscribe. */
  subscribe(listener: (status: SyncStatus, pulled: number) => void): () => void;
  /** Syncs now (in the tab that syncs; elsewhere a no-op); resolves when done (failures end in the status, not here). */
  now(): Promise<void>;
  resolve(id: string, choice: ConflictChoice): Promise<void>;
  stop(): Promise<void>;
}

/** How soon a failed sync is tried again (live mode also retries, with a growing pause). */
const RETRY_MS = 15_000;

export function startSync(connection: Connection, local: BlogService): Syncer {
  const listeners = new Set<(status: SyncStatus, pulled: number) => void>();
  let status: SyncStatus = {
    state: navigator.onLine ? 'syncing' : 'offline',
    pending: 0,
    conflicts: 0,
    lastSynced: null,
    error: null,
  };
  let stopLive: (() => void) | null = null;
  let stopped = false;
  let leader = false;
  let release: () => void = () => undefined;

  const set = (next: Partial<SyncStatus>, pulled = 0) => {
    status = { ...status, ...next };
    for (const l of listeners) l(status, pulled);
  };
  // Counts overlap (every local write starts one): only the latest started may set the status, or an older,
  // slower one would leave a stale figure behind.
  let counts = 0;
  const count = async () => {
    const n = ++counts;
    const [pending, conflicts] = await Promise.all([replica.pending(), replica.conflicts()]);
    if (n === counts) set({ pending: pending.length, conflicts: conflicts.length });
  };
  const synced = (result: SyncResult) =>
    count().then(() =>
      set({ state: navigator.onLine ? 'synced' : 'offline', lastSynced: new Date(), error: null }, result.pulled),
    );
  // Live mode retries by itself but reports only rounds that moved something: a failed status is rechecked.
  let retry: number | undefined;
  const failed = (error: unknown) =>
    count().finally(() => {
      set({ state: navigator.onLine ? 'failed' : 'offline', error });
      clearTimeout(retry);
      retry = window.setTimeout(() => status.state === 'failed' && void now(), RETRY_MS);
    });

  const replica = createReplica({
    local,
    remote: { baseUrl: connection.api, headers: { authorization: `Bearer ${connection.token}` } },
    blogId: connection.blogId,
    onSync: (result) => void synced(result),
    onError: (error) => void failed(error),
  });

  async function now(): Promise<void> {
    if (stopped) return;
    if (!leader) return void (await count()); // the syncing tab does it; this one shows the outcome
    if (!navigator.onLine) return void (await count().finally(() => set({ state: 'offline' })));
    set({ state: 'syncing' });
    try {
      await synced(await replica.sync());
    } catch (error) {
      await failed(error);
    }
  }

  const online = () => {
    if (!leader) return;
    void now().then(() => {
      if (!stopped && navigator.onLine && !stopLive) stopLive = replica.live();
    });
  };
  const offline = () => {
    stopLive?.();
    stopLive = null;
    if (leader) set({ state: 'offline' });
  };
  window.addEventListener('online', online);
  window.addEventListener('offline', offline);
  // A write here changes what waits to be sent (live mode sends it while online).
  const unwatch = local.on('*', () => void count());
  // One tab syncs a store (two replicas on one store would send the same writes twice): the first tab holds
  // a Web Lock named after it; the others show what waits, and the next in line takes over when it closes.
  const lead = () => {
    leader = true;
    if (navigator.onLine) online();
    else void count().then(() => set({ state: 'offline' }));
  };
  if (navigator.locks) {
    void count().then(() => !leader && set({ state: 'elsewhere' }));
    void navigator.locks.request(`blogcore-editor-sync:${connection.api}:${connection.blogId}`, () => {
      if (stopped) return;
      lead();
      return new Promise<void>((resolve) => (release = resolve));
    });
  } else lead();

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
      clearTimeout(retry);
      window.removeEventListener('online', online);
      window.removeEventListener('offline', offline);
      unwatch();
      stopLive?.();
      release();
      await replica.close();
      await local.close();
    },
  };
}
