/**
 * The client side of a shared document (docs/collab.md): keeps a Yjs document and its awareness (presence) in step
 * with a service's `collab` calls or a server's `/collab` routes. Local edits are queued and pushed, merged, as
 * soon as the last push is answered; a long poll brings the others' edits and presence. Without a network the
 * queue waits (nothing is dropped) and both loops retry with a growing pause; on the way back everything queued
 * is sent and the pull resumes from its position, so edits made apart merge on reconnect.
 */
import { Awareness, applyAwarenessUpdate, encodeAwarenessUpdate, removeAwarenessStates } from 'y-protocols/awareness';
import * as Y from 'yjs';
import type { CollabState } from '../schema/collab.js';
import { CollabRefused, type CollabChannel } from './channel.js';

export type CollabStatus = 'connecting' | 'online' | 'offline';

export interface CollabSession {
  readonly doc: Y.Doc;
  /** Presence: set `awareness.setLocalStateField('user', { name, color })`; the others' states arrive here. */
  readonly awareness: Awareness;
  /** Resolves once the document has been opened (the server's state is in `doc`). */
  readonly opened: Promise<void>;
  status(): CollabStatus;
  /** Calls `listener` when the status changes; answers the function that stops it. */
  onStatus(listener: (status: CollabStatus) => void): () => void;
  /** Resolves when every local edit so far has been stored (rejects after `ms`). */
  flush(ms?: number): Promise<void>;
  /** Leaves: says goodbye to the others, stops both loops. The document stays usable. */
  close(): Promise<void>;
}

export interface JoinOptions {
  /** Keep this document in step (default a new one). */
  doc?: Y.Doc;
  /** How long a pull waits on the server (ms, ≤ 30000). Default 25000. */
  wait?: number;
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const t = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(t);
      resolve();
    });
  });

/** Joins the shared document behind `channel`: see the module comment. */
export function startSession(channel: CollabChannel, options: JoinOptions = {}): CollabSession {
  // One piece on purpose: open, the pull loop, the push loop and close are one state machine over the
  // same few locals (queue, presenceDirty, pushing, idle, closed, status); split apart they would pass them all.
  const doc = options.doc ?? new Y.Doc();
  const awareness = new Awareness(doc);
  const wait = Math.min(options.wait ?? 25_000, 30_000);
  // What this session applies is not sent back by it, but another session on the same doc passes it on.
  const ORIGIN = { session: true };
  const stop = new AbortController();
  let status: CollabStatus = 'connecting';
  const listeners = new Set<(s: CollabStatus) => void>();
  const setStatus = (s: CollabStatus) => {
    if (s === status) return;
    status = s;
    for (const l of [...listeners]) l(s);
  };
  let position = '0';
  let presenceClock = 0;
  let queue: Uint8Array[] = [];
  let presenceDirty = true;
  let pushing: Promise<void> | undefined;
  let idle: Array<() => void> = [];
  let closed = false;

  const take = (state: CollabState) => {
    if (state.update.byteLength) Y.applyUpdate(doc, state.update, ORIGIN);
    if (state.presence) {
      applyAwarenessUpdate(awareness, state.presence.update, ORIGIN);
      presenceClock = state.presence.clock;
    }
    position = state.position;
  };

  const failed = async (error: unknown, pause: number): Promise<number> => {
    if (error instanceof CollabRefused) throw error;
    setStatus('offline');
    await sleep(pause, stop.signal);
    return Math.min(pause * 2, 10_000);
  };

  const onUpdate = (update: Uint8Array, origin: unknown) => {
    if (origin === ORIGIN) return;
    queue.push(update);
    kick();
  };
  const onAwareness = (_: unknown, origin: unknown) => {
    if (origin === ORIGIN) return;
    presenceDirty = true;
    kick();
  };
  doc.on('update', onUpdate);
  awareness.on('update', onAwareness);

  function kick(): void {
    if (pushing || closed) return;
    pushing = (async () => {
      let pause = 250;
      await opened.catch(() => undefined);
      while ((queue.length || presenceDirty) && !stop.signal.aborted) {
        const sent = queue;
        queue = [];
        const presence = presenceDirty ? encodeAwarenessUpdate(awareness, [doc.clientID]) : undefined;
        presenceDirty = false;
        try {
          await channel.push(sent.length ? Y.mergeUpdates(sent) : new Uint8Array([0, 0]), presence);
          pause = 250;
          setStatus('online');
        } catch (error) {
          queue = [...sent, ...queue];
          if (presence) presenceDirty = true;
          if (error instanceof CollabRefused) break;
          pause = await failed(error, pause);
        }
      }
      pushing = undefined;
      if (!queue.length) for (const done of idle.splice(0)) done();
    })();
  }

  const opened = (async () => {
    let pause = 500;
    for (;;) {
      try {
        take(await channel.open());
        setStatus('online');
        return;
      } catch (error) {
        pause = await failed(error, pause);
        if (stop.signal.aborted) throw new Error('collab: closed before it opened');
      }
    }
  })();

  const pulling = (async () => {
    await opened;
    let pause = 500;
    while (!stop.signal.aborted) {
      try {
        take(await channel.pull(position, wait, presenceClock, stop.signal));
        pause = 500;
        setStatus('online');
      } catch (error) {
        if (stop.signal.aborted) return;
        pause = await failed(error, pause);
      }
    }
  })().catch(() => undefined);
  opened.catch(() => undefined);
  // Edits made before the document opened (e.g. offline) go out once it has.
  kick();

  return {
    doc,
    awareness,
    opened,
    status: () => status,
    onStatus(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    flush(ms = 10_000) {
      if (!queue.length && !pushing) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const t = setTimeout(() => reject(new Error('collab: edits not stored yet')), ms);
        idle.push(() => {
          clearTimeout(t);
          resolve();
        });
        kick();
      });
    },
    async close() {
      if (closed) return;
      removeAwarenessStates(awareness, [doc.clientID], 'local');
      const bye = encodeAwarenessUpdate(awareness, [doc.clientID]);
      // What is still queued goes first, unless the network is away (then it stays in the document).
      await Promise.race([pushing ?? Promise.resolve(), sleep(2_000)]);
      closed = true;
      stop.abort();
      doc.off('update', onUpdate);
      awareness.off('update', onAwareness);
      await channel.push(new Uint8Array([0, 0]), bye).catch(() => undefined);
      awareness.destroy();
      idle = [];
      await pulling;
    },
  };
}
