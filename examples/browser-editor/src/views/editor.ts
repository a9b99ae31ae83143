/**
 * Writing and editing a post or a page. Every write carries the etag the editor loaded (`ifMatch`), so
 * when another tab saved the same post meanwhile the service answers 412 and the editor says so, keeping
 * this tab's text, instead of one tab silently overwriting the other. Before a write, the form is checked by
 * the rules the service applies to the body (`blogcore/schema`): the field at fault is marked and nothing is sent.
 */
import { BlogError, type Page, type Post } from 'blogcore';
import { pageBody, parse, postBody } from 'blogcore/schema';
import type { App } from '../app.js';
import { isConflict, isNotFound } from '../errors.js';
import { h, htmlFrame, mount, when } from '../dom.js';
import { defaultTheme, html as siteHtml } from 'blogcore/site';
import { badge } from './common.js';

type Doc = Post | Page;
interface Fields {
  title: string;
  content: string;
  labels: string[];
}
/** What a save does besides storing the text. */
type How = 'keep' | 'publish' | 'revert' | { at: string };
/** What to tell the person once a write worked (some messages depend on the stored result). */
type Done = string | ((saved: Doc) => string);

/** The calls one kind of document (post or page) needs; everything else in the editor is shared. */
export interface Kind {
  noun: 'post' | 'page';
  listHref: string;
  hasLabels: boolean;
  canSchedule: boolean;
  /** The body the service takes for this kind of document: the form is checked by its rules before a save. */
  body: typeof postBody | typeof pageBody;
  get(id: string): Promise<Doc>;
  create(fields: Fields, how: 'draft' | 'publish' | { at: string }): Promise<Doc>;
  save(doc: Doc, etag: string, fields: Fields, how: How): Promise<Doc>;
  trash(id: string, etag: string): Promise<void>;
  restore(id: string, etag: string): Promise<Doc>;
  destroy(id: string, etag: string): Promise<void>;
}

export function postKind(app: App): Kind {
  const blogId = app.blog.id;
  const posts = app.owner.posts;
  return {
    noun: 'post',
    listHref: '#/posts',
    hasLabels: true,
    canSchedule: true,
    body: postBody,
    get: async (postId) => posts.get({ blogId, postId: await app.currentId(postId), view: 'ADMIN' }),
    create: (fields, how) =>
      posts.insert({
        blogId,
        isDraft: how === 'draft',
        body: { ...fields, ...(typeof how === 'object' ? { published: how.at } : {}) },
      }),
    async save(doc, etag, fields, how) {
      const postId = doc.id;
      if (how === 'keep') return posts.patch({ blogId, postId, ifMatch: etag, body: fields });
      if (how === 'revert') return posts.patch({ blogId, postId, ifMatch: etag, body: fields, revert: true });
      const at = how === 'publish' ? new Date().toISOString() : how.at;
      // A draft's saved `published` time is the one `publish` uses: text and date go in one write.
      if (doc.status === 'DRAFT')
        return posts.patch({ blogId, postId, ifMatch: etag, body: { ...fields, published: at }, publish: true });
      // Scheduled: store the text, then move the date.
      const saved = await posts.patch({ blogId, postId, ifMatch: etag, body: fields });
      return posts.publish({ blogId, postId, publishDate: at, ifMatch: saved.etag });
    },
    trash: (postId, ifMatch) => posts.delete({ blogId, postId, useTrash: true, ifMatch }),
    restore: (postId, ifMatch) => posts.revert({ blogId, postId, ifMatch }),
    destroy: (postId, ifMatch) => posts.delete({ blogId, postId, ifMatch }),
  };
}

