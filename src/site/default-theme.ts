/**
 * The default theme: semantic HTML (landmarks, one `h1` per page, headings in order, `<time>`, labelled form
 * fields, a skip link), readable on a phone (fluid width, system fonts, large tap targets), light and dark
 * colours with AA contrast, and no script. Each part can be replaced on its own: `{ ...defaultTheme, post }`.
 */
import { html, type Html, raw } from './html.js';
import type { CommentView, ListView, PostSummary, PostView, SiteBlog, Theme } from './theme.js';

const CSS = `
:root{color-scheme:light dark;--fg:#1b1b1b;--muted:#545454;--bg:#fff;--link:#0b57d0;--line:#d9d9d9;--soft:#f4f4f4}
@media (prefers-color-scheme:dark){:root{--fg:#e8e8e8;--muted:#b4b4b4;--bg:#121212;--link:#8ab4f8;--line:#3a3a3a;--soft:#1e1e1e}}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--fg);font:1.0625rem/1.65 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;overflow-wrap:break-word}
a{color:var(--link)}
a:focus-visible,button:focus-visible,input:focus-visible,textarea:focus-visible{outline:3px solid var(--link);outline-offset:2px}
.skip{position:absolute;left:-999px}.skip:focus{left:1rem;top:1rem;background:var(--bg);padding:.5rem}
.wrap{max-width:44rem;margin:0 auto;padding:0 1rem}
header.site{border-bottom:1px solid var(--line);padding:1rem 0}
.site-name{font-size:1.5rem;font-weight:700;margin:0}.site-name a{color:var(--fg);text-decoration:none}
.site-description{color:var(--muted);margin:.25rem 0 0}
nav.site ul{list-style:none;display:flex;flex-wrap:wrap;gap:.25rem 1rem;padding:0;margin:.75rem 0 0}
nav.site a,.more a{display:inline-block;padding:.25rem 0}
form.search{display:flex;gap:.5rem;margin-top:.75rem;flex-wrap:wrap}
input,textarea,button{font:inherit;color:inherit}
input,textarea{background:var(--bg);border:1px solid var(--muted);border-radius:4px;padding:.4rem .5rem;max-width:100%}
textarea{width:100%}
button{background:var(--link);color:var(--bg);border:0;border-radius:4px;padding:.45rem 1rem;cursor:pointer}
main{padding:1rem 0 2rem}
h1{line-height:1.25;font-size:1.9rem;margin:.5rem 0}
h2{line-height:1.3;font-size:1.35rem;margin:1.5rem 0 .25rem}
.meta,.labels,.note{color:var(--muted);font-size:.95rem}
ol.posts,ol.comments{list-style:none;padding:0;margin:0}
ol.posts>li{border-bottom:1px solid var(--line);padding-bottom:.5rem}
ol.comments>li{background:var(--soft);border-radius:6px;padding:.5rem .9rem;margin:.75rem 0}
.content img,.content video,.content iframe{max-width:100%;height:auto}
.content figure{margin:1.25rem 0}.content figure img{display:block}
.content figcaption{color:var(--muted);font-size:.9rem;margin-top:.35rem}
.content figure[data-align=center]{text-align:center}.content figure[data-align=center] img{margin:0 auto}
.content figure[data-align=wide] img{width:100%}
@media(min-width:40rem){.content figure[data-align=left]{float:left;max-width:50%;margin:.25rem 1.25rem 1rem 0}}
.content pre{overflow-x:auto;background:var(--soft);padding:.75rem}
.content table{display:block;overflow-x:auto}
.more{display:flex;justify-content:space-between;gap:1rem;margin-top:1.5rem}
.notice{border-left:4px solid var(--link);padding:.25rem .75rem}
.error{border-left:4px solid #c5221f;padding:.25rem .75rem}
.hp{position:absolute;left:-10000px;width:1px;height:1px;overflow:hidden}
footer.site{border-top:1px solid var(--line);padding:1rem 0;color:var(--muted);font-size:.95rem}
`
  .trim()
  .replace(/\n/g, '');

