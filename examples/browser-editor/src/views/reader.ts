/**
 * The blog as a signed-out visitor sees it, through `service.as(null)`: only LIVE posts and pages, only
 * published comments — and a comment form whose comments wait for the owner's approval.
 */
import type { Post } from 'blogcore';
import { href, type App, type Route } from '../app.js';
import { escapeHtml, h, htmlFrame, when } from '../dom.js';
import { empty, pager, textOf } from './common.js';

export async function readerView(app: App, route: Route): Promise<HTMLElement> {
  const [, kind, named] = route.path;
  // An address made before the post or page was sent names its local id: follow it to its server id.
  const id = named && (await app.currentId(named));
  const main =
    kind === 'post' && id
      ? await postPage(app, id)
      : kind === 'page' && id
        ? await pagePage(app, id)
        : await home(app, route);
  const pages = await app.reader.pages.list({ blogId: app.blog.id, maxResults: 20, fetchBodies: false });
  return h(
    'section',
    { class: 'view reader-view' },
    h(
      'p',
      { class: 'reader-banner' },
      'Reader view: this is what visitors see, signed out. Drafts, scheduled posts and unapproved comments stay hidden.',
    ),
    h(
      'div',
      { class: 'reader' },
      h(
        'header',
        { class: 'reader-head' },
        h('p', { class: 'reader-name' }, h('a', { href: '#/read' }, app.blog.name)),
        app.blog.description ? h('p', { class: 'hint' }, app.blog.description) : null,
        pages.items.length
          ? h(
              'nav',
              { 'aria-label': 'Pages of the blog' },
              h(
                'ul',
                { class: 'reader-pages' },
                ...pages.items.map((p) => h('li', null, h('a', { href: `#/read/page/${p.id}` }, p.title))),
              ),
            )
          : null,
      ),
      main,
    ),
  );
}

async function home(app: App, route: Route): Promise<HTMLElement> {
  const pageToken = route.query.get('page') ?? undefined;
  const list = await app.reader.posts.list({ blogId: app.blog.id, maxResults: 5, ...(pageToken ? { pageToken } : {}) });
  return h(
    'div',
    { class: 'reader-main' },
    h('h1', { tabIndex: -1, class: 'visually-hidden' }, `${app.blog.name}: latest posts`),
    list.items.length
      ? h(
          'ol',
          { class: 'reader-list' },
          ...list.items.map((p) =>
            h(
              'li',
              null,
              h(
                'article',
                null,
                h('h2', null, h('a', { href: `#/read/post/${p.id}` }, p.title || '(untitled)')),
                h('p', { class: 'byline' }, when(p.published)),
                h('p', null, textOf(p.content)),
              ),
            ),
          ),
        )
      : empty('Nothing is published yet.'),
    pager(list, (token) => href(['read'], { page: token })),
  );
}

async function postPage(app: App, postId: string): Promise<HTMLElement> {
  const blogId = app.blog.id;
  const post: Post = await app.reader.posts.get({ blogId, postId });
  const comments = await app.reader.comments.list({ blogId, postId, maxResults: 100 });
  const thread = h(
    'ol',
    { class: 'thread' },
    ...comments.items.map((c) => {
      const body = h('div', { class: 'comment-body' });
      if (c.content)
        body.innerHTML = c.content; // sanitized by blogcore when it was posted
      else body.append(h('em', null, 'This comment was removed.'));
      return h(
        'li',
        null,
        h('p', { class: 'byline' }, h('strong', null, c.author.displayName), ' · ', when(c.published)),
        body,
      );
    }),
  );
  return h(
    'article',
    { class: 'reader-main' },
    h('h1', { tabIndex: -1 }, post.title || '(untitled)'),
    h('p', { class: 'byline' }, 'By ', post.author.displayName, ' · ', when(post.published)),
    post.labels?.length
      ? h('ul', { class: 'labels', 'aria-label': 'Labels' }, ...post.labels.map((l) => h('li', null, l)))
      : null,
    htmlFrame(post.content ?? '', post.title, app.pictures ?? undefined),
    h(
      'section',
      { class: 'comments-section', 'aria-labelledby': 'comments-heading' },
      h('h2', { id: 'comments-heading' }, comments.items.length ? `Comments (${comments.items.length})` : 'Comments'),
      comments.items.length ? thread : h('p', { class: 'hint' }, 'No comments yet.'),
      commentForm(app, postId),
    ),
  );
}

function commentForm(app: App, postId: string): HTMLElement {
  const name = h('input', { id: 'comment-name', name: 'name', autocomplete: 'name', maxLength: 200 });
  const text = h('textarea', { id: 'comment-text', name: 'comment', rows: 4, required: true, maxLength: 4096 });
  const result = h('p', { class: 'form-result', role: 'status' });
  const submit = h('button', { type: 'submit', class: 'primary' }, 'Post comment');
  return h(
    'form',
    {
      class: 'comment-form',
      onsubmit: async (e: Event) => {
        e.preventDefault();
        if (!text.value.trim()) {
          text.setCustomValidity('Write a comment first.');
          text.reportValidity();
          text.addEventListener('input', () => text.setCustomValidity(''), { once: true });
          return;
        }
        submit.disabled = true;
        result.textContent = '';
        app.clearProblems();
        try {
          // Typed as plain text: escape it, keep line breaks.
          const content = escapeHtml(text.value.trim()).replace(/\r?\n/g, '<br>');
          const displayName = name.value.trim();
          await app.reader.comments.insert({
            blogId: app.blog.id,
            postId,
            body: { content, ...(displayName ? { author: { displayName } } : {}) },
          });
          text.value = '';
          result.textContent = 'Thanks! Your comment will appear here once the blog owner approves it.';
        } catch (error) {
          app.fail(error);
        } finally {
          submit.disabled = false;
        }
      },
    },
    h('h3', null, 'Leave a comment'),
    h('div', { class: 'field' }, h('label', { for: 'comment-name' }, 'Your name (optional)'), name),
    h('div', { class: 'field' }, h('label', { for: 'comment-text' }, 'Comment'), text),
    submit,
    result,
  );
}

async function pagePage(app: App, pageId: string): Promise<HTMLElement> {
  const page = await app.reader.pages.get({ blogId: app.blog.id, pageId });
  return h(
    'article',
    { class: 'reader-main' },
    h('h1', { tabIndex: -1 }, page.title),
    htmlFrame(page.content ?? '', page.title, app.pictures ?? undefined),
  );
}
