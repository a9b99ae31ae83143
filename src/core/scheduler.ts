/**
 * Publishing on time: one timer set to the next SCHEDULED post's time (found through the `due` index), not a
 * poll every second. When it fires, due posts go LIVE through the same compare-and-set promotion reads use,
 * so with several processes on one store each post goes LIVE, and `post.published` fires, once. Writes in
 * this process that schedule a post earlier re-arm the timer. Reads keep promoting due posts too, so nothing
 * depends on the scheduler running.
 */
export interface SchedulerOptions {
  /**
   * The longest the timer sleeps before looking again, in ms (default 5 minutes): the bound on how late a post
   * scheduled by another process (one not running a scheduler) goes LIVE here.
   */
  maxDelayMs?: number;
  /** Failures of a timed run (e.g. the store is unreachable); it retries in 5 s. Default: ignored. */
  onError?: (error: unknown) => void;
}

/** What the scheduler needs from the core. */
export interface SchedulerHost {
  now(): Date;
  /** The earliest SCHEDULED post's publish time, if any. */
  nextDue(): Promise<string | undefined>;
  /** Makes every due post LIVE (emitting `post.published` for each this process promoted). */
  promoteDue(): Promise<number>;
  /** The store's housekeeping (spam and client addresses past their time), a batch a look; true when more is left. */
  housekeeping?(): Promise<boolean>;
}

/** setTimeout's own limit (a longer delay fires at once). */
const MAX_TIMEOUT = 2 ** 31 - 1;
const RETRY_MS = 5_000;
/** The next look when housekeeping left more to do. */
const MORE_MS = 1_000;

export class Scheduler {
  private timer: ReturnType<typeof setTimeout> | undefined;
  /** When the armed timer fires (ms since the epoch). */
  private armedAt = Infinity;
  private stopped = false;
  private running: Promise<void> | undefined;
  /** The earliest time `scheduled` asked for while a look was running (that look may have read before the write). */
  private pending = Infinity;
  private readonly maxDelay: number;

  constructor(
    private readonly host: SchedulerHost,
    private readonly options: SchedulerOptions = {},
  ) {
    this.maxDelay = Math.min(Math.max(options.maxDelayMs ?? 300_000, 1), MAX_TIMEOUT);
  }

  start(): void {
    void this.look();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** A write scheduled a post for `published`: bring the timer forward if that is sooner. */
  scheduled(published: string): void {
    const at = Date.parse(published);
    if (this.running) this.pending = Math.min(this.pending, at);
    else if (!this.stopped && at < this.armedAt) this.arm(at);
  }

  private arm(at: number): void {
    if (this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    const delay = Math.min(Math.max(at - this.host.now().getTime(), 0), this.maxDelay);
    this.armedAt = this.host.now().getTime() + delay;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.armedAt = Infinity;
      void this.look();
    }, delay);
    // A timer alone never keeps a Node process alive: a host's server does.
    (this.timer as { unref?: () => void }).unref?.();
  }

  /** The housekeeping's batch; its failure is reported and tried again at the next look, never stops publishing. */
  private async tidy(): Promise<boolean> {
    try {
      return (await this.host.housekeeping?.()) === true;
    } catch (error) {
      this.report(error);
      return false;
    }
  }

  private report(error: unknown): void {
    try {
      this.options.onError?.(error);
    } catch {
      // A failing logger must not stop the scheduler.
    }
  }

  /** Promotes what is due, then arms for the next due post (one look at a time). */
  private look(): Promise<void> {
    this.running ??= (async () => {
      try {
        await this.host.promoteDue();
        const more = await this.tidy();
        const next = await this.host.nextDue();
        const soon = more ? this.host.now().getTime() + MORE_MS : Infinity;
        this.arm(Math.min(next === undefined ? Infinity : Date.parse(next), this.pending, soon));
      } catch (error) {
        this.report(error);
        this.arm(Math.min(this.host.now().getTime() + RETRY_MS, this.pending));
      } finally {
        this.pending = Infinity;
        this.running = undefined;
      }
    })();
    return this.running;
  }
}
