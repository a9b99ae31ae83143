/**
 * What the replica holds in words: the status line in the top bar, and the sync screen (`#/sync`) with the
 * changes waiting to be sent and the conflicts, each showing both texts and the two choices.
 */
import type { App } from '../app.js';
import { forgetConnection, replicaDatabase, type Connection } from '../connection.js';
import { h, mount, when } from '../dom.js';
import type { Conflict, ConflictVersion, PendingChange } from '../replica.js';
import { problemBox } from '../shell.js';
import type { Syncer, SyncStatus } from '../sync.js';
import { pageHead } from './common.js';

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

function statusWords(s: SyncStatus): string {
  const waiting = s.pending
    ? `${plural(s.pending, 'change waits', 'changes wait')} to be sent`
    : 'nothing waits to be sent';
  switch (s.state) {
    case 'offline':
      return `Offline — ${s.pending ? `${waiting} when you are back online` : 'everything is saved in this browser'}`;
    case 'syncing':
      return 'Syncing with the server…';
    case 'failed':
      return `Sync failed — ${waiting}`;
    case 'elsewhere':
      return `Synced by another tab of this editor — ${waiting}`;
    default:
      return `Synced — ${waiting}`;
  }
}

/** The top bar's line: state, what waits, and a link to the conflicts when there are any. */
export function syncBadge(syncer: Syncer): HTMLElement {
  const el = h('p', { class: 'net sync-status', role: 'status' });
  const show = (s: SyncStatus) => {
    el.classList.toggle('offline', s.state === 'offline' || s.state === 'failed');
    el.classList.toggle('elsewhere', s.state === 'elsewhere');
    el.dataset.state = s.state;
    mount(
      el,
      h('a', { href: '#/sync' }, statusWords(s)),
      s.conflicts
        ? h(
            'a',
            { class: 'conflict-link', href: '#/sync' },
            `${plural(s.conflicts, 'conflict needs', 'conflicts need')} your choice`,
          )
        : null,
    );
  };
  syncer.subscribe(show);
  show(syncer.status());
  return el;
}

export async function syncView(app: App, syncer: Syncer, connection: Connection): Promise<HTMLElement> {
  const status = h('p', { class: 'sync-line' });
  const failure = h('div', { role: 'alert' });
  const conflicts = h('div', { class: 'conflicts' });
  const pending = h('div', { class: 'pending' });
  const pictures = h('p', { class: 'pictures-line hint' });
  const syncNow = h('button', { type: 'button', class: 'primary', onclick: () => void syncer.now() }, 'Sync now');
  const root = h(
    'section',
    { class: 'view sync-view' },
    pageHead('Sync', syncNow),
    h('p', { class: 'hint' }, `Replicating “${connection.blogName}” from ${new URL(connection.api).origin}.`),
    status,
    pictures,
    failure,
    conflicts,
    pending,
    h(
      'div',
      { class: 'sign-out' },
      h(
        'button',
        { type: 'button', class: 'quiet', onclick: () => void signOut(syncer, connection) },
        'Sign out of the server',
      ),
      h(
        'p',
        { class: 'hint' },
        'Removes this blog’s copy from this browser. Changes not yet sent are lost, so sync first.',
      ),
    ),
  );

  let shown = '';
  async function render(s: SyncStatus) {
    mount(status, statusWords(s), s.lastSynced ? [' · last synced ', when(s.lastSynced.toISOString())] : null);
    mount(failure, s.state === 'failed' && s.error ? problemBox(s.error) : null);
    syncNow.disabled = s.state === 'offline' || s.state === 'syncing' || s.state === 'elsewhere';
    // The pictures' bytes come after a sync, in the background: this waits for that to end.
    void syncer.replica.downloads().then(({ waiting }) => {
      pictures.textContent = waiting
        ? `${plural(waiting, 'picture is', 'pictures are')} still to be copied into this browser.`
        : 'Every picture the posts use is in this browser.';
    }, app.fail);
    const [c, p] = await Promise.all([syncer.replica.conflicts(), syncer.replica.pending()]);
    // Re-render the lists only when they changed (a click in progress keeps its button).
    const key = JSON.stringify([c.map((x) => x.id), p.map((x) => x.id)]);
    if (key === shown) return;
    shown = key;
    mount(conflicts, c.length ? [h('h2', null, 'Conflicts'), ...c.map((x) => conflictCard(app, syncer, x))] : null);
    mount(
      pending,
      h('h2', null, 'Waiting to be sent'),
      p.length
        ? h('ul', { class: 'rows pending-list' }, ...p.map(pendingRow))
        : h('p', { class: 'hint' }, 'Nothing: the server has every change made here.'),
    );
  }
  const off = syncer.subscribe((s) => {
    if (!root.isConnected && shown) off();
    else void render(s).catch(app.fail);
  });
  await render(syncer.status());
  return root;
}

