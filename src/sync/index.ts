/**
 * blogcore/sync (docs/design.md §16): a replica keeps one blog of a blogcore server in a local BlogService (usually on
 * IndexedDB) as the signed-in user sees it. The app reads and writes the local service as usual, online or
 * not; `sync()` pulls what changed on the server and pushes what was written here, `live()` keeps doing it
 * while online. A write the server refuses (someone else changed the post first, or deleted it) becomes a
 * conflict that keeps both versions until `resolve` picks one: nothing anyone typed is lost.
 */
import { collabStream, type Core, DriverConflict, type UserRecord } from '../service/store.js';
import { internalsOf } from '../service/internals.js';
import type { Blog, User } from '../schema/resources.js';
import { pull } from './pull.js';
import { blogRecord, differs, kindOf, localBlog, type LocalBlog } from './records.js';
import { createRemote, type Remote, type RemoteError } from './remote.js';
import { scan } from './scan.js';
import { Batch, baseId, baseOf, firstPull, LAYOUT, loadState, splitKey, stateId, type Ctx } from './state.js';
import { picturesId } from './wanted.js';
import type { ConflictChoice, Downloads, PendingChange, Replica, ReplicaOptions, SyncResult } from './types.js';

export { RemoteError, type RemoteOptions } from './remote.js';
export type {
  Conflict,
  ConflictChoice,
  ConflictField,
  ConflictVersion,
  Downloads,
  PendingChange,
  Replica,
  ReplicaOptions,
  SyncKind,
  SyncResult,
} from './types.js';

/** The blog (and the signed-in user, who writes what the app creates locally), fetched once. */
async function fetchBlog(c: Ctx, remote: Remote, blogId: string): Promise<void> {
  const core = c.core;
  const here = await core.get('blogs', blogId);
  if (here && !(here.doc as LocalBlog).placeholder) return;
  const b = await remote.call<Blog>('GET', `/blogs/${blogId}`);
  // Signed out (401) there is no self; offline or a server fault fails this sync.
  const self = await remote.call<User>('GET', '/users/self').catch((error: RemoteError) => {
    if (!error.status || error.status >= 500) throw error;
  });
  const batch = new Batch(core);
  if (self)
    await batch.put('users', {
      id: self.id,
      displayName: self.displayName,
      url: self.url,
      created: self.created,
    } satisfies UserRecord);
  await batch.put('blogs', blogRecord(b, self?.id ?? ''));
  await batch.commit(c);
}

/** What waits to be sent: every record changed here since the server's version of it. */
async function pendingChanges(c: Ctx, blogId: string): Promise<PendingChange[]> {
  const core = c.core;
  await scan(c, false);
  const out: PendingChange[] = [];
  for (const key of c.state.dirty) {
    const { collection, id } = splitKey(key);
    const rec = await core.get(collection, id);
    const base = baseOf(await core.driver.get('settings', baseId(blogId, collection, id)), rec);
    // Made and dropped here, never sent, or written with nothing a push sends (a post's comment counts): nothing waits.
    if (rec ? !base || differs(collection, rec.doc, base) : base || c.state.creates[id]) {
      const doc = rec?.doc as { title?: string; filename?: string } | undefined;
      const picture = collection === 'media';
      out.push({
        kind: kindOf(collection),
        // A picture by its media id, the SHA-256 of its bytes (its record's id starts with the blog's).
        id: picture ? id.slice(-64) : id,
        action: !base ? 'create' : rec ? 'update' : 'delete',
        title: picture ? doc?.filename : doc?.title,
      });
    }
  }
  return out;
}

/**
 * Pictures' bytes come in the background after a sync (media.ts, loaded then): one pass at a time, another
 * after it when a sync ended meanwhile; what a pass did is saved as a replica operation (`save`).
 */
function pictureDownloads(
  core: Core,
  blogId: string,
  remote: Remote,
  parallel: number,
  save: (change: (c: Ctx) => Promise<void>) => Promise<void>,
  closed: () => boolean,
) {
  let pass: Promise<Downloads> | undefined;
  let again = false;
  const stopped = new AbortController();
  function next(): Promise<Downloads> {
    if (pass) {
      again = true;
      return pass;
    }
    again = false;
    const started = (async () => {
      const pictures = await core.getAs<{ want: string[]; drop: string[] }>('settings', picturesId(blogId));
      if (stopped.signal.aborted || !(pictures?.doc.want.length || pictures?.doc.drop.length))
        return { fetched: 0, waiting: 0 };
      return (await import('./media.js')).fetchPictures(core, blogId, remote, parallel, stopped.signal, save);
    })();
    pass = started.finally(() => {
      pass = undefined;
      if (again && !closed()) void next().catch(() => undefined);
    });
    return pass;
  }
  return {
    next,
    /** Stops further passes and waits for the running one. */
    async stop(): Promise<void> {
      stopped.abort();
      await pass?.catch(() => undefined);
    },
  };
}

/**
 * One `sync()`: the blog, then pull, push and what was typed offline into shared documents (sync/collab.ts,
 * loaded only when the store holds some).
 */
