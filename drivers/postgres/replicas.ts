/**
 * Read replicas: which server a read goes to. Writes always go to the primary. A read goes to a streaming
 * replica that is known to have replayed far enough, else to the primary; it never waits on a replica
 * without bound, and a replica that fails or is unreachable is left alone until it answers again.
 *
 * How far is far enough: a read of a session (src/store/driver.ts `ReadSession`) that wrote or was shown a
 * position (a WAL LSN: the primary's insert position read right after the commit returned, so at or past
 * the commit's record) needs a replica whose replay position is at or past it; a read without one needs a
 * replica at most `maxLagMs` behind the primary (it has replayed what the primary had written then).
 *
 * The positions come from a monitor: every CHECK_MS it reads the primary's insert position and each
 * replica's replay position (one short query each). A read that must see a position no replica is known to
 * have reached goes to the primary at once, or, with `maxWaitMs`, looks again until then.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { PgPool } from './native.js';

/** A WAL position. */
export type Lsn = bigint;

const LSN = /^([0-9A-F]{1,8})\/([0-9A-F]{1,8})$/i;

export function parseLsn(text: string): Lsn | undefined {
  const m = LSN.exec(text);
  return m ? (BigInt(`0x${m[1]}`) << 32n) | BigInt(`0x${m[2]}`) : undefined;
}

export function formatLsn(lsn: Lsn): string {
  return `${(lsn >> 32n).toString(16).toUpperCase()}/${(lsn & 0xffffffffn).toString(16).toUpperCase()}`;
}

/**
 * A session's position: the newest write it made or was shown. A child (one request) moves its parent with
 * its own writes only, never with positions it was shown.
 */
export class Session {
  position: Lsn | undefined;
  constructor(readonly parent?: Session) {
    this.position = parent?.position;
  }

  /** A write of this session committed; the primary was at `lsn` after it. */
  wrote(lsn: Lsn): void {
    if (this.position === undefined || lsn > this.position) this.position = lsn;
    this.parent?.wrote(lsn);
  }

  /** A position shown to this session (a token a client sent back). */
  saw(lsn: Lsn): void {
    if (this.position === undefined || lsn > this.position) this.position = lsn;
  }
}

/** The session of the driver call in progress (set by the session's driver around each call). */
export const current = new AsyncLocalStorage<Session>();

/**
 * Where reads may go when the store has streaming read replicas (part of `postgresDriver`'s options beside
 * `replicas`). Not to be confused with `blogcore/sync`'s `ReplicaOptions`, the options of an offline copy.
 */
export interface ReadReplicaOptions {
  /**
   * How far behind the primary a replica may be, in ms, to serve reads that carry no write of their own.
   * Default 1000.
   */
  maxLagMs?: number;
  /**
   * How long a read that must see a position waits for a replica to replay it before it goes to the primary,
   * in ms. Default 0: to the primary at once.
   */
  maxWaitMs?: number;
}

const CHECK_MS = 50;
/** A replica that failed is tried again (by the monitor) after this long. */
const RETRY_MS = 1000;
/**
 * A look that takes longer counts as a failure (its answer still counts when it comes): a replica behind a pooler
 * that waits for a server that is down would otherwise seem fine for as long as the pooler waits.
 */
const LOOK_MS = 1000;

interface Replica {
  pool: PgPool;
  /** Its replay position at the last look; a server not in recovery (a primary) counts as caught up. */
  replayed: Lsn;
  /** When it failed (0: it did not); reads leave it alone until the monitor reached it again. */
  failedAt: number;
  looking: Promise<void> | undefined;
}

const CAUGHT_UP = 2n ** 64n;

export class Replicas {
  private readonly replicas: Replica[];
  /** The primary's insert position by time, oldest first (what it had written by then). */
  private samples: Array<{ at: number; lsn: Lsn }> = [];
  private timer: ReturnType<typeof setInterval> | undefined;
  private next = 0;
  private readonly maxLag: number;
  private readonly maxWait: number;
  /** Reads served, by where: for tests and operators. */
  readonly served = { primary: 0, replica: 0 };

  constructor(
    private readonly primary: PgPool,
    pools: readonly PgPool[],
    options: ReadReplicaOptions = {},
  ) {
    this.replicas = pools.map((pool) => ({ pool, replayed: 0n, failedAt: 0, looking: undefined }));
    this.maxLag = Math.max(0, options.maxLagMs ?? 1000);
    this.maxWait = Math.max(0, options.maxWaitMs ?? 0);
  }

