/**
 * Blog and user management, loaded on first use (src/util/lazy.ts): blogs.insert (the owner becomes its ADMIN),
 * blogs.update/patch (name, description, url, locale; an old url keeps answering getByUrl), blogs.delete
 * (ADMIN; in bounded batches that a crash can resume), users.insert and users.update.
 * The core's caches of blogs and users follow every commit and the change log (src/core/record-cache.ts).
 */
import { actorUserId, authError, requireRole, type Actor } from '../rules/access.js';
import type { Core } from '../core/core.js';
import { DriverConflict, type Key, type WriteOp } from '../store/driver.js';
import { BlogError, conflict, forbidden, invalid, notFound } from '../util/errors.js';
import type {
  BlogsDeleteParams,
  BlogsInsertParams,
  BlogsPatchParams,
  BlogsUpdateParams,
  UsersInsertParams,
  UsersUpdateParams,
} from '../schema/params.js';
import {
  del,
  memberId,
  put,
  type BlogRecord,
  type Collection,
  type Records,
  type UserRecord,
} from '../store/records.js';
import type { IndexName } from '../store/schema.js';
import { blogAdminParams as params, type BlogAdminParsed as Parsed } from '../schema/blog-admin.js';
import { normalizeBlogUrl } from '../schema/schemas.js';
import { userWire } from '../core/wire.js';
import type { Blog, User } from '../schema/resources.js';
import { blogResource } from './views.js';
import { revisionDeletes } from '../core/revision-capture.js';
import { deleteVariants } from '../media/variants.js';
import { collabUpdateDeletes } from './content.js';

/** Records removed per commit by blogs.delete. */
const BATCH = 100;
/** Old urls a blog keeps answering to; older ones are freed for other blogs. */
const OLD_URLS = 20;

type BlogPatch = Parsed<'blogsPatch'>['body'];

function applyBlog(b: BlogRecord, body: BlogPatch, replace: boolean, now: string): BlogRecord {
  const url = body.url !== undefined ? normalizeBlogUrl(body.url) : b.url;
  const next: BlogRecord = {
    ...b,
    name: body.name?.trim() ?? b.name,
    description: body.description ?? (replace || body.description === null ? '' : b.description),
    url,
    locale: body.locale
      ? {
          language: body.locale.language ?? 'en',
          country: body.locale.country ?? '',
          variant: body.locale.variant ?? '',
        }
      : replace || body.locale === null
        ? { language: 'en', country: '', variant: '' }
        : b.locale,
    updated: now,
  };
  const meta = body.customMetaData ?? (replace || body.customMetaData === null ? undefined : b.customMetaData);
  if (meta === undefined) delete next.customMetaData;
  else next.customMetaData = meta;
  const words = body.disallowedCommentWords ?? (replace ? undefined : b.disallowedCommentWords);
  if (words === undefined || words.length === 0) delete next.disallowedCommentWords;
  else next.disallowedCommentWords = [...words];
  if (url !== b.url)
    next.oldUrls = [...(b.oldUrls ?? []).filter((u) => u !== url && u !== b.url), b.url].slice(-OLD_URLS);
  return next;
}

/** blogs.update (`replace`) and blogs.patch: ADMINs only; a new url must be free. */
async function changeBlog(core: Core, actor: Actor, blogId: string, body: BlogPatch, replace: boolean): Promise<Blog> {
  const s = await core.writer(actor, blogId);
  requireRole(s, 'ADMIN', 'change the blog');
  const next = await core.transact(
    async () => {
      const stored = await core.get('blogs', blogId);
      if (!stored || stored.doc.deleting) throw notFound('Blog');
      const changed = applyBlog(stored.doc, body, replace, core.nowIso());
      if (changed.url !== stored.doc.url) {
        const holder = await core.driver.getByIndex('blogs', 'url', [changed.url.toLowerCase()]);
        if (holder && holder.id !== blogId) throw conflict(`A blog with the url ${changed.url} exists`);
      }
      return { ops: [put('blogs', changed, stored.version)], result: changed };
    },
    (changed) =>
      core.event('blog.updated', { blogId, id: blogId, actorId: actorUserId(actor) }, () =>
        blogResource(core, changed, 'ADMIN', undefined),
      ),
  );
  return blogResource(core, next, s.view, undefined);
}

/**
 * Deletes up to BATCH records found through one index under the blog; answers how many went. `first` runs
 * before their commit (a crash after it finds the records again and runs it again).
 */