/** A date as people read it in the blog's language (UTC, as post paths are), kept per language and day. */
const dates = new Map<string, string>();
export function readableDate(iso: string, lang: string): string {
  const key = `${lang} ${iso.slice(0, 10)}`;
  let text = dates.get(key);
  if (text === undefined) {
    let format: Intl.DateTimeFormat;
    try {
      format = new Intl.DateTimeFormat(lang, { dateStyle: 'long', timeZone: 'UTC' });
    } catch {
      format = new Intl.DateTimeFormat('en', { dateStyle: 'long', timeZone: 'UTC' });
    }
    text = format.format(new Date(iso));
    if (dates.size >= 10_000) dates.clear();
    dates.set(key, text);
  }
  return text;
}

const time = (iso: string, blog: SiteBlog) => html`<time datetime="${iso}">${readableDate(iso, blog.lang)}</time>`;
const titleOf = (t: string) => t || 'Untitled';

const labels = (post: PostSummary) =>
  post.labels.length
    ? html`<p class="labels">Labels: ${post.labels.map((l, i) => html`${i ? ', ' : ''}<a href="${l.path}" rel="tag">${l.text}</a>`)}</p>`
    : '';

const byline = (post: PostSummary, blog: SiteBlog) =>
  html`<p class="meta">${time(post.published, blog)} · by ${post.author.url ? html`<a href="${post.author.url}" rel="author">${post.author.name}</a>` : post.author.name}</p>`;

function postList(list: ListView, blog: SiteBlog, heading: string): Html {
  return html`<h1>${heading}</h1>
${list.posts.length === 0 ? html`<p>No posts here yet.</p>` : ''}<ol class="posts">${list.posts.map(
    (p) =>
      html`<li><article><h2><a href="${p.path}">${titleOf(p.title)}</a></h2>${byline(p, blog)}<p>${p.excerpt}</p>${labels(p)}</article></li>`,
  )}</ol>
${
  list.older || list.first
    ? html`<nav class="more" aria-label="More posts">${list.first ? html`<a href="${list.first}">Newest posts</a>` : html`<span></span>`}${
        list.older ? html`<a href="${list.older}" rel="next">Older posts</a>` : ''
      }</nav>`
    : ''
}`;
}

function comment(c: CommentView, blog: SiteBlog, names: ReadonlyMap<string, string>): Html {
  const replyTo =
    c.inReplyTo && names.has(c.inReplyTo)
      ? html` · in reply to <a href="#c-${c.inReplyTo}">${names.get(c.inReplyTo)}</a>`
      : '';
  const who = c.author.url ? html`<a href="${c.author.url}" rel="nofollow ugc">${c.author.name}</a>` : c.author.name;
  return html`<li id="c-${c.id}"><article><p class="meta"><strong>${who}</strong> · ${time(c.published, blog)}${replyTo}</p>${
    c.removed ? html`<p class="note">This comment has been removed.</p>` : html`<div class="content">${c.content}</div>`
  }</article></li>`;
}

