/**
 * The core's cache of users and blogs: read by almost every call, changed rarely (users.update,
 * blogs.update/patch/delete). A commit of this process drops what it wrote (core.commit). Changes made by
 * other processes on the same store come through the change log, where users and blogs have a stream of
 * their own: when a call begins (core.parse) the next read compares the log's newest seq with the one this
 * cache has seen and, if it moved, reads that stream since, at most FOLLOW entries, dropping what they name;
 * with more behind, or the log pruned past what it has seen, it drops everything. So a call sees every
 * change committed before it began, for one cheap `logBounds` and a constant number of log entries.
 * Whenever the log moved by other hands, `moved` is told (the core's knowledge of the next due post goes).
 *
 * It also keeps the documents of the last pages read (`getMany`: lists and searches, core.docs), at most
 * DOCS of them: a page read again costs no read of its documents. Other processes' changes to them are not
 * followed one by one: any move of the log by other hands drops them all.
 */
import type { RecordStore } from '../store/record-store.js';
import { RECORDS_STREAM } from '../store/records.js';

const LIMIT = 2_000;
const FOLLOW = 16;
const DOCS = 256;

export class RecordCache {
  /** Users and blogs by collection/id (read as they are by resources/post-now.ts). */
  readonly map = new Map<string, unknown>();
  /** Page documents by collection/id, oldest first, and their epoch (bumped by every drop of one). */
  private readonly docs = new Map<string, unknown>();
  private docsEpoch = 0;
  /** Bumped by every drop, so a read that spans one does not store what it read before it. */
  private epoch = 0;
  /** The newest seq whose changes this cache reflects (-1: none read yet). */
  seen = -1;
  /** Calls begun, and the number of them the last finished check covers (read and moved by `freshNow` too, at-once.ts). */
  asked = 0;
  checked = 0;
  checking: Promise<void> | undefined;

  /** `host.driver`: the store as the core has it now (its waiting wrapper until the store is open). */
  constructor(
    readonly host: { readonly driver: RecordStore },
    private readonly moved: () => void = () => {},
  ) {}

  /** A call begins: the next read checks the change log first. */
  begin(): void {
    this.asked++;
  }

  /** Settles once the change log was looked at since the last call began (one look serves many calls). */
  async fresh(): Promise<void> {
    while (this.checked < this.asked) {
      const want = this.asked;
      this.checking ??= this.follow()
        .then(() => void (this.checked = Math.max(this.checked, want)))
        .finally(() => void (this.checking = undefined));
      await this.checking;
    }
  }

  /**
   * The record, from the cache, else from `load` (then cached). `look: false` skips the look at the log: the
   * caller's commit checks that the log did not move past `seen` (core.writer with `atCommit`).
   */
  async get<T>(
    collection: string,
    id: string,
    load: () => Promise<T | undefined>,
    look = true,
  ): Promise<T | undefined> {
    if (look && this.checked < this.asked) await this.fresh();
    const key = `${collection}/${id}`;
    if (this.map.has(key)) return this.map.get(key) as T;
    const epoch = this.epoch;
    const found = await load();
    if (found !== undefined && epoch === this.epoch) {
      if (this.map.size >= LIMIT) this.map.clear();
      this.map.set(key, found);
    }
    return found;
  }

  /**
   * Page documents by id (in the order of `ids`, undefined where none), those not kept read by `load`
   * (then kept, at most DOCS, the oldest going first).
   */
  async getMany<T>(
    collection: string,
    ids: readonly string[],
    load: (ids: string[]) => Promise<Array<T | undefined>>,
  ): Promise<Array<T | undefined>> {
    if (this.checked < this.asked) await this.fresh();
    const keys = ids.map((id) => `${collection}/${id}`);
    const out = keys.map((key) => this.docs.get(key) as T | undefined);
    const missing = ids.filter((_, i) => out[i] === undefined);
    if (missing.length === 0) return out;
    const epoch = this.docsEpoch;
    const found = await load(missing);
    let j = 0;
    for (let i = 0; i < out.length; i++) {
      if (out[i] !== undefined) continue;
      const doc = (out[i] = found[j++]);
      if (doc === undefined || epoch !== this.docsEpoch) continue;
      if (this.docs.size >= DOCS) this.docs.delete(this.docs.keys().next().value!);
      this.docs.set(keys[i]!, doc);
    }
    return out;
  }

  /** Drops a record (this process wrote it, or the log says another did). */
  forget(collection: string, id: string): void {
    const key = `${collection}/${id}`;
    this.docsEpoch++;
    this.docs.delete(key);
    // (What `get` keeps is users and blogs: a write of anything else leaves their loads alone.)
    if (collection !== 'users' && collection !== 'blogs') return;
    this.epoch++;
    this.map.delete(key);
  }

  /**
   * This process committed `seq` (`previous`: the log's newest seq below it): if nothing came between, the cache
   * is still current after it, and the calls begun before the commit went out (`asked` then) need no look.
   */
  committed(seq: number, previous = seq - 1, asked = 0): void {
    if (this.seen !== previous) return;
    this.seen = seq;
    this.checked = Math.max(this.checked, asked);
  }

  private async follow(): Promise<void> {
    const { driver } = this.host;
    const { newest, pruned } = await driver.logBounds();
    if (newest === this.seen) return;
    this.moved();
    // (Page documents are not followed one by one: the stream below names users and blogs only.)
    this.docsEpoch++;
    this.docs.clear();
    const behind =
      this.seen < 0 || pruned > this.seen
        ? []
        : await driver.streamChanges(RECORDS_STREAM, { seq: this.seen + 1, pos: -1 }, FOLLOW + 1);
    if (this.seen < 0 || behind.length > FOLLOW || pruned > this.seen) {
      this.epoch++;
      this.map.clear();
    } else for (const c of behind) this.forget(c.collection, c.id);
    this.seen = Math.max(this.seen, newest);
  }
}
