/** What every view gets: the blog, the services, and the shared ways to report and navigate. */
import type { Blog, BlogService } from 'blogcore';
import type { Connection } from './connection.js';
import type { Pictures } from './richtext/editor.js';

export interface App {
  blog: Blog;
  /** The blog's owner (its ADMIN): writes, drafts, moderation. */
  owner: BlogService;
  /** A signed-out visitor: what the public sees, and anonymous comments. */
  reader: BlogService;
  /** Where pictures added in the editor are stored (null: this editor takes none). */
  pictures: Pictures | null;
  /** The server this blog is replicated with (its origin), or null for a local-only blog. */
  server: string | null;
  /** The connection to that server (writing together talks to it directly), or null. */
  connection: Connection | null;
  /** Says that something worked (a polite live region). */
  notify(message: string): void;
  /** Shows what went wrong, in words. Every failed call ends here or in a view's own message. */
  fail(error: unknown): void;
  /** Clears shown problems (after the person acted on them). */
  clearProblems(): void;
  /** Navigates to a `#/…` route (and shows it). */
  go(hash: string): void;
  /** Changes the address shown for the current view without showing anything new (a new post got its id). */
  setAddress(hash: string): void;
  /**
   * The id a post, page or comment goes by now: one written here takes its server id once the replica sent it
   * (`replica.idOf`), so an address or a form naming the id it had before still finds it. Local-only: the id.
   */
  currentId(id: string): Promise<string>;
  /** Brings the replica up to the server now (a write made on the server directly); local-only: nothing to do. */
  syncNow(): Promise<void>;
  /**
   * Set by a view that shows one post or page: called after each sync round (with how many items it pulled), to
   * follow the post to its server id and show what the server changed. A sync never re-shows such a view: a
   * redraw would drop what the person typed while it was built.
   */
  onSynced: ((pulled: number) => void) | null;
  /** Set by a view that can hold unsaved work: the question to ask before leaving it, or null when all is saved. */
  unsaved: (() => string | null) | null;
  /**
   * Set by a view that handles writes made in other tabs itself (the editor). Return true when handled;
   * otherwise the app offers to show the latest state.
   */
  onRemoteChange: ((change: RemoteChange) => boolean) | null;
  /** Set by a view that shows the server's changes as they come (writing together): a sync never re-shows it. */
  live: boolean;
  /** Set by a view that holds something to release when another view replaces it (the rich text editor). */
  onLeave: (() => void) | null;
}

/** A write another tab of this editor made (its service's event, passed on by a BroadcastChannel). */
export interface RemoteChange {
  type: string;
  id: string;
}

export interface Route {
  path: string[];
  query: URLSearchParams;
}

export function parseRoute(hash: string): Route {
  const [path = '', query = ''] = hash.replace(/^#\/?/, '').split('?');
  return { path: path.split('/').filter(Boolean).map(decodeURIComponent), query: new URLSearchParams(query) };
}

/** Builds `#/a/b?x=1`, leaving out empty query values. */
export function href(path: string[], query: Record<string, string | undefined> = {}): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v) q.set(k, v);
  const qs = q.toString();
  return `#/${path.map(encodeURIComponent).join('/')}${qs ? `?${qs}` : ''}`;
}
