import { BlogError, forbidden } from '../util/errors.js';
import type { Actor } from '../rules/access.js';
import { Core } from '../core/core.js';
import type { EventType, Listener } from '../core/events.js';
import { INTERNALS, type Internals } from './internals.js';
import { lazy } from '../util/lazy.js';
import type { SchedulerOptions } from '../core/scheduler.js';
import { blogsApi } from '../resources/blogs.js';
import { commentsApi } from '../resources/comments.js';
import { postsApi } from '../resources/posts.js';
import type { ActorInput, BlogService, BlogServiceOptions, PagesApi } from './types.js';

/** The namespaces of a service (everything but its own methods). */
type Namespaces = Omit<BlogService, 'as' | 'on' | 'ready' | 'startScheduler' | 'close'>;

// The back office's calls (blog and user management, members, comment moderation, user infos, page views,
// labels, changes, revisions, media) load on the first of them, through one module (src/util/lazy.ts).
const backOffice = () => import('../resources/back-office.js');

function apis(core: Core, actor: Actor): Namespaces {
  const base = blogsApi(core, actor);
  const posts = postsApi(core, actor, backOffice);
  const admin = async () => (await backOffice()).blogAdminApi(core, actor);
  const infos = async () => (await backOffice()).userInfosApi(core, actor, posts);
  // Pages are rarer than posts in a browser editor: they load with the back office, which shares their code.
  const pages = async () => (await backOffice()).pagesApi(core, actor);
  const pageCalls = async (): Promise<Omit<PagesApi, 'revisions'>> => pages();
  const all = {
    blogs: { ...base.blogs, ...lazy(async () => (await admin()).blogs, ['insert', 'update', 'patch', 'delete']) },
    users: { ...base.users, ...lazy(async () => (await admin()).users, ['insert', 'update']) },
    members: lazy(async () => (await backOffice()).membersApi(core, actor), ['set', 'remove', 'list']),
    posts,
    pages: {
      ...lazy(pageCalls, ['get', 'list', 'insert', 'update', 'patch', 'delete', 'publish', 'revert']),
      revisions: lazy(async () => (await pages()).revisions, ['list', 'get', 'restore']),
    },
    comments: {
      ...commentsApi(core, actor),
      ...lazy(
        async () => (await backOffice()).commentModerationApi(core, actor),
        ['listByBlog', 'approve', 'markAsSpam', 'removeContent', 'delete', 'moderate'],
      ),
    },
    blogUserInfos: lazy(async () => (await infos()).blogUserInfos, ['get']),
    postUserInfos: lazy(async () => (await infos()).postUserInfos, ['get', 'list']),
    pageViews: lazy(async () => (await backOffice()).pageViewsApi(core, actor), ['get', 'record']),
    labels: lazy(async () => (await backOffice()).labelsApi(core, actor), ['list']),
    redirects: lazy(async () => (await backOffice()).redirectsApi(core, actor), ['list', 'insert', 'delete']),
    changes: lazy(async () => (await backOffice()).changesApi(core, actor), ['list']),
    media: lazy(
      async () => (await backOffice()).mediaApi(core, actor),
      ['upload', 'get', 'list', 'patch', 'delete', 'read'],
    ),
    // Writing together loads Yjs and the editor's schema: only when a document is first opened, pushed or pulled.
    collab: lazy(async () => (await import('../resources/collab.js')).collabApi(core, actor), ['open', 'push', 'pull']),
  } satisfies Namespaces;
  // Compile-time: the object built here has exactly the namespaces and methods types.ts declares and documents.
  const exact: Same<Shape<typeof all>, Shape<Namespaces>> = true;
  void exact;
  // A write's events are committed with it (Core.transact), so a call that returned is heard by every server.
  return all;
}

/** The names of an API's namespaces and methods, nested (`true` for a method). */
type Shape<T> = { [K in keyof T]-?: T[K] extends (...args: never[]) => unknown ? true : Shape<T[K]> };
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

function scoped(core: Core, actor: Actor): BlogService {
  const service: BlogService = {
    ...apis(core, actor),
    as(next: ActorInput): BlogService {
      if (actor.kind !== 'host') throw forbidden('Only the host service may act as another user');
      // Each scoped service is a session of its own: with read replicas, its reads see its own writes.
      if (next === null) return scoped(core.withSession(), { kind: 'anonymous' });
      if (typeof next !== 'object' || typeof next.userId !== 'string' || next.userId === '' || next.userId === 'self') {
        throw new BlogError({
          code: 400,
          reason: 'invalid',
          message: 'as() takes { userId } or null',
          location: 'actor',
          locationType: 'parameter',
        });
      }
      return scoped(core.withSession(), { kind: 'user', userId: next.userId });
    },
    on(type: EventType | '*', listener: Listener): () => void {
      return core.listen(type, listener);
    },
    ready(): Promise<void> {
      return core.ready();
    },
    startScheduler(options?: SchedulerOptions): () => void {
      if (actor.kind !== 'host') throw forbidden('Only the host service runs the scheduler');
      // Besides publishing on time: spam and client addresses past their 30 days go (docs/design.md §25).
      return core.startScheduler(options, async () => (await backOffice()).sweepComments(core));
    },
    async close(): Promise<void> {
      core.stopScheduler();
      for (const listener of core.closeListeners) listener();
      await core.ready().catch(() => undefined);
      await (await core.share)?.close();
      await core.driver.close();
    },
  };
  const internals: Internals = {
    core,
    actor,
    fork(token) {
      const session = core.readSession?.child();
      if (!session) return service;
      session.see(token);
      return scoped(core.withSession(session), actor);
    },
  };
  Object.defineProperty(service, INTERNALS, { value: internals });
  return service;
}

/** The blog service: every Blogger v3 operation as a typed method, over the given storage driver. */
export function createBlogService(options: BlogServiceOptions): BlogService {
  if (!options || typeof options.driver?.commit !== 'function') {
    throw new TypeError('createBlogService needs { driver }: e.g. memoryDriver() from blogcore/memory');
  }
  return scoped(new Core(options).withSession(), { kind: 'host' });
}
