import { DriverConflict, type JsonObject, type Key, type WriteOp } from '../store/driver.js';
import type { RecordStore } from '../store/record-store.js';
import type { BlogEvent, Emitter } from './events.js';

/**
 * Events across app servers on one store (drivers with `watch`, e.g. PostgreSQL). The events of a write are
 * one `events` record committed in the write's own commit (`record`), so a write and its event are stored
 * together or not at all, whenever the process dies. Every instance follows the change log from the moment
 * its store opened (`start`) and emits the events other instances stored, once each; while nobody listens it
 * only moves its place forward. So a listener hears every write committed after its `on()` returned, on every
 * instance; one added before the store opened also hears what was stored from EARLY_MS before it (found by
 * commit time, so clocks of app servers further apart than that may cost it events of that moment).
 * The `events` collection is transient (schema.ts): a driver that drops such records whole (`dropsTransient`) keeps
 * them a minute at least; elsewhere an instance keeps its last KEEP, the oldest deleted in the commit that adds one.
 * The core loads this module only for such a driver (IndexedDB has no `watch`: a browser never downloads it).
 */
const KEEP = 1000;
/** A driver closed under a live service (host code closing the driver itself) is not worth a log line. */
const quiet = (error: unknown) => error instanceof Error && /driver is closed$/.test(error.message);
const PAGE = 500;
const EARLY_MS = 2_000;

/** What a write adds to its commit for the other instances, and what to do once the commit settled. */
export interface SharedRecord {
  ops: WriteOp[];
  /** After the commit: no `error` when it succeeded. */
  settle(error?: unknown): void;
}

export class EventShare {
  /** Prefix of this instance's event record ids: the follower skips its own. */
  private readonly instance = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 10)}.`;
  private next = 0;
  /** This instance's event records known to be stored, oldest first. */
  private readonly kept: string[] = [];
  private cursor = 0;
  private stopWatch: (() => void) | undefined;
  private pulling: Promise<void> | undefined;
  private again = false;
  private closed = false;
  /** Event records emitted by `start`'s look back, not to be emitted again when the log brings them. */
  private early = new Set<string>();

  constructor(
    private readonly driver: RecordStore,
    private readonly emitter: Emitter,
  ) {}

  /** The record carrying `events` (at `time`, the core's ISO clock), to commit with the write they report. */
  record(events: readonly BlogEvent[], time: string): SharedRecord {
    const id = this.instance + (this.next++).toString(36);
    const doc = { events: packed(events) } as unknown as JsonObject;
    const ops: WriteOp[] = [{ type: 'put', collection: 'events', id, expect: 0, doc, keys: { time: [[time, id]] } }];
    // (A driver that drops transient records whole needs no delete: PostgreSQL truncates a slab in turn.)
    const oldest = this.kept.length >= KEEP && !this.driver.dropsTransient ? this.kept.shift() : undefined;
    if (oldest !== undefined) ops.push({ type: 'delete', collection: 'events', id: oldest, expect: 1 });
    return {
      ops,
      settle: (error) => {
        if (error === undefined && !this.driver.dropsTransient) this.kept.push(id);
        // Refused for another record: nothing was written, the oldest is still there. Refused for the oldest
        // (someone removed it), or a commit that may have happened: it is not deleted later (at worst one
        // record stays behind), and the write's retry goes without it.
        else if (DriverConflict.is(error) && error.collection !== 'events' && oldest !== undefined)
          this.kept.unshift(oldest);
      },
    };
  }

  /**
   * Starts following the log from its current end (called once, when the store opens). `heardFrom` answers
   * when the first listener was added (ms, the core's clock) if that was before: events stored since are emitted.
   */
  async start(heardFrom: () => number | undefined): Promise<void> {
    this.cursor = (await this.driver.logBounds()).newest;
    const from = heardFrom();
    if (from !== undefined) await this.lookBack(new Date(from - EARLY_MS).toISOString());
    if (!this.closed) this.stopWatch = this.driver.watch!(() => void this.pull());
  }

  private async lookBack(from: string): Promise<void> {
    let lower: Key = [from];
    let open = false;
    for (;;) {
      const page = await this.driver.list({
        collection: 'events',
        index: 'time',
        prefix: [],
        lower: { key: lower, open },
        direction: 'asc',
        limit: PAGE,
      });
      for (const d of page) {
        if (d.id.startsWith(this.instance)) continue;
        this.early.add(d.id);
        this.emitAll(d.doc);
      }
      if (page.length < PAGE) return;
      lower = page[page.length - 1]!.key;
      open = true;
    }
  }

  /** A record holds the events of one write; a record of an older blogcore is one event. */
  private emitAll(doc: JsonObject): void {
    const events = Array.isArray(doc.events)
      ? unpacked(doc.events as unknown as Packed[])
      : [doc as unknown as BlogEvent];
    for (const e of events) this.emitter.emit(e);
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
        } while (this.again && !this.closed);
      } catch (error) {
        if (!quiet(error))
          console.error('blogcore: reading the change log for other instances\u2019 events failed (will retry)', error);
      } finally {
        this.pulling = undefined;
      }
    })());
  }

  private async readAll(): Promise<void> {
    if (this.emitter.count() === 0) {
      // Nobody listens: move to the log's end without reading it, unless a listener came meanwhile (then what
      // committed after its on() lies beyond the old place, and is read from there).
      const added = this.emitter.added;
      const { newest } = await this.driver.logBounds();
      if (this.emitter.added === added) {
        this.cursor = Math.max(this.cursor, newest);
        return;
      }
    }
    for (;;) {
      let changes = await this.driver.changesSince(this.cursor, PAGE);
      const full = changes.length === PAGE;
      // A full page may end inside a commit: keep whole commits only, unless one commit fills the page.
      const lastSeq = changes[changes.length - 1]?.seq;
      if (full && changes[0]!.seq !== lastSeq) changes = changes.filter((c) => c.seq !== lastSeq);
      const ids = changes
        .filter(
          (c) =>
            c.collection === 'events' && c.type === 'put' && !c.id.startsWith(this.instance) && !this.early.has(c.id),
        )
        .map((c) => c.id);
      const docs = ids.length ? await this.driver.getMany('events', ids) : [];
      for (const d of docs) if (d) this.emitAll(d.doc);
      if (changes.length) this.cursor = changes[changes.length - 1]!.seq;
      if (!full) {
        // Everything the look back found is behind the place now.
        this.early.clear();
        return;
      }
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    this.stopWatch?.();
    await this.pulling;
  }
}

/** An event as its record holds it: a resource an earlier event of the write carries too is named by position. */
type Packed = BlogEvent & { resourceOf?: number };

/**
 * The events of one write as stored: a resource is stored once (a post published as it is inserted has two events
 * and one resource), so a commit sends the post as its record and one more time, not once per event.
 */
function packed(events: readonly BlogEvent[]): Packed[] {
  return events.map((e, k) => {
    const first = e.resource === undefined ? k : events.findIndex((x) => x.resource === e.resource);
    if (first === k) return e;
    const { resource: _, ...rest } = e;
    return { ...rest, resourceOf: first };
  });
}

/** The events a record holds, each with its resource (one object for the events that share it, as when they were emitted). */
function unpacked(events: readonly Packed[]): BlogEvent[] {
  return events.map(({ resourceOf, ...e }) =>
    resourceOf === undefined ? e : { ...e, resource: events[resourceOf]?.resource },
  );
}
