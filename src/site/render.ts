/**
 * Every page of the reading site, read through an anonymous reader's service (so it shows exactly what the
 * public may see: anything else is the same 404 as a missing page) and drawn by the theme. Shared by the live
 * handler and the static export.
 */
import { mayComment } from '../rules/access.js';
import type { FormTokens } from './form-token.js';
import type { BlogService } from '../service/types.js';
import type { Post, PostList } from '../schema/resources.js';
import { BlogError } from '../util/errors.js';
import { type Chunk, type ListSource, readChunk } from './chunks.js';
import { headOf, type HeadInput } from './head.js';
import { type Html, html, markup, raw } from './html.js';
import { commentsPath, feedPaths, type ListRef, listPath, monthRange } from './routes.js';
import type { SiteStore } from './store.js';
import { COLUMN_SIZES, responsivePictures } from './pictures.js';
import { featuredPicture } from '../web/pictures.js';
import { type CommentForm, HONEYPOT, type LayoutData, type ListView, type PostView, type Theme } from './theme.js';
import {
  type BlogScope,
  commentViewOf,
  contentOf,
  href,
  monthLink,
  pageViewOf,
  relOf,
  searchLink,
  summaryOf,
} from './views.js';

/** Comments shown on a post's page (and on each further comments page). */
export const COMMENTS_PER_PAGE = 50;
/** Pages linked from the home page. */
const PAGES_LISTED = 100;

export interface SiteParts {
  /** The service as an anonymous reader. */
  reader: BlogService;
  store: SiteStore;
  theme: Theme;
  pageSize: number;
  /** The comment form's time tokens (form-token.ts). */
  tokens: FormTokens;
}

export interface Rendered {
  status: 200 | 400 | 403 | 404 | 409 | 429;
  body: string;
}

/** What a list page showed, for the static export's bookkeeping. */
export interface RenderedList extends Rendered {
  chunk?: Chunk;
}

const isClientError = (e: unknown) => BlogError.is(e) && (e.code === 400 || e.code === 404);

/** Reads that fail because of what the request named (a missing post, a token that is not one) are a 404. */
async function orMissing<T>(read: Promise<T>): Promise<T | undefined> {
  try {
    return await read;
  } catch (e) {
    if (isClientError(e)) return undefined;
    throw e;
  }
}

function document(
  parts: SiteParts,
  scope: BlogScope,
  kind: LayoutData['kind'],
  title: string,
  head: Omit<HeadInput, 'blog' | 'feeds'>,
  body: Html | string,
): string {
  const feeds = linkedFeeds(scope);
  const data: LayoutData = {
    blog: scope.blog,
    kind,
    title,
    feeds,
    head: headOf({ ...head, blog: scope.blog, feeds }),
    body: raw(markup(body)),
  };
  return markup(parts.theme.layout(data));
}

export const linkedFeeds = (scope: BlogScope) => {
  const f = feedPaths(scope.live);
  return { atom: href(scope, f.atom), rss: href(scope, f.rss) };
};

export function renderNotFound(parts: SiteParts, scope: BlogScope): Rendered {
  const title = `Page not found — ${scope.blog.name}`;
  return {
    status: 404,
    body: document(parts, scope, 'notFound', title, { noindex: true }, parts.theme.notFound(scope.blog)),
  };
}

/** The service list call behind a list. */
export function listSource(reader: BlogService, blogId: string, list: ListRef): ListSource {
  const filter =
    list.kind === 'label'
      ? { labels: list.label }
      : list.kind === 'month'
        ? (({ start, end }) => ({ startDate: start, endDate: end }))(monthRange(list.year, list.month))
        : {};
  return (pageToken, maxResults, fetchBodies) =>
    reader.posts.list({
      blogId,
      maxResults,
      fetchBodies,
      ...filter,
      ...(pageToken !== undefined ? { pageToken } : {}),
    }) as Promise<PostList>;
}

/** A label with a comma would name two labels in `posts.list`; such a list has no page. */
const validList = (list: ListRef) => list.kind !== 'label' || (list.label.trim() !== '' && !list.label.includes(','));

