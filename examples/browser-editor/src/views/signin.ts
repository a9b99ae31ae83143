/**
 * Signing in to a blogcore server: its address and a bearer token (the admin token `blogcore serve` prints,
 * or an author's), then the blog to replicate. The choice is saved and the editor reopens on that blog.
 */
import { apiRoot, saveConnection, signIn, type Account } from '../connection.js';
import { h, mount } from '../dom.js';
import { problemBox } from '../shell.js';

export function signInForm(): HTMLElement {
  const server = h('input', {
    id: 'server',
    name: 'server',
    type: 'url',
    required: true,
    autocomplete: 'url',
    value: 'http://127.0.0.1:8080',
  });
  const token = h('input', {
    id: 'token',
    name: 'token',
    type: 'password',
    required: true,
    autocomplete: 'current-password',
    spellcheck: false,
  });
  const problems = h('div', { role: 'alert' });
  const choice = h('div', { class: 'blog-choice' });
  const submit = h('button', { type: 'submit', class: 'primary' }, 'Sign in');

  let account: Account | null = null;
  let api = '';
  const form = h(
    'form',
    {
      class: 'sign-in',
      onsubmit: async (e: Event) => {
        e.preventDefault();
        if (!form.reportValidity()) return;
        problems.replaceChildren();
        submit.disabled = true;
        try {
          if (!account) {
            api = apiRoot(server.value);
            account = await signIn(api, token.value.trim());
            if (account.blogs.length === 0)
              throw Object.assign(new Error('This account has no blog on that server.'), { name: 'SignInError' });
            if (account.blogs.length > 1) return showChoice(account);
          }
          const picked =
            account.blogs.length === 1
              ? account.blogs[0]!
              : account.blogs.find((b) => b.id === (form.elements.namedItem('blog') as HTMLSelectElement).value)!;
          saveConnection({ api, token: token.value.trim(), blogId: picked.id, blogName: picked.name });
          location.hash = '#/posts';
          location.reload();
        } catch (error) {
          account = null;
          problems.append(problemBox(error));
        } finally {
          submit.disabled = false;
        }
      },
    },
    h(
      'div',
      { class: 'field' },
      h('label', { for: 'server' }, 'Server address'),
      server,
      h('p', { class: 'hint' }, 'Where blogcore serve runs, e.g. http://127.0.0.1:8080'),
    ),
    h(
      'div',
      { class: 'field' },
      h('label', { for: 'token' }, 'Token'),
      token,
      h('p', { class: 'hint' }, 'The admin token blogcore serve printed on its first run, or an author’s token.'),
    ),
    choice,
    problems,
    submit,
  );

  function showChoice(a: Account) {
    server.readOnly = token.readOnly = true;
    const select = h(
      'select',
      { id: 'blog', name: 'blog' },
      ...a.blogs.map((b) => h('option', { value: b.id }, b.name)),
    );
    mount(choice, h('div', { class: 'field' }, h('label', { for: 'blog' }, 'Blog to edit in this browser'), select));
    submit.textContent = 'Replicate this blog';
    select.focus();
  }
  return form;
}

/** The local-only editor's way to a server (`#/sync` without a connection). */
export function connectView(): HTMLElement {
  return h(
    'section',
    { class: 'view connect-view' },
    h('div', { class: 'page-head' }, h('h1', { tabIndex: -1 }, 'Sync with a server')),
    h(
      'p',
      null,
      'This blog lives only in this browser. Sign in to a blogcore server to edit one of its blogs here instead: it is copied into this browser, ',
      'works offline, and your changes are sent when you are online. The blog in this browser stays here, untouched, for when you sign out.',
    ),
    signInForm(),
  );
}
