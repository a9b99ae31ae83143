/** The posts list: filter by status, search, page through. */
import type { Post, PostList } from 'blogcore';
import { href, type App, type Route } from '../app.js';
import { h, when } from '../dom.js';
import { badge, empty, pageHead, pager, tabs } from './common.js';

type PostStatus = 'LIVE' | 'DRAFT' | 'SCHEDULED' | 'SOFT_TRASHED';

const FILTERS: Record<string, { label: string; status: PostStatus[]; orderBy: 'PUBLISHED' | 'UPDATED' }> = {
  all: { label: 'All', status: ['LIVE', 'DRAFT', 'SCHEDULED'], orderBy: 'UPDATED' },
  live: { label: 'Published', status: ['LIVE'], orderBy: 'PUBLISHED' },
  drafts: { label: 'Drafts', status: ['DRAFT'], orderBy: 'UPDATED' },
  scheduled: { label: 'Scheduled', status: ['SCHEDULED'], orderBy: 'PUBLISHED' },
  trash: { label: 'Trash', status: ['SOFT_TRASHED'], orderBy: 'UPDATED' },
};

const PAGE_SIZE = 10;

export async function postsView(app: App, route: Route): Promise<HTMLElement> {
  const filter = route.path[1] && route.path[1] in FILTERS ? route.path[1] : 'all';
  const { status, orderBy, label } = FILTERS[filter]!;
  const q = route.query.get('q')?.trim() ?? '';
  const pageToken = route.query.get('page') ?? undefined;
  const at = (query: Record<string, string | undefined>) => href(['posts', filter], { q, ...query });

  const params = {
    blogId: app.blog.id,
    status,
    orderBy,
    maxResults: PAGE_SIZE,
    fetchBodies: false,
    ...(pageToken ? { pageToken } : {}),
  };
  const list: PostList = q ? await app.owner.posts.search({ ...params, q }) : await app.owner.posts.list(params);

  const search = h('input', {
    type: 'search',
    id: 'post-search',
    name: 'q',
    value: q,
    placeholder: 'Words in title, text or labels',
  });
  const searchForm = h(
    'form',
    {
      class: 'search',
      role: 'search',
      onsubmit: (e: Event) => {
        e.preventDefault();
        app.go(href(['posts', filter], { q: search.value.trim() }));
      },
    },
    h('label', { for: 'post-search' }, `Search ${filter === 'all' ? 'posts' : label.toLowerCase()}`),
    search,
    h('button', { type: 'submit' }, 'Search'),
    q ? h('a', { href: href(['posts', filter]), class: 'clear' }, 'Clear') : null,
  );

  return h(
    'section',
    { class: 'view posts-view' },
    pageHead('Posts', h('a', { class: 'button primary', href: '#/posts/new' }, 'New post')),
    tabs(
      'Posts by status',
      Object.entries(FILTERS).map(([key, f]) => ({
        label: f.label,
        href: href(['posts', key], { q }),
        current: key === filter,
      })),
    ),
    searchForm,
    q ? h('p', { class: 'hint', role: 'status' }, `Results for “${q}” in ${label.toLowerCase()}`) : null,
    list.items.length
      ? h('ul', { class: 'rows', 'aria-label': 'Posts' }, ...list.items.map((p) => postRow(p)))
      : empty(
          q ? 'No posts match.' : emptyText(filter),
          filter === 'all' && !q
            ? h('a', { class: 'button primary', href: '#/posts/new' }, 'Write your first post')
            : '',
        ),
    pager(list, (token) => at({ page: token })),
  );
}

function emptyText(filter: string): string {
  if (filter === 'trash') return 'The trash is empty.';
  if (filter === 'scheduled') return 'Nothing is scheduled.';
  if (filter === 'drafts') return 'No drafts.';
  if (filter === 'live') return 'Nothing is published yet.';
  return 'No posts yet.';
}

function postRow(p: Post): HTMLElement {
  const dateLine =
    p.status === 'SCHEDULED'
      ? ['Scheduled for ', when(p.published)]
      : p.status === 'LIVE'
        ? ['Published ', when(p.published)]
        : p.status === 'SOFT_TRASHED'
          ? ['Trashed ', when(p.trashed ?? p.updated)]
          : ['Edited ', when(p.updated)];
  const comments = Number(p.replies.totalItems);
  return h(
    'li',
    { class: 'row', dataset: { id: p.id } },
    h(
      'div',
      { class: 'row-main' },
      h('a', { class: 'row-title', href: `#/posts/edit/${p.id}` }, p.title || '(untitled)'),
      h(
        'div',
        { class: 'row-meta' },
        badge(p.status),
        h('span', null, ...dateLine),
        comments ? h('span', null, `${comments} comment${comments === 1 ? '' : 's'}`) : null,
      ),
    ),
    p.labels?.length
      ? h('ul', { class: 'labels', 'aria-label': 'Labels' }, ...p.labels.map((l) => h('li', null, l)))
      : null,
  );
}
