/**
 * What a theme is given and what it answers. Every part is a plain function from data to HTML: text fields are
 * plain strings (the `html` tag escapes them), the author's own markup (post and page content, sanitized
 * comments) comes as `Html`. Links are root-relative paths ready for `href`; `url`s are absolute (canonical).
 */
import type { Html } from './html.js';

export interface SiteBlog {
  id: string;
  name: string;
  description: string;
  /** The blog's public address (absolute, with a trailing slash). */
  url: string;
  /** A BCP 47 tag for `<html lang>` (`en` unless the blog's locale says otherwise). */
  lang: string;
  /** The home page's path. */
  home: string;
  /** The search page's path; null in a static export (nothing there can search). */
  search: string | null;
}

export interface Link {
  /** Root-relative path for `href`. */
  path: string;
  /** The text to show. */
  text: string;
}

export interface Person {
  name: string;
  /** A profile url (absolute http(s)), or null. */
  url: string | null;
}

/** What posts and pages have alike. */
export interface Published {
  id: string;
  title: string;
  path: string;
  /** The canonical address. */
  url: string;
  published: string;
  updated: string;
  author: Person;
}

/** A post as a list shows it. */
export interface PostSummary extends Published {
  labels: readonly Link[];
  /** The post's text without markup, cut near 300 characters. */
  excerpt: string;
  /** The month archive the post is filed in. */
  month: Link;
}

export interface CommentView {
  id: string;
  author: Person;
  published: string;
  /** Sanitized by the service; empty for a removed comment. */
  content: Html;
  removed: boolean;
  /** The id of the comment this one answers (on the same post), or null. */
  inReplyTo: string | null;
}

/** The comment form: where it posts and what to show in it again after a refused submission. */
export interface CommentForm {
  action: string;
  values: { name: string; content: string };
  /** Why the last submission was refused, or null. */
  error: string | null;
  /**
   * The form's hidden part, to put inside the `<form>` as it is: an empty field people never see (hide it with
   * the `.hp` rule of the default theme's CSS; bots fill it in) and the signed time token. A form sent without
   * them is taken for a bot's: it is answered like any other and stores nothing (docs/comments.md).
   */
  hidden: Html;
}

/** The name of the form's empty field (the honeypot): a comment that fills it in is a bot's. */
export const HONEYPOT = 'website';

export interface PostView extends PostSummary {
  content: Html;
  comments: {
    items: readonly CommentView[];
    /** The page of the comments after these, or null. */
    more: string | null;
    /** The form, or null when the post takes no comments here (closed, or a static export). */
    form: CommentForm | null;
    /** Set after a comment was sent: it waits for moderation. */
    pending: boolean;
    /** The post takes no new comments from readers. */
    closed: boolean;
  };
}

export interface PageView extends Published {
  content: Html;
}

export interface ListView {
  kind: 'home' | 'label' | 'archive' | 'search';
  /** What the list is (the label, the month, the search words); the blog's name on the home page. */
  title: string;
  posts: readonly PostSummary[];
  /** The page of older posts, or null. */
  older: string | null;
  /** The first page of this list when this is a later one, else null. */
  first: string | null;
  /** The blog's pages (on the home page only; empty elsewhere). */
  pages: readonly Link[];
  /** The search words (search pages only). */
  query: string;
}

/** The comments page of a post with more comments than its own page shows. */
export interface CommentsPageView {
  post: Link;
  comments: PostView['comments'];
}

/** Everything around a page's body. */
export interface LayoutData {
  blog: SiteBlog;
  kind: 'home' | 'post' | 'page' | 'label' | 'archive' | 'search' | 'comments' | 'notFound';
  /** The document title (already composed: "Post — Blog"). */
  title: string;
  /** The blog's feeds (root-relative), linked from every page. */
  feeds: { atom: string; rss: string };
  /**
   * `<head>` markup the site computed: description, canonical link, feed links, OpenGraph and JSON-LD
   * `BlogPosting` on posts. Put it in `<head>` as it is.
   */
  head: Html;
  /** The page's own markup, from the theme part for its kind. */
  body: Html;
}

/** A theme: each part answers HTML (an `Html` from the `html` tag, or a string taken as HTML). */
export interface Theme {
  /** The whole document around a page: `<!doctype html>`, `<head>` (with `head`), the blog's header, `body`. */
  layout(data: LayoutData): Html | string;
  home(list: ListView, blog: SiteBlog): Html | string;
  post(post: PostView, blog: SiteBlog): Html | string;
  page(page: PageView, blog: SiteBlog): Html | string;
  label(list: ListView, blog: SiteBlog): Html | string;
  archive(list: ListView, blog: SiteBlog): Html | string;
  search(list: ListView, blog: SiteBlog): Html | string;
  comments(page: CommentsPageView, blog: SiteBlog): Html | string;
  notFound(blog: SiteBlog): Html | string;
  /** The `sizes` of pictures in content: how wide the column shows them (default: the default theme's 42rem). */
  pictureSizes?: string;
}
