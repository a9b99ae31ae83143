import { BlogError, forbidden } from '../util/errors.js';
import type { Actor } from '../rules/access.js';
import { Core, type CoreOptions } from '../core/core.js';
import type { EventType, Listener } from '../core/events.js';
import { INTERNALS } from './internals.js';
import { lazy } from '../util/lazy.js';
import type { SchedulerOptions } from '../core/scheduler.js';
import { blogsApi } from '../resources/blogs.js';
import { commentsApi } from '../resources/comments.js';
import { pagesApi } from '../resources/pages.js';
import { postsApi } from '../resources/posts.js';

export type BlogServiceOptions = CoreOptions;

/** Who a scoped service acts for: a user of the host (`{ userId }`), or an anonymous reader (`null`). */
export type ActorInput = { userId: string } | null;

function apis(core: Core, actor: Actor) {
  const base = blogsApi(core, actor);
  // Loaded on first call (src/util/lazy.ts): blog management and members, user infos, page views, labels, the pull.
  const admin = async () => (await import('../resources/blog-admin.js')).blogAdminApi(core, actor);
  const infos = async () => (await import('../resources/userinfos.js')).userInfosApi(core, actor);
  const all = {
    blogs: { ...base.blogs, ...lazy(async () => (await admin()).blogs, { insert: 1, update: 1, patch: 1, delete: 1 }) },
    users: { ...base.users, ...lazy(async () => (await admin()).users, { insert: 1, update: 1 }) },
    members: lazy(async () => (await import('../resources/members.js')).membersApi(core, actor), { set: 1, remove: 1, list: 1 }),
    posts: postsApi(core, actor),
    pages: pagesApi(core, actor),
    comments: commentsApi(core, actor),
    blogUserInfos: lazy(async () => (await infos()).blogUserInfos, { get: 1 }),
    postUserInfos: lazy(async () => (await infos()).postUserInfos, { get: 1, list: 1 }),
    pageViews: lazy(async () => (await import('../resources/pageviews.js')).pageViewsApi(core, actor), { get: 1, record: 1 }),
    labels: lazy(async () => (await import('../resources/labels.js')).labelsApi(core, actor), { list: 1 }),
    changes: lazy(async () => (await import('../resources/changes.js')).changesApi(core, actor), { list: 1 }),
    media: lazy(async () => (await import('../resources/media.js')).mediaApi(core, actor), { upload: 1, get: 1, list: 1, patch: 1, delete: 1, read: 1 }),
  };
  const share = core.share;
  return share ? settled(all, { flush: async () => (await share).flush() }) : all;
}

/**
 * With events shared across app servers, a call resolves once the events it caused are stored for the other
 * servers too, so "the write returned" means every server will hear of it. Nested namespaces (posts.revisions)
 * are wrapped the same way.
 */
function settled<T extends Record<string, unknown>>(all: T, share: { flush(): Promise<void> }): T {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(all)) {
    out[name] =
      typeof value === 'function'
        ? async (...args: unknown[]) => {
            const result = await (value as (...a: unknown[]) => Promise<unknown>)(...args);
            await share.flush();
            return result;
          }
        : settled(value as Record<string, unknown>, share);
  }
  return out as T;
}

export interface BlogService extends ReturnType<typeof apis> {
  /** A service acting for one user (or an anonymous reader). Only host code may choose who to act as. */
  as(actor: ActorInput): BlogService;
  /** Listens to events after successful writes; returns the function that stops listening. */
  on(type: EventType | '*', listener: Listener): () => void;
  /** Opens the store (creating or upgrading it). Every call does this itself; await it to fail early. */
  ready(): Promise<void>;
  /**
   * Publishes scheduled posts at their time (a timer set to the next one, re-armed by writes), emitting
   * `post.published` then rather than at the next read. Answers the function that stops it.
   */
  startScheduler(options?: SchedulerOptions): () => void;
  /** Closes the store (and stops the scheduler). */
  close(): Promise<void>;
}

function scoped(core: Core, actor: Actor): BlogService {
  const service: BlogService = {
    ...apis(core, actor),
    as(next: ActorInput): BlogService {
      if (actor.kind !== 'host') throw forbidden('Only the host service may act as another user');
      if (next === null) return scoped(core, { kind: 'anonymous' });
      if (typeof next !== 'object' || typeof next.userId !== 'string' || next.userId === '' || next.userId === 'self') {
        throw new BlogError({ code: 400, reason: 'invalid', message: 'as() takes { userId } or null', location: 'actor', locationType: 'parameter' });
      }
      return scoped(core, { kind: 'user', userId: next.userId });
    },
    on(type: EventType | '*', listener: Listener): () => void {
      // Listening also hears the writes of other app servers on the same store, from now on.
      core.share?.then((share) => share.follow(core.ready())).catch(() => undefined);
      return core.events.on(type, listener);
    },
    async ready(): Promise<void> {
      await core.ready();
      await (await core.share)?.started;
    },
    startScheduler(options?: SchedulerOptions): () => void {
      if (actor.kind !== 'host') throw forbidden('Only the host service runs the scheduler');
      return core.startScheduler(options);
    },
    async close(): Promise<void> {
      core.stopScheduler();
      await core.ready().catch(() => undefined);
      await (await core.share)?.close();
      await core.driver.close();
    },
  };
  Object.defineProperty(service, INTERNALS, { value: { core, actor } });
  return service;
}

/** The blog service: every Blogger v3 operation as a typed method, over the given storage driver. */
export function createBlogService(options: BlogServiceOptions): BlogService {
  if (!options || typeof options.driver?.commit !== 'function') {
    throw new TypeError('createBlogService needs { driver }: e.g. memoryDriver() from blogcore/memory');
  }
  return scoped(new Core(options), { kind: 'host' });
}
