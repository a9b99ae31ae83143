/**
 * comments.insert (docs/design.md §25): the caller's limit first, then the checks that read the store
 * (comment-admission.ts), the state the comment starts in and the write. Loaded with the first comment written.
 */
import {
  actorUserId,
  commentVisOf,
  limitsComments,
  mayComment,
  newCommentStatus,
  seesComment,
  type Actor,
  type Standing,
} from '../rules/access.js';
import { acceptsComments } from '../rules/states.js';
import type { Core } from '../core/core.js';
import { conflict, forbidden, invalid } from '../util/errors.js';
import { put, type BlogRecord, type CommentRecord } from '../store/records.js';
import { LIMITS, params, type Parsed } from '../schema/schemas.js';
import type { CommentsInsertParams } from '../schema/params.js';
import type { Comment } from '../schema/resources.js';
import { publicUrl } from '../core/wire.js';
import { normalizeAddress } from '../util/addresses.js';
import { type Admitted, admit, judge, refuseDuplicate, requireRoom, sharedLimit } from './comment-admission.js';
import { loadVisible, recount } from './content.js';
import { commentOut } from './views.js';

export async function insertCommentCall(core: Core, actor: Actor, input: CommentsInsertParams): Promise<Comment> {
  const sent = (input as { clientAddress?: unknown } | undefined)?.clientAddress;
  const clientAddress =
    typeof sent === 'string' && sent.length <= LIMITS.clientHeader ? normalizeAddress(sent) : undefined;
  // An anonymous caller's limit first: a flood is refused before anything is read (docs/design.md §25).
  let admitted = actor.kind === 'anonymous' ? admit(core, actor, null, clientAddress) : undefined;
  try {
    const p = core.parse(params.commentsInsert, input);
    const s = await core.writer(actor, p.blogId);
    if (actor.kind === 'user') admitted = admit(core, actor, s.role, clientAddress);
    const c = await insertComment(core, actor, s, p, clientAddress, admitted);
    return await commentOut(core, c, s.view, true);
  } catch (e) {
    // Refused for any reason: it counts for nothing.
    admitted?.giveBack();
    throw e;
  }
}

/** comments.insert past the caller's limit: the checks that read the store, the state it starts in, the write. */
async function insertComment(
  core: Core,
  actor: Actor,
  s: Standing & { blog: BlogRecord },
  p: Parsed<'commentsInsert'>,
  clientAddress: string | undefined,
  admitted: Admitted | undefined,
): Promise<CommentRecord> {
  const actorId = actorUserId(actor);
  const b = p.body;
  const authorUrl = b.author?.url;
  // The sanitizer (and js-xss in it) loads on the first comment written: browsers rarely need it.
  const content = (await import('../rules/sanitize.js')).sanitizeCommentHtml(b.content);
  const post = await acceptingPost(core, p, s);
  const limited = limitsComments(s.role) && actor.kind !== 'host';
  const anonymous = actor.kind === 'anonymous';
  const author: { authorId?: string; authorName?: string; authorUrl?: string } = actorId
    ? { authorId: actorId }
    : { authorName: b.author?.displayName?.trim() || 'Anonymous', ...(authorUrl ? { authorUrl } : {}) };
  const from = anonymous && clientAddress !== undefined ? { clientAddress } : {};
  let status = newCommentStatus(s.role);
  if (limited) {
    if (anonymous) await requireRoom(core, p.blogId);
    await refuseDuplicate(core, { blogId: p.blogId, postId: p.postId, content, ...author, ...from });
    status = await judge(
      core,
      s.blog,
      status,
      {
        blogId: p.blogId,
        postId: p.postId,
        content,
        author: {
          displayName: author.authorName ?? (await core.user(actorId!))?.displayName ?? '',
          ...(authorUrl ? { url: authorUrl } : {}),
          ...(actorId ? { id: actorId } : {}),
        },
        ...(b.inReplyTo ? { inReplyTo: b.inReplyTo.id } : {}),
        ...author,
      },
      {
        blog: { id: s.blog.id, name: s.blog.name, url: s.blog.url },
        post: {
          id: post.doc.id,
          title: post.doc.title,
          ...(post.doc.path ? { url: publicUrl(s.blog, post.doc.path) } : {}),
        },
        role: s.role,
        ...(clientAddress !== undefined ? { clientAddress } : {}),
        ...(p.userAgent !== undefined ? { userAgent: p.userAgent } : {}),
        ...(p.referrer !== undefined ? { referrer: p.referrer } : {}),
      },
    );
  }
  return core.transact(
    async () => {
      const post = await acceptingPost(core, p, s);
      if (b.inReplyTo) {
        const parent = (await core.get('comments', b.inReplyTo.id))?.doc;
        if (!parent || parent.postId !== p.postId || !seesComment(parent, post.doc, s.view)) {
          throw invalid('body.inReplyTo.id', 'inReplyTo must name a comment of the same post');
        }
      }
      const counted = await sharedLimit(core, admitted);
      const now = core.nowIso();
      const record: CommentRecord = {
        id: core.newId(),
        blogId: p.blogId,
        postId: p.postId,
        status,
        content,
        published: now,
        updated: now,
        vis: commentVisOf(post.doc),
        ...(b.inReplyTo ? { inReplyTo: b.inReplyTo.id } : {}),
        ...author,
        ...from,
      };
      return {
        ops: [put('comments', record, 0), ...recount(post, undefined, record.status), ...counted],
        result: record,
      };
    },
    (record) =>
      core.event('comment.inserted', { blogId: p.blogId, id: record.id, actorId }, () =>
        commentOut(core, record, 'ADMIN', true),
      ),
  );
}

/** The post a comment is for, which must take one from this caller (404, 409 not LIVE, 403 closed). */
async function acceptingPost(core: Core, p: { blogId: string; postId: string }, s: Standing) {
  const post = await loadVisible(core, 'post', p.blogId, p.postId, s);
  if (!acceptsComments(post.doc.status))
    throw conflict(`Comments are accepted only on LIVE posts; this post is ${post.doc.status}`);
  if (!mayComment(post.doc.readerComments, s.role)) throw forbidden('This post does not accept new comments');
  return post;
}
