/**
 * The offline blog editor: blogcore's BlogService on IndexedDB, entirely in this page. No server holds
 * the data; a service worker keeps the app's own files so it also opens without a network.
 */
import './style.css';
import type { Blog, BlogService } from 'blogcore';
import { parseRoute, type App, type RemoteChange } from './app.js';
import { createBlog, findBlog, openService, OWNER_ID } from './blog.js';
import { h, mount } from './dom.js';
import { describe } from './errors.js';
import { commentsView } from './views/comments.js';
import { editorView, pageKind, postKind } from './views/editor.js';
import { pagesView } from './views/pages.js';
import { postsView } from './views/posts.js';
import { readerView } from './views/reader.js';

const root = document.getElementById('app')!;

function problemBox(error: unknown, onDismiss?: () => void): HTMLElement {
  const p = describe(error);
  const box = h(
    'div',
    { class: 'problem' },
    h('p', { class: 'problem-title' }, p.title),
    h('p', { class: 'problem-detail' }, p.detail, p.code ? h('span', { class: 'problem-code' }, ` (${p.code})`) : null),
  );
  if (onDismiss) box.append(h('button', { type: 'button', class: 'quiet dismiss', 'aria-label': 'Dismiss this message', onclick: onDismiss }, '×'));
  return box;
}

/** Nothing works without the store: say why, offer to retry. */
function fatal(error: unknown): void {
  console.error(error);
  mount(
    root,
    h(
      'main',
      { class: 'centered', role: 'alert' },
      h('h1', null, 'Your blog could not be opened'),
      problemBox(error),
      h('button', { type: 'button', class: 'primary', onclick: () => location.reload() }, 'Try again'),
    ),
  );
}

function welcome(service: BlogService): void {
  const you = h('input', { id: 'you', name: 'you', required: true, autocomplete: 'name', value: '' });
  const name = h('input', { id: 'blog-name', name: 'name', required: true, maxLength: 200, value: 'My offline blog' });
  const description = h('textarea', { id: 'blog-description', name: 'description', rows: 2, maxLength: 2000 });
  const problems = h('div', { role: 'alert' });
  const submit = h('button', { type: 'submit', class: 'primary' }, 'Create my blog');
  mount(
    root,
    h(
      'main',
      { class: 'centered welcome' },
      h('h1', null, 'Start a blog in this browser'),
      h('p', null, 'Everything you write is kept on this device, in the browser’s own storage. It works offline and nothing is sent anywhere.'),
      h(
        'form',
        {
          onsubmit: async (e: Event) => {
            e.preventDefault();
            if (!(e.currentTarget as HTMLFormElement).reportValidity()) return;
            submit.disabled = true;
            problems.replaceChildren();
            try {
              const blog = await createBlog(service, { displayName: you.value.trim(), name: name.value.trim(), description: description.value.trim() });
              start(service, blog);
            } catch (error) {
              problems.append(problemBox(error));
              submit.disabled = false;
            }
          },
        },
        h('div', { class: 'field' }, h('label', { for: 'you' }, 'Your name'), you),
        h('div', { class: 'field' }, h('label', { for: 'blog-name' }, 'Blog name'), name),
        h('div', { class: 'field' }, h('label', { for: 'blog-description' }, 'Description (optional)'), description),
        problems,
        submit,
      ),
    ),
  );
  you.focus();
}