  /** Starts the monitor (and takes the first look, so reads can use replicas from the start). */
  async start(): Promise<void> {
    this.timer ??= setInterval(() => void this.look(), CHECK_MS);
    (this.timer as { unref?: () => void }).unref?.();
    await this.look();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** The primary's insert position now: taken after a commit returned, it is at or past that commit. */
  async position(): Promise<Lsn> {
    const { rows } = await this.primary.query<[string]>({
      text: 'SELECT pg_current_wal_insert_lsn()::text',
      rowMode: 'array',
    });
    const lsn = parseLsn(rows[0]![0])!;
    this.sampled(lsn);
    return lsn;
  }

  private sampled(lsn: Lsn): void {
    const now = Date.now();
    this.samples.push({ at: now, lsn });
    // Keep the newest sample older than the lag bound, and everything after it.
    let keep = 0;
    while (keep + 1 < this.samples.length && this.samples[keep + 1]!.at <= now - this.maxLag) keep++;
    if (keep > 0) this.samples = this.samples.slice(keep);
  }

  private async look(): Promise<void> {
    await Promise.all([this.position().catch(() => undefined), ...this.replicas.map((r) => this.lookAt(r))]);
  }

  private lookAt(r: Replica): Promise<void> {
    r.looking ??= (async () => {
      try {
        const { rows } = await r.pool.query<[string | null, boolean]>({
          text: 'SELECT pg_last_wal_replay_lsn()::text, pg_is_in_recovery()',
          rowMode: 'array',
        });
        const [lsn, recovering] = rows[0]!;
        r.replayed = recovering ? (lsn === null ? 0n : parseLsn(lsn)!) : CAUGHT_UP;
        r.failedAt = 0;
      } catch {
        this.down(r);
      } finally {
        r.looking = undefined;
      }
    })();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const slow = new Promise<void>((resolve) => {
      timer = setTimeout(() => {
        this.down(r);
        resolve();
      }, LOOK_MS);
      (timer as { unref?: () => void }).unref?.();
    });
    return Promise.race([r.looking, slow]).finally(() => clearTimeout(timer));
  }

  /** A replica that failed or did not answer in time: no reads until a look finds it again. */
  private down(r: Replica): void {
    r.failedAt = Date.now();
    r.replayed = 0n;
  }

  /** What a replica must have replayed for a read without a position: what the primary had maxLagMs ago. */
  private lagFloor(): Lsn {
    const bound = Date.now() - this.maxLag;
    let floor: Lsn | undefined;
    for (const s of this.samples) if (s.at <= bound) floor = s.lsn;
    // Nothing that old seen yet (just started): a replica must have what the primary had at the first look.
    return floor ?? this.samples[0]?.lsn ?? CAUGHT_UP;
  }

  private usable(floor: Lsn): Replica | undefined {
    const now = Date.now();
    const n = this.replicas.length;
    for (let k = 0; k < n; k++) {
      const r = this.replicas[(this.next + k) % n]!;
      if (r.failedAt && now - r.failedAt < RETRY_MS) continue;
      if (r.replayed >= floor) {
        this.next = (this.next + k + 1) % n;
        return r;
      }
    }
    return undefined;
  }

  /** The pool a read goes to: a replica at or past `floor` (the session's position; none: within the lag bound), else the primary. */
  async pick(floor: Lsn | undefined): Promise<PgPool> {
    const need = floor ?? this.lagFloor();
    let r = this.usable(need);
    if (!r && floor !== undefined && this.maxWait > 0) {
      const deadline = Date.now() + this.maxWait;
      while (!r && Date.now() < deadline) {
        await Promise.all(this.replicas.map((x) => this.lookAt(x)));
        r = this.usable(need);
        if (!r) await new Promise((resolve) => setTimeout(resolve, Math.min(5, Math.max(0, deadline - Date.now()))));
      }
    }
    if (r) this.served.replica++;
    else this.served.primary++;
    return r?.pool ?? this.primary;
  }

  /** A read on `pool` failed as if the server went away: if it is a replica, leave it alone for a while. */
  failed(pool: PgPool): boolean {
    const r = this.replicas.find((x) => x.pool === pool);
    if (r) this.down(r);
    return !!r;
  }

  pools(): PgPool[] {
    return this.replicas.map((r) => r.pool);
  }
}
