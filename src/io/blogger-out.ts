/**
 * Blogger Atom out, in the Takeout dialect: `blogger:type`, `blogger:status` (so drafts, scheduled and
 * trashed posts, pending, spam and emptied comments keep their state), `blogger:filename` (the path),
 * `blogger:parent` / `blogger:inReplyTo` for threads; labels as Blogger's label categories. Each entry also
 * carries the legacy markers (the `kind#post|page|comment` category, `app:draft`, `thr:in-reply-to`), so
 * readers of Blogger's older Atom export understand it too.
 */
import { type Core, type CommentRecord, type PageRecord, type PostRecord, publicUrl } from '../service/store.js';
import { blogOf, commentsOf, pages, posts, userCache } from './walk.js';
import { esc } from '../util/xml.js';

const LABEL_SCHEME = 'http://www.blogger.com/atom/ns#';
const kind = (k: 'post' | 'page' | 'comment') =>
  `<category scheme='http://schemas.google.com/g/2005#kind' term='http://schemas.google.com/blogger/2008/kind#${k}'/>`;

export async function* exportBlogger(core: Core, blogId: string): AsyncGenerator<string> {
  const blog = await blogOf(core, blogId);
  const userOf = userCache(core);
  const tag = (kind: 'post' | 'page', id: string) => `tag:blogger.com,1999:blog-${blogId}.${kind}-${id}`;
  const owner = await userOf(blog.ownerId);
  yield `<?xml version='1.0' encoding='UTF-8'?>
<feed xmlns='http://www.w3.org/2005/Atom' xmlns:blogger='http://schemas.google.com/blogger/2018' xmlns:app='http://purl.org/atom/app#' xmlns:thr='http://purl.org/syndication/thread/1.0'>
<id>tag:blogger.com,1999:blog-${esc(blogId)}.archive</id>
<title type='text'>${esc(blog.name)}</title>
<subtitle type='html'>${esc(blog.description)}</subtitle>
<link rel='alternate' type='text/html' href='${esc(blog.url)}'/>
<author><name>${esc(owner?.displayName ?? blog.ownerId)}</name>${owner?.url ? `<uri>${esc(owner.url)}</uri>` : ''}</author>
<updated>${blog.updated}</updated>
<generator>blogcore</generator>
`;
  const author = async (id: string | undefined, name?: string, url?: string) => {
    const u = id ? await userOf(id) : undefined;
    const n = u?.displayName ?? name ?? 'Anonymous';
    const uri = u?.url ?? url;
    return `<author><name>${esc(n)}</name>${uri ? `<uri>${esc(uri)}</uri>` : ''}<blogger:type>${id ? 'BLOGGER' : 'ANONYMOUS'}</blogger:type></author>`;
  };
  const entry = async (type: 'post' | 'page', p: PostRecord | PageRecord) => {
    const labels = 'labels' in p ? p.labels : [];
    return `<entry>
<id>${tag(type, p.id)}</id>
${kind(type)}
<blogger:type>${type.toUpperCase()}</blogger:type>
<blogger:status>${p.status}</blogger:status>
${await author(p.authorId)}
<title type='text'>${esc(p.title)}</title>
<content type='html'>${esc(p.content)}</content>
${p.published ? `<published>${p.published}</published>\n` : ''}<updated>${p.updated}</updated>
${labels.map((l) => `<category scheme='${LABEL_SCHEME}' term='${esc(l)}'/>\n`).join('')}${p.status === 'DRAFT' ? `<app:control><app:draft>yes</app:draft></app:control>\n` : ''}${p.path ? `<blogger:filename>${esc(p.path)}</blogger:filename>\n<link rel='alternate' type='text/html' href='${esc(publicUrl(blog, p.path))}'/>\n` : ''}</entry>
`;
  };
  const comment = async (c: CommentRecord) => `<entry>
<id>${tag('post', c.id)}</id>
${kind('comment')}
<blogger:type>COMMENT</blogger:type>
<blogger:status>${c.status}</blogger:status>
${await author(c.authorId, c.authorName, c.authorUrl)}
<title type='text'></title>
<content type='html'>${esc(c.content)}</content>
<published>${c.published}</published>
<updated>${c.updated}</updated>
<blogger:parent>${tag('post', c.postId)}</blogger:parent>
<thr:in-reply-to ref='${tag('post', c.postId)}' type='text/html'/>
${c.inReplyTo ? `<blogger:inReplyTo>${tag('post', c.inReplyTo)}</blogger:inReplyTo>\n` : ''}</entry>
`;
  for await (const p of posts(core, blogId)) {
    yield await entry('post', p);
    for await (const c of commentsOf(core, p)) yield await comment(c);
  }
  for await (const p of pages(core, blogId)) yield await entry('page', p);
  yield '</feed>\n';
}
