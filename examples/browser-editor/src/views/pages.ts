/** The pages list (About, Contact…): by status, paged. */
import type { PageList } from 'blogcore';
import { href, type App, type Route } from '../app.js';
import { h, when } from '../dom.js';
import { badge, empty, pageHead, pager, tabs } from './common.js';

const FILTERS: Record<string, { label: string; status: Array<'LIVE' | 'DRAFT' | 'SOFT_TRASHED'> }> = {
  all: { label: 'All', status: ['LIVE', 'DRAFT'] },
  live: { label: 'Published', status: ['LIVE'] },
  drafts: { label: 'Drafts', status: ['DRAFT'] },
  trash: { label: 'Trash', status: ['SOFT_TRASHED'] },
};

export async function pagesView(app: App, route: Route): Promise<HTMLElement> {
  const filter = route.path[1] && route.path[1] in FILTERS ? route.path[1] : 'all';
  const pageToken = route.query.get('page') ?? undefined;
  const list: PageList = await app.owner.pages.list({
    blogId: app.blog.id,
    status: FILTERS[filter]!.status,
    maxResults: 10,
    fetchBodies: false,
    ...(pageToken ? { pageToken } : {}),
  });
  return h(
    'section',
    { class: 'view pages-view' },
    pageHead('Pages', h('a', { class: 'button primary', href: '#/pages/new' }, 'New page')),
    h(
      'p',
      { class: 'hint' },
      'Pages are the lasting parts of a blog, such as About or Contact. They have no date and no comments.',
    ),
    tabs(
      'Pages by status',
      Object.entries(FILTERS).map(([key, f]) => ({
        label: f.label,
        href: href(['pages', key]),
        current: key === filter,
      })),
    ),
    list.items.length
      ? h(
          'ul',
          { class: 'rows', 'aria-label': 'Pages' },
          ...list.items.map((p) =>
            h(
              'li',
              { class: 'row', dataset: { id: p.id } },
              h(
                'div',
                { class: 'row-main' },
                h('a', { class: 'row-title', href: `#/pages/edit/${p.id}` }, p.title || '(untitled)'),
                h(
                  'div',
                  { class: 'row-meta' },
                  badge(p.status),
                  p.url ? h('span', { class: 'url' }, new URL(p.url).pathname) : null,
                  h('span', null, 'Edited ', when(p.updated)),
                ),
              ),
            ),
          ),
        )
      : empty(filter === 'trash' ? 'The trash is empty.' : 'No pages here yet.'),
    pager(list, (token) => href(['pages', filter], { page: token })),
  );
}