function start(service: BlogService, blog: Blog): void {
  const problems = h('div', { class: 'problems', role: 'alert' });
  const status = h('div', { class: 'toast', role: 'status', 'aria-live': 'polite' });
  const view = h('div', { class: 'view-slot' });
  const net = h('p', { class: 'net' });
  const remote = h('div', { class: 'remote', role: 'status' });
  const sections = [
    ['posts', 'Posts'],
    ['pages', 'Pages'],
    ['comments', 'Comments'],
    ['read', 'Reader view'],
  ] as const;
  const nav = h(
    'nav',
    { class: 'sections', 'aria-label': 'Sections' },
    h('ul', null, ...sections.map(([key, label]) => h('li', null, h('a', { href: `#/${key}`, dataset: { section: key } }, label)))),
  );

  let toastTimer: number | undefined;
  let shownHash = '';
  let renders = 0;

  const app: App = {
    blog,
    owner: service.as({ userId: OWNER_ID }),
    reader: service.as(null),
    notify(message) {
      status.textContent = message;
      status.classList.add('shown');
      clearTimeout(toastTimer);
      toastTimer = window.setTimeout(() => status.classList.remove('shown'), 6000);
    },
    fail(error) {
      console.error(error);
      const box = problemBox(error, () => box.remove());
      problems.append(box);
    },
    clearProblems() {
      problems.replaceChildren();
    },
    go(hash) {
      if (hash === location.hash) void show();
      else location.hash = hash;
    },
    setAddress(hash) {
      history.replaceState(null, '', hash);
      shownHash = location.hash;
    },
    unsaved: null,
    onRemoteChange: null,
  };

  // Tabs of this editor share one database but each has its own service: pass each write on, so the
  // others can show it (a conflicting save would still be refused with 412; this only says so earlier).
  if ('BroadcastChannel' in window) {
    const channel = new BroadcastChannel('blogcore-editor');
    service.on('*', (event) => channel.postMessage({ type: event.type, id: event.id } satisfies RemoteChange));
    channel.addEventListener('message', (e: MessageEvent<RemoteChange>) => {
      if (app.onRemoteChange?.(e.data)) return;
      mount(
        remote,
        h('p', null, 'Something changed in another tab. ', h('button', { type: 'button', class: 'link', onclick: () => void show() }, 'Show the latest')),
      );
    });
  }

  async function show(): Promise<void> {
    const hash = location.hash || '#/posts';
    shownHash = location.hash;
    const route = parseRoute(hash);
    const [section = 'posts', sub, id] = route.path;
    for (const a of nav.querySelectorAll('a')) a.toggleAttribute('aria-current', a.dataset.section === section);
    for (const a of nav.querySelectorAll('a[aria-current]')) a.setAttribute('aria-current', 'page');
    const mine = ++renders;
    app.unsaved = null;
    app.onRemoteChange = null;
    remote.replaceChildren();
    app.clearProblems();
    view.setAttribute('aria-busy', 'true');
    try {
      const el =
        section === 'posts'
          ? sub === 'new' || sub === 'edit'
            ? await editorView(app, postKind(app), id)
            : await postsView(app, route)
          : section === 'pages'
            ? sub === 'new' || sub === 'edit'
              ? await editorView(app, pageKind(app), id)
              : await pagesView(app, route)
            : section === 'comments'
              ? await commentsView(app, route)
              : section === 'read'
                ? await readerView(app, route)
                : h('section', { class: 'view' }, h('h1', { tabIndex: -1 }, 'Nothing here'), h('p', null, h('a', { href: '#/posts' }, 'Go to your posts')));
      if (mine !== renders) return; // a newer navigation already took over
      mount(view, el);
      view.querySelector<HTMLElement>('h1')?.focus({ preventScroll: true });
    } catch (error) {
      if (mine !== renders) return;
      mount(
        view,
        h(
          'section',
          { class: 'view' },
          h('h1', { tabIndex: -1 }, 'This could not be shown'),
          h('p', null, 'The message above says why. ', h('a', { href: '#/posts' }, 'Back to your posts')),
        ),
      );
      app.fail(error);
    } finally {
      if (mine === renders) view.removeAttribute('aria-busy');
    }
  }

  window.addEventListener('hashchange', () => {
    if (location.hash === shownHash) return;
    const question = app.unsaved?.();
    if (question && !confirm(question)) {
      history.replaceState(null, '', shownHash);
      return;
    }
    void show();
  });
  window.addEventListener('beforeunload', (e) => {
    if (app.unsaved?.()) e.preventDefault();
  });
  // Nothing is ever swallowed: a failure no view caught still reaches the person.
  window.addEventListener('unhandledrejection', (e) => app.fail(e.reason));

  const showNet = () => {
    net.textContent = navigator.onLine ? 'Saved in this browser · works offline' : 'Offline — everything still works and is saved in this browser';
    net.classList.toggle('offline', !navigator.onLine);
  };
  window.addEventListener('online', showNet);
  window.addEventListener('offline', showNet);
  showNet();

  mount(
    root,
    h('header', { class: 'topbar' }, h('a', { class: 'brand', href: '#/posts' }, h('span', { class: 'logo', 'aria-hidden': 'true' }, '✎'), blog.name), net),
    h('div', { class: 'layout' }, nav, h('main', { id: 'main', tabIndex: -1 }, problems, remote, view)),
    status,
  );
  void show();
  offline.then(undefined, (error: unknown) => app.fail(error));
}

/**
 * The service worker keeps the app's files for offline starts (builds only; the dev server serves live
 * files). If it fails the editor still works, and says it will not open offline.
 */
const offline: Promise<unknown> =
  __SERVICE_WORKER__ && 'serviceWorker' in navigator
    ? navigator.serviceWorker.register('./sw.js').catch((error: unknown) => {
        throw new Error(`The editor works, but will not open offline: ${(error as Error).message}`);
      })
    : Promise.resolve();
// Handled once the editor shows (above); this only keeps the browser from reporting it as unhandled first.
offline.catch(() => undefined);

async function boot(): Promise<void> {
  try {
    const service = await openService();
    const blog = await findBlog(service);
    if (blog) start(service, blog);
    else welcome(service);
  } catch (error) {
    fatal(error);
  }
}

void boot();
