/**
 * The comment form's POST: a plain `application/x-www-form-urlencoded` body (`name`, `content`), added as an
 * anonymous reader's comment (so it starts PENDING and goes through the service's sanitizer and its
 * `readerComments` rule), then a redirect to the post (post/redirect/get). A refused comment shows the post
 * again with the reason and what was typed.
 */
import { mayComment } from '../rules/access.js';
import type { IncomingLike } from '../web/dispatch.js';
import type { Post } from '../schema/resources.js';
import { BlogError } from '../util/errors.js';
import { escapeHtml } from './html.js';
import { type Rendered, renderNotFound, renderPostResource, type SiteParts } from './render.js';
import type { BlogScope } from './views.js';

/** What a reader typed, as comment HTML: text escaped, blank lines as paragraphs, line breaks kept. */
export function textToHtml(text: string): string {
  return text
    .replace(/\r\n?/g, '\n')
    .split(/\n{2,}/)
    .map((p) => `<p>${escapeHtml(p.trim()).replace(/\n/g, '<br>')}</p>`)
    .join('');
}

export async function addComment(
  parts: SiteParts,
  scope: BlogScope,
  path: string,
  incoming: IncomingLike,
  maxBytes: number,
): Promise<Rendered | { location: string }> {
  // The whole body is read (and size-checked) before anything else.
  const bytes = await incoming.readBody(maxBytes);
  let post: Post;
  try {
    post = await parts.reader.posts.getByPath({ blogId: scope.blog.id, path });
  } catch (e) {
    if (BlogError.is(e) && (e.code === 404 || e.code === 400)) return renderNotFound(parts, scope);
    throw e;
  }
  const postPath = new URL(post.url!).pathname;
  const form = (values: { name: string; content: string }, error: string) => ({
    action: `${postPath}#comments`,
    values,
    error,
  });
  if (!/^application\/x-www-form-urlencoded\s*(;|$)/i.test(incoming.header('content-type') ?? '')) {
    return renderPostResource(parts, scope, post, {
      status: 400,
      form: form({ name: '', content: '' }, 'Send the comment with the form below.'),
    });
  }
  const fields = new URLSearchParams(new TextDecoder().decode(bytes));
  const values = {
    name: (fields.get('name') ?? '').trim().slice(0, 100),
    content: (fields.get('content') ?? '').trim(),
  };
  // The form posts as an anonymous reader: refused where the post takes no new comments from one.
  if (!mayComment(post.readerComments ?? 'ALLOW', null)) return renderPostResource(parts, scope, post, { status: 403 });
  if (!values.content)
    return renderPostResource(parts, scope, post, {
      status: 400,
      form: form(values, 'Write a comment before sending it.'),
    });
  try {
    await parts.reader.comments.insert({
      blogId: scope.blog.id,
      postId: post.id,
      body: { content: textToHtml(values.content), ...(values.name ? { author: { displayName: values.name } } : {}) },
    });
  } catch (e) {
    if (!BlogError.is(e)) throw e;
    if (e.code === 400) return renderPostResource(parts, scope, post, { status: 400, form: form(values, e.message) });
    if (e.code === 403) return renderPostResource(parts, scope, post, { status: 403 });
    if (e.code === 404 || e.code === 409) return renderNotFound(parts, scope);
    throw e;
  }
  return { location: `${postPath}?comment=pending#comments` };
}