async function purge<C extends Collection>(
  core: Core,
  collection: C,
  index: IndexName<C>,
  prefix: Key,
  extra?: (ids: string[]) => Promise<WriteOp[]>,
  first?: (docs: readonly Records[C][]) => Promise<void>,
): Promise<number> {
  for (;;) {
    const batch = await core.driver.list({ collection, index, prefix, direction: 'asc', limit: BATCH });
    if (batch.length === 0) return 0;
    await first?.(batch.map((r) => r.doc));
    const ops: WriteOp[] = batch.map((r) => ({ type: 'delete', collection, id: r.id, expect: r.version }));
    if (extra) ops.push(...(await extra(batch.map((r) => r.id))));
    try {
      await core.commit(ops);
      return batch.length;
    } catch (error) {
      if (!DriverConflict.is(error)) throw error;
      // Something moved under the batch (a late comment): read it again.
    }
  }
}

const revisionsOf = (core: Core) => async (ids: string[]) =>
  (await Promise.all(ids.map((id) => revisionDeletes(core, id)))).flat();
const collabUpdatesOf = (core: Core) => async (ids: string[]) =>
  (await Promise.all(ids.map((id) => collabUpdateDeletes(core, id)))).flat();

/** blogs.insert: a signed-in user creates a blog they own (host code names the owner); the url must be free. */
async function insertBlog(core: Core, actor: Actor, input: BlogsInsertParams): Promise<Blog> {
  const actorId = actorUserId(actor);
  const p = core.parse(params.blogsInsert, input);
  if (actor.kind === 'anonymous') throw forbidden('Sign in to create a blog');
  await core.requireWriter(actor);
  const ownerId = actor.kind === 'user' ? actor.userId : p.ownerId;
  if (!ownerId)
    throw new BlogError({
      code: 400,
      reason: 'required',
      message: 'Required: ownerId (the user who will be ADMIN)',
      location: 'ownerId',
      locationType: 'parameter',
    });
  if (actor.kind === 'user' && p.ownerId && p.ownerId !== actor.userId)
    throw forbidden('You may create blogs only for yourself');
  if (!(await core.user(ownerId))) throw invalid('ownerId', `No user ${ownerId}: create it with users.insert first`);
  const now = core.nowIso();
  const b = p.body;
  const record: BlogRecord = {
    id: core.newId(),
    name: b.name.trim(),
    description: b.description ?? '',
    url: normalizeBlogUrl(b.url),
    locale: {
      language: b.locale?.language ?? 'en',
      country: b.locale?.country ?? '',
      variant: b.locale?.variant ?? '',
    },
    ...(b.customMetaData !== undefined ? { customMetaData: b.customMetaData } : {}),
    ...(b.disallowedCommentWords?.length ? { disallowedCommentWords: [...b.disallowedCommentWords] } : {}),
    ownerId,
    published: now,
    updated: now,
  };
  await core.ready();
  if (await core.driver.getByIndex('blogs', 'url', [record.url.toLowerCase()]))
    throw conflict(`A blog with the url ${record.url} exists`);
  const out = () => blogResource(core, record, 'ADMIN', undefined);
  try {
    await core.commit(
      [
        put('blogs', record, 0),
        put('members', { id: memberId(record.id, ownerId), blogId: record.id, userId: ownerId, role: 'ADMIN' }, 0),
      ],
      await core.event('blog.inserted', { blogId: record.id, id: record.id, actorId }, out),
    );
  } catch (error) {
    if (DriverConflict.is(error)) throw conflict(`A blog with the url ${record.url} exists`);
    throw error;
  }
  return out();
}

/**
 * Marks the blog as being deleted (from that commit on it reads as gone, everywhere), then removes its
 * comments, posts (with revisions), pages, label counters, page views, members and itself, each commit
 * at most BATCH records. Calling it again on a blog a crash left half-deleted finishes the work.
 */