const ACTION_WORDS = { create: 'New', update: 'Changed', delete: 'Deleted' } as const;

/** What the Sync screen calls each kind of change. */
const nounOf = (kind: PendingChange['kind']) => (kind === 'media' ? 'picture' : kind);

function pendingRow(p: PendingChange): HTMLElement {
  const title = p.title || '(untitled)';
  const open = (p.kind === 'post' || p.kind === 'page') && p.action !== 'delete';
  return h(
    'li',
    { class: 'row pending-row', dataset: { id: p.id, kind: p.kind } },
    `${ACTION_WORDS[p.action]} ${nounOf(p.kind)}: `,
    open ? h('a', { href: `#/${p.kind}s/edit/${encodeURIComponent(p.id)}` }, title) : h('strong', null, title),
  );
}

/** One conflict: both versions side by side (as text: nothing in them runs), and the two choices. */
function conflictCard(app: App, syncer: Syncer, c: Conflict): HTMLElement {
  const version = (heading: string, v: ConflictVersion | null, gone: string) =>
    h(
      'div',
      { class: 'version' },
      h('h4', null, heading),
      v
        ? [
            h('p', { class: 'version-title' }, v.title),
            v.labels.length ? h('p', { class: 'hint' }, `Labels: ${v.labels.join(', ')}`) : null,
            h('pre', { class: 'version-content' }, v.content),
          ]
        : h('p', { class: 'hint' }, gone),
    );
  const noun = nounOf(c.kind);
  const title = c.theirs?.title || c.mine?.title || 'untitled';
  const choose = (choice: 'mine' | 'theirs', done: string) => async (e: Event) => {
    for (const b of card.querySelectorAll('button')) b.disabled = true;
    (e.currentTarget as HTMLButtonElement).setAttribute('aria-busy', 'true');
    try {
      await syncer.resolve(c.id, choice);
      app.notify(done);
    } catch (error) {
      app.fail(error);
      for (const b of card.querySelectorAll('button')) b.disabled = false;
    }
  };
  const card: HTMLElement = h(
    'article',
    { class: 'conflict', dataset: { id: c.id } },
    h(
      'h3',
      null,
      c.reason === 'rejected'
        ? `The server refused “${title}”`
        : `“${title}” was ${c.reason === 'deleted' ? 'deleted' : 'changed'} on the server while you edited it`,
    ),
    h(
      'p',
      null,
      `Your edit of this ${noun} was not sent over the other one. Choose which version to keep; neither text is lost until you choose.`,
    ),
    c.message ? h('p', { class: 'hint' }, c.message) : null,
    c.fields.length ? h('p', { class: 'hint' }, `They differ in: ${c.fields.join(', ')}.`) : null,
    h(
      'div',
      { class: 'versions' },
      version('Your version', c.mine, `You deleted this ${noun}.`),
      version('The server’s version', c.theirs, `The ${noun} was deleted on the server.`),
    ),
    h(
      'div',
      { class: 'actions' },
      h(
        'button',
        { type: 'button', class: 'primary', onclick: choose('mine', 'Kept your version; it is being sent.') },
        'Keep my version',
      ),
      h(
        'button',
        { type: 'button', onclick: choose('theirs', 'Using the server’s version.') },
        'Use the server’s version',
      ),
    ),
  );
  return card;
}

async function signOut(syncer: Syncer, connection: Connection) {
  const waiting = syncer.status().pending;
  if (
    waiting &&
    !confirm(
      `${plural(waiting, 'change has', 'changes have')} not reached the server yet and will be lost. Sign out anyway?`,
    )
  )
    return;
  await syncer.stop();
  forgetConnection();
  await new Promise((resolve) => {
    const req = indexedDB.deleteDatabase(replicaDatabase(connection));
    req.onsuccess = req.onerror = req.onblocked = resolve;
  });
  location.hash = '#/posts';
  location.reload();
}
