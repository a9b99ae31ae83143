/** Comment moderation: everything readers sent, by status, at the ADMIN view. */
import type { Comment, CommentList } from 'blogcore';
import { href, type App, type Route } from '../app.js';
import { h, when } from '../dom.js';
import { isNotFound } from '../errors.js';
import { addressesOf, moderateAll } from '../moderation.js';
import { badge, empty, pageHead, pager, tabs } from './common.js';

type CommentStatus = 'PENDING' | 'SPAM' | 'LIVE' | 'EMPTIED';
const FILTERS: Record<string, { label: string; status: CommentStatus }> = {
  pending: { label: 'Awaiting approval', status: 'PENDING' },
  live: { label: 'Published', status: 'LIVE' },
  spam: { label: 'Spam', status: 'SPAM' },
  removed: { label: 'Removed', status: 'EMPTIED' },
};

export async function commentsView(app: App, route: Route): Promise<HTMLElement> {
  const filter = route.path[1] && route.path[1] in FILTERS ? route.path[1] : 'pending';
  const named = route.query.get('post');
  // `?post=` made before the post was sent names its local id: the server's comments are under its server id.
  const post = named ? await app.currentId(named) : undefined;
  const pageToken = route.query.get('page') ?? undefined;
  const blogId = app.blog.id;
  const list: CommentList = await app.owner.comments.listByBlog({
    blogId,
    status: FILTERS[filter]!.status,
    view: 'ADMIN',
    maxResults: 10,
    ...(post ? { post } : {}),
    ...(pageToken ? { pageToken } : {}),
  });

  // Titles of the posts these comments are on (trashed posts included; a post deleted meanwhile says so).
  const titles = new Map<string, Promise<string>>();
  const titleOf = (postId: string) => {
    if (!titles.has(postId)) {
      titles.set(
        postId,
        app.owner.posts.get({ blogId, postId, fetchBody: false }).then(
          (p) => p.title || '(untitled)',
          (e: unknown) => (isNotFound(e) ? '(a deleted post)' : Promise.reject(e)),
        ),
      );
    }
    return titles.get(postId)!;
  };
  const postTitles = new Map(
    await Promise.all(list.items.map(async (c) => [c.post.id, await titleOf(c.post.id)] as const)),
  );
  const onePost = post ? (postTitles.get(post) ?? (await titleOf(post))) : undefined;

  const addresses = await addressesOf(app, list.items);
  const rows = h('ul', { class: 'rows comments', 'aria-label': 'Comments' });
  for (const c of list.items) rows.append(commentRow(app, c, postTitles.get(c.post.id) ?? '', addresses.get(c.id)));
  // A replica keeps no spam (the server does): signed in, there may be spam to clear though none shows here.
  const clearSpam =
    filter === 'spam' && (list.items.length > 0 || app.connection)
      ? action(
          app,
          'Delete all spam',
          async () => {
            const n = await moderateAll(app, { status: 'SPAM' }, 'delete');
            return `${n} spam ${n === 1 ? 'comment' : 'comments'} deleted.`;
          },
          'danger',
          'Delete every comment marked as spam, for good?',
        )
      : null;

  return h(
    'section',
    { class: 'view comments-view' },
    pageHead('Comments', clearSpam),
    onePost
      ? h(
          'p',
          { class: 'hint' },
          `Comments on “${onePost}”. `,
          h('a', { href: href(['comments', filter]) }, 'Show comments on every post'),
        )
      : null,
    tabs(
      'Comments by status',
      Object.entries(FILTERS).map(([key, f]) => ({
        label: f.label,
        href: href(['comments', key], { post }),
        current: key === filter,
      })),
    ),
    list.items.length
      ? rows
      : empty(filter === 'pending' ? 'No comments are waiting for approval.' : 'No comments here.'),
    pager(list, (token) => href(['comments', filter], { post, page: token })),
  );
}

/** A button that runs `call` (after `ask`, if given), says what it did, and shows the list as it is now. */
function action(app: App, label: string, call: () => Promise<string>, variant = '', ask?: string): HTMLButtonElement {
  return h(
    'button',
    {
      type: 'button',
      class: variant,
      onclick: async (e: Event) => {
        if (ask && !confirm(ask)) return;
        const button = e.currentTarget as HTMLButtonElement;
        button.disabled = true;
        app.clearProblems();
        try {
          app.notify(await call());
          app.go(location.hash); // Show the list as it is now (the comments moved to another tab).
        } catch (error) {
          app.fail(error);
          button.disabled = false;
        }
      },
    },
    label,
  );
}

function commentRow(app: App, c: Comment, postTitle: string, address: string | undefined): HTMLElement {
  const ids = { blogId: app.blog.id, postId: c.post.id, commentId: c.id };
  const act = (label: string, done: string, call: () => Promise<unknown>, variant = '', ask?: string) =>
    action(app, label, () => call().then(() => done), variant, ask);
  const s = c.status;
  const body = h('div', { class: 'comment-body' });
  // Comment HTML was sanitized by blogcore on the way in (an allowlist: no scripts, no attributes but links).
  if (c.content) body.innerHTML = c.content;
  else body.append(h('em', null, 'Content removed'));
  return h(
    'li',
    { class: 'row comment', dataset: { id: c.id } },
    h(
      'div',
      { class: 'row-main' },
      h(
        'div',
        { class: 'row-meta' },
        h('strong', null, c.author.displayName),
        h('span', null, 'on ', h('a', { href: `#/posts/edit/${c.post.id}` }, postTitle)),
        when(c.published),
        address ? h('span', { class: 'address' }, `from ${address}`) : null,
        badge(s),
      ),
      body,
      h(
        'div',
        { class: 'actions', role: 'group', 'aria-label': `Moderate the comment by ${c.author.displayName}` },
        s === 'PENDING' || s === 'SPAM'
          ? act('Approve', 'Comment approved: readers see it now.', () => app.owner.comments.approve(ids), 'primary')
          : null,
        s === 'PENDING' || s === 'LIVE'
          ? act('Mark as spam', 'Marked as spam.', () => app.owner.comments.markAsSpam(ids))
          : null,
        s === 'PENDING' && address
          ? action(
              app,
              `Mark all pending from ${address} as spam`,
              async () => {
                const n = await moderateAll(app, { status: 'PENDING', clientAddress: address }, 'spam');
                return `${n} ${n === 1 ? 'comment' : 'comments'} from ${address} marked as spam.`;
              },
              '',
              `Mark every comment still pending from ${address} as spam?`,
            )
          : null,
        s !== 'EMPTIED'
          ? act(
              'Remove content',
              'Content removed; the comment keeps its place in the thread.',
              () => app.owner.comments.removeContent(ids),
              'quiet',
            )
          : null,
        act(
          'Delete',
          'Comment deleted.',
          () => app.owner.comments.delete(ids),
          'danger',
          'Delete this comment for good? Replies to it stay.',
        ),
      ),
    ),
  );
}
