/**
 * The state every operation shares: the driver, the clock, caches of users and blogs, and the
 * checks that recur (validation, the caller's standing in a blog, compare-and-set retries, scheduled
 * posts going LIVE). Resources (src/resources/*) build the public methods on top of this.
 */
import {
  DriverConflict,
  type BlobStore,
  type CommitResult,
  type ReadSession,
  type StorageDriver,
  type StoredDoc,
  type WriteOp,
} from '../store/driver.js';
import { recordStore, type RecordStore } from '../store/record-store.js';
import { authError, resolveView, roleOf, type Actor, type Standing } from '../rules/access.js';
import { isDue } from '../rules/states.js';
import { BlogError, conditionNotMet, notFound } from '../util/errors.js';
import type { EventShare } from './event-share.js';
import { Emitter, type BlogEvent, type EventType, type Listener } from './events.js';
import { Lanes, lanesOf } from './lanes.js';
import { newId } from '../util/ids.js';
import { labelCounterOps } from '../store/label-counts.js';
import type { Scheduler, SchedulerOptions } from './scheduler.js';
import { RecordCache } from './record-cache.js';
import type { CommentGate } from './comment-gate.js';
import type { CommentOptions } from '../rules/comment-options.js';
import {
  laterTermsId,
  memberId,
  RECORDS_STREAM,
  put,
  type BlogRecord,
  type Collection,
  type PostRecord,
  type Records,
  type Untyped,
  type UserRecord,
} from '../store/records.js';
import type { Parsed, Role } from '../schema/schemas.js';
import { LAYOUT_MARKER, STORE_LAYOUT, STORE_SCHEMA } from '../store/schema.js';
import { parse } from '../schema/parse.js';
import type { Output, Schema } from '../schema/standard.js';
import type { ZodMiniType } from 'zod/mini';
import { authorOf, etagOf, links, postWire, type Links } from './wire.js';
import type { Post } from '../schema/resources.js';

export interface CoreOptions extends CommentOptions {
  driver: StorageDriver;
  /** Earlier versions kept per post or page (default 50; 0 keeps none). */
  revisionsKept?: number;
  apiBaseUrl?: string;
  now?: () => Date;
  /**
   * How long the change log keeps changes (a pull's `since` older than that answers 410 resyncRequired):
   * entries older than `days` go, and, with `commits`, any beyond the newest that many commits.
   * Default `{ days: 30 }`. Pruning runs after writes, a bounded batch at a time.
   */
  changeRetention?: { days?: number; commits?: number };
  /** Where media bytes live (docs/design.md §19). Default: the driver's own store, beside the records. */
  blobs?: BlobStore;
  /** Larger pictures are refused with 413, read no further. Default 20 MiB. */
  maxMediaBytes?: number;
  /** Pictures are stored as uploaded, metadata and all (docs/design.md §23). Default false: metadata out at upload. */
  keepImageMetadata?: boolean;
  /** The widths of pictures' variants (docs/design.md §23). Default `[320, 640, 960, 1280, 1920]`. */
  imageWidths?: readonly number[];
}

/** The default widths of pictures' variants (docs/design.md §23). */
const IMAGE_WIDTHS = [320, 640, 960, 1280, 1920];

const DAY_MS = 86_400_000;
/** Log entries removed per pruning step, and how often a step runs (every N commits, or after a pause). */
const PRUNE_BATCH = 500;
const PRUNE_EVERY = 64;
const PRUNE_PAUSE_MS = 60_000;

/** How long a write keeps trying while other processes keep moving its records, and the longest pause between tries. */
const RETRY_BUDGET_MS = 30_000;
const MAX_BACKOFF_MS = 50;

const NONE: BlogEvent[] = [];
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const busy = () =>
  new BlogError({
    code: 503,
    reason: 'backendError',
    message: 'The store is too busy with writes to the same records; try again',
  });

