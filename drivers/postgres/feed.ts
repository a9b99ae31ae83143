/**
 * The store's change signal across app servers: one connection LISTENs on the store's channel (the Notifier
 * NOTIFYs after commits) — from the driver's pool, or from a direct connection of its own when the pool goes
 * through a transaction-mode pooler (`listen`). Listeners are told "the log may have grown" and read
 * `changesSince` themselves, so a lost notification only delays them: they are also told after a reconnect and
 * on a timer — a slow one while a LISTEN stands, a quick one without any (`listen: false`).
 * The LISTEN connection goes by a name of the channel's (`application_name`), which every server can see in
 * pg_stat_activity: a server's Notifier NOTIFYs only while another server's such connection stands.
 */
import { createHash } from 'node:crypto';
import { ident } from './text.js';
import type { PgClient, PgPool } from './native.js';

/** The poll while a LISTEN connection stands (it only catches what a lost notification missed). */
export const POLL_MS = 2_000;
/** The poll without LISTEN: how late another server's commit may be heard. */
export const POLL_ALONE_MS = 250;
const RETRY_MS = 500;
/** The payload prefix of a message (`tell`); a commit's notification is empty or its server's name. */
const MESSAGE = 'm:';
/** How old the Notifier's answer to "does another server listen?" may be when a commit relies on it. */
export const ASK_MS = 1_000;

/**
 * The channel's key in the `application_name` of a server's LISTEN connection: the channel when it is short and
 * plain (what `application_name` keeps: 63 bytes of printable ASCII; an instance name is at most 11 characters),
 * else a hash of it, so every server of a store names it alike and no two stores do.
 */
const listenerKey = (channel: string): string =>
  /^[\w:.$-]{1,51}$/.test(channel)
    ? channel
    : `blogcore#${createHash('sha256').update(channel).digest('base64url').slice(0, 22)}`;

/** The `application_name` of a server's LISTEN connection: `<channel's key> <instance>`. */
export const listenerName = (channel: string, instance: string): string => `${listenerKey(channel)} ${instance}`;

export class Feed {
  private listeners = new Set<() => void>();
  /** Who hears the messages told on the channel (`Notifier.tell`). */
  private hearers = new Set<(message: string) => void>();
  private client: PgClient | undefined;
  /** Takes this Feed's listeners off `client`. */
  private detach: (() => void) | undefined;
  private stopped = false;
  private connecting: Promise<void> | undefined;
  private timer: ReturnType<typeof setInterval> | undefined;
  private retry: ReturnType<typeof setTimeout> | undefined;

  /**
   * `pool`: where the LISTEN connection comes from (undefined: no LISTEN, the quick poll only); `own`: the
   * payload of this server's Notifier, whose notifications tell it nothing new (its commits are its own to know).
   */
  constructor(
    private readonly pool: (() => Promise<PgPool>) | undefined,
    private readonly channel: string,
    private readonly own?: string,
  ) {}

  add(listener: () => void): () => void {
    return this.follow(this.listeners, listener);
  }

  hear(listener: (message: string) => void): () => void {
    return this.follow(this.hearers, listener);
  }

  private follow<L>(set: Set<L>, listener: L): () => void {
    set.add(listener);
    if (this.listeners.size + this.hearers.size === 1) this.start();
    return () => {
      set.delete(listener);
      if (this.listeners.size + this.hearers.size === 0) void this.stop(false);
    };
  }

  private deliver(message: string): void {
    for (const l of this.hearers) {
      try {
        l(message);
      } catch (error) {
        console.error('blogcore/postgres: a message listener failed', error);
      }
    }
  }

  private tell(): void {
    for (const l of this.listeners) {
      try {
        l();
      } catch (error) {
        console.error('blogcore/postgres: a change listener failed', error);
      }
    }
  }

  private start(): void {
    this.stopped = false;
    this.timer ??= setInterval(() => this.tell(), this.pool ? POLL_MS : POLL_ALONE_MS);
    (this.timer as { unref?: () => void }).unref?.();
    if (this.pool) this.connecting ??= this.connect(this.pool);
  }

  private async connect(source: () => Promise<PgPool>): Promise<void> {
    let taken: PgClient | undefined;
    try {
      const client = (taken = await (await source()).connect());
      if (this.stopped) {
        client.release();
        return;
      }
      // What this Feed hangs on the client comes off before it goes back (a host's pool hands it out again).
      const detach = () => {
        client.removeAllListeners('notification');
        client.removeListener('error', lost);
        client.removeListener('end', ended);
      };
      const lost = (error?: Error) => {
        if (this.client !== client) return;
        this.client = this.detach = undefined;
        detach();
        client.release(error ?? true);
        this.later();
      };
      const ended = () => lost();
      client.on('notification', (n) => {
        if (n.channel !== this.channel) return;
        if (n.payload?.startsWith(MESSAGE)) return this.deliver(n.payload.slice(MESSAGE.length));
        if (this.own && n.payload === this.own) return;
        this.tell();
      });
      client.on('error', lost);
      client.on('end', ended);
      try {
        // Named first, so other servers' Notifiers see it by the time it listens (the name is quote-free).
        await client.query(`SET application_name = '${listenerName(this.channel, this.own ?? '')}'`);
        await client.query(`LISTEN ${ident(this.channel)}`);
      } catch (error) {
        detach();
        throw error;
      }
      this.client = client;
      this.detach = detach;
      taken = undefined;
      // Commits made while no one listened are in the log: catch up now.
      this.tell();
    } catch {
      taken?.release(true);
      this.later();
    } finally {
      this.connecting = undefined;
    }
  }

