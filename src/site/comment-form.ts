/**
 * The comment form's POST: a plain `application/x-www-form-urlencoded` body (`name`, `content`, the hidden
 * `website` and `token`), added as an anonymous reader's comment from the request's client address (so it
 * starts PENDING, or SPAM, and goes through the service's limits, sanitizer and `readerComments` rule), then a
 * redirect to the post (post/redirect/get). A bot's form stores nothing and gets the same redirect. A refused
 * comment shows the post again with the reason and what was typed (429: "wait a little").
 */
import type { IncomingLike } from '../web/dispatch.js';
import type { Post } from '../schema/resources.js';
import { BlogError } from '../util/errors.js';
import { escapeHtml } from './html.js';
import { HONEYPOT } from './theme.js';
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

/** What a bot is answered (the same as an accepted comment: it learns nothing), and what a person is after theirs. */
const accepted = (path: string) => ({ location: `${path}?comment=pending#comments` });

export async function addComment(
  parts: SiteParts,
  scope: BlogScope,
  path: string,
  incoming: IncomingLike,
  maxBytes: number,
  client: { clientAddress?: string; userAgent?: string; referrer?: string },
): Promise<Rendered | { location: string }> {
  // The whole body is read (and size-checked) before anything else.
  const bytes = await incoming.readBody(maxBytes);
  const postPath = scope.base + path.replace(/^\//, '');
  const typed = /^application\/x-www-form-urlencoded\s*(;|$)/i.test(incoming.header('content-type') ?? '');
  const fields = new URLSearchParams(typed ? new TextDecoder().decode(bytes) : '');
  const values = {
    name: (fields.get('name') ?? '').trim().slice(0, 100),
    content: (fields.get('content') ?? '').trim(),
  };
  // A bot's form (its hidden field filled in, no token or a forged one, sent too soon) stores nothing and reads
  // nothing: it is answered as if it were accepted (docs/comments.md).
  const token = typed ? await parts.tokens.check(fields.get('token'), scope.blog.id) : undefined;
  if (typed && values.content && (fields.get(HONEYPOT) || (token && !token.ok && token.why !== 'expired')))
    return accepted(postPath);
  const again = async (status: 400 | 403 | 409 | 429, error?: string) => {
    const post = await postAt(parts, scope, path);
    if (!post) return renderNotFound(parts, scope);
    const action = `${new URL(post.url!).pathname}#comments`;
    return renderPostResource(parts, scope, post, {
      status,
      ...(error !== undefined ? { form: { action, values, error } } : {}),
    });
  };
  if (!typed) return again(400, 'Send the comment with the form below.');
  if (!values.content) return again(400, 'Write a comment before sending it.');
  if (token?.ok !== true) return again(400, 'This form was open for too long: send your comment again.');
  try {
    await parts.reader.comments.insert({
      blogId: scope.blog.id,
      postId: token.postId,
      body: { content: textToHtml(values.content), ...(values.name ? { author: { displayName: values.name } } : {}) },
      ...client,
    });
  } catch (e) {
    if (!BlogError.is(e)) throw e;
    if (e.code === 429)
      return again(
        429,
        'You are sending comments faster than this blog takes them: wait a little, then send it again.',
      );
    if (e.code === 400) return again(400, e.message);
    if (e.code === 409 && e.location === 'body.content') return again(409, 'You have already sent this comment.');
    if (e.code === 403) return again(403);
    if (e.code === 404 || e.code === 409) return renderNotFound(parts, scope);
    throw e;
  }
  return accepted(postPath);
}

/** The LIVE post at a path, or undefined. */
async function postAt(parts: SiteParts, scope: BlogScope, path: string): Promise<Post | undefined> {
  try {
    return await parts.reader.posts.getByPath({ blogId: scope.blog.id, path });
  } catch (e) {
    if (BlogError.is(e) && (e.code === 404 || e.code === 400)) return undefined;
    throw e;
  }
}