export class Core {
  /** The driver as opened: only open() and what runs inside it use it unguarded. */
  private readonly store: RecordStore;
  /**
   * The driver, read through the collection map (src/store/record-store.ts): a read of 'posts' answers
   * PostRecords. Until the store is open, each call of it opens the store first, so any call — a service
   * method, a feed, an export — may be a fresh service's first (docs/design.md §24); then the driver itself.
   */
  driver: RecordStore;
  readonly now: () => Date;
  readonly links: Links;
  readonly events = new Emitter();
  /** Writers of this process take turns per record (lanes.ts). */
  private readonly lanes = new Lanes();
  readonly revisionsKept: number;
  readonly blobs: BlobStore;
  readonly maxMediaBytes: number;
  /** The comment options (docs/design.md §25), and the counters of the comment limits in this process. */
  readonly commentOptions: CommentOptions;
  /** Made with the first comment limited (src/resources/comment-admission.ts), whose code loads then. */
  commentGate: CommentGate | undefined;
  readonly keepImageMetadata: boolean;
  readonly imageWidths: readonly number[];
  private scheduler: Pick<Scheduler, 'scheduled' | 'stop'> | undefined;
  /** Promotions this process has committed: a list read beside promoteDue re-reads if one landed meanwhile. */
  promotions = 0;
  /** Per blog, the writing of the search terms a replica's pull left for later (later-terms.ts); null: done. */
  private readonly termsLater = new Map<string, Promise<void> | null>();
  /** Events shared with other app servers on the same store (drivers that can `watch` it; the code loads then). */
  readonly share: Promise<EventShare> | undefined;
  private opening: Promise<void> | undefined;
  /**
   * Where the driver reads at once: `posts.get` in one synchronous step (src/resources/post-now.ts, loaded by
   * resources/posts.ts), which answers the post, or undefined where the full path must answer.
   */
  declare atOnce:
    | { postsGet(core: Core, actor: Actor, p: Parsed<'postsGet'>): Post | undefined | Promise<Post | undefined> }
    | undefined;
  /** Whether the store is open (calls before it wait for it: `afterOpen`). */
  opened = false;
  /** Users and blogs, kept right across processes through the change log (src/core/record-cache.ts). */
  readonly cache: RecordCache;
  /**
   * A replica's local store (set by blogcore/sync): shared documents follow the server's (resources/collab.ts),
   * so they are never made from the local HTML nor rendered into it; the server does both.
   */
  collabFollower = false;
  /** Called when the service closes (features that keep timers, e.g. presence in resources/collab.ts). */
  readonly closeListeners = new Set<() => void>();
  /**
   * Called after every commit this process makes, with its result and ops (long polls wait on it; collab hands a
   * push to the pulls waiting here from it).
   */
  readonly commitListeners = new Set<(result: CommitResult, ops: readonly WriteOp[]) => void>();
  /**
   * Called when a call's check of the change log finds commits by other hands (another process on the store):
   * what was read before may be stale (the HTTP helper's kept responses go).
   */
  readonly movedListeners = new Set<() => void>();
  private readonly retention: { ms: number; commits: number | undefined };
  private sincePrune = 0;
  private lastPrune = -Infinity;
  private pruning = false;

  /** The core every view (`withSession`) shares. */
  readonly root: Core = this;
  /** A view's read session (drivers with read replicas), else none. */
  readonly readSession: ReadSession | undefined;
  /** Moved by every commit of this process: cached users and blogs are loaded at or past the newest. */
  private readonly processSession: ReadSession | undefined;

  constructor(options: CoreOptions) {
    this.store = recordStore(options.driver);
    this.driver = afterOpen(this.store, this);
    this.processSession = options.driver.session?.();
    this.cache = new RecordCache(this, () => {
      this.dueUnknown();
      for (const listener of this.movedListeners) listener();
    });
    const r = options.changeRetention ?? {};
    this.retention = { ms: (r.days ?? 30) * DAY_MS, commits: r.commits };
    this.now = options.now ?? (() => new Date());
    this.revisionsKept = Math.max(0, Math.floor(options.revisionsKept ?? 50));
    // Checked where media is handled (src/media/service.ts), which loads on first use.
    this.blobs = options.blobs ?? this.store.blobs;
    this.maxMediaBytes = options.maxMediaBytes ?? 20 * 1024 * 1024;
    // Checked where comments are written (src/resources/comment-insert.ts) and by the HTTP helper as it is made.
    this.commentOptions = options;
    this.keepImageMetadata = options.keepImageMetadata === true;
    this.imageWidths = [...new Set(options.imageWidths ?? IMAGE_WIDTHS)].sort((a, b) => a - b);
    this.links = links((options.apiBaseUrl ?? '').replace(/\/+$/, ''));
    if (typeof this.store.watch === 'function') {
      this.share = import('./event-share.js').then(({ EventShare }) => new EventShare(this.store, this.events));
      this.events.shared = true;
    }
  }