async function syncOnce(c: Ctx, remote: Remote, options: ReplicaOptions): Promise<SyncResult> {
  const { core, blogId } = c;
  await fetchBlog(c, remote, blogId);
  const pulled = await pull(c, remote, options.maxResults ?? 500);
  // Pushing loads when something waits to be sent (sync/push.ts).
  await scan(c);
  const { pushed, conflicts } = c.state.dirty.length
    ? await (await import('./push.js')).push(c, remote)
    : { pushed: 0, conflicts: 0 };
  const held = await core.driver.count({ collection: 'collabDocs', index: 'blog', prefix: [blogId] });
  const shared =
    held &&
    (await (await import('./collab.js')).syncCollab(core, options.local.collab, blogId, options.remote, collabStream));
  const result = { pulled, pushed: pushed + shared, conflicts };
  if (pulled || pushed || conflicts) options.onSync?.(result);
  return result;
}

/**
 * Keeps one blog of a blogcore server in `local` (a host service, usually on `idbDriver`) for offline reading and
 * writing: the app uses `local` as usual; `sync()` pulls and pushes once, `live()` keeps doing it while online.
 * Nothing is sent or fetched until one of them is called; the local blog exists at once, so writing may start
 * offline. Throws a TypeError without a host `local` service or a `blogId`.
 *
 * @example
 * const local = createBlogService({ driver: idbDriver() });
 * const replica = createReplica({ local, remote: { baseUrl: 'https://blog.example/v3', headers: auth }, blogId });
 * const stop = replica.live();
 */
export function createReplica(options: ReplicaOptions): Replica {
  const internals = options?.local ? internalsOf(options.local) : undefined;
  if (internals?.actor.kind !== 'host' || !options.blogId)
    throw new TypeError('createReplica needs { local (a host service), blogId }');
  const core: Core = internals.core;
  const blogId = options.blogId;
  // Shared documents here follow the server's (resources/collab.ts): the server makes and renders them.
  core.collabFollower = true;
  // The local blog exists from now on, so the app may write before the first sync, even offline (records.ts).
  core.prepare(() => localBlog(core, blogId));
  const remote = createRemote(options.remote);
  let ctx: Ctx | undefined;
  let queue: Promise<unknown> = Promise.resolve();
  let stopLive: (() => void) | undefined;
  let closed = false;

  /**
   * One replica operation at a time; each starts from the state as stored (a failed one left nothing half-done,
   * and the replica of another tab on the same store may have written it). When such a replica wrote it during
   * the operation, the operation's own write of it fails whole and the operation runs again on what is stored.
   */
  function run<T>(task: (ctx: Ctx) => Promise<T>): Promise<T> {
    const next = queue.then(async () => {
      for (let attempt = 1; ; attempt++) {
        if (closed) throw new Error('Replica closed');
        ctx = await loadState(core, blogId, ctx);
        try {
          // A replica of an older layout brings its bases to this one first (upgrade.ts).
          if (ctx.version && ctx.state.layout !== LAYOUT) await (await import('./upgrade.js')).upgradeBases(ctx);
          return await task(ctx);
        } catch (error) {
          ctx = undefined;
          if (!DriverConflict.is(error) || attempt === 3) throw error;
        }
      }
    });
    queue = next.catch(() => undefined);
    return next;
  }

  const downloads = pictureDownloads(core, blogId, remote, options.downloads ?? 4, run, () => closed);
  const download = downloads.next;

  const sync = () => {
    let first = false;
    return run((c) => {
      first = firstPull(c.state);
      return syncOnce(c, remote, options);
    }).then((result) => {
      void download().catch((error: unknown) => options.onError?.(error));
      // The search terms a first pull left out (pull.ts) are written now, once the sync is over; otherwise it is
      // looked once per process for terms a reload left unwritten. Searches wait for them.
      void core.termsWritten(blogId, first)?.catch(() => undefined);
      return result;
    });
  };

  const pending = () => run((c) => pendingChanges(c, blogId));

  // Showing and resolving conflicts loads on first use (sync/resolve.ts).
  const conflicts = () =>
    run(async (c) => {
      if (c.state.conflicts.length === 0) return [];
      const { publicConflict } = await import('./resolve.js');
      return c.state.conflicts.map(publicConflict);
    });

  const resolve = (id: string, choice: ConflictChoice) =>
    run(async (c) => (await import('./resolve.js')).resolveConflict(c, id, choice));

  // Not queued behind a running sync: the id map is only ever added to, and each commit stores it whole.
  const idOf = async (id: string) => {
    const ids = (await core.getAs<{ ids: Record<string, string> }>('settings', stateId(blogId)))?.doc.ids;
    return ids && Object.hasOwn(ids, id) ? ids[id]! : id;
  };

  // Syncing live loads when first asked for (sync/live.ts).
  function live(): () => void {
    if (stopLive) return stopLive;
    let stop: (() => void) | undefined;
    const stopThis = () => {
      stop?.();
      if (stopLive === stopThis) stopLive = undefined;
    };
    void import('./live.js')
      .then(({ keepSyncing }) => {
        if (stopLive === stopThis) stop = keepSyncing(options, remote, sync, () => ctx?.state.checkpoint);
      })
      .catch((error: unknown) => options.onError?.(error));
    stopLive = stopThis;
    return stopThis;
  }

  return {
    sync,
    live,
    pending,
    conflicts,
    resolve,
    idOf,
    downloads: () => download(),
    async close() {
      stopLive?.();
      await downloads.stop();
      await queue;
      closed = true;
    },
  };
}