function comments(c: PostView['comments'], blog: SiteBlog, heading: 'h2' | 'h1' = 'h2'): Html {
  const names = new Map(c.items.map((x) => [x.id, x.author.name]));
  const h =
    heading === 'h1' ? html`<h1 id="comments-title">Comments</h1>` : html`<h2 id="comments-title">Comments</h2>`;
  const form = c.form;
  return html`<section id="comments" aria-labelledby="comments-title">${h}
${c.items.length ? html`<ol class="comments">${c.items.map((x) => comment(x, blog, names))}</ol>` : html`<p>No comments yet.</p>`}
${c.more ? html`<p class="more"><a href="${c.more}">More comments</a></p>` : ''}
${c.pending ? html`<p class="notice" role="status">Thank you: your comment will appear once the blog's author approves it.</p>` : ''}
${c.closed ? html`<p class="note">Comments are closed.</p>` : ''}
${
  form
    ? html`<form method="post" action="${form.action}" class="comment-form">
<h3>Leave a comment</h3>
${form.error ? html`<p class="error" role="alert">${form.error}</p>` : ''}
${form.hidden}
<p><label for="comment-name">Name (optional)</label><br><input id="comment-name" type="text" name="name" maxlength="100" autocomplete="name" value="${form.values.name}"></p>
<p><label for="comment-content">Comment</label><br><textarea id="comment-content" name="content" rows="6" maxlength="4096" required>${form.values.content}</textarea></p>
<p><button type="submit">Send comment</button></p>
<p class="note">Comments appear once the blog's author approves them.</p>
</form>`
    : ''
}</section>`;
}

/**
 * The theme `createSite` and `exportSite` use for every part a `theme` option leaves out: accessible, phone-ready
 * HTML and CSS, no script. Replace parts with `{ theme: { post } }`, or build on it: `{ ...defaultTheme, post }`.
 */
export const defaultTheme: Theme = {
  layout: ({ blog, title, head, body, feeds }) => html`<!DOCTYPE html>
<html lang="${blog.lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
${head}
<style>${raw(CSS)}</style>
</head>
<body>
<a class="skip" href="#content">Skip to content</a>
<header class="site"><div class="wrap">
<p class="site-name"><a href="${blog.home}">${blog.name}</a></p>
${blog.description ? html`<p class="site-description">${blog.description}</p>` : ''}
<nav class="site" aria-label="Blog"><ul><li><a href="${blog.home}">Home</a></li><li><a href="${feeds.atom}">Feed</a></li></ul></nav>
${
  blog.search
    ? html`<form class="search" role="search" action="${blog.search}" method="get"><label for="search-q">Search this blog</label><input id="search-q" type="search" name="q"><button type="submit">Search</button></form>`
    : ''
}
</div></header>
<main id="content"><div class="wrap">
${body}
</div></main>
<footer class="site"><div class="wrap"><p>${blog.name} · <a href="${feeds.atom}">Atom feed</a> · <a href="${feeds.rss}">RSS feed</a></p></div></footer>
</body>
</html>
`,

  home: (list, blog) =>
    html`${postList(list, blog, list.first ? 'Older posts' : 'Newest posts')}${
      list.pages.length
        ? html`<section aria-labelledby="pages-title"><h2 id="pages-title">Pages</h2><ul>${list.pages.map((p) => html`<li><a href="${p.path}">${p.text}</a></li>`)}</ul></section>`
        : ''
    }`,

  label: (list, blog) => postList(list, blog, `Posts labelled “${list.title}”`),

  archive: (list, blog) => postList(list, blog, `Posts from ${list.title}`),

  search: (list, blog) =>
    list.query
      ? postList(list, blog, `Search results for “${list.query}”`)
      : html`<h1>Search</h1><p>Type words to look for in the search box above.</p>`,

  post: (post, blog) => html`<article class="post">
<header><h1>${titleOf(post.title)}</h1><p class="meta">${time(post.published, blog)} · in <a href="${post.month.path}">${post.month.text}</a> · by ${
    post.author.url ? html`<a href="${post.author.url}" rel="author">${post.author.name}</a>` : post.author.name
  }</p></header>
<div class="content">${post.content}</div>
${post.labels.length ? html`<footer>${labels(post)}</footer>` : ''}
</article>
${comments(post.comments, blog)}`,

  page: (page) => html`<article class="page">
<h1>${titleOf(page.title)}</h1>
<div class="content">${page.content}</div>
</article>`,

  comments: (page, blog) => html`<p><a href="${page.post.path}">← ${titleOf(page.post.text)}</a></p>
${comments(page.comments, blog, 'h1')}`,

  notFound: (blog) => html`<h1>Page not found</h1>
<p>Nothing is published at this address. Try <a href="${blog.home}">the home page</a>${blog.search ? ' or the search box above' : ''}.</p>`,
};