  /** When the first listener was added, if that was before the store opened (the core's clock, ms). */
  private heardFrom: number | undefined;

  /** Adds a listener (service.on); other app servers' writes are followed once the store is open. */
  listen(type: EventType | '*', listener: Listener): () => void {
    if (this.share && !this.opened) this.heardFrom ??= this.now().getTime();
    this.ready().catch(() => undefined);
    return this.events.on(type, listener);
  }

  ready(): Promise<void> {
    return (this.opening ??= this.open());
  }

  /**
   * Runs `step` once the store is open and before every call that waits for it from now on (a replica's local
   * blog, sync/index.ts, exists before the app's first write). A failing step fails nothing: what it wanted to
   * write is then written by whoever needs it.
   */
  prepare(step: () => Promise<void>): void {
    this.opening = this.ready().then(() => step().catch(() => undefined));
  }

  /**
   * The core as one session of callers sees the store: with a driver that reads from replicas, a view whose
   * reads see the session's own writes (`session`, default a new one); otherwise this core. Everything but
   * the driver is the root's.
   */
  withSession(session: ReadSession | undefined = this.root.store.session?.()): Core {
    if (!session) return this.root;
    return new Proxy(this.root, {
      get: (target, key, receiver) =>
        key === 'driver'
          ? afterOpen(session.driver, target)
          : key === 'readSession'
            ? session
            : Reflect.get(target, key, receiver),
    });
  }

  private async open(): Promise<void> {
    await this.store.open(STORE_SCHEMA);
    const mark = await this.store.get('settings', LAYOUT_MARKER);
    // Only a store behind the current layout (or a new one) loads the upgrade's code.
    if (!(Number(mark?.doc.layout) >= STORE_LAYOUT)) {
      await (await import('../store/upgrade.js')).upgradeStore(this.store, mark, () => this.now().getTime());
    }
    // Other instances' events are followed from here on, listened to or not: a listener added later hears
    // every write committed after its on() returned.
    if (this.share) await (await this.share).start(() => this.heardFrom);
    this.opened = true;
    this.driver = this.store;
  }

  /**
   * What to wait for until the blog's posts all have their search terms (undefined: nothing, so a search's reads
   * still go out in the turn its first one did): a replica's first pull stores posts first and their terms
   * after, marking the blog (later-terms.ts, loaded then). Looked for once per process, or `again` (a pull here
   * marked the blog since); a failure is looked for again by the next call.
   */
  termsWritten(blogId: string, again?: boolean): Promise<void> | undefined {
    if (!this.driver.addTerms) return;
    const known = this.termsLater.get(blogId);
    if (known !== undefined && !again) return known ?? undefined;
    const started = this.driver.get('settings', laterTermsId(blogId)).then(async (mark) => {
      if (mark) await (await import('./later-terms.js')).writeLaterTerms(this.driver, blogId, mark);
    });
    const settle = (done: boolean) => {
      if (this.termsLater.get(blogId) !== started) return;
      if (done) this.termsLater.set(blogId, null);
      else this.termsLater.delete(blogId);
    };
    started.then(
      () => settle(true),
      () => settle(false),
    );
    this.termsLater.set(blogId, started);
    return started;
  }

  nowIso(): string {
    return this.now().toISOString();
  }

  newId(): string {
    return newId(this.now());
  }