/** A page of a list: its first page, or the one a token starts. `chunk` is given when the caller already read it. */
export async function renderList(
  parts: SiteParts,
  scope: BlogScope,
  list: ListRef,
  token?: string,
  given?: Chunk,
): Promise<RenderedList> {
  const blogId = scope.blog.id;
  if (!validList(list)) return renderNotFound(parts, scope);
  const chunk = given ?? (await orMissing(readChunk(listSource(parts.reader, blogId, list), token, parts.pageSize)));
  if (!chunk || (chunk.items.length === 0 && (token !== undefined || list.kind !== 'home')))
    return renderNotFound(parts, scope);
  const pages =
    list.kind === 'home' && token === undefined
      ? (await parts.reader.pages.list({ blogId, maxResults: PAGES_LISTED, fetchBodies: false })).items.map((p) => ({
          path: pageViewOf(scope, p).path,
          text: p.title || 'Untitled',
        }))
      : [];
  const title =
    list.kind === 'home'
      ? scope.blog.name
      : list.kind === 'label'
        ? list.label
        : monthLink(scope, monthRange(list.year, list.month).start).text;
  const view: ListView = {
    kind: list.kind === 'month' ? 'archive' : list.kind,
    title,
    posts: chunk.items.map((p) => summaryOf(scope, p)),
    older: chunk.next ? href(scope, listPath(list, chunk.next)) : null,
    first: token !== undefined ? href(scope, listPath(list)) : null,
    pages,
    query: '',
  };
  const rel = listPath(list, token);
  const docTitle =
    list.kind === 'home'
      ? token
        ? `Older posts — ${scope.blog.name}`
        : scope.blog.name
      : `${list.kind === 'label' ? 'Label: ' : ''}${title} — ${scope.blog.name}`;
  const part =
    list.kind === 'home'
      ? parts.theme.home(view, scope.blog)
      : list.kind === 'label'
        ? parts.theme.label(view, scope.blog)
        : parts.theme.archive(view, scope.blog);
  const body = document(
    parts,
    scope,
    view.kind === 'archive' ? 'archive' : view.kind,
    docTitle,
    { canonical: scope.blog.url + rel },
    part,
  );
  return { status: 200, body, chunk };
}

export interface PostState {
  /** A comment was just sent (the page after the redirect). */
  pending?: boolean;
  /** A refused submission: its values and why. */
  form?: Omit<CommentForm, 'hidden'>;
  status?: 400 | 403 | 409 | 429;
}

/** The comments of a post after `token` (none: the first page), as the theme shows them. */
async function commentsOf(
  parts: SiteParts,
  scope: BlogScope,
  post: Post,
  token: string | undefined,
  state: PostState,
): Promise<PostView['comments'] | undefined> {
  // A post without LIVE comments shows none (an emptied comment keeps a place only in a thread): no list to read.
  const none = token === undefined && post.replies.totalItems === '0';
  const list = none
    ? { items: [] }
    : await orMissing(
        parts.reader.comments.list({
          blogId: scope.blog.id,
          postId: post.id,
          maxResults: COMMENTS_PER_PAGE,
          ...(token ? { pageToken: token } : {}),
        }),
      );
  if (!list) return undefined;
  const closed = !mayComment(post.readerComments ?? 'ALLOW', null);
  const path = new URL(post.url!).pathname;
  const form: CommentForm | null =
    scope.live && !closed && token === undefined
      ? {
          ...(state.form ?? { action: `${path}#comments`, values: { name: '', content: '' }, error: null }),
          hidden: await formFields(parts, scope, post),
        }
      : null;
  return {
    items: list.items.map(commentViewOf),
    more:
      'nextPageToken' in list && list.nextPageToken
        ? href(scope, commentsPath(relOf(scope, path), list.nextPageToken))
        : null,
    form,
    pending: state.pending === true,
    closed,
  };
}

/** The form's hidden part: an empty field people never see (bots fill it in) and the signed time token. */
async function formFields(parts: SiteParts, scope: BlogScope, post: Post): Promise<Html> {
  const token = await parts.tokens.issue(scope.blog.id, post.id);
  return html`<p class="hp" aria-hidden="true"><label for="comment-website">Leave this empty</label><input id="comment-website" type="text" name="${HONEYPOT}" tabindex="-1" autocomplete="off"></p><input type="hidden" name="token" value="${token}">`;
}

/** A LIVE post at its path (stored form: `/2026/11/hello.html`), with its first comments. */
export async function renderPost(
  parts: SiteParts,
  scope: BlogScope,
  path: string,
  state: PostState = {},
): Promise<Rendered & { post?: Post }> {
  const post = await orMissing(parts.reader.posts.getByPath({ blogId: scope.blog.id, path }));
  if (!post?.url) return renderNotFound(parts, scope);
  return renderPostResource(parts, scope, post, state);
}

