/**
 * `posts.get` in one synchronous step, where the driver reads without waiting (`getNow` and `logNewestNow`:
 * SQLite): the change log looked at, the blog and the author from the record cache, the caller's role and the post
 * read at once, the wire form built — no promise on the way (docs/design.md §15, "SQLite reads"). Whatever this cannot answer at
 * once (a cold cache, a log that moved, a post due to go LIVE, comments inlined, a post the caller may not see)
 * answers undefined, and the call takes its full path, which answers and refuses as it always has.
 * Where the look at the log costs a round trip (PostgreSQL), `postsGetSoon` waits once, for the look, the caller's
 * membership and the post read side by side, and answers the rest in the same step.
 * Node-only in practice: it loads with the back office (resources/posts.ts), only for the server drivers (those that
 * honour `CommitOptions.unchanged`), never for IndexedDB's.
 */
import { memberId, type BlogRecord, type MemberRecord, type PostRecord, type UserRecord } from '../store/records.js';
import { resolveView, roleOf, seesContent, type Actor } from '../rules/access.js';
import type { Parsed } from '../schema/schemas.js';
import type { Post } from '../schema/resources.js';
import type { Core } from '../core/core.js';
import { freshNow } from '../core/at-once.js';
import { authorOf, postWire } from '../core/wire.js';
import { postShape } from './views.js';

function postsGetNow(core: Core, actor: Actor, p: Parsed<'postsGet'>): Post | undefined {
  const { cache, driver } = core;
  const blog = cache.map.get(`blogs/${p.blogId}`) as BlogRecord | undefined;
  // (A view with read replicas reads where its session does: never here.)
  if (!core.opened || core.readSession || p.maxComments || !blog || blog.deleting || !freshNow(cache)) return;
  const member = actor.kind === 'user' ? driver.getNow!('members', memberId(p.blogId, actor.userId))?.doc : undefined;
  const r = driver.getNow!('posts', p.postId)?.doc;
  return answer(core, actor, p, blog, member as MemberRecord | undefined, r as PostRecord | undefined);
}

/**
 * The post as the caller sees it, from the blog, the caller's membership and the post: a view the role may not
 * use refused as core.standing refuses it, undefined where the full path must answer.
 */
function answer(
  core: Core,
  actor: Actor,
  p: Parsed<'postsGet'>,
  blog: BlogRecord,
  member: MemberRecord | undefined,
  r: PostRecord | undefined,
): Post | undefined {
  const view = resolveView(roleOf(actor, member), p.view);
  const user = r && (core.cache.map.get(`users/${r.authorId}`) as UserRecord | undefined);
  if (!user || r!.blogId !== p.blogId || r!.status === 'SCHEDULED' || !seesContent(r!.status, view)) return;
  // As views.ts `postOut` shapes it (with no comments inlined).
  return postWire(r!, blog, authorOf(user, r!.authorId), postShape(r!, view, p), core.links);
}

/**
 * `posts.get` where the look at the change log costs a round trip (PostgreSQL): the look, the caller's
 * membership and the post read side by side, then the rest in one step as `postsGet` does it, with the same
 * refusals to answer (the call then takes its full path).
 */
async function postsGetSoon(core: Core, actor: Actor, p: Parsed<'postsGet'>): Promise<Post | undefined> {
  const { cache, driver } = core;
  if (!core.opened || core.readSession || p.maxComments) return;
  const [, member, found] = await Promise.all([
    cache.fresh(),
    actor.kind === 'user' ? driver.get('members', memberId(p.blogId, actor.userId)) : undefined,
    driver.get('posts', p.postId),
  ]);
  const blog = cache.map.get(`blogs/${p.blogId}`) as BlogRecord | undefined;
  if (!blog || blog.deleting) return;
  return answer(core, actor, p, blog, member?.doc as MemberRecord | undefined, found?.doc as PostRecord | undefined);
}

/** `posts.get` answered at once (`getNow`: SQLite, memory) or in one wait (PostgreSQL); undefined: the full path. */
export const postsGet = (
  core: Core,
  actor: Actor,
  p: Parsed<'postsGet'>,
): Post | undefined | Promise<Post | undefined> =>
  core.driver.getNow ? postsGetNow(core, actor, p) : postsGetSoon(core, actor, p);