  /**
   * Checks a method's parameters (src/schema/schemas.ts): the parsed values, or a 400 BlogError naming the field at
   * fault. Every call starts here, so this is also where the cache learns that a call began.
   */
  parse<S extends Schema>(schema: S, input: unknown): Output<S> {
    this.cache.begin();
    // Every schema the core is given is one of src/schema/schemas.ts (zod): Schema only keeps zod out of its type.
    return parse(schema as unknown as ZodMiniType, input) as Output<S>;
  }

  async get<C extends Collection>(collection: C, id: string): Promise<StoredDoc<Records[C]> | undefined> {
    await this.ready();
    return this.driver.get(collection, id);
  }

  /** A document of a collection that holds several shapes (`settings`, `idempotency`): its reader names the shape. */
  getAs<T>(collection: Untyped, id: string): Promise<StoredDoc<T> | undefined> {
    return this.get(collection, id) as Promise<StoredDoc<T> | undefined>;
  }

  /**
   * The documents of a list or search page (src/core/paging.ts), from the record cache where it keeps them,
   * current as of the call's start; with read replicas (sessions) always read, where the session reads.
   */
  async docs<C extends Collection>(
    collection: C,
    ids: readonly string[],
  ): Promise<Array<StoredDoc<Records[C]> | undefined>> {
    if (this.processSession) return this.driver.getMany(collection, ids);
    return this.cache.getMany(collection, ids, (missing) => this.driver.getMany(collection, missing));
  }

  /** A record for the shared cache: read where every write of this process is visible (replicas that caught up). */
  private async cached<C extends 'users' | 'blogs'>(
    collection: C,
    id: string,
  ): Promise<StoredDoc<Records[C]> | undefined> {
    await this.ready();
    return (this.processSession ? recordStore(this.processSession.driver) : this.driver).get(collection, id);
  }

  async user(id: string, look = true): Promise<UserRecord | undefined> {
    await this.ready();
    return this.cache.get('users', id, async () => (await this.cached('users', id))?.doc, look);
  }

  /**
   * A blog that exists and is not being deleted (a blog being deleted reads as gone, never half there).
   * `look: false`: see RecordCache.get.
   */
  async blog(blogId: string, look = true): Promise<BlogRecord> {
    await this.ready();
    const found = await this.cache.get('blogs', blogId, async () => (await this.cached('blogs', blogId))?.doc, look);
    if (!found || found.deleting) throw notFound('Blog');
    return found;
  }

  /** The caller's role in a blog (host code: ADMIN) and the view the operation answers at. */
  async standing(actor: Actor, blogId: string, view?: Role): Promise<Standing> {
    const member = actor.kind === 'user' ? (await this.get('members', memberId(blogId, actor.userId)))?.doc : undefined;
    const role = roleOf(actor, member);
    return { actor, role, view: resolveView(role, view) };
  }

  /** The standing of a caller reading a blog that exists, at the view asked for. */
  async reader(actor: Actor, blogId: string, view?: Role): Promise<Standing & { blog: BlogRecord }> {
    const blog = await this.blog(blogId);
    return { ...(await this.standing(actor, blogId, view)), blog };
  }

  /**
   * The standing of a caller about to write in a blog: a known writer, in an existing blog. `atCommit`, inside
   * a `transact` attempt that returns `seen` with its ops: where the driver's look at the log costs a round trip
   * and its commit can check instead (`checksUnchanged`: PostgreSQL), the user and blog come from the cache
   * without it, and the commit is refused if the users and blogs stream moved past `seen` (then the attempt runs
   * again after a look). docs/design.md §15, "The look carried by the commit".
   */
  async writer(actor: Actor, blogId: string, atCommit?: true): Promise<Standing & { blog: BlogRecord; seen?: number }> {
    const { seen } = this.cache;
    const look =
      !atCommit || !this.driver.checksUnchanged || !!this.driver.logNewestNow || !!this.processSession || seen < 0;
    await this.requireWriter(actor, look);
    const blog = await this.blog(blogId, look);
    return { ...(await this.standing(actor, blogId)), blog, ...(look ? {} : { seen }) };
  }

