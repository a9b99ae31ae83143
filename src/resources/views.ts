/**
 * Posts, pages, comments and blogs as a caller sees them: the stored record read with its blog and author and
 * shaped for the caller's view by core/wire.ts. Every namespace answers through these, and so do the back
 * office's calls and the events (content.ts), so they sit in one module of their own.
 */
import { hidesComments, seesHeldComments } from '../rules/access.js';
import type { Core } from '../core/core.js';
import { listOf, page, type PageQuery } from '../core/paging.js';
import type { BlogRecord, CommentRecord, PageRecord, PostRecord } from '../store/records.js';
import type { Role } from '../schema/schemas.js';
import { authorOf, blogWire, commentWire, listEtag, pageWire, postWire } from '../core/wire.js';
import type { Blog, Comment, CommentList, Page, Post } from '../schema/resources.js';

/** What a post read asks to see besides the post. */
export interface Shape {
  fetchBody?: boolean | undefined;
  fetchImages?: boolean | undefined;
  maxComments?: number | undefined;
}

/** How a post is shaped for `view` (comments aside): for a read, a list page and a get in one step (post-now.ts). */
export const postShape = (r: PostRecord, view: Role, shape: Shape) => ({
  view,
  fetchBody: shape.fetchBody ?? true,
  fetchImages: shape.fetchImages ?? false,
  hideComments: hidesComments(r.readerComments, view),
});

/** A post as the caller sees it at `view`. */
export async function postOut(core: Core, r: PostRecord, view: Role, shape: Shape): Promise<Post> {
  const blog = await core.blog(r.blogId);
  const shaped = postShape(r, view, shape);
  const comments =
    shape.maxComments && !shaped.hideComments ? await inlineComments(core, r, view, shape.maxComments) : undefined;
  return postWire(
    r,
    blog,
    authorOf(await core.user(r.authorId), r.authorId),
    comments ? { ...shaped, comments } : shaped,
    core.links,
  );
}

/** A page as the caller sees it at `view`. */
export async function pageOut(core: Core, r: PageRecord, view: Role, fetchBody = true, look = true): Promise<Page> {
  return pageWire(
    r,
    await core.blog(r.blogId, look),
    authorOf(await core.user(r.authorId, look), r.authorId),
    view,
    fetchBody,
    core.links,
  );
}

/** A blog as the caller sees it at `view`, with its `maxPosts` newest LIVE posts. */
export async function blogResource(core: Core, b: BlogRecord, view: Role, maxPosts: number | undefined): Promise<Blog> {
  const [posts, pages] = await Promise.all([
    core.driver.count({ collection: 'posts', index: 'published', prefix: [b.id, 'LIVE'] }),
    core.driver.count({ collection: 'pages', index: 'published', prefix: [b.id, 'LIVE'] }),
  ]);
  let items: Post[] | undefined;
  if (maxPosts) {
    const hits = await core.driver.list({
      collection: 'posts',
      index: 'published',
      prefix: [b.id, 'LIVE'],
      direction: 'desc',
      limit: maxPosts,
    });
    items = await Promise.all(hits.map((h) => postOut(core, h.doc, view, {})));
  }
  const blog = blogWire(b, { posts, pages }, items, core.links);
  // The blog's own spam words are its ADMINs' to see (a spammer would write around them).
  if (b.disallowedCommentWords?.length && seesHeldComments(view))
    blog.disallowedCommentWords = [...b.disallowedCommentWords];
  return blog;
}

/** A comment as the caller sees it at `view`. */
export async function commentOut(core: Core, c: CommentRecord, view: Role, fetchBody: boolean): Promise<Comment> {
  const author = c.authorId
    ? authorOf(await core.user(c.authorId), c.authorId)
    : authorOf(undefined, undefined, c.authorName, c.authorUrl);
  return commentWire(c, author, view, fetchBody, core.links);
}

/** `maxComments` on a post: its LIVE comments, oldest first. */
export async function inlineComments(core: Core, post: PostRecord, view: Role, max: number): Promise<Comment[]> {
  const hits = await core.driver.list({
    collection: 'comments',
    index: 'post',
    prefix: [post.blogId, post.id, 'LIVE'],
    direction: 'asc',
    limit: max,
  });
  return Promise.all(hits.map((h) => commentOut(core, h.doc, view, true)));
}

/** A page of comments as the caller sees them. */
export async function commentListPage(
  core: Core,
  q: PageQuery<'comments'>,
  p: { maxResults?: number | undefined; pageToken?: string | undefined; fetchBodies?: boolean | undefined },
  view: Role,
): Promise<CommentList> {
  const pg = await page(core.driver, q, p.maxResults ?? 10, p.pageToken);
  const items = await Promise.all(pg.items.map((h) => commentOut(core, h.doc, view, p.fetchBodies ?? true)));
  return listOf('blogger#commentList', items, pg, [
    ...items.map((c) => `${c.id}:${c.updated}:${c.status ?? ''}`),
    view,
  ]);
}

/** The answer for the comments of a post whose comments the caller may not see. */
export const emptyCommentList = (): CommentList => ({
  kind: 'blogger#commentList',
  items: [],
  etag: listEtag(['empty']),
});
