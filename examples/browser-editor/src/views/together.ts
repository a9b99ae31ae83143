/**
 * `#/posts/together/<id>`: writing a post together with the others who have it open (richtext/together.ts). The
 * header says who is here ("Editing with Ada"); the server saves the text (within 2 s), so there is no Save button.
 */
import type { App } from '../app.js';
import type { Connection } from '../connection.js';
import { h } from '../dom.js';

export async function togetherView(app: App, connection: Connection, id: string): Promise<HTMLElement> {
  const surface = h('div', { class: 'rt-surface together-surface' });
  const title = h('input', { id: 'title', name: 'title', autocomplete: 'off', placeholder: 'Post title' });
  const people = h('span', { class: 'together-people', 'aria-live': 'polite' });
  const state = h('span', { class: 'save-state' });
  const root = h(
    'section',
    { class: 'view editor-view together-view' },
    h('a', { class: 'back', href: `#/posts/edit/${encodeURIComponent(id)}` }, '← Back to the post'),
    h(
      'div',
      { class: 'page-head' },
      h('h1', { tabIndex: -1 }, 'Writing together'),
      h('div', { class: 'head-actions' }, people, state),
    ),
    h('div', { class: 'field' }, h('label', { for: 'title' }, 'Title'), title),
    h('div', { class: 'field' }, h('span', { class: 'label' }, 'Content'), surface),
    h('p', { class: 'hint' }, 'Everyone here edits the same text; it is saved for everyone as you type.'),
  );
  const [{ startTogether }, me] = await Promise.all([
    import('../richtext/together.js'),
    fetch(`${connection.api}/users/self`, { headers: { authorization: `Bearer ${connection.token}` } })
      .then((r) => (r.ok ? (r.json() as Promise<{ displayName?: string }>) : null))
      .catch(() => null),
  ]);
  const together = await startTogether({
    surface,
    title,
    api: connection.api,
    token: connection.token,
    local: app.owner,
    target: { blogId: app.blog.id, postId: id },
    name: me?.displayName ?? 'You',
    pictures: app.pictures ?? undefined,
  });
  const show = () => {
    const others = together.others();
    people.textContent = others.length ? `Editing with ${others.join(', ')}` : 'Editing alone';
    state.textContent =
      together.status() === 'offline' ? 'Offline — your edits are kept here and merge when you are back' : '';
  };
  together.onChange(show);
  show();
  app.onLeave = () => void together.leave();
  // The text here is the shared document's: what a sync brings in is already on screen.
  app.live = true;
  return root;
}