  /** Writers must be known users (hosts create them with users.insert); host code always may write. */
  async requireWriter(actor: Actor, look = true): Promise<void> {
    if (actor.kind === 'user' && !(await this.user(actor.userId, look))) {
      throw authError(`Unknown user ${actor.userId}: create it with users.insert before it writes`);
    }
  }

  /**
   * Compare-and-set with retries: `attempt` reads what it needs, decides, and returns the ops to commit.
   * If any record moved in between, the whole attempt runs again on fresh data (so ifMatch and state
   * checks always judge the latest version). Returns what the successful attempt returned.
   *
   * Writers of this process take turns per record (lanes.ts): a write commits holding the lanes of its
   * records, and once it found one moved it reads again still holding them. Only other processes can then
   * move them; those retries back off with jitter. A write is never refused for being one of many.
   *
   * `events` names the events a successful attempt stands for: they are committed with its ops (for other
   * app servers) and emitted here once the commit succeeded.
   */
  async transact<T>(
    attempt: (retry: number) => Promise<{ ops: WriteOp[]; result: T; seen?: number | undefined }>,
    /** `look: false` when the attempt's commit checks the cache (`seen`): its reads of users and blogs need none. */
    events?: (result: T, look: boolean) => BlogEvent[] | Promise<BlogEvent[]>,
  ): Promise<T> {
    await this.ready();
    let held: string[] = [];
    const started = Date.now();
    try {
      for (let i = 0, moved = 0; ; i++) {
        const { ops, result, seen } = await attempt(i);
        if (ops.length === 0) return result;
        const told = events ? await events(result, seen === undefined) : NONE;
        const wanted = lanesOf(ops);
        const more = wanted.filter((l) => !held.includes(l));
        if (!this.lanes.tryTake(more)) {
          // Another write of this process is on one of these records: wait for it, then decide on fresh reads.
          this.lanes.release(held);
          held = [];
          await this.lanes.take(wanted);
          held = wanted;
          continue;
        }
        held.push(...more);
        try {
          await this.commit(ops, told, seen);
          return result;
        } catch (error) {
          if (!DriverConflict.is(error)) throw error;
          if (error.kind === 'stale') {
            // Users or blogs changed in another process since the cache looked: look, and decide again.
            this.cache.begin();
            await this.cache.fresh();
            continue;
          }
          // The first conflict is most likely a write of this process that committed before this one held the
          // lanes; after that only another process moves these records: give it room.
          if (++moved > 1) {
            if (Date.now() - started > RETRY_BUDGET_MS) throw busy();
            await sleep(Math.random() * Math.min(MAX_BACKOFF_MS, 2 ** moved));
          }
        }
      }
    } finally {
      this.lanes.release(held);
    }
  }

  /**
   * Every write of the core goes here: the commit time from the core's clock, the write's events in the same
   * commit when they are shared with other app servers, then waiters, the scheduler, pruning, and the events
   * emitted to this process's listeners.
   */
  async commit(ops: readonly WriteOp[], events: readonly BlogEvent[] = NONE, seen?: number): Promise<CommitResult> {
    const shared = events.length && this.share ? (await this.share).record(events, this.nowIso()) : undefined;
    const { asked } = this.cache;
    let result: CommitResult;
    try {
      result = await this.driver.commit(shared ? [...ops, ...shared.ops] : ops, {
        time: this.now().getTime(),
        ...(seen === undefined ? {} : { unchanged: { stream: RECORDS_STREAM, after: seen } }),
      });
    } catch (error) {
      shared?.settle(error);
      // Refused for an event record of this instance (removed by hand?): nothing was written; again without it.
      if (shared && DriverConflict.is(error) && error.collection === 'events') return this.commit(ops, events, seen);
      throw error;
    }
    shared?.settle();
    const token = this.readSession?.token();
    if (token !== undefined) this.processSession?.see(token);
    for (const op of ops) {
      this.cache.forget(op.collection, op.id);
      if (op.type === 'put' && op.collection === 'posts' && dueTime(op.doc) !== undefined) this.dueUnknown();
    }
    this.cache.committed(result.seq, result.previous, asked);
    for (const listener of this.commitListeners) listener(result, ops);
    if (this.scheduler) {
      for (const op of ops) if (op.type === 'put' && op.collection === 'posts') this.scheduled(op.doc);
    }
    await this.prune(result.seq);
    for (const event of events) this.events.emit(event);
    return result;
  }

