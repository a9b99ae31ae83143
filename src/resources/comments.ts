import { actorUserId, atLeast, requireRole, type Actor, type Standing } from '../rules/access.js';
import type { Core } from '../core/core.js';
import type { IndexedDoc, Key, StoredDoc } from '../store/driver.js';
import { conflict, forbidden, invalid, notFound } from '../util/errors.js';
import { shortHash } from '../util/ids.js';
import { listOf, page, type PageQuery } from '../core/paging.js';
import { commentVisOf, del, put, type CommentRecord, type PostRecord } from '../store/records.js';
import { moveCommentsStep, visibleClasses } from '../core/comment-visibility.js';
import { params, type CommentStatus, type Role } from '../schema/schemas.js';
import type { CommentsActionParams, CommentsGetParams, CommentsInsertParams, CommentsListByBlogParams, CommentsListParams } from '../schema/params.js';
import { authorOf, commentWire, listEtag } from '../core/wire.js';
import type { Comment, CommentList } from '../schema/resources.js';
import { loadVisible } from './content.js';

export async function commentOut(core: Core, c: CommentRecord, view: Role, fetchBody: boolean): Promise<Comment> {
  const author = c.authorId ? authorOf(await core.user(c.authorId), c.authorId) : authorOf(undefined, undefined, c.authorName, c.authorUrl);
  return commentWire(c, author, view, fetchBody, core.links);
}

/** `maxComments` on a post: its LIVE comments, oldest first. */
export async function inlineComments(core: Core, post: PostRecord, view: Role, max: number): Promise<Comment[]> {
  const hits = await core.driver.list({ collection: 'comments', index: 'post', prefix: [post.blogId, post.id, 'LIVE'], direction: 'asc', limit: max });
  return Promise.all(hits.map((h) => commentOut(core, h.doc as unknown as CommentRecord, view, true)));
}

const PUBLIC: readonly CommentStatus[] = ['LIVE', 'EMPTIED'];

/** DONT_ALLOW_HIDE_EXISTING hides a post's comments from everyone below the ADMIN view. */
const hidden = (post: PostRecord, view: Role) => post.readerComments === 'DONT_ALLOW_HIDE_EXISTING' && !atLeast(view, 'ADMIN');

const visible = (c: CommentRecord, post: PostRecord, view: Role) => (PUBLIC.includes(c.status) || atLeast(view, 'ADMIN')) && !hidden(post, view);

/** Moderation moves, per DESIGN §5: the next state, the same record for "stays", or 409. */
const MODERATION = {
  approve: { to: 'LIVE', from: ['PENDING', 'SPAM'], event: 'comment.approved' },
  markAsSpam: { to: 'SPAM', from: ['LIVE', 'PENDING'], event: 'comment.spam' },
  removeContent: { to: 'EMPTIED', from: ['LIVE', 'PENDING', 'SPAM'], event: 'comment.contentRemoved' },
} as const;

