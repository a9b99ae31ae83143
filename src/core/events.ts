/** Events after successful writes, in process. Listeners run after the write is stored; their errors never undo it. */
export type EventType =
  | 'user.inserted'
  | 'user.updated'
  | 'blog.inserted'
  | 'blog.updated'
  | 'blog.deleted'
  | 'member.set'
  | 'member.removed'
  | 'post.inserted'
  | 'post.updated'
  | 'post.published'
  | 'post.reverted'
  | 'post.trashed'
  | 'post.deleted'
  | 'page.inserted'
  | 'page.updated'
  | 'page.published'
  | 'page.reverted'
  | 'page.trashed'
  | 'page.deleted'
  | 'comment.inserted'
  | 'comment.approved'
  | 'comment.spam'
  | 'comment.contentRemoved'
  | 'comment.deleted'
  | 'media.inserted'
  | 'media.updated'
  | 'media.deleted';

export interface BlogEvent {
  type: EventType;
  blogId?: string;
  /** The id of the resource the event is about. */
  id: string;
  /** The user who caused it; undefined for host code, anonymous readers and scheduled publishing. */
  actorId?: string;
  /** The resource as an ADMIN sees it after the write (absent for deletes). */
  resource?: unknown;
}

export type Listener = (event: BlogEvent) => void;

export class Emitter {
  private listeners = new Map<EventType | '*', Set<Listener>>();
  /** Set when events are shared with other instances: every event is then built, listened to here or not. */
  shared = false;

  /** Listeners added so far (ever): a reader of other instances' events sees whether one came while it waited. */
  added = 0;

  on(type: EventType | '*', listener: Listener): () => void {
    let set = this.listeners.get(type);
    if (!set) this.listeners.set(type, (set = new Set()));
    set.add(listener);
    this.added++;
    return () => void set.delete(listener);
  }

  /** How many listeners there are, of any type. */
  count(): number {
    let n = 0;
    for (const set of this.listeners.values()) n += set.size;
    return n;
  }

  /** True when someone listens, so callers can skip building payloads nobody reads. */
  has(type: EventType): boolean {
    return this.shared || !!(this.listeners.get(type)?.size || this.listeners.get('*')?.size);
  }

  emit(event: BlogEvent): void {
    for (const key of [event.type, '*'] as const) {
      for (const l of this.listeners.get(key) ?? []) {
        try {
          l(event);
        } catch (error) {
          // A listener's failure is its own: the write already happened and other listeners still run.
          console.error(`blogcore: a listener for ${event.type} failed`, error);
        }
      }
    }
  }
}
