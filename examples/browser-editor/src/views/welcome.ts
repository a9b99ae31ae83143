/** The first visit: start a blog in this browser, or sign in to a server and edit one of its blogs here. */
import type { Blog, BlogService } from 'blogcore';
import { createBlog } from '../blog.js';
import { h, mount } from '../dom.js';
import { problemBox, root } from '../shell.js';
import { signInForm } from './signin.js';

export function welcome(service: BlogService, start: (blog: Blog) => void): void {
  const you = h('input', { id: 'you', name: 'you', required: true, autocomplete: 'name', value: '' });
  const name = h('input', { id: 'blog-name', name: 'name', required: true, maxLength: 200, value: 'My offline blog' });
  const description = h('textarea', { id: 'blog-description', name: 'description', rows: 2, maxLength: 2000 });
  const problems = h('div', { role: 'alert' });
  const submit = h('button', { type: 'submit', class: 'primary' }, 'Create my blog');
  mount(
    root(),
    h(
      'main',
      { class: 'centered welcome' },
      h('h1', null, 'Start a blog in this browser'),
      h(
        'p',
        null,
        'Everything you write is kept on this device, in the browser’s own storage. It works offline and nothing is sent anywhere.',
      ),
      h(
        'form',
        {
          onsubmit: async (e: Event) => {
            e.preventDefault();
            if (!(e.currentTarget as HTMLFormElement).reportValidity()) return;
            submit.disabled = true;
            problems.replaceChildren();
            try {
              start(
                await createBlog(service, {
                  displayName: you.value.trim(),
                  name: name.value.trim(),
                  description: description.value.trim(),
                }),
              );
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
      h(
        'details',
        { class: 'or-server' },
        h('summary', null, 'Or edit a blog on a blogcore server'),
        h(
          'p',
          null,
          'The blog is copied into this browser: you can keep writing offline, and changes are sent when you are back online.',
        ),
        signInForm(),
      ),
    ),
  );
  you.focus();
}