export function commentsApi(core: Core, actor: Actor) {
  const actorId = actorUserId(actor);

  function checkStatuses(statuses: CommentStatus[], s: Standing) {
    if (statuses.some((st) => !PUBLIC.includes(st)) && !atLeast(s.view, 'ADMIN')) {
      throw forbidden('Listing PENDING or SPAM comments needs the ADMIN view');
    }
  }

  async function listPage(
    q: PageQuery,
    p: { maxResults?: number | undefined; pageToken?: string | undefined; fetchBodies?: boolean | undefined },
    view: Role,
  ): Promise<CommentList> {
    const pg = await page(core.driver, q, p.maxResults ?? 10, p.pageToken);
    const items = await Promise.all(pg.items.map((h) => commentOut(core, h.doc as unknown as CommentRecord, view, p.fetchBodies ?? true)));
    return listOf('blogger#commentList', items, pg, [...items.map((c) => `${c.id}:${c.updated}:${c.status ?? ''}`), view]);
  }

  const empty = (): CommentList => ({ kind: 'blogger#commentList', items: [], etag: listEtag(['empty']) });

  /** Loads a comment of a post for moderation, with the post it belongs to. */
  async function loadPair(blogId: string, postId: string, commentId: string) {
    const [post, comment] = await Promise.all([core.get<PostRecord>('posts', postId), core.get<CommentRecord>('comments', commentId)]);
    if (!post || post.doc.blogId !== blogId) throw notFound('Post');
    if (!comment || comment.doc.postId !== postId || comment.doc.blogId !== blogId) throw notFound('Comment');
    return { post, comment };
  }

  /** The post record with its comment counters moved by a comment going from one state to another. */
  function recount(post: StoredDoc<PostRecord>, from: CommentStatus | undefined, to: CommentStatus | undefined) {
    const live = (to === 'LIVE' ? 1 : 0) - (from === 'LIVE' ? 1 : 0);
    const all = (to ? 1 : 0) - (from ? 1 : 0);
    if (live === 0 && all === 0) return [];
    const p = post.doc;
    // A post's first comment settles the class its comments are filed under (comment-visibility.ts).
    const settled = p.allComments === 0 && all > 0 ? { commentsVis: commentVisOf(p) } : {};
    return [put('posts', { ...p, ...settled, liveComments: p.liveComments + live, allComments: p.allComments + all }, post.version)];
  }

  async function moderate(input: CommentsActionParams, action: keyof typeof MODERATION): Promise<Comment> {
    const p = core.parse(params.commentsAction, input);
    const s = await core.writer(actor, p.blogId);
    requireRole(s, 'ADMIN', 'moderate comments');
    const move = MODERATION[action];
    const { before, after } = await core.transact(async () => {
      const { post, comment } = await loadPair(p.blogId, p.postId, p.commentId);
      const c = comment.doc;
      if (c.status === move.to) return { ops: [], result: { before: c, after: c } };
      if (!(move.from as readonly string[]).includes(c.status)) {
        throw conflict(`Cannot ${action} this comment: it is ${c.status} (requested ${move.to})`);
      }
      const next: CommentRecord = { ...c, status: move.to, updated: core.nowIso(), ...(move.to === 'EMPTIED' ? { content: '' } : {}) };
      return { ops: [put('comments', next, comment.version), ...recount(post, c.status, next.status)], result: { before: c, after: next } };
    });
    if (after !== before && core.events.has(move.event)) {
      core.emit({ type: move.event, blogId: p.blogId, id: after.id, actorId, resource: await commentOut(core, after, 'ADMIN', true) });
    }
    return commentOut(core, after, s.view, true);
  }

  return {
    async get(input: CommentsGetParams): Promise<Comment> {
      const p = core.parse(params.commentsGet, input);
      const s = await core.reader(actor, p.blogId, p.view);
      const post = await loadVisible<PostRecord>(core, 'post', p.blogId, p.postId, s);
      const c = (await core.get<CommentRecord>('comments', p.commentId))?.doc;
      if (!c || c.postId !== p.postId || c.blogId !== p.blogId || !visible(c, post.doc, s.view)) throw notFound('Comment');
      return commentOut(core, c, s.view, true);
    },

    async list(input: CommentsListParams): Promise<CommentList> {
      const p = core.parse(params.commentsList, input);
      const s = await core.reader(actor, p.blogId, p.view);
      const statuses = p.status ?? [...PUBLIC];
      checkStatuses(statuses, s);
      const post = await loadVisible<PostRecord>(core, 'post', p.blogId, p.postId, s);
      if (hidden(post.doc, s.view)) return empty();
      return listPage(
        {
          collection: 'comments',
          index: 'post',
          prefixes: statuses.map((st) => [p.blogId, p.postId, st]),
          direction: 'asc',
          start: p.startDate,
          end: p.endDate,
          fingerprint: shortHash(JSON.stringify(['comments', p.blogId, p.postId, [...statuses].sort(), p.startDate, p.endDate])),
        },
        p,
        s.view,
      );
    },

    async listByBlog(input: CommentsListByBlogParams): Promise<CommentList> {
      const p = core.parse(params.commentsListByBlog, input);
      const s = await core.reader(actor, p.blogId, p.view);
      const statuses = p.status ?? [...PUBLIC];
      checkStatuses(statuses, s);
      let prefixes: Key[];
      if (p.post) {
        const post = await loadVisible<PostRecord>(core, 'post', p.blogId, p.post, s);
        if (hidden(post.doc, s.view)) return empty();
        prefixes = statuses.map((st) => [p.blogId, p.post!, st]);
      } else {
        // One bounded step of refiling the comments of a post whose visibility changed (comment-visibility.ts).
        await moveCommentsStep(core);
        prefixes = visibleClasses(s.view).flatMap((vis) => statuses.map((st) => [p.blogId, vis, st]));
      }
      const q: PageQuery = {
        collection: 'comments',
        index: p.post ? 'post' : 'blog',
        prefixes,
        direction: 'desc',
        start: p.startDate,
        end: p.endDate,
        fingerprint: shortHash(JSON.stringify(['blogComments', p.blogId, p.post, [...statuses].sort(), p.startDate, p.endDate])),
      };
      if (!p.post && !atLeast(s.view, 'ADMIN')) {
        // The index keeps hidden comments out of the walk; this drops only those of a post whose class changed
        // and whose comments are not yet refiled.
        const classes = visibleClasses(s.view);
        q.filter = async (hits: IndexedDoc[]) => {
          const posts = await core.driver.getMany('posts', [...new Set(hits.map((h) => (h.doc as unknown as CommentRecord).postId))]);
          const ok = new Set(posts.flatMap((x) => (x && classes.includes(commentVisOf(x.doc as unknown as PostRecord)) ? [x.id] : [])));
          return hits.filter((h) => ok.has((h.doc as unknown as CommentRecord).postId));
        };
      }
      return listPage(q, p, s.view);
    },

    async insert(input: CommentsInsertParams): Promise<Comment> {
      const p = core.parse(params.commentsInsert, input);
      const s = await core.writer(actor, p.blogId);
      const trusted = s.role === 'AUTHOR' || s.role === 'ADMIN';
      const b = p.body;
      const authorUrl = b.author?.url;
      if (authorUrl !== undefined && authorUrl !== '' && !/^https?:\/\//i.test(authorUrl)) throw invalid('body.author.url', 'must be an http(s) URL');
      // The sanitizer (and js-xss in it) loads on the first comment written: browsers rarely need it.
      const content = (await import('../rules/sanitize.js')).sanitizeCommentHtml(b.content);
      const c = await core.transact(async () => {
        const post = await loadVisible<PostRecord>(core, 'post', p.blogId, p.postId, s);
        if (post.doc.status !== 'LIVE') throw conflict(`Comments are accepted only on LIVE posts; this post is ${post.doc.status}`);
        if (post.doc.readerComments !== 'ALLOW' && !trusted) throw forbidden('This post does not accept new comments');
        if (b.inReplyTo) {
          const parent = (await core.get<CommentRecord>('comments', b.inReplyTo.id))?.doc;
          if (!parent || parent.postId !== p.postId || !visible(parent, post.doc, s.view)) {
            throw invalid('body.inReplyTo.id', 'inReplyTo must name a comment of the same post');
          }
        }
        const now = core.nowIso();
        const record: CommentRecord = {
          id: core.newId(),
          blogId: p.blogId,
          postId: p.postId,
          status: trusted ? 'LIVE' : 'PENDING',
          content,
          published: now,
          updated: now,
          vis: commentVisOf(post.doc),
          ...(b.inReplyTo ? { inReplyTo: b.inReplyTo.id } : {}),
          ...(actorId ? { authorId: actorId } : { authorName: b.author?.displayName?.trim() || 'Anonymous', ...(authorUrl ? { authorUrl } : {}) }),
        };
        return { ops: [put('comments', record, 0), ...recount(post, undefined, record.status)], result: record };
      });
      if (core.events.has('comment.inserted')) {
        core.emit({ type: 'comment.inserted', blogId: p.blogId, id: c.id, actorId, resource: await commentOut(core, c, 'ADMIN', true) });
      }
      return commentOut(core, c, s.view, true);
    },

    approve: async (input: CommentsActionParams) => moderate(input, 'approve'),
    markAsSpam: async (input: CommentsActionParams) => moderate(input, 'markAsSpam'),
    removeContent: async (input: CommentsActionParams) => moderate(input, 'removeContent'),

    async delete(input: CommentsActionParams): Promise<void> {
      const p = core.parse(params.commentsAction, input);
      const s = await core.writer(actor, p.blogId);
      requireRole(s, 'ADMIN', 'delete comments');
      await core.transact(async () => {
        const { post, comment } = await loadPair(p.blogId, p.postId, p.commentId);
        // Replies keep their inReplyTo: the thread shows the gap rather than losing the replies.
        return { ops: [del('comments', comment.id, comment.version, p.blogId), ...recount(post, comment.doc.status, undefined)], result: undefined };
      });
      if (core.events.has('comment.deleted')) core.emit({ type: 'comment.deleted', blogId: p.blogId, id: p.commentId, actorId });
    },
  };
}

export type CommentsApi = ReturnType<typeof commentsApi>;