export async function renderPostResource(
  parts: SiteParts,
  scope: BlogScope,
  post: Post,
  state: PostState = {},
): Promise<Rendered & { post: Post }> {
  const comments = await commentsOf(parts, scope, post, undefined, state);
  const summary = summaryOf(scope, post);
  const { content, image } = await withPictures(parts, scope, contentOf(scope, post.content), summary.url);
  const view: PostView = { ...summary, content: raw(content), comments: comments ?? emptyComments() };
  const body = document(
    parts,
    scope,
    'post',
    `${post.title || 'Untitled'} — ${scope.blog.name}`,
    { canonical: view.url, description: view.excerpt, post: view, ...(image ? { image } : {}) },
    parts.theme.post(view, scope.blog),
  );
  return { status: state.status ?? 200, body, post };
}

/**
 * Content with the blog's pictures made responsive (src/site/pictures.ts), and its featured picture at most
 * OG_IMAGE_WIDTH wide (og:image), absolute against the item's `url`.
 */
async function withPictures(parts: SiteParts, scope: BlogScope, content: string, url: string) {
  const blogId = scope.blog.id;
  const pictures = await parts.store.pictures(blogId, content);
  const image = await featuredPicture(undefined, blogId, content, url, OG_IMAGE_WIDTH, pictures);
  return {
    content: responsivePictures(content, blogId, pictures, parts.theme.pictureSizes ?? COLUMN_SIZES),
    image,
  };
}

/** og:image's widest: Facebook's and LinkedIn's large cards show 1200 px, so 1280 serves them sharp. */
const OG_IMAGE_WIDTH = 1280;

const emptyComments = (): PostView['comments'] => ({ items: [], more: null, form: null, pending: false, closed: true });

/** A post's further comments, from a token. */
export async function renderComments(
  parts: SiteParts,
  scope: BlogScope,
  path: string,
  token: string,
  post?: Post,
): Promise<Rendered> {
  const found = post ?? (await orMissing(parts.reader.posts.getByPath({ blogId: scope.blog.id, path })));
  if (!found?.url) return renderNotFound(parts, scope);
  const comments = await commentsOf(parts, scope, found, token, {});
  if (!comments || comments.items.length === 0) return renderNotFound(parts, scope);
  const summary = summaryOf(scope, found);
  const rel = commentsPath(relOf(scope, summary.path), token);
  const part = parts.theme.comments({ post: { path: summary.path, text: found.title }, comments }, scope.blog);
  return {
    status: 200,
    body: document(
      parts,
      scope,
      'comments',
      `Comments on ${found.title || 'Untitled'} — ${scope.blog.name}`,
      { canonical: scope.blog.url + rel },
      part,
    ),
  };
}

/** A LIVE page at its path (`/p/about.html`). */
export async function renderPage(parts: SiteParts, scope: BlogScope, path: string): Promise<Rendered> {
  const id = await parts.store.pageIdByPath(scope.blog.id, path);
  const page =
    id === undefined ? undefined : await orMissing(parts.reader.pages.get({ blogId: scope.blog.id, pageId: id }));
  if (!page?.url || new URL(page.url).pathname !== scope.base + path.slice(1)) return renderNotFound(parts, scope);
  const view = pageViewOf(scope, page);
  const { content, image } = await withPictures(parts, scope, String(view.content), view.url);
  view.content = raw(content);
  return {
    status: 200,
    body: document(
      parts,
      scope,
      'page',
      `${page.title || 'Untitled'} — ${scope.blog.name}`,
      { canonical: view.url, page: view, ...(image ? { image } : {}) },
      parts.theme.page(view, scope.blog),
    ),
  };
}

/** Search results (live only): one page of `posts.search`, older results by its token. */
export async function renderSearch(parts: SiteParts, scope: BlogScope, q: string, token?: string): Promise<Rendered> {
  const query = q.trim().slice(0, 200);
  let posts: Post[] = [];
  let next: string | undefined;
  if (query) {
    const found = await orMissing(
      parts.reader.posts.search({
        blogId: scope.blog.id,
        q: query,
        maxResults: parts.pageSize,
        ...(token ? { pageToken: token } : {}),
      }),
    );
    if (!found) return renderNotFound(parts, scope);
    posts = found.items;
    next = found.nextPageToken;
  }
  const view: ListView = {
    kind: 'search',
    title: query,
    posts: posts.map((p) => summaryOf(scope, p)),
    older: next ? searchLink(scope, query, next) : null,
    first: token ? searchLink(scope, query) : null,
    pages: [],
    query,
  };
  const title = query ? `Search: ${query} — ${scope.blog.name}` : `Search — ${scope.blog.name}`;
  return {
    status: 200,
    body: document(parts, scope, 'search', title, { noindex: true }, parts.theme.search(view, scope.blog)),
  };
}
