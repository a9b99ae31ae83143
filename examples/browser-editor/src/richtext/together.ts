/**
 * Writing a post together (docs/collab.md): a TipTap editor on a shared Yjs document with TipTap's collaboration
 * and caret extensions. The document is kept in step with the server (names and coloured cursors of the others,
 * through the server's presence) and with the replica's local store (so every edit survives a reload offline,
 * and `replica.sync()` sends what the server has not seen). A chunk of its own: Yjs loads only here.
 */
import { Editor } from '@tiptap/core';
import { Collaboration } from '@tiptap/extension-collaboration';
import { CollaborationCaret } from '@tiptap/extension-collaboration-caret';
import type { BlogService } from 'blogcore';
import { httpChannel, joinCollab, richExtensions, serviceChannel, type CollabSession } from 'blogcore/collab';
import * as Y from 'yjs';
import { featuredBadge, type Pictures, withViews } from './views.js';

export interface Together {
  /** The people here besides this writer, by name. */
  others(): string[];
  /** 'online' | 'offline' | 'connecting': the server's side. */
  status(): string;
  /** Calls `listener` when the people or the status change. */
  onChange(listener: () => void): void;
  /** Resolves when every edit so far is in the local store. */
  saved(): Promise<void>;
  leave(): Promise<void>;
}

const COLORS = ['#c2410c', '#15803d', '#1d4ed8', '#a21caf', '#b45309', '#0e7490'];

export async function startTogether(options: {
  surface: HTMLElement;
  title: HTMLInputElement;
  api: string;
  token: string;
  local: BlogService;
  target: { blogId: string; postId: string };
  name: string;
  /** Where the post's pictures are shown from (their local copies); without it, from their urls. */
  pictures?: Pictures | undefined;
}): Promise<Together> {
  const doc = new Y.Doc();
  const remote: CollabSession = await joinCollab(
    httpChannel({ baseUrl: options.api, headers: { authorization: `Bearer ${options.token}` } }, options.target),
    { doc },
  );
  const here: CollabSession = await joinCollab(serviceChannel(options.local.collab, options.target), { doc });
  const user = { name: options.name, color: COLORS[doc.clientID % COLORS.length]! };
  // The server's document first (an editor bound to an empty one would start a paragraph of its own); without a
  // network, after a moment, the local copy: what was typed here offline shows, and merges when the server is back.
  await Promise.race([remote.opened, new Promise((r) => setTimeout(r, 3_000)).then(() => here.opened)]);

  const editor = new Editor({
    element: options.surface,
    extensions: [
      // Pictures and figures as the single-author editor shows them.
      ...withViews(richExtensions({ undoRedo: false }), options.pictures),
      Collaboration.configure({ document: doc, field: 'content' }),
      CollaborationCaret.configure({ provider: { awareness: remote.awareness }, user }),
    ],
    editorProps: {
      attributes: { 'aria-label': 'Content', role: 'textbox', 'aria-multiline': 'true', class: 'rt-doc' },
      decorations: featuredBadge,
    },
  });

  // The title field edits the document's `title` text: only the part that changed, so others' typing stays.
  const text = doc.getText('title');
  const { title } = options;
  title.value = text.toString();
  text.observe((event) => {
    if (event.transaction.local && event.transaction.origin === title) return;
    const at = title.selectionStart;
    title.value = text.toString();
    if (at !== null && document.activeElement === title) title.setSelectionRange(at, at);
  });
  title.addEventListener('input', () => {
    const was = text.toString();
    const now = title.value;
    let start = 0;
    while (start < was.length && start < now.length && was[start] === now[start]) start++;
    let end = 0;
    while (end < was.length - start && end < now.length - start && was.at(-1 - end) === now.at(-1 - end)) end++;
    doc.transact(() => {
      text.delete(start, was.length - start - end);
      text.insert(start, now.slice(start, now.length - end));
    }, title);
  });

  const listeners = new Set<() => void>();
  const changed = () => {
    for (const l of listeners) l();
  };
  remote.awareness.on('change', changed);
  remote.onStatus(changed);
  return {
    others: () =>
      [...remote.awareness.getStates()]
        .filter(([id, state]) => id !== doc.clientID && (state as { user?: { name?: string } }).user?.name)
        .map(([, state]) => (state as { user: { name: string } }).user.name),
    status: () => remote.status(),
    onChange: (listener) => void listeners.add(listener),
    saved: () => here.flush(),
    async leave() {
      editor.destroy();
      await Promise.all([remote.close(), here.close()]);
    },
  };
}
