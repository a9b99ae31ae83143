import { DriverConflict, type JsonObject, type WriteOp } from '../store/driver.js';
import type { RecordStore } from '../store/record-store.js';
import type { BlogEvent, Emitter } from './events.js';

/**
 * Events across app servers on one store (drivers with `watch`, e.g. PostgreSQL). Each event an instance
 * emits is also committed to the `events` collection (after the write it reports, in order; the service
 * call resolves once it is stored); every instance that has listeners follows the change log from where it joined and
 * emits the events other instances stored. The log's seqs never skip, so each listener sees each write once.
 * An instance keeps only its last KEEP event records (older ones are deleted in the same commits). The core
 * loads this module only for such a driver (IndexedDB has no `watch`: a browser never downloads it).
 */
const KEEP = 1000;
/** A driver closed under a live service (host code closing the driver itself) is not worth a log line. */
const quiet = (error: unknown) => error instanceof Error && /driver is closed$/.test(error.message);
const PAGE = 500;

export class EventShare {
  /** Prefix of this instance's event record ids: the follower skips its own. */
  private readonly instance = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 10)}.`;
  private published = 0;
  private queue: Promise<void> = Promise.resolve();
  private cursor = 0;
  private stopWatch: (() => void) | undefined;
  private pulling: Promise<void> | undefined;
  private again = false;
  /** Settles once this instance follows the log (`service.ready()` awaits it). */
  started: Promise<void> | undefined;

  constructor(
    private readonly driver: RecordStore,
    private readonly emitter: Emitter,
    /** The core's clock (ms): the commit time logged with event records, as with every core write. */
    private readonly time: () => number = Date.now,
  ) {}

  publish(event: BlogEvent): void {
    const n = this.published++;
    const ops: WriteOp[] = [
      { type: 'put', collection: 'events', id: this.instance + n, expect: 0, doc: JSON.parse(JSON.stringify(event)) as JsonObject, keys: {} },
    ];
    if (n >= KEEP) ops.push({ type: 'delete', collection: 'events', id: this.instance + (n - KEEP), expect: 1 });
    // Tried twice: a commit that failed on a lost connection may have landed, and then the retry's conflict says so.
    const commit = () => this.driver.commit(ops, { time: this.time() }).then(() => undefined);
    this.queue = this.queue
      .then(() => commit().catch((error: unknown) => (DriverConflict.is(error) ? undefined : commit())))
      .catch((error: unknown) => (DriverConflict.is(error) ? undefined : Promise.reject(error)))
      .then(
        () => undefined,
        (error: unknown) => void (quiet(error) || console.error('blogcore: an event could not be shared with other instances', error)),
      );
  }

  /** Settles when every event published so far is stored (or failed and was logged). */
  flush(): Promise<void> {
    return this.queue;
  }

  /** Starts following the log (once), from its current end. */
  follow(ready: Promise<void>): Promise<void> {
    return (this.started ??= ready.then(async () => {
      // An empty commit answers the log's current seq: events committed before this point are not replayed.
      this.cursor = (await this.driver.commit([], { time: this.time() })).seq;
      this.stopWatch = this.driver.watch!(() => void this.pull());
    }));
  }

  private pull(): Promise<void> {
    if (this.pulling) {
      this.again = true;
      return this.pulling;
    }
    return (this.pulling = (async () => {
      try {
        do {
          this.again = false;
          await this.readAll();
        } while (this.again);
      } catch (error) {
        if (!quiet(error)) console.error('blogcore: reading the change log for other instances\u2019 events failed (will retry)', error);
      } finally {
        this.pulling = undefined;
      }
    })());
  }

  private async readAll(): Promise<void> {
    for (;;) {
      let changes = await this.driver.changesSince(this.cursor, PAGE);
      const full = changes.length === PAGE;
      // A full page may end inside a commit: keep whole commits only, unless one commit fills the page.
      const lastSeq = changes[changes.length - 1]?.seq;
      if (full && changes[0]!.seq !== lastSeq) changes = changes.filter((c) => c.seq !== lastSeq);
      const ids = changes.filter((c) => c.collection === 'events' && c.type === 'put' && !c.id.startsWith(this.instance)).map((c) => c.id);
      const docs = ids.length ? await this.driver.getMany('events', ids) : [];
      for (const d of docs) if (d) this.emitter.emit(d.doc as unknown as BlogEvent);
      if (changes.length) this.cursor = changes[changes.length - 1]!.seq;
      if (!full) return;
    }
  }

  async close(): Promise<void> {
    this.stopWatch?.();
    await this.queue;
    await this.pulling;
  }
}
