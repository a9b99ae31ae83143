/**
 * The `<head>` markup the site computes for every page, whatever the theme: description, canonical link,
 * feed links, OpenGraph and Twitter tags, and JSON-LD `BlogPosting` on posts.
 */
import { html, type Html, raw } from './html.js';
import type { LayoutData, PageView, PostView, SiteBlog } from './theme.js';
import type { SizedPicture } from '../web/pictures.js';

export interface HeadInput {
  blog: SiteBlog;
  feeds: LayoutData['feeds'];
  /** Absolute canonical address; none for pages that must not be indexed. */
  canonical?: string;
  description?: string;
  /** Search results and missing pages stay out of search engines. */
  noindex?: boolean;
  /** The post or page shown, for OpenGraph and JSON-LD. */
  post?: PostView;
  page?: PageView;
  /** The featured picture of the post or page, at most 1280 px wide where a variant is (src/web/pictures.ts). */
  image?: SizedPicture;
}

/** JSON for a `<script type="application/ld+json">`: nothing in it can close the element. */
const jsonForScript = (value: unknown) =>
  JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');

function postingOf(post: PostView, blog: SiteBlog, image: string | undefined) {
  return {
    '@context': 'https://schema.org',
    '@type': 'BlogPosting',
    headline: post.title.slice(0, 110),
    url: post.url,
    mainEntityOfPage: { '@type': 'WebPage', '@id': post.url },
    datePublished: post.published,
    dateModified: post.updated,
    author: { '@type': 'Person', name: post.author.name, ...(post.author.url ? { url: post.author.url } : {}) },
    ...(post.excerpt ? { description: post.excerpt } : {}),
    ...(post.labels.length ? { keywords: post.labels.map((l) => l.text).join(', ') } : {}),
    ...(image ? { image } : {}),
    isPartOf: { '@type': 'Blog', name: blog.name, url: blog.url },
  };
}

export function headOf(input: HeadInput): Html {
  const { blog, feeds, canonical, post, page } = input;
  const description = input.description || blog.description;
  const item = post ?? page;
  const image = input.image?.url;
  const { width, height } = input.image ?? {};
  return html`${description ? html`<meta name="description" content="${description}">\n` : ''}${input.noindex ? html`<meta name="robots" content="noindex">\n` : ''}${
    canonical ? html`<link rel="canonical" href="${canonical}">\n` : ''
  }<link rel="alternate" type="application/atom+xml" title="${blog.name} (Atom)" href="${feeds.atom}">
<link rel="alternate" type="application/rss+xml" title="${blog.name} (RSS)" href="${feeds.rss}">
<meta property="og:site_name" content="${blog.name}">
<meta property="og:type" content="${post ? 'article' : 'website'}">
<meta property="og:title" content="${item ? item.title || 'Untitled' : blog.name}">
${canonical ? html`<meta property="og:url" content="${canonical}">\n` : ''}${description ? html`<meta property="og:description" content="${description}">\n` : ''}${
  image ? html`<meta property="og:image" content="${image}">\n` : ''
}${
  width && height
    ? html`<meta property="og:image:width" content="${String(width)}">
<meta property="og:image:height" content="${String(height)}">\n`
    : ''
}<meta name="twitter:card" content="${image ? 'summary_large_image' : 'summary'}">
${
  post
    ? html`<meta property="article:published_time" content="${post.published}">
<meta property="article:modified_time" content="${post.updated}">
${post.labels.map((l) => html`<meta property="article:tag" content="${l.text}">\n`)}<script type="application/ld+json">${raw(jsonForScript(postingOf(post, blog, image)))}</script>`
    : ''
}`;
}
