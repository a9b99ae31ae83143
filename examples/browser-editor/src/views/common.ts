/** Pieces several views share: headings, status badges, filter tabs, the pager. */
import { h } from '../dom.js';

const STATUS_WORDS: Record<string, string> = {
  LIVE: 'Published',
  DRAFT: 'Draft',
  SCHEDULED: 'Scheduled',
  SOFT_TRASHED: 'In trash',
  PENDING: 'Pending',
  SPAM: 'Spam',
  EMPTIED: 'Removed',
};

export const statusWord = (status: string | undefined) => (status ? (STATUS_WORDS[status] ?? status) : '');

export function badge(status: string | undefined): HTMLElement | null {
  if (!status) return null;
  return h('span', { class: `badge badge-${status.toLowerCase()}`, dataset: { status } }, statusWord(status));
}

export function pageHead(title: string, ...actions: Array<HTMLElement | null>): HTMLElement {
  return h(
    'div',
    { class: 'page-head' },
    h('h1', { tabIndex: -1 }, title),
    h('div', { class: 'head-actions' }, ...actions),
  );
}

export interface Tab {
  label: string;
  href: string;
  current: boolean;
}

/** Filter tabs are links (each filter has its own address), marked with aria-current. */
export function tabs(label: string, items: Tab[]): HTMLElement {
  return h(
    'nav',
    { class: 'tabs', 'aria-label': label },
    h(
      'ul',
      null,
      ...items.map((t) =>
        h('li', null, h('a', { href: t.href, 'aria-current': t.current ? 'page' : undefined }, t.label)),
      ),
    ),
  );
}

/** Newer / Older links from a list's prevPageToken / nextPageToken. */
export function pager(
  list: { prevPageToken?: string; nextPageToken?: string },
  at: (token: string) => string,
): HTMLElement | null {
  if (!list.prevPageToken && !list.nextPageToken) return null;
  return h(
    'nav',
    { class: 'pager', 'aria-label': 'Pages of results' },
    list.prevPageToken ? h('a', { class: 'button', href: at(list.prevPageToken), rel: 'prev' }, '← Newer') : h('span'),
    list.nextPageToken ? h('a', { class: 'button', href: at(list.nextPageToken), rel: 'next' }, 'Older →') : h('span'),
  );
}

export function empty(text: string, ...more: Array<HTMLElement | string>): HTMLElement {
  return h('div', { class: 'empty' }, h('p', null, text), ...more);
}

/** Plain text of some HTML, for excerpts (parsed inertly: nothing loads or runs). */
export function textOf(html: string | undefined, max = 180): string {
  if (!html) return '';
  const text = (new DOMParser().parseFromString(html, 'text/html').body.textContent ?? '').replace(/\s+/g, ' ').trim();
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
