/**
 * Who is in a shared document, their cursor and selection: y-protocols awareness updates, merged per document in
 * this process's memory and never stored (docs/design.md §20). A client's state goes when it says so or after
 * 30 s without a word (awareness's own timeout); a document with nobody in it is forgotten.
 */
import { Awareness, applyAwarenessUpdate, encodeAwarenessUpdate } from 'y-protocols/awareness';
import * as Y from 'yjs';
import type { CollabPresence } from '../schema/collab.js';

interface Room {
  awareness: Awareness;
  clock: number;
  listeners: Set<() => void>;
}

export class Presence {
  private readonly rooms = new Map<string, Room>();
  private clock = 0;

  private room(docId: string): Room {
    let room = this.rooms.get(docId);
    if (!room) {
      const awareness = new Awareness(new Y.Doc());
      // This process is nobody: only the clients' states are passed on.
      awareness.setLocalState(null);
      const r: Room = { awareness, clock: 0, listeners: new Set() };
      awareness.on('update', () => {
        r.clock = ++this.clock;
        for (const listener of [...r.listeners]) listener();
        if (this.rooms.get(docId) === r && awareness.getStates().size === 0 && r.listeners.size === 0)
          this.forget(docId);
      });
      this.rooms.set(docId, (room = r));
    }
    return room;
  }

  private forget(docId: string): void {
    const room = this.rooms.get(docId);
    if (!room) return;
    // Out of the map first: destroying emits one last update, which must not find the room again.
    this.rooms.delete(docId);
    room.awareness.destroy();
    room.awareness.doc.destroy();
  }

  /** Takes in a client's presence (refused quietly when it is not an awareness update: it is only presence). */
  apply(docId: string, update: Uint8Array): void {
    try {
      applyAwarenessUpdate(this.room(docId).awareness, update, 'client');
    } catch {
      // Not an awareness update: nothing to pass on.
    }
  }

  /** Everyone's presence, when it moved after `clock`. */
  since(docId: string, clock: number): CollabPresence | undefined {
    const room = this.rooms.get(docId);
    if (!room || room.clock <= clock) return undefined;
    const clients = [...room.awareness.meta.keys()].filter((id) => id !== room.awareness.clientID);
    if (clients.length === 0) return undefined;
    return { update: encodeAwarenessUpdate(room.awareness, clients), clock: room.clock };
  }

  /** Forgets everyone (the service is closing): stops awareness's timers and wakes whoever waits. */
  close(): void {
    for (const [docId, room] of [...this.rooms]) {
      for (const listener of [...room.listeners]) listener();
      this.forget(docId);
    }
  }

  /** Calls `listener` when the document's presence moves; answers the function that stops it. */
  onChange(docId: string, listener: () => void): () => void {
    const room = this.rooms.get(docId);
    if (!room) return () => undefined;
    room.listeners.add(listener);
    return () => {
      room.listeners.delete(listener);
      if (room.awareness.getStates().size === 0 && room.listeners.size === 0) this.forget(docId);
    };
  }
}
