/**
 * The store's change signal across app servers: one connection LISTENs on the store's channel (the Notifier
 * NOTIFYs after commits) — from the driver's pool, or from a direct connection of its own when the pool goes
 * through a transaction-mode pooler (`listen`). Listeners are told "the log may have grown" and read
 * `changesSince` themselves, so a lost notification only delays them: they are also told after a reconnect and
 * on a timer — a slow one while a LISTEN stands, a quick one without any (`listen: false`).
 */
import { ident } from './text.js';
import type { PgClient, PgPool } from './native.js';

/** The poll while a LISTEN connection stands (it only catches what a lost notification missed). */
export const POLL_MS = 2_000;
/** The poll without LISTEN: how late another server's commit may be heard. */
export const POLL_ALONE_MS = 250;
const RETRY_MS = 500;
/** The payload prefix of a message (`tell`); a commit's notification is empty or its server's name. */
const MESSAGE = 'm:';

export class Feed {
  private listeners = new Set<() => void>();
  /** Who hears the messages told on the channel (`Notifier.tell`). */
  private hearers = new Set<(message: string) => void>();
  private client: PgClient | undefined;
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
    try {
      const client = await (await source()).connect();
      if (this.stopped) {
        client.release();
        return;
      }
      const lost = (error?: Error) => {
        if (this.client !== client) return;
        this.client = undefined;
        client.removeAllListeners('notification');
        client.release(error ?? true);
        this.later();
      };
      client.on('notification', (n) => {
        if (n.channel !== this.channel) return;
        if (n.payload?.startsWith(MESSAGE)) return this.deliver(n.payload.slice(MESSAGE.length));
        if (this.own && n.payload === this.own) return;
        this.tell();
      });
      client.on('error', lost);
      client.on('end', () => lost());
      await client.query(`LISTEN ${ident(this.channel)}`);
      this.client = client;
      // Commits made while no one listened are in the log: catch up now.
      this.tell();
    } catch {
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
    const client = this.client;
    this.client = undefined;
    if (client) {
      client.removeAllListeners('notification');
      await client.query(`UNLISTEN ${ident(this.channel)}`).catch(() => undefined);
      client.release();
    }
  }
}

/**
 * The NOTIFY after commits. Not inside the commit: there PostgreSQL holds a lock on the whole database from
 * the NOTIFY until the commit ends, so commits that notify take turns, fsync included. One at a time: commits
 * made while one is on its way are announced by the next. A lost one only delays the listeners (Feed polls).
 */
export class Notifier {
  private sending: Promise<void> | undefined;
  private again = false;

  /** `from`: the payload of its notifications, so the sender's own feed knows them for its own. */
  constructor(
    private readonly pool: PgPool,
    private readonly channel: string,
    private readonly from = '',
  ) {}

  committed(): void {
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

  /** A message for every listening app server (lost, like any notification, when nobody listens). */
  tell(message: string): void {
    void this.pool
      .query({ text: 'SELECT pg_notify($1, $2)', values: [this.channel, MESSAGE + message] })
      .catch(() => undefined);
  }

  /** Settles once nothing is on its way. */
  async idle(): Promise<void> {
    await this.sending;
  }
}