async function deleteBlog(core: Core, actor: Actor, input: BlogsDeleteParams): Promise<void> {
  const actorId = actorUserId(actor);
  const p = core.parse(params.blogsDelete, input);
  await core.requireWriter(actor);
  const blogId = p.blogId;
  const stored = await core.get('blogs', blogId);
  if (!stored) throw notFound('Blog');
  requireRole(await core.standing(actor, blogId), 'ADMIN', 'delete the blog');
  if (!stored.doc.deleting) {
    await core.transact(async () => {
      const now = await core.get('blogs', blogId);
      if (!now) throw notFound('Blog');
      return {
        ops: now.doc.deleting ? [] : [put('blogs', { ...now.doc, deleting: true }, now.version)],
        result: undefined,
      };
    });
  }
  while (await purge(core, 'comments', 'post', [blogId]));
  while (await purge(core, 'posts', 'published', [blogId], revisionsOf(core)));
  while (await purge(core, 'pages', 'published', [blogId], revisionsOf(core)));
  // Shared documents with the pushes not yet folded into them (deleted with their posts and pages above,
  // unless a crash came between).
  while (await purge(core, 'collabDocs', 'blog', [blogId], collabUpdatesOf(core)));
  while (await purge(core, 'labels', 'blog', [blogId]));
  while (await purge(core, 'pageviews', 'owner', [blogId]));
  while (await purge(core, 'redirects', 'blog', [blogId]));
  // Media: the bytes of each picture go before its record.
  while (
    await purge(
      core,
      'media',
      'blog',
      [blogId],
      undefined,
      async (docs) =>
        void (await Promise.all(
          docs.map(async (d) => {
            await core.blobs.delete(d.blob);
            await deleteVariants(core, d);
          }),
        )),
    )
  );
  // Members go last, so the admin who started can resume; the blog record goes with the last of them.
  for (;;) {
    const members = await core.driver.list({
      collection: 'members',
      index: 'blog',
      prefix: [blogId],
      direction: 'asc',
      limit: BATCH,
    });
    const ops: WriteOp[] = members.map((m) => del('members', m.id, m.version));
    if (members.length < BATCH) {
      const blog = await core.get('blogs', blogId);
      if (blog) ops.push(del('blogs', blogId, blog.version));
    }
    if (ops.length === 0) break;
    const last = ops[ops.length - 1]!.collection === 'blogs';
    try {
      await core.commit(ops, last ? await core.event('blog.deleted', { blogId, id: blogId, actorId }) : []);
    } catch (error) {
      if (!DriverConflict.is(error)) throw error;
      continue;
    }
    if (members.length < BATCH) break;
  }
}

export function blogAdminApi(core: Core, actor: Actor) {
  const actorId = actorUserId(actor);

  return {
    blogs: {
      async insert(input: BlogsInsertParams): Promise<Blog> {
        return insertBlog(core, actor, input);
      },

      async update(input: BlogsUpdateParams): Promise<Blog> {
        const p = core.parse(params.blogsUpdate, input);
        return changeBlog(core, actor, p.blogId, p.body, true);
      },

      async patch(input: BlogsPatchParams): Promise<Blog> {
        const p = core.parse(params.blogsPatch, input);
        return changeBlog(core, actor, p.blogId, p.body, false);
      },

      async delete(input: BlogsDeleteParams): Promise<void> {
        return deleteBlog(core, actor, input);
      },
    },

    users: {
      async insert(input: UsersInsertParams): Promise<User> {
        const p = core.parse(params.usersInsert, input);
        if (actor.kind !== 'host') throw forbidden('Only host code creates users');
        const b = p.body;
        const record: UserRecord = {
          id: b.id ?? core.newId(),
          displayName: b.displayName.trim(),
          ...(b.url !== undefined ? { url: b.url } : {}),
          ...(b.about !== undefined ? { about: b.about } : {}),
          created: core.nowIso(),
        };
        if (record.id === 'self') throw invalid('body.id', "'self' is reserved");
        const out = userWire(record, core.links);
        await core.transact(
          async () => {
            if (await core.get('users', record.id)) throw conflict(`User ${record.id} exists`);
            return { ops: [put('users', record, 0)], result: undefined };
          },
          () => core.event('user.inserted', { id: record.id, actorId }, () => out),
        );
        return out;
      },

      /** Changes the given fields of a user (absent ones stay). The user themselves, or host code. */
      async update(input: UsersUpdateParams): Promise<User> {
        const p = core.parse(params.usersUpdate, input);
        if (actor.kind === 'anonymous') throw authError('Sign in to change a user');
        const userId = p.userId === 'self' ? actorId : p.userId;
        if (!userId) throw invalid('userId', "The host service has no 'self': name a user");
        if (actor.kind === 'user' && actor.userId !== userId) throw forbidden('Users may change only themselves');
        const b = p.body;
        const next = await core.transact(
          async () => {
            const stored = await core.get('users', userId);
            if (!stored) throw notFound('User');
            const u: UserRecord = {
              ...stored.doc,
              ...(b.displayName !== undefined ? { displayName: b.displayName.trim() } : {}),
              ...(b.url != null ? { url: b.url } : {}),
              ...(b.about != null ? { about: b.about } : {}),
            };
            // `null` clears the field (docs/design.md §24).
            if (b.url === null) delete u.url;
            if (b.about === null) delete u.about;
            return { ops: [put('users', u, stored.version)], result: u };
          },
          (u) => core.event('user.updated', { id: userId, actorId }, () => userWire(u, core.links)),
        );
        return userWire(next, core.links);
      },
    },
  };
}
