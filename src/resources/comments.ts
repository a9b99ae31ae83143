import {
  actorUserId,
  commentVisOf,
  hidesComments,
  mayComment,
  newCommentStatus,
  PUBLIC_COMMENT_STATUSES,
  requireVisibleComments,
  seesComment,
  type Actor,
} from '../rules/access.js';
import { acceptsComments } from '../rules/states.js';
import type { Core } from '../core/core.js';
import type { StoredDoc } from '../store/driver.js';
import { conflict, forbidden, invalid, notFound } from '../util/errors.js';
import { shortHash } from '../util/ids.js';
import { listOf, page, type PageQuery } from '../core/paging.js';
import { put, type CommentRecord, type PostRecord } from '../store/records.js';
import { params, type CommentStatus, type Role } from '../schema/schemas.js';
import type { CommentsGetParams, CommentsInsertParams, CommentsListParams } from '../schema/params.js';
import { authorOf, commentWire, listEtag } from '../core/wire.js';
import type { Comment, CommentList } from '../schema/resources.js';
import { loadVisible } from './content.js';

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

export async function listPage(
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

export const emptyList = (): CommentList => ({ kind: 'blogger#commentList', items: [], etag: listEtag(['empty']) });

/** The post record with its comment counters moved by a comment going from one state to another. */
export function recount(post: StoredDoc<PostRecord>, from: CommentStatus | undefined, to: CommentStatus | undefined) {
  const live = (to === 'LIVE' ? 1 : 0) - (from === 'LIVE' ? 1 : 0);
  const all = (to ? 1 : 0) - (from ? 1 : 0);
  if (live === 0 && all === 0) return [];
  const p = post.doc;
  // A post's first comment settles the class its comments are filed under (comment-visibility.ts).
  const settled = p.allComments === 0 && all > 0 ? { commentsVis: commentVisOf(p) } : {};
  return [
    put(
      'posts',
      { ...p, ...settled, liveComments: p.liveComments + live, allComments: p.allComments + all },
      post.version,
    ),
  ];
}

/**
 * comments.get, list and insert. The moderator's calls (the blog-wide list, approve, markAsSpam, removeContent,
 * delete) are rarely made in a browser: they load on first use (comment-moderation.ts, in back-office.ts).
 */

export function commentsApi(core: Core, actor: Actor) {
  const actorId = actorUserId(actor);

  return {
    async get(input: CommentsGetParams): Promise<Comment> {
      const p = core.parse(params.commentsGet, input);
      const s = await core.reader(actor, p.blogId, p.view);
      const post = await loadVisible(core, 'post', p.blogId, p.postId, s);
      const c = (await core.get('comments', p.commentId))?.doc;
      if (!c || c.postId !== p.postId || c.blogId !== p.blogId || !seesComment(c, post.doc, s.view))
        throw notFound('Comment');
      return commentOut(core, c, s.view, true);
    },

    async list(input: CommentsListParams): Promise<CommentList> {
      const p = core.parse(params.commentsList, input);
      const s = await core.reader(actor, p.blogId, p.view);
      const statuses = p.status ?? [...PUBLIC_COMMENT_STATUSES];
      requireVisibleComments(statuses, s.view);
      const post = await loadVisible(core, 'post', p.blogId, p.postId, s);
      if (hidesComments(post.doc.readerComments, s.view)) return emptyList();
      return listPage(
        core,
        {
          collection: 'comments',
          index: 'post',
          prefixes: statuses.map((st) => [p.blogId, p.postId, st]),
          direction: 'asc',
          start: p.startDate,
          end: p.endDate,
          fingerprint: shortHash(
            JSON.stringify(['comments', p.blogId, p.postId, [...statuses].sort(), p.startDate, p.endDate]),
          ),
        },
        p,
        s.view,
      );
    },

    async insert(input: CommentsInsertParams): Promise<Comment> {
      const p = core.parse(params.commentsInsert, input);
      const s = await core.writer(actor, p.blogId);
      const b = p.body;
      const authorUrl = b.author?.url;
      // The sanitizer (and js-xss in it) loads on the first comment written: browsers rarely need it.
      const content = (await import('../rules/sanitize.js')).sanitizeCommentHtml(b.content);
      const c = await core.transact(
        async () => {
          const post = await loadVisible(core, 'post', p.blogId, p.postId, s);
          if (!acceptsComments(post.doc.status))
            throw conflict(`Comments are accepted only on LIVE posts; this post is ${post.doc.status}`);
          if (!mayComment(post.doc.readerComments, s.role)) throw forbidden('This post does not accept new comments');
          if (b.inReplyTo) {
            const parent = (await core.get('comments', b.inReplyTo.id))?.doc;
            if (!parent || parent.postId !== p.postId || !seesComment(parent, post.doc, s.view)) {
              throw invalid('body.inReplyTo.id', 'inReplyTo must name a comment of the same post');
            }
          }
          const now = core.nowIso();
          const record: CommentRecord = {
            id: core.newId(),
            blogId: p.blogId,
            postId: p.postId,
            status: newCommentStatus(s.role),
            content,
            published: now,
            updated: now,
            vis: commentVisOf(post.doc),
            ...(b.inReplyTo ? { inReplyTo: b.inReplyTo.id } : {}),
            ...(actorId
              ? { authorId: actorId }
              : { authorName: b.author?.displayName?.trim() || 'Anonymous', ...(authorUrl ? { authorUrl } : {}) }),
          };
          return { ops: [put('comments', record, 0), ...recount(post, undefined, record.status)], result: record };
        },
        (record) =>
          core.event('comment.inserted', { blogId: p.blogId, id: record.id, actorId }, () =>
            commentOut(core, record, 'ADMIN', true),
          ),
      );
      return commentOut(core, c, s.view, true);
    },
  };
}
