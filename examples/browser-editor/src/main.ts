/**
 * The offline blog editor: blogcore's BlogService on IndexedDB, entirely in this page. Local-only, no server
 * holds the data; signed in to a blogcore server, the store is a replica of one of its blogs (sync.ts). A
 * service worker keeps the app's own files so it also opens without a network.
 */
import './style.css';
import type { Blog, BlogService } from 'blogcore';
import { parseRoute, type App, type RemoteChange } from './app.js';
import { findBlog, openService, OWNER_ID } from './blog.js';
import { togetherView } from './views/together.js';
import { forgetConnection, replicaDatabase, savedConnection, type Connection } from './connection.js';
import { h, mount } from './dom.js';
import { localPictures } from './pictures.js';
import { isNotFound } from './errors.js';
import { fatal, problemBox, root } from './shell.js';
import { startSync, type Syncer } from './sync.js';
import { commentsView } from './views/comments.js';
import { editorView, pageKind, postKind } from './views/editor.js';
import { pagesView } from './views/pages.js';
import { postsView } from './views/posts.js';
import { readerView } from './views/reader.js';
import { connectView } from './views/signin.js';
import { syncBadge, syncView } from './views/sync.js';
import { welcome } from './views/welcome.js';

/** Signed in to a server: the replica's status and choices; local-only: nothing. */
interface Server {
  connection: Connection;
  syncer: Syncer;
}

function start(service: BlogService, blog: Blog, server: Server | null, owner: BlogService): void {
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
    ['sync', server ? 'Sync' : 'Sync with a server'],
  ] as const;
  const nav = h(
    'nav',
    { class: 'sections', 'aria-label': 'Sections' },
    h(
      'ul',
      null,
      ...sections.map(([key, label]) => h('li', null, h('a', { href: `#/${key}`, dataset: { section: key } }, label))),
    ),
  );

  let toastTimer: number | undefined;
  let shownHash = '';
  let renders = 0;

  const app: App = {
    blog,
    owner,
    reader: service.as(null),
    server: server ? new URL(server.connection.api).origin : null,
    connection: server?.connection ?? null,
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
    currentId: server ? (id) => server.syncer.replica.idOf(id) : async (id) => id,
    syncNow: server ? () => server.syncer.now() : async () => {},
    unsaved: null,
    onRemoteChange: null,
    onSynced: null,
    onLeave: null,
    live: false,
    pictures: localPictures(owner, blog.id),
  };

  // Tabs of this editor share one database but each has its own service: pass each write on, so the
  // others can show it (a conflicting save would still be refused with 412; this only says so earlier).
  if ('BroadcastChannel' in window) {
    const channel = new BroadcastChannel(server ? replicaDatabase(server.connection) : 'blogcore-editor');
    service.on('*', (event) => channel.postMessage({ type: event.type, id: event.id } satisfies RemoteChange));
    channel.addEventListener('message', (e: MessageEvent<RemoteChange>) => {
      void server?.syncer.now(); // a write in another tab: the tab that syncs sends it
      if (app.onRemoteChange?.(e.data)) return;
      mount(
        remote,
        h(
          'p',
          null,
          'Something changed in another tab. ',
          h('button', { type: 'button', class: 'link', onclick: () => void show() }, 'Show the latest'),
        ),
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
    app.onLeave?.();
    app.onLeave = null;
    app.live = false;
    app.unsaved = null;
    app.onRemoteChange = null;
    app.onSynced = null;
    remote.replaceChildren();
    app.clearProblems();
    view.setAttribute('aria-busy', 'true');
    try {
      const el =
        section === 'posts'
          ? sub === 'new' || sub === 'edit'
            ? await editorView(app, postKind(app), id)
            : sub === 'together' && id && server
              ? await togetherView(app, server.connection, id)
              : await postsView(app, route)
          : section === 'pages'
            ? sub === 'new' || sub === 'edit'
              ? await editorView(app, pageKind(app), id)
              : await pagesView(app, route)
            : section === 'comments'
              ? await commentsView(app, route)
              : section === 'read'
                ? await readerView(app, route)
                : section === 'sync'
                  ? server
                    ? await syncView(app, server.syncer, server.connection)
                    : connectView()
                  : h(
                      'section',
                      { class: 'view' },
                      h('h1', { tabIndex: -1 }, 'Nothing here'),
                      h('p', null, h('a', { href: '#/posts' }, 'Go to your posts')),
                    );
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
    net.textContent = navigator.onLine
      ? 'Saved in this browser · works offline'
      : 'Offline — everything still works and is saved in this browser';
    net.classList.toggle('offline', !navigator.onLine);
  };
  if (!server) {
    window.addEventListener('online', showNet);
    window.addEventListener('offline', showNet);
    showNet();
  }
  // What a sync brought in shows at once where nothing is unsaved; otherwise the person is told and chooses.
  server?.syncer.subscribe((_status, pulled) => {
    if (app.onSynced) return app.onSynced(pulled);
    if (!pulled || app.live) return;
    if (!app.unsaved?.()) void show();
    else
      mount(
        remote,
        h(
          'p',
          null,
          'Changes arrived from the server. ',
          h('button', { type: 'button', class: 'link', onclick: () => void show() }, 'Show the latest'),
        ),
      );
  });

  mount(
    root(),
    h(
      'header',
      { class: 'topbar' },
      h('a', { class: 'brand', href: '#/posts' }, h('span', { class: 'logo', 'aria-hidden': 'true' }, '✎'), blog.name),
      server ? syncBadge(server.syncer) : net,
    ),
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

/**
 * Signed in: open the replica's store. On the first visit the blog arrives with the first sync; until then the
 * replica holds a stand-in with no name, which is enough to write offline (the edits wait for the first sync).
 */
async function bootConnected(connection: Connection): Promise<void> {
  const service = await openService(replicaDatabase(connection), connection.api.replace(/\/v3$/, ''));
  const syncer = startSync(connection, service);
  const local = () =>
    service.blogs.get({ blogId: connection.blogId }).catch((e: unknown) => {
      if (isNotFound(e)) return null;
      throw e;
    });
  let blog = await local();
  if (!blog?.name) {
    mount(root(), h('p', { class: 'boot', role: 'status' }, `Copying “${connection.blogName}” from the server…`));
    // Directly, not through the syncing tab's turn (which may not have started yet). Offline, the editor opens on
    // the stand-in under the name given at sign-in; any other failure is shown in words.
    const offline = await syncer.replica.sync().then(
      () => false,
      (e: unknown) => {
        if ((e as { name?: string; status?: number }).name === 'RemoteError' && (e as { status?: number }).status === 0)
          return true;
        throw e;
      },
    );
    blog = await local();
    if (!blog) throw new Error('The server sent no blog. Check that you are online, then try again.');
    if (offline && !blog.name) blog = { ...blog, name: connection.blogName };
  }
  // The replica's writes come from the local host service (it holds the blog as the signed-in user sees it;
  // the server decides what that user may do, and a refusal comes back as a conflict).
  start(service, blog, { connection, syncer }, service);
}

async function boot(): Promise<void> {
  const connection = savedConnection();
  try {
    if (connection) return await bootConnected(connection);
    const service = await openService();
    const blog = await findBlog(service);
    const open = (b: Blog) => start(service, b, null, service.as({ userId: OWNER_ID }));
    if (blog) open(blog);
    else welcome(service, open);
  } catch (error) {
    fatal(
      error,
      connection
        ? () => {
            forgetConnection();
            location.reload();
          }
        : undefined,
    );
  }
}

void boot();
