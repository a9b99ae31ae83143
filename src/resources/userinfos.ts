/**
 * blogUserInfos and postUserInfos (Blogger v3): a blog or post together with one user's standing in it.
 * A user's info is theirs and their blog's ADMINs' (docs/design.md §5): anyone else is refused. Loaded on first use.
 */
import { actorUserId, authError, mayEdit, type Actor } from '../rules/access.js';
import type { Core } from '../core/core.js';
import { forbidden, invalid, notFound } from '../util/errors.js';
import type { BlogUserInfosGetParams, PostUserInfosGetParams, PostUserInfosListParams } from '../schema/params.js';
import type { Role } from '../schema/schemas.js';
import { userInfosParams as params } from '../schema/userinfos.js';
import { blogUserInfoWire } from '../core/wire.js';
import type { BlogUserInfo, Post, PostUserInfo, PostUserInfosList } from '../schema/resources.js';
import { blogResource } from './views.js';
import type { postsApi } from './posts.js';

/** What user infos read posts through: the same caller's `posts.get` and `posts.list`. */
type PostReads = Pick<ReturnType<typeof postsApi>, 'get' | 'list'>;

/**
 * Whose info is asked for (`self`: the caller), checked against who asks: the user themselves or an ADMIN
 * of the blog (host code is both). Answers the user's role in the blog; a signed-in non-member is a READER.
 */
async function subject(
  core: Core,
  actor: Actor,
  userIdParam: string,
  blogId: string,
): Promise<{ userId: string; role: Role }> {
  if (actor.kind === 'anonymous') throw authError("Sign in to read a user's info");
  const userId = userIdParam === 'self' ? actorUserId(actor) : userIdParam;
  if (!userId) throw invalid('userId', "The host service has no 'self': name a user");
  await core.blog(blogId);
  if (actor.kind === 'user' && actor.userId !== userId) {
    const caller = await core.standing(actor, blogId);
    if (caller.role !== 'ADMIN') throw forbidden("Only the user and the blog's admins may read a user's info");
  }
  if (!(await core.user(userId))) throw notFound('User');
  const { role } = await core.standing({ kind: 'user', userId }, blogId);
  return { userId, role: role ?? 'READER' };
}

/** A blog with one user's standing in it (also `blogs.listByUser`'s `blogUserInfos`). */
function postUserInfo(post: Post, userId: string, role: Role): PostUserInfo {
  return {
    kind: 'blogger#postUserInfo',
    post,
    post_user_info: {
      kind: 'blogger#postPerUserInfo',
      userId,
      blogId: post.blog.id,
      postId: post.id,
      hasEditAccess: mayEdit(role, userId, 'post', { authorId: post.author.id ?? '' }),
    },
  };
}

/** `posts` is the same caller's posts API: a user's posts are read (and shown) as that caller reads them. */
export function userInfosApi(core: Core, actor: Actor, posts: PostReads) {
  return {
    blogUserInfos: {
      async get(input: BlogUserInfosGetParams): Promise<BlogUserInfo> {
        const p = core.parse(params.blogUserInfosGet, input);
        const { userId, role } = await subject(core, actor, p.userId, p.blogId);
        await core.promoteDue();
        const s = await core.reader(actor, p.blogId);
        return blogUserInfoWire(await blogResource(core, s.blog, s.view, p.maxPosts), userId, role);
      },
    },

    postUserInfos: {
      async get(input: PostUserInfosGetParams): Promise<PostUserInfo> {
        const p = core.parse(params.postUserInfosGet, input);
        const { userId, role } = await subject(core, actor, p.userId, p.blogId);
        const post = await posts.get({
          blogId: p.blogId,
          postId: p.postId,
          ...(p.maxComments !== undefined ? { maxComments: p.maxComments } : {}),
        });
        return postUserInfo(post, userId, role);
      },

      async list(input: PostUserInfosListParams): Promise<PostUserInfosList> {
        const { userId: who, fetchBodies, ...rest } = core.parse(params.postUserInfosList, input);
        const { userId, role } = await subject(core, actor, who, rest.blogId);
        const strip = Object.fromEntries(Object.entries(rest).filter(([, v]) => v !== undefined)) as typeof rest;
        const list = await posts.list({ ...strip, fetchBodies: fetchBodies ?? false });
        return {
          kind: 'blogger#postList',
          items: list.items.map((post) => postUserInfo(post, userId, role)),
          ...(list.nextPageToken ? { nextPageToken: list.nextPageToken } : {}),
        };
      },
    },
  };
}
