/**
 * WXR 1.2 out, as WordPress's own exporter writes it: numeric ids (WordPress's importer maps them), tags as
 * `post_tag` categories, `wp:status` and `wp:comment_approved` carrying states. What WordPress has no field
 * for travels as meta: `blogcore_path` keeps urls, `blogcore_status` marks an EMPTIED comment.
 */
import {
  type BlogRecord,
  type Core,
  type CommentRecord,
  type MediaRecord,
  type PageRecord,
  type PostRecord,
  type UserRecord,
  publicUrl,
} from '../service/store.js';
import { slugify } from '../rules/text.js';
import { mayComment } from '../rules/access.js';
import { blogOf, commentsOf, media, members, pages, posts, userCache } from './walk.js';
import { cdata, esc, rfc822, wpDate } from '../util/xml.js';

const STATUS = { LIVE: 'publish', DRAFT: 'draft', SCHEDULED: 'future', SOFT_TRASHED: 'trash' } as const;
const APPROVED = { LIVE: '1', PENDING: '0', SPAM: 'spam', EMPTIED: '1' } as const;

export async function* exportWxr(core: Core, blogId: string): AsyncGenerator<string> {
  const blog = await blogOf(core, blogId);
  const userOf = userCache(core);
  const base = blog.url.replace(/\/$/, '');
  yield `<?xml version="1.0" encoding="UTF-8" ?>
<!-- generator="blogcore" -->
<rss version="2.0" xmlns:excerpt="http://wordpress.org/export/1.2/excerpt/" xmlns:content="http://purl.org/rss/1.0/modules/content/" xmlns:wfw="http://wellformedweb.org/CommentAPI/" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:wp="http://wordpress.org/export/1.2/">
<channel>
\t<title>${esc(blog.name)}</title>
\t<link>${esc(base)}</link>
\t<description>${esc(blog.description)}</description>
\t<pubDate>${rfc822(core.nowIso())}</pubDate>
\t<language>${esc([blog.locale.language, blog.locale.country].filter(Boolean).join('-') || 'en')}</language>
\t<wp:wxr_version>1.2</wp:wxr_version>
\t<wp:base_site_url>${esc(base)}</wp:base_site_url>
\t<wp:base_blog_url>${esc(base)}</wp:base_blog_url>
`;
  // Authors: the owner first (importers take the first as the blog's owner), then the other members.
  const ids = [blog.ownerId];
  for await (const m of members(core, blogId)) if (m.userId !== blog.ownerId) ids.push(m.userId);
  let n = 0;
  for (const id of ids) {
    const u = await userOf(id);
    yield author(u, id, ++n);
  }
  yield '\t<generator>blogcore</generator>\n';
  let wpId = 0;
  let commentId = 0;
  const login = async (id: string) => {
    if (!ids.includes(id)) {
      ids.push(id);
      yield_.push(author(await userOf(id), id, ids.length));
    }
    return id;
  };
  const yield_: string[] = [];
  for await (const p of posts(core, blogId)) {
    const text = item(blog, p, 'post', ++wpId, await login(p.authorId));
    const comments: string[] = [];
    const numbers = new Map<string, number>();
    for await (const c of commentsOf(core, p)) {
      numbers.set(c.id, ++commentId);
      const u = c.authorId ? await userOf(c.authorId) : undefined;
      comments.push(comment(c, u, commentId, c.inReplyTo ? (numbers.get(c.inReplyTo) ?? 0) : 0));
    }
    yield* yield_.splice(0);
    yield `${text}${comments.join('')}\t</item>\n`;
  }
  for await (const p of pages(core, blogId)) {
    const text = item(blog, p, 'page', ++wpId, await login(p.authorId));
    yield* yield_.splice(0);
    yield `${text}\t</item>\n`;
  }
  // Pictures as WordPress attachments: its importer downloads each from its attachment url.
  for await (const m of media(core, blogId)) {
    const text = attachment(core, blog, m, ++wpId, await login(m.authorId));
    yield* yield_.splice(0);
    yield text;
  }
  yield '</channel>\n</rss>\n';
}

/** A picture as a WordPress attachment item. */
function attachment(core: Core, blog: BlogRecord, m: MediaRecord, id: number, by: string): string {
  // An absolute url (media urls are relative when the service has no apiBaseUrl: then the blog's origin serves them).
  const url = new URL(core.links.media(m.blogId, m.sha256, m.filename), blog.url).href;
  return `\t<item>
\t\t<title>${esc(m.filename)}</title>
\t\t<link>${esc(url)}</link>
\t\t<pubDate>${rfc822(m.published)}</pubDate>
\t\t<dc:creator>${cdata(by)}</dc:creator>
\t\t<guid isPermaLink="false">${esc(url)}</guid>
\t\t<description></description>
\t\t<content:encoded><![CDATA[]]></content:encoded>
\t\t<excerpt:encoded>${cdata(m.alt)}</excerpt:encoded>
\t\t<wp:post_id>${id}</wp:post_id>
\t\t<wp:post_date>${cdata(wpDate(m.published))}</wp:post_date>
\t\t<wp:post_date_gmt>${cdata(wpDate(m.published))}</wp:post_date_gmt>
\t\t<wp:post_name>${cdata(slugify(m.filename.replace(/\.[^.]*$/, ''), 'post'))}</wp:post_name>
\t\t<wp:status>inherit</wp:status>
\t\t<wp:post_parent>0</wp:post_parent>
\t\t<wp:post_type>attachment</wp:post_type>
\t\t<wp:post_mime_type>${m.contentType}</wp:post_mime_type>
\t\t<wp:attachment_url>${esc(url)}</wp:attachment_url>
${m.alt ? meta('_wp_attachment_image_alt', m.alt) : ''}\t</item>
`;
}