export function pageKind(app: App): Kind {
  const blogId = app.blog.id;
  const pages = app.owner.pages;
  return {
    noun: 'page',
    listHref: '#/pages',
    hasLabels: false,
    canSchedule: false,
    body: pageBody,
    get: async (pageId) => pages.get({ blogId, pageId: await app.currentId(pageId), view: 'ADMIN' }),
    create: ({ title, content }, how) => pages.insert({ blogId, isDraft: how === 'draft', body: { title, content } }),
    save: (doc, ifMatch, { title, content }, how) =>
      pages.patch({
        blogId,
        pageId: doc.id,
        ifMatch,
        body: { title, content },
        ...(how === 'publish' ? { publish: true } : how === 'revert' ? { revert: true } : {}),
      }),
    trash: (pageId, ifMatch) => pages.delete({ blogId, pageId, useTrash: true, ifMatch }),
    restore: (pageId, ifMatch) => pages.revert({ blogId, pageId, ifMatch }),
    destroy: (pageId, ifMatch) => pages.delete({ blogId, pageId, ifMatch }),
  };
}

const splitLabels = (text: string) => [
  ...new Set(
    text
      .split(',')
      .map((l) => l.trim())
      .filter(Boolean),
  ),
];

/** `2026-11-22T10:00` in local time, the value format of <input type="datetime-local">. */
function localInput(iso: string | undefined): string {
  if (!iso) return '';
  const d = new Date(iso);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

export async function editorView(app: App, kind: Kind, id: string | undefined): Promise<HTMLElement> {
  // The rich text editor is a chunk of its own, loaded (or taken from the service worker's cache) on the first edit.
  const [{ richText }, found] = await Promise.all([import('../richtext/editor.js'), id ? kind.get(id) : null]);
  let doc: Doc | null = found;
  const Noun = kind.noun === 'post' ? 'Post' : 'Page';
  const listName = `${kind.noun}s`;
  const address = (id: string) => `#/${listName}/edit/${id}`;
  // Opened by the id it had before the replica sent it: the address names the one it goes by now.
  if (found && found.id !== id) app.setAddress(address(found.id));

  const heading = h('h1', { tabIndex: -1 });
  const badgeSlot = h('span', { class: 'badge-slot' });
  const saveState = h('span', { class: 'save-state', 'aria-live': 'polite' });
  // On a server's blog a post can be written together with the others who have it open (views/together.ts).
  const togetherLink = h('a', { class: 'button together-link', hidden: true }, 'Write together');
  const conflictSlot = h('div', { class: 'conflict-slot' });
  const remoteSlot = h('div', { class: 'remote-slot', role: 'status' });
  const trashNote = h(
    'p',
    { class: 'note', hidden: true },
    `This ${kind.noun} is in the trash. Restore it to edit it again.`,
  );

  const title = h('input', {
    id: 'title',
    name: 'title',
    maxLength: 1000,
    autocomplete: 'off',
    placeholder: `${Noun} title`,
  });
  const labels = h('input', { id: 'labels', name: 'labels', autocomplete: 'off', placeholder: 'e.g. travel, food' });
  const content = richText({
    html: '',
    onChange: () => {
      showDirty();
      clearTimeout(previewTimer);
      previewTimer = window.setTimeout(showPreview, 400);
    },
    pictures: app.pictures ?? undefined,
    onError: (error) => app.fail(error),
  });
  const preview = h('div', { class: 'preview-body' });
  const previewBox = h('details', { class: 'preview' }, h('summary', null, 'Preview'), preview);
  const at = h('input', { id: 'publish-at', type: 'datetime-local', name: 'publishAt' });
  const scheduleBox = h(
    'fieldset',
    { class: 'schedule' },
    h('legend', null, 'Publish at a date'),
    h('label', { for: 'publish-at' }, 'Date and time'),
    h('div', { class: 'inline' }, at, h('button', { type: 'button', onclick: () => schedule() }, 'Schedule')),
    h(
      'p',
      { class: 'hint' },
      'A future time schedules the post; it goes live by itself then. A past time back-dates it.',
    ),
  );
  const actions = h('div', { class: 'actions', role: 'group', 'aria-label': `${Noun} actions` });
  const meta = h('dl', { class: 'meta' });

  const form = h(
    'form',
    {
      class: 'editor-form',
      novalidate: true,
      onsubmit: (e: Event) => {
        e.preventDefault();
        primary();
      },
    },
    h('div', { class: 'field' }, h('label', { for: 'title' }, 'Title'), title),
    kind.hasLabels
      ? h(
          'div',
          { class: 'field' },
          h('label', { for: 'labels' }, 'Labels'),
          labels,
          h('p', { class: 'hint' }, 'Separate labels with commas.'),
        )
      : null,
    h('div', { class: 'field' }, h('span', { class: 'label' }, 'Content'), content.element),
    previewBox,
    kind.canSchedule ? scheduleBox : null,
    actions,
  );

  const root = h(
    'section',
    {
      class: 'view editor-view',
      onkeydown: (e: KeyboardEvent) => {
        if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === 's') {
          e.preventDefault();
          primary();
        }
      },
    },
    h('a', { class: 'back', href: kind.listHref }, `← All ${listName}`),
    h('div', { class: 'page-head' }, heading, h('div', { class: 'head-actions' }, badgeSlot, saveState, togetherLink)),
    conflictSlot,
    remoteSlot,
    trashNote,
    h(
      'div',
      { class: 'editor-grid' },
      form,
      h('aside', { class: 'side', 'aria-label': `About this ${kind.noun}` }, meta),
    ),
  );

  const values = (): Fields => ({
    title: title.value,
    content: content.html(),
    labels: kind.hasLabels ? splitLabels(labels.value) : [],
  });
  const dirty = (): boolean => {
    const v = values();
    const saved = { title: doc?.title ?? '', content: doc?.content ?? '', labels: (doc as Post | null)?.labels ?? [] };
    return (
      v.title !== saved.title ||
      v.content !== saved.content ||
      (kind.hasLabels && v.labels.join('\n') !== saved.labels.join('\n'))
    );
  };
  const showDirty = () => {
    saveState.textContent = dirty() ? 'Unsaved changes' : doc ? 'All changes saved' : '';
    saveState.classList.toggle('unsaved', dirty());
  };
  form.addEventListener('input', (e) => {
    (e.target as Element).removeAttribute('aria-invalid');
    showDirty();
  });
  app.unsaved = () => (dirty() ? `This ${kind.noun} has unsaved changes. Leave without saving them?` : null);
  let busy = false;
  app.onRemoteChange = (change) => {
    if (!doc || change.id !== doc.id) return false;
    otherChange('in another tab', change.type.endsWith('.deleted')).catch(app.fail);
    return true;
  };

  /**
   * Another writer changed (or deleted) the shown post, `where`: with nothing unsaved here the form shows the
   * newer version in place — the form stays, so nothing typed meanwhile is lost — otherwise the person is told.
   */
  async function otherChange(where: 'in another tab' | 'on the server', deleted = false): Promise<void> {
    if (!doc) return;
    const { id, etag } = doc;
    const latest = deleted
      ? null
      : await kind.get(id).catch((e: unknown) => (isNotFound(e) ? null : Promise.reject(e)));
    if (doc?.id !== id || doc.etag !== etag || latest?.etag === etag) return; // a save or a load took over, or nothing moved
    if (!latest) {
      mount(
        remoteSlot,
        h(
          'p',
          { class: 'note' },
          `This ${kind.noun} was deleted for good ${where}. Saving it here will fail; copy your text if you need it.`,
        ),
      );
    } else if (!dirty() && !busy && !conflictSlot.hasChildNodes()) {
      load(latest);
      app.notify(`Updated with a change from ${where === 'on the server' ? 'the server' : 'another tab'}.`);
    } else {
      mount(
        remoteSlot,
        h(
          'p',
          { class: 'note' },
          `This ${kind.noun} was just changed ${where}. If you save here, you will be asked whether to overwrite that change. `,
          h('button', { type: 'button', class: 'link', onclick: () => reloadLatest(id) }, 'Reload to see it'),
        ),
      );
    }
  }

  /**
   * The replica sent this post and it took its server id: the view follows it there (the address too). With the
   * same text as loaded here, the moved record is taken whole (its etag); otherwise the etag loaded here stays,
   * so a save meets the other change as a conflict. What is typed and not saved stays in the form.
   */
  async function follow(): Promise<void> {
    if (!doc) return;
    const id = await app.currentId(doc.id);
    if (id === doc.id) return;
    const moved = await kind.get(id);
    const was = doc;
    const same =
      moved.title === was.title &&
      moved.content === was.content &&
      moved.status === was.status &&
      ((moved as Post).labels ?? []).join('\n') === ((was as Post).labels ?? []).join('\n');
    if (doc !== was) return; // a write or a load took over meanwhile
    if (same && !dirty()) load(moved);
    else {
      doc = (same ? moved : { ...was, id: moved.id }) as Doc;
      refresh();
    }
    app.setAddress(address(id));
  }
  // What a round pulled may be this post, changed or deleted on the server: a sync never redraws the form.
  app.onSynced = (pulled) => {
    if (!busy)
      follow()
        .then(() => (pulled ? otherChange('on the server') : undefined))
        .catch(app.fail);
  };

  let previewTimer: number | undefined;
  const showPreview = () => {
    if (previewBox.open)
      mount(
        preview,
        htmlFrame(
          asReadersSee(content.html() || '<p><em>Nothing to preview yet.</em></p>'),
          `Preview of the ${kind.noun}`,
          app.pictures ?? undefined,
        ),
      );
  };
  previewBox.addEventListener('toggle', showPreview);

  /** Puts a stored version in the form (on open, after "reload", after a write). */
  function load(next: Doc | null) {
    doc = next;
    title.value = doc?.title ?? '';
    content.setHtml(doc?.content ?? '');
    labels.value = ((doc as Post | null)?.labels ?? []).join(', ');
    at.value = doc?.status === 'SCHEDULED' ? localInput(doc.published) : '';
    refresh();
    showPreview();
  }

  /** Everything that depends on the stored state: heading, badge, buttons, details. */
  function refresh() {
    const status = doc?.status;
    const trashed = status === 'SOFT_TRASHED';
    heading.textContent = doc ? `Edit ${kind.noun}` : `New ${kind.noun}`;
    mount(badgeSlot, badge(status));
    togetherLink.hidden = !(app.connection && doc && kind.noun === 'post' && status !== 'SOFT_TRASHED');
    if (doc) togetherLink.setAttribute('href', `#/posts/together/${encodeURIComponent(doc.id)}`);
    trashNote.hidden = !trashed;
    for (const field of [title, labels]) field.readOnly = trashed;
    content.setReadOnly(trashed);
    scheduleBox.hidden = !(!doc || status === 'DRAFT' || status === 'SCHEDULED');
    const button = (label: string, onclick: () => void, variant = '') =>
      h(
        'button',
        {
          type: variant === 'primary' ? 'submit' : 'button',
          class: variant,
          onclick: variant === 'primary' ? undefined : onclick,
        },
        label,
      );
    if (!doc) {
      mount(
        actions,
        button('Save draft', primary, 'primary'),
        button('Publish now', () => save('publish')),
      );
    } else if (trashed) {
      mount(actions, button('Restore as draft', restore), button('Delete forever', destroy, 'danger'));
    } else {
      mount(
        actions,
        button(status === 'LIVE' ? 'Update' : status === 'SCHEDULED' ? 'Save' : 'Save draft', primary, 'primary'),
        status !== 'LIVE' ? button('Publish now', () => save('publish')) : null,
        status === 'LIVE' || status === 'SCHEDULED' ? button('Revert to draft', () => save('revert')) : null,
        button('Move to trash', trash, 'quiet'),
        button('Delete forever', destroy, 'danger'),
      );
    }
    const comments = (doc as Post | null)?.replies?.totalItems;
    mount(
      meta,
      ...(doc
        ? [
            doc.url ? [h('dt', null, 'Address'), h('dd', { class: 'url' }, new URL(doc.url).pathname)] : null,
            doc.published && status !== 'DRAFT'
              ? [h('dt', null, status === 'SCHEDULED' ? 'Goes live' : 'Published'), h('dd', null, when(doc.published))]
              : null,
            doc.trashed ? [h('dt', null, 'Trashed'), h('dd', null, when(doc.trashed))] : null,
            h('dt', null, 'Last saved'),
            h('dd', null, when(doc.updated)),
            comments !== undefined
              ? [
                  h('dt', null, 'Comments'),
                  h(
                    'dd',
                    null,
                    `${comments} published · `,
                    h('a', { href: `#/comments/pending?post=${doc.id}` }, 'moderate'),
                  ),
                ]
              : null,
            status === 'LIVE'
              ? [
                  h('dt', null, 'Readers'),
                  h('dd', null, h('a', { href: `#/read/${kind.noun}/${doc.id}` }, 'See it as a reader')),
                ]
              : null,
          ]
        : [
            h(
              'dd',
              { class: 'hint' },
              app.server
                ? `A new ${kind.noun} is saved in this browser first, and sent to ${app.server} when you are online.`
                : `A new ${kind.noun} is saved in this browser only. Nothing leaves this device.`,
            ),
          ]),
    );
    showDirty();
  }

  /**
   * Runs one write with the loaded etag. A 412 shows the conflict (and keeps the form as it is); any other
   * failure goes to the page's problem list. `act` takes the etag so "overwrite" can rerun it with a fresh one.
   */
  async function run(act: (etag: string) => Promise<Doc | 'gone'>, done: Done): Promise<void> {
    app.clearProblems();
    conflictSlot.replaceChildren();
    remoteSlot.replaceChildren();
    busy = true;
    form.setAttribute('aria-busy', 'true');
    for (const b of actions.querySelectorAll('button')) b.disabled = true;
    try {
      await follow();
      settle(await act(doc?.etag ?? ''), done);
    } catch (error) {
      if (isConflict(error) && doc) showConflict(act, done);
      else app.fail(error);
      refresh();
    } finally {
      busy = false;
      form.removeAttribute('aria-busy');
    }
  }

  function settle(result: Doc | 'gone', done: Done) {
    app.notify(typeof done === 'string' ? done : done(result as Doc));
    if (result === 'gone') {
      doc = null;
      app.unsaved = null;
      app.go(kind.listHref);
      return;
    }
    const shown = doc?.id;
    load(result);
    if (result.id !== shown) app.setAddress(address(result.id));
    if (!root.contains(document.activeElement)) (actions.querySelector('button') as HTMLButtonElement | null)?.focus();
  }

  function showConflict(act: (etag: string) => Promise<Doc | 'gone'>, done: Done) {
    const current = doc!;
    mount(
      conflictSlot,
      h(
        'div',
        { class: 'conflict', role: 'alert' },
        h('h2', null, 'Changed in another tab'),
        h(
          'p',
          null,
          `This ${kind.noun} was changed in another tab (or window) after you opened it, so your version was not saved. `,
          'Reload to see the saved version (your edits here are dropped), or overwrite it with your version.',
        ),
        h(
          'div',
          { class: 'actions' },
          h('button', { type: 'button', onclick: () => reloadLatest(current.id) }, 'Reload to see it'),
          h(
            'button',
            {
              type: 'button',
              class: 'danger',
              onclick: () =>
                run(async () => {
                  // Overwrite what is stored now — and only that: a third change meanwhile conflicts again.
                  const latest = await kind.get(current.id);
                  doc = { ...current, etag: latest.etag, status: latest.status } as Doc;
                  return act(latest.etag);
                }, done),
            },
            'Overwrite with my version',
          ),
        ),
      ),
    );
    (conflictSlot.querySelector('button') as HTMLButtonElement).focus();
  }

  async function reloadLatest(postId: string) {
    app.clearProblems();
    try {
      load(await kind.get(postId));
      conflictSlot.replaceChildren();
      remoteSlot.replaceChildren();
      app.notify(`Showing the latest saved version of this ${kind.noun}.`);
      title.focus();
    } catch (error) {
      app.fail(error);
    }
  }

  function primary() {
    if (doc?.status === 'SOFT_TRASHED') return;
    void save('keep');
  }

  /** Whether the form passes the service's rules for the body; if not, says why as the service would and marks the field. */
  function checked({ title: t, content: c, labels: l }: Fields): boolean {
    app.clearProblems();
    try {
      parse(kind.body, kind.hasLabels ? { title: t, content: c, labels: l } : { title: t, content: c });
      return true;
    } catch (error) {
      app.fail(error);
      const byName: Record<string, HTMLElement> = { title, labels, content: content.element };
      const field = BlogError.is(error) && error.location ? byName[error.location] : undefined;
      field?.setAttribute('aria-invalid', 'true');
      field?.focus();
      return false;
    }
  }

  function save(how: How) {
    const fields = values();
    if (!checked(fields)) return;
    return run(
      (etag) =>
        doc
          ? kind.save(doc, etag, fields, how)
          : kind.create(fields, how === 'keep' || how === 'revert' ? 'draft' : how),
      (saved) => {
        if (typeof how === 'object') {
          return saved.status === 'SCHEDULED'
            ? `Scheduled: it goes live ${new Date(saved.published!).toLocaleString()}.`
            : 'Published, back-dated.';
        }
        return how === 'publish'
          ? 'Published.'
          : how === 'revert'
            ? 'Reverted to draft.'
            : doc
              ? 'Saved.'
              : 'Draft saved.';
      },
    );
  }

  function schedule() {
    if (!at.value) {
      at.setCustomValidity('Choose the date and time to publish at.');
      at.reportValidity();
      at.addEventListener('input', () => at.setCustomValidity(''), { once: true });
      return;
    }
    void save({ at: new Date(at.value).toISOString() });
  }

  function trash() {
    void run(async (etag) => {
      await kind.trash(doc!.id, etag);
      return kind.get(doc!.id);
    }, `Moved to the trash. Find it under Trash to restore it.`);
  }

  function restore() {
    void run((etag) => kind.restore(doc!.id, etag), 'Restored as a draft.');
  }

  function destroy() {
    if (
      !confirm(
        `Delete “${doc!.title || 'untitled'}” for good${kind.noun === 'post' ? ', with its comments' : ''}? This cannot be undone.`,
      )
    )
      return;
    void run(async (etag) => {
      await kind.destroy(doc!.id, etag);
      return 'gone';
    }, `${Noun} deleted for good.`);
  }

  app.onLeave = () => content.destroy();
  load(doc);
  return root;
}

let readerCss: string | undefined;
/**
 * Content in the reading site's column with the default theme's own style sheet (taken from its layout, so the
 * preview follows the theme): pictures at the width readers get (`.wrap` is the column `sizes` names), figures
 * aligned and captioned as the site shows them.
 */
function asReadersSee(content: string): string {
  readerCss ??=
    /<style>([\s\S]*?)<\/style>/.exec(
      String(
        defaultTheme.layout({
          blog: { id: '', name: '', description: '', url: '/', lang: 'en', home: '/', search: null },
          kind: 'post',
          title: '',
          feeds: { atom: '', rss: '' },
          head: siteHtml``,
          body: siteHtml``,
        }),
      ),
    )?.[1] ?? '';
  return `<style>${readerCss}</style><div class="wrap"><div class="content">${content}</div></div>`;
}