  /** The event, when someone listens for its type (or events are shared with other app servers); else none. */
  async event(
    type: EventType,
    fields: Omit<BlogEvent, 'type' | 'resource'>,
    resource?: () => unknown,
  ): Promise<BlogEvent[]> {
    if (!this.events.has(type)) return NONE;
    return [{ type, ...fields, ...(resource ? { resource: await resource() } : {}) }];
  }

  /**
   * One bounded pruning step of the change log, every PRUNE_EVERY commits or after PRUNE_PAUSE_MS; a full
   * batch means more is due, so the next commit steps again. A failure never fails the write it follows.
   */
  private async prune(seq: number): Promise<void> {
    const now = this.now().getTime();
    if (this.pruning || (++this.sincePrune < PRUNE_EVERY && now - this.lastPrune < PRUNE_PAUSE_MS)) return;
    this.pruning = true;
    try {
      const { ms, commits } = this.retention;
      const removed = await this.driver.pruneChanges({
        before: now - ms,
        ...(commits !== undefined ? { through: seq - commits } : {}),
        limit: PRUNE_BATCH,
      });
      if (removed < PRUNE_BATCH) {
        this.sincePrune = 0;
        this.lastPrune = now;
      }
    } catch {
      // Retention is housekeeping: the next step tries again.
    } finally {
      this.pruning = false;
    }
  }

  /**
   * Starts publishing on time (src/core/scheduler.ts, whose code loads now: its first look at the store comes after
   * that, so a post scheduled meanwhile is found by it); answers the function that stops it. Idempotent.
   */
  startScheduler(options: SchedulerOptions = {}, housekeeping?: () => Promise<boolean>): () => void {
    if (!this.scheduler) {
      let running: Scheduler | undefined;
      let stopped = false;
      const handle = {
        scheduled: (at: string) => running?.scheduled(at),
        stop: () => {
          stopped = true;
          running?.stop();
        },
      };
      this.scheduler = handle;
      import('./scheduler.js').then(
        ({ Scheduler }) => {
          if (stopped) return;
          running = new Scheduler(
            {
              now: this.now,
              promoteDue: () => this.promoteDue(true),
              ...(housekeeping ? { housekeeping } : {}),
              nextDue: async () => {
                await this.ready();
                const [first] = await this.driver.list({
                  collection: 'posts',
                  index: 'due',
                  prefix: [],
                  direction: 'asc',
                  limit: 1,
                });
                return first ? dueTime(first.doc) : undefined;
              },
            },
            options,
          );
          running.start();
        },
        (error: unknown) => {
          // Its code did not load (offline?): a later startScheduler tries again.
          if (this.scheduler === handle) this.scheduler = undefined;
          try {
            options.onError?.(error);
          } catch {
            // A failing logger changes nothing.
          }
        },
      );
    }
    const scheduler = this.scheduler;
    return () => {
      scheduler.stop();
      if (this.scheduler === scheduler) this.scheduler = undefined;
    };
  }

  stopScheduler(): void {
    this.scheduler?.stop();
    this.scheduler = undefined;
  }

  private scheduled(doc: unknown): void {
    const at = dueTime(doc);
    if (at !== undefined) this.scheduler?.scheduled(at);
  }

  /**
   * The publish time of the earliest SCHEDULED post after the last look at the `due` index ('' for none), or
   * undefined when it is not known: a post this process scheduled, or any write of another process (seen
   * through the change log at the start of a call, record-cache.ts), forgets it.
   */
  /** The earliest scheduled post's time: '' when none is scheduled, undefined when not known (read `caughtUp`). */
  nextDue: string | undefined;
  /** Bumped by every forgetting, so a look that spans one does not keep what it read. */
  private dueEpoch = 0;

  private dueUnknown(): void {
    this.nextDue = undefined;
    this.dueEpoch++;
  }