/** A post or page as a WordPress item, up to its comments (the caller closes it). */
function item(blog: BlogRecord, p: PostRecord | PageRecord, type: 'post' | 'page', id: number, by: string): string {
  const base = blog.url.replace(/\/$/, '');
  const url = p.path ? publicUrl(blog, p.path) : `${base}/?p=${id}`;
  const labels = 'labels' in p ? p.labels : [];
  const slug = p.path ? p.path.replace(/^.*\//, '').replace(/\.html$/, '') : slugify(p.title, type);
  // WordPress's 'open': the public may add comments.
  const open = 'readerComments' in p && mayComment(p.readerComments, null) ? 'open' : 'closed';
  return `\t<item>
\t\t<title>${esc(p.title)}</title>
\t\t<link>${esc(url)}</link>
\t\t<pubDate>${p.published ? rfc822(p.published) : ''}</pubDate>
\t\t<dc:creator>${cdata(by)}</dc:creator>
\t\t<guid isPermaLink="false">${esc(`${base}/?p=${id}`)}</guid>
\t\t<description></description>
\t\t<content:encoded>${cdata(p.content)}</content:encoded>
\t\t<excerpt:encoded><![CDATA[]]></excerpt:encoded>
\t\t<wp:post_id>${id}</wp:post_id>
\t\t<wp:post_date>${cdata(wpDate(p.published ?? p.updated))}</wp:post_date>
\t\t<wp:post_date_gmt>${cdata(wpDate(p.published))}</wp:post_date_gmt>
\t\t<wp:post_modified>${cdata(wpDate(p.updated))}</wp:post_modified>
\t\t<wp:post_modified_gmt>${cdata(wpDate(p.updated))}</wp:post_modified_gmt>
\t\t<wp:comment_status>${open}</wp:comment_status>
\t\t<wp:ping_status>closed</wp:ping_status>
\t\t<wp:post_name>${cdata(slug)}</wp:post_name>
\t\t<wp:status>${STATUS[p.status]}</wp:status>
\t\t<wp:post_parent>0</wp:post_parent>
\t\t<wp:menu_order>0</wp:menu_order>
\t\t<wp:post_type>${type}</wp:post_type>
\t\t<wp:post_password></wp:post_password>
\t\t<wp:is_sticky>0</wp:is_sticky>
${labels.map((l) => `\t\t<category domain="post_tag" nicename="${esc(slugify(l, 'tag'))}">${cdata(l)}</category>\n`).join('')}${p.path ? meta('blogcore_path', p.path) : ''}${meta('blogcore_id', p.id)}`;
}

/** A comment as WordPress writes it inside its item; `u` is its signed-in author, if any. */
function comment(c: CommentRecord, u: UserRecord | undefined, id: number, parent: number): string {
  return `\t\t<wp:comment>
\t\t\t<wp:comment_id>${id}</wp:comment_id>
\t\t\t<wp:comment_author>${cdata(u?.displayName ?? c.authorName ?? 'Anonymous')}</wp:comment_author>
\t\t\t<wp:comment_author_email></wp:comment_author_email>
\t\t\t<wp:comment_author_url>${esc(u?.url ?? c.authorUrl ?? '')}</wp:comment_author_url>
\t\t\t<wp:comment_author_IP></wp:comment_author_IP>
\t\t\t<wp:comment_date>${cdata(wpDate(c.published))}</wp:comment_date>
\t\t\t<wp:comment_date_gmt>${cdata(wpDate(c.published))}</wp:comment_date_gmt>
\t\t\t<wp:comment_content>${cdata(c.content)}</wp:comment_content>
\t\t\t<wp:comment_approved>${APPROVED[c.status]}</wp:comment_approved>
\t\t\t<wp:comment_type>comment</wp:comment_type>
\t\t\t<wp:comment_parent>${parent}</wp:comment_parent>
\t\t\t<wp:comment_user_id>0</wp:comment_user_id>
${c.status === 'EMPTIED' ? `\t\t\t<wp:commentmeta>\n\t\t\t\t<wp:meta_key>blogcore_status</wp:meta_key>\n\t\t\t\t<wp:meta_value>EMPTIED</wp:meta_value>\n\t\t\t</wp:commentmeta>\n` : ''}\t\t</wp:comment>
`;
}

function meta(key: string, value: string): string {
  return `\t\t<wp:postmeta>\n\t\t\t<wp:meta_key>${cdata(key)}</wp:meta_key>\n\t\t\t<wp:meta_value>${cdata(value)}</wp:meta_value>\n\t\t</wp:postmeta>\n`;
}

function author(u: UserRecord | undefined, id: string, n: number): string {
  return `\t<wp:author><wp:author_id>${n}</wp:author_id><wp:author_login>${cdata(id)}</wp:author_login><wp:author_email></wp:author_email><wp:author_display_name>${cdata(u?.displayName ?? id)}</wp:author_display_name><wp:author_first_name><![CDATA[]]></wp:author_first_name><wp:author_last_name><![CDATA[]]></wp:author_last_name></wp:author>\n`;
}