  private later(): void {
    if (this.stopped || this.retry) return;
    this.retry = setTimeout(() => {
      this.retry = undefined;
      if (!this.stopped && this.pool) this.connecting ??= this.connect(this.pool);
    }, RETRY_MS);
    (this.retry as { unref?: () => void }).unref?.();
  }

  async stop(final = true): Promise<void> {
    this.stopped = true;
    if (final) {
      this.listeners.clear();
      this.hearers.clear();
    }
    clearInterval(this.timer);
    clearTimeout(this.retry);
    this.timer = this.retry = undefined;
    await this.connecting;
    const { client, detach } = this;
    this.client = this.detach = undefined;
    if (client) {
      detach?.();
      // Back to the pool as it came (a host's Pool): not listening, nor named as if it were.
      const reset = await client.query(`UNLISTEN ${ident(this.channel)}; RESET application_name`).then(
        () => undefined,
        () => true,
      );
      client.release(reset);
    }
  }
}

/**
 * The NOTIFY after commits. Not inside the commit: there PostgreSQL holds a lock on the whole database from
 * the NOTIFY until the commit ends, so commits that notify take turns, fsync included. One at a time: commits
 * made while one is on its way are announced by the next. A lost one only delays the listeners (Feed polls).
 * Only while another app server listens: whether one does is asked of pg_stat_activity (the Feeds' named
 * connections) at most every ASK_MS while commits come, never per commit; unknown (not asked yet, or the
 * question failed) counts as yes. A commit made while the answer was no is announced once an answer says yes,
 * so a server that starts listening hears a commit within ASK_MS and a round trip (its Feed's poll, POLL_MS,
 * covers it too).
 */
export class Notifier {
  private sending: Promise<void> | undefined;
  private again = false;
  /** Whether another server's LISTEN connection stood when last asked (undefined: unknown). */
  private others: boolean | undefined;
  /** Commits not announced, as no other server listened when last asked. */
  private skipped = 0;
  private askedAt = Number.NEGATIVE_INFINITY;
  private asking: Promise<void> | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private closed = false;
  private readonly key: string;
  private readonly name: string;

  /** `from`: the payload of its notifications, so the sender's own feed knows them for its own. */
  constructor(
    private readonly pool: PgPool,
    private readonly channel: string,
    private readonly from = '',
  ) {
    this.key = listenerKey(channel);
    this.name = listenerName(channel, from);
  }

  committed(): void {
    if (this.others === false) this.skipped++;
    else this.send();
    this.ask();
  }

  private send(): void {
    if (this.sending) {
      this.again = true;
      return;
    }
    this.sending = (async () => {
      do {
        this.again = false;
        await this.pool
          .query({ text: 'SELECT pg_notify($1, $2)', values: [this.channel, this.from] })
          .catch(() => undefined);
      } while (this.again);
      this.sending = undefined;
    })();
  }

  /** Settles once the first answer came (asked now if it was not yet): the store's open waits for it. */
  async asked(): Promise<void> {
    this.ask();
    await this.asking;
  }

  /** Asks again whether another server listens, once the last answer is ASK_MS old. */
  private ask(): void {
    if (this.asking || this.timer || this.closed) return;
    const wait = this.askedAt + ASK_MS - performance.now();
    if (wait > 0) {
      this.timer = setTimeout(() => {
        this.timer = undefined;
        this.ask();
      }, wait);
      (this.timer as { unref?: () => void }).unref?.();
      return;
    }
    this.askedAt = performance.now();
    const before = this.skipped;
    this.asking = (async () => {
      // application_name and datname are shown to every role (query, state and the rest only to its own).
      this.others = await this.pool
        .query<[boolean]>({
          text: `SELECT EXISTS (SELECT FROM pg_stat_activity WHERE datname = current_database()
                   AND split_part(application_name, ' ', 1) = $1 AND application_name <> $2)`,
          values: [this.key, this.name],
          rowMode: 'array',
        })
        .then((r) => r.rows[0]?.[0] === true)
        .catch(() => undefined);
      this.asking = undefined;
      if (this.closed) return;
      if (this.others !== false) {
        // A server listens (or may): what was skipped is announced now.
        if (this.skipped > 0) this.send();
        this.skipped = 0;
      } else {
        // No one listened when asked: commits before the question are theirs to read on LISTEN; commits
        // since then wait for the next answer.
        this.skipped -= before;
        if (this.skipped > 0) this.ask();
      }
    })();
  }

  /** A message for every listening app server (lost, like any notification, when nobody listens). */
  tell(message: string): void {
    void this.pool
      .query({ text: 'SELECT pg_notify($1, $2)', values: [this.channel, MESSAGE + message] })
      .catch(() => undefined);
  }

  /** Asks no more; settles once nothing is on its way. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.asking;
    await this.sending;
  }
}