  /**
   * Scheduled posts whose time has come go LIVE here, before any read that lists or counts posts:
   * no timer needed, and the write is compare-and-set, so `post.published` is emitted once even with
   * several processes on one store. While the earliest scheduled post is known and still ahead, nothing is
   * read (`force` looks anyway: the scheduler's timer).
   */
  async promoteDue(force = false): Promise<number> {
    await this.ready();
    await this.cache.fresh();
    // (No clock read when nothing is scheduled: every kept HTTP answer passes here.)
    if (!force && this.nextDue === '') return 0;
    const now = this.nowIso();
    if (!force && this.nextDue !== undefined && this.nextDue > now) return 0;
    const epoch = this.dueEpoch;
    let count = 0;
    for (;;) {
      const due = await this.driver.list({
        collection: 'posts',
        index: 'due',
        prefix: [],
        upper: { key: [now, '\uffff'] },
        direction: 'asc',
        limit: 100,
      });
      for (const d of due) await this.promote(d);
      count += due.length;
      if (due.length < 100) break;
    }
    const [next] = await this.driver.list({
      collection: 'posts',
      index: 'due',
      prefix: [],
      lower: { key: [now, '\uffff'], open: true },
      direction: 'asc',
      limit: 1,
    });
    if (epoch === this.dueEpoch) this.nextDue = next?.key[0] ?? '';
    return count;
  }

  /** Makes one due SCHEDULED post LIVE; answers the record as stored afterwards. */
  async promote(stored: StoredDoc<PostRecord>): Promise<PostRecord> {
    const p = stored.doc;
    if (!isDue(p, this.nowIso())) return p;
    const next: PostRecord = { ...p, status: 'LIVE', rev: p.rev + 1 };
    const told = await this.event('post.published', { blogId: p.blogId, id: p.id }, () => this.adminPost(next));
    try {
      await this.commit([put('posts', next, stored), ...labelCounterOps(p, next)], told);
      this.promotions++;
    } catch (error) {
      if (!DriverConflict.is(error)) throw error;
      // Someone else changed it first (another process promoted it, or an author edited it): read what is there.
      const fresh = await this.get('posts', p.id);
      if (!fresh) throw notFound('Post');
      return fresh.doc.status === 'SCHEDULED' ? this.promote(fresh) : fresh.doc;
    }
    return next;
  }

  /** A post as an ADMIN sees it: the payload of post events. */
  async adminPost(p: PostRecord, look = true): Promise<Post> {
    const blog = await this.blog(p.blogId, look);
    const shape = { view: 'ADMIN' as const, fetchBody: true, fetchImages: false, hideComments: false };
    return postWire(p, blog, authorOf(await this.user(p.authorId, look), p.authorId), shape, this.links);
  }
}

/** The publish time a stored post puts on the scheduler's agenda, if it is SCHEDULED. */
const dueTime = (doc: unknown): string | undefined => {
  const p = doc as Partial<PostRecord> | undefined;
  return p?.status === 'SCHEDULED' && typeof p.published === 'string' ? p.published : undefined;
};

/** Refuses a write whose `ifMatch` names another revision. `*` matches any; quotes and W/ are optional. */
export function checkIfMatch(ifMatch: string | undefined, id: string, rev: number): void {
  if (ifMatch === undefined) return;
  const want = etagOf(id, rev);
  const ok = ifMatch.split(',').some((tag) => {
    const t = tag.trim().replace(/^W\//, '');
    return t === '*' || t === want || `"${t}"` === want;
  });
  if (!ok) throw conditionNotMet();
}

/**
 * `driver` with each of its calls made once the store is open (close excepted): what a call reads before that
 * would meet a driver that is not open.
 */
function afterOpen<D extends object>(driver: D, core: Pick<Core, 'opened' | 'ready'>): D {
  return new Proxy(driver, {
    get: (target, key) => {
      const value = (target as Record<PropertyKey, unknown>)[key];
      return typeof value === 'function'
        ? (...args: unknown[]) =>
            core.opened || key === 'close'
              ? value.apply(target, args)
              : core.ready().then(() => value.apply(target, args))
        : value;
    },
  });
}
