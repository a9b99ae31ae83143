import { actorUserId, authError, mayUseView, type Actor } from '../rules/access.js';
import type { Core } from '../core/core.js';
import { BlogError, forbidden, invalid, notFound } from '../util/errors.js';
import type { BlogRecord } from '../store/records.js';
import { normalizeBlogUrl, params, type Role } from '../schema/schemas.js';
import type { BlogsGetByUrlParams, BlogsGetParams, BlogsListByUserParams, UsersGetParams } from '../schema/params.js';
import { blogUserInfoWire, userWire } from '../core/wire.js';
import type { Blog, BlogList, BlogUserInfo, User } from '../schema/resources.js';
import { blogResource } from './views.js';

export function blogsApi(core: Core, actor: Actor) {
  const actorId = actorUserId(actor);

  const blogOut = (b: BlogRecord, view: Role, maxPosts: number | undefined) => blogResource(core, b, view, maxPosts);

  async function read(b: BlogRecord, view: Role | undefined, maxPosts: number | undefined): Promise<Blog> {
    await core.promoteDue();
    const s = await core.standing(actor, b.id, view);
    return blogOut(b, s.view, maxPosts);
  }

  return {
    blogs: {
      async get(input: BlogsGetParams): Promise<Blog> {
        const p = core.parse(params.blogsGet, input);
        return read(await core.blog(p.blogId), p.view, p.maxPosts);
      },

      async getByUrl(input: BlogsGetByUrlParams): Promise<Blog> {
        const p = core.parse(params.blogsGetByUrl, input);
        let url: string;
        try {
          url = normalizeBlogUrl(p.url);
        } catch {
          throw invalid('url', 'must be an absolute http(s) URL');
        }
        await core.ready();
        const hit = await core.driver.getByIndex('blogs', 'url', [url.toLowerCase()]);
        if (!hit) throw notFound('Blog');
        // Through the cache (a blog being deleted reads as gone); an old url finds the blog too.
        return read(await core.blog(hit.id), p.view, p.maxPosts);
      },

      async listByUser(input: BlogsListByUserParams): Promise<BlogList> {
        const p = core.parse(params.blogsListByUser, input);
        const userId = p.userId === 'self' ? actorId : p.userId;
        if (!userId) {
          if (actor.kind === 'anonymous') throw authError('Sign in to list your blogs');
          throw invalid('userId', "The host service has no 'self': name a user");
        }
        if (actor.kind !== 'host' && userId !== actorId) throw forbidden('You may list only your own blogs');
        await core.promoteDue();
        const roles = p.role ?? ['AUTHOR', 'ADMIN'];
        if (!(p.status ?? ['LIVE']).includes('LIVE')) return { kind: 'blogger#blogList', items: [] };
        const memberships = await core.driver.list({
          collection: 'members',
          index: 'user',
          prefix: [userId],
          direction: 'asc',
          limit: 10_000,
        });
        const items: Blog[] = [];
        const infos: BlogUserInfo[] = [];
        // User infos are loaded on first use, with blogUserInfos.get.
        const infoOf = p.fetchUserInfo ? blogUserInfoWire : undefined;
        for (const m of memberships) {
          const member = m.doc;
          if (!roles.includes(member.role)) continue;
          // A view above the user's role on a blog leaves that blog out instead of failing the whole list.
          if (p.view && !mayUseView(member.role, p.view)) continue;
          // A blog being deleted is left out (its memberships go last).
          const record = await core.blog(member.blogId).catch((e: unknown) => {
            if (BlogError.is(e) && e.code === 404) return undefined;
            throw e;
          });
          if (!record) continue;
          const blog = await blogOut(record, p.view ?? member.role, p.maxPosts);
          items.push(blog);
          if (infoOf) infos.push(infoOf(blog, userId, member.role));
        }
        return { kind: 'blogger#blogList', items, ...(p.fetchUserInfo ? { blogUserInfos: infos } : {}) };
      },
    },

    users: {
      async get(input: UsersGetParams): Promise<User> {
        const p = core.parse(params.usersGet, input);
        const userId = p.userId === 'self' ? actorId : p.userId;
        if (!userId) {
          if (actor.kind === 'anonymous') throw authError("Sign in to read 'self'");
          throw invalid('userId', "The host service has no 'self': name a user");
        }
        const u = await core.user(userId);
        if (!u) throw notFound('User');
        return userWire(u, core.links);
      },
    },
  };
}
