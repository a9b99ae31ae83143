/** The page-level boxes every screen uses: a problem in words, and the screen shown when nothing can open. */
import { h, mount } from './dom.js';
import { describe } from './errors.js';

export const root = (): HTMLElement => document.getElementById('app')!;

export function problemBox(error: unknown, onDismiss?: () => void): HTMLElement {
  const p = describe(error);
  const box = h(
    'div',
    { class: 'problem' },
    h('p', { class: 'problem-title' }, p.title),
    h('p', { class: 'problem-detail' }, p.detail, p.code ? h('span', { class: 'problem-code' }, ` (${p.code})`) : null),
  );
  if (onDismiss)
    box.append(
      h(
        'button',
        { type: 'button', class: 'quiet dismiss', 'aria-label': 'Dismiss this message', onclick: onDismiss },
        '×',
      ),
    );
  return box;
}

/** Nothing works without the store: say why, offer to retry (and, signed in, to sign out). */
export function fatal(error: unknown, signOut?: () => void): void {
  console.error(error);
  mount(
    root(),
    h(
      'main',
      { class: 'centered', role: 'alert' },
      h('h1', null, 'Your blog could not be opened'),
      problemBox(error),
      h('button', { type: 'button', class: 'primary', onclick: () => location.reload() }, 'Try again'),
      signOut ? h('button', { type: 'button', class: 'quiet', onclick: signOut }, 'Sign out of the server') : null,
    ),
  );
}
