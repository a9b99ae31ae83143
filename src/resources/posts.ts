import { actorUserId, requireRole, requireVisibleContent, type Actor } from '../rules/access.js';
import { edit, insertedStatus, publishPost, revertTo, trash } from '../rules/states.js';
import type { Core } from '../core/core.js';
import { lazy } from '../util/lazy.js';
import type { Key, WriteOp } from '../store/driver.js';
import { notFound } from '../util/errors.js';
import { shortHash } from '../util/ids.js';
import { listOf, page, type PageQuery } from '../core/paging.js';
import { collabDocId, delNoted, put, searchRank, type PostRecord, type UserRecord } from '../store/records.js';
import { params, type Parsed, type Role } from '../schema/schemas.js';
import type {
  PostsDeleteParams,
  PostsGetByPathParams,
  PostsGetParams,
  PostsInsertParams,
  PostsListParams,
  PostsPublishParams,
  PostsRevertParams,
  PostsRevisionsGetParams,
  PostsRevisionsListParams,
  PostsRevisionsRestoreParams,
  PostsSearchParams,
  PostsUpdateParams,
} from '../schema/params.js';
import { labelCounterOps } from '../store/label-counts.js';
import { hasPhrase, parseQuery, postWordFields } from '../rules/text.js';
import { authorOf, listEtag, postWire } from '../core/wire.js';
import type { Post, PostList } from '../schema/resources.js';
import type { LoadBackOffice } from './revisions.js';
import { changeItem, contentEvents, deleteContent, loadVisible, withPath } from './content.js';
import { postOut, postShape, type Shape } from './views.js';

/** A post body as checked; an update's or patch's may hold `null`: the field cleared (docs/design.md §24). */
type Body = Parsed<'postsUpdate'>['body'];

/** The rank of a suffix [sortTime, id] of the published-order indexes. */
const rankBySortTime = (suffix: Key) => searchRank(suffix[0]!);

/** Awaits every promise; a failure of an earlier one wins over a later one's (refusals keep their order). */
async function inOrder<T extends unknown[]>(...all: { [K in keyof T]: Promise<T[K]> }): Promise<T> {
  const settled = await Promise.allSettled(all);
  for (const r of settled) if (r.status === 'rejected') throw r.reason;
  return settled.map((r) => (r as PromiseFulfilledResult<unknown>).value) as T;
}

/** Posts of one blog as the caller sees them: a list page, with the blog and each author looked up once. */
async function postsOut(core: Core, records: PostRecord[], view: Role, shape: Shape): Promise<Post[]> {
  if (records.length === 0 || shape.maxComments) return Promise.all(records.map((r) => postOut(core, r, view, shape)));
  const blog = await core.blog(records[0]!.blogId);
  const users = new Map<string, UserRecord | undefined>();
  for (const r of records) if (!users.has(r.authorId)) users.set(r.authorId, await core.user(r.authorId));
  return records.map((r) =>
    postWire(r, blog, authorOf(users.get(r.authorId), r.authorId), postShape(r, view, shape), core.links),
  );
}

/** PUT replaces every writable field (absent ones are cleared); PATCH changes only the fields given. */
function applyBody(r: PostRecord, b: Body, replace: boolean): PostRecord {
  const pick = <K extends keyof Body>(
    k: K,
    fallback: NonNullable<Body[K]> | undefined,
    current: NonNullable<Body[K]> | undefined,
  ): NonNullable<Body[K]> | undefined => (b[k] === null ? fallback : (b[k] ?? (replace ? fallback : current)));
  const next: PostRecord = {
    ...r,
    title: pick('title', '', r.title) ?? '',
    content: pick('content', '', r.content) ?? '',
    labels: pick('labels', [], r.labels) ?? [],
    readerComments: pick('readerComments', 'ALLOW', r.readerComments) ?? 'ALLOW',
  };
  const optional = ['titleLink', 'customMetaData', 'location'] as const;
  for (const k of optional) {
    const v = pick(k, undefined, r[k]);
    if (v === undefined) delete next[k];
    else (next as unknown as Record<string, unknown>)[k] = v;
  }
  // `published` is the saved time only while a draft; elsewhere the state table owns it.
  if (r.status === 'DRAFT') {
    const v = pick('published', undefined, r.published);
    if (v === undefined) delete next.published;
    else next.published = v;
  }
  return next;
}

/** One page of a blog's posts, by time or by label, filtered by a search query when `q` is given. */
async function listOrSearch(core: Core, actor: Actor, p: Parsed<'postsList'>, q?: string): Promise<PostList> {
  // The caller's standing is checked beside the page's read (one round trip instead of two on a server);
  // its refusals still come first.
  const standing = core.reader(actor, p.blogId, p.view);
  const statuses = p.status ?? ['LIVE'];
  const allowed = async () => {
    const s = await standing;
    requireVisibleContent('post', statuses, s.view);
    return s;
  };
  const byUpdated = p.orderBy === 'UPDATED';
  const labels = p.labels?.length ? [...p.labels].sort() : undefined;
  const prefixes: Key[] = labels
    ? labels.flatMap((l) => statuses.map((st) => [p.blogId, l, st]))
    : statuses.map((st) => [p.blogId, st]);
  const parsed = q === undefined ? undefined : parseQuery(q);
  const query: PageQuery<'posts'> = {
    collection: 'posts',
    index: labels ? (byUpdated ? 'labelUpdated' : 'labelPublished') : byUpdated ? 'updated' : 'published',
    prefixes,
    direction: p.sortOption === 'ASCENDING' ? 'asc' : 'desc',
    ...(p.startDate !== undefined ? { start: p.startDate } : {}),
    ...(p.endDate !== undefined ? { end: p.endDate } : {}),
    fingerprint: shortHash(
      JSON.stringify([
        'posts',
        p.blogId,
        [...statuses].sort(),
        labels,
        byUpdated,
        p.sortOption === 'ASCENDING',
        p.startDate,
        p.endDate,
        parsed,
      ]),
    ),
  };
  if (parsed) {
    const { words, phrases } = parsed;
    if (words.length === 0) {
      await allowed();
      return { kind: 'blogger#postList', items: [], etag: listEtag(['empty']) };
    }
    // By publish time, the index's order is the search rank's (records.ts): a driver may walk its index in it.
    query.search = { scope: p.blogId, tokens: words, ...(byUpdated ? {} : { rankOf: rankBySortTime }) };
    // A replica's first pull writes its posts' search terms after them (later-terms.ts): a search waits for them.
    const terms = core.termsWritten(p.blogId);
    if (terms) await terms;
    if (phrases.length) {
      query.filter = (hits) =>
        hits.filter((h) => {
          const fields = postWordFields(h.doc);
          return phrases.every((ph) => hasPhrase(fields, ph));
        });
    }
  }
  // Due scheduled posts are looked for beside the page, not before it: almost always none are due; when
  // some were made LIVE, the page is read again so it shows them.
  const read = () =>
    page(core.driver, query, p.maxResults ?? 10, p.pageToken, (collection, ids) => core.docs(collection, ids));
  // A promotion by a concurrent call of this process may land between the read and promoteDue's look.
  const seen = core.promotions;
  const [s, promoted, first] = await inOrder(allowed(), core.promoteDue(), read());
  const pg = promoted || core.promotions !== seen ? await read() : first;
  const items = await postsOut(
    core,
    pg.items.map((h) => h.doc),
    s.view,
    { fetchBody: p.fetchBodies, fetchImages: p.fetchImages, maxComments: p.maxComments },
  );
  return listOf('blogger#postList', items, pg, [...items.map((i) => i.etag), s.view]);
}

/** A new post: its state from the request and the clock, its url, and its labels' counters in one commit. */
async function insertPost(core: Core, actor: Actor, input: PostsInsertParams): Promise<Post> {
  const actorId = actorUserId(actor);
  const p = core.parse(params.postsInsert, input);
  const b = p.body;
  const id = core.newId();
  const now = core.nowIso();
  const status = insertedStatus('post', p.isDraft, b.published, now);
  const published = status === 'DRAFT' ? b.published : (b.published ?? now);
  const { post, view } = await core.transact(
    async (retry) => {
      const s = await core.writer(actor, p.blogId, true);
      requireRole(s, 'AUTHOR', 'write posts');
      const draft = applyBody(
        {
          id,
          blogId: p.blogId,
          authorId: actorId ?? s.blog.ownerId,
          status,
          title: '',
          content: '',
          labels: [],
          readerComments: 'ALLOW',
          ...(published !== undefined ? { published } : {}),
          updated: now,
          rev: 1,
          revisions: 0,
          liveComments: 0,
          allComments: 0,
        },
        b,
        true,
      );
      if (status !== 'DRAFT') draft.published = published!;
      const withUrl = await withPath(core, 'post', draft, retry > 0);
      return {
        ops: [put('posts', withUrl, 0), ...labelCounterOps(undefined, withUrl)],
        result: { post: withUrl, view: s.view },
        seen: s.seen,
      };
    },
    (r, look) => contentEvents(core, 'post', undefined, r.post, false, actorId, look),
  );
  return postOut(core, post, view, p);
}

/** Deletions of every comment on a post, read in pages of 1,000. */
async function commentDeletions(core: Core, blogId: string, postId: string): Promise<WriteOp[]> {
  const ops: WriteOp[] = [];
  let after: Key | undefined;
  for (;;) {
    const batch = await core.driver.list({
      collection: 'comments',
      index: 'post',
      prefix: [blogId, postId],
      ...(after ? { lower: { key: after, open: true } } : {}),
      direction: 'asc',
      limit: 1000,
    });
    for (const c of batch) ops.push(...delNoted('comments', c));
    if (batch.length < 1000) return ops;
    after = batch[batch.length - 1]!.key.slice(2);
  }
}

/** A LIVE post by its path: as Blogger shows it, without the leading slash, or as the full url. */
async function postByPath(core: Core, actor: Actor, input: PostsGetByPathParams): Promise<Post> {
  const p = core.parse(params.postsGetByPath, input);
  const s = await core.reader(actor, p.blogId, p.view);
  const blog = s.blog;
  // Accept the path as Blogger shows it (/2026/11/x.html), without the slash, or as the full url.
  let path = p.path.startsWith(blog.url) ? p.path.slice(blog.url.length - 1) : p.path;
  if (!path.startsWith('/')) path = `/${path}`;
  path = path.split(/[?#]/)[0]!;
  const hit = await core.driver.getByIndex('posts', 'path', [p.blogId, path]);
  if (!hit) throw notFound('Post');
  let r = hit.doc;
  if (r.status === 'SCHEDULED') r = await core.promote(hit);
  if (r.status !== 'LIVE') throw notFound('Post');
  return postOut(core, r, s.view, { maxComments: p.maxComments });
}

/** posts.update (`replace`) and posts.patch. */
async function replaceOrPatch(core: Core, actor: Actor, input: PostsUpdateParams, replace: boolean): Promise<Post> {
  const p = core.parse(params.postsUpdate, input);
  const fn = edit<PostRecord>(
    'post',
    p,
    (r) => applyBody(r, p.body, replace),
    (r, now) => publishPost(r, undefined, now),
  );
  const { after, view } = await changeItem(core, actor, 'post', p.blogId, p.postId, p.ifMatch, fn, true);
  return postOut(core, after, view, p);
}

/** `loadBackOffice` loads the revisions code on the first `posts.revisions` call (the service's back office). */
export function postsApi(core: Core, actor: Actor, loadBackOffice: LoadBackOffice) {
  return {
    /** Earlier versions of a post (an extension): list, get, restore. */
    revisions: lazy(
      async () =>
        (await loadBackOffice()).revisionsApi<
          PostRecord,
          Post,
          PostsRevisionsListParams,
          PostsRevisionsGetParams,
          PostsRevisionsRestoreParams
        >(core, actor, {
          kind: 'post',
          change: async (blogId, postId, ifMatch, fn) => {
            const { after, view } = await changeItem(core, actor, 'post', blogId, postId, ifMatch, fn, true);
            return postOut(core, after, view, {});
          },
        }),
      ['list', 'get', 'restore'],
    ),

    async get(input: PostsGetParams): Promise<Post> {
      const p = core.parse(params.postsGet, input);
      // On a server's drivers (SQLite, memory: in one synchronous step; PostgreSQL: in one wait) that code comes with
      // the back office (loaded once; a browser's driver, IndexedDB, never loads it, so its first download leaves it out).
      const now =
        core.driver.checksUnchanged && (await (core.atOnce ??= await loadBackOffice()).postsGet(core, actor, p));
      if (now) return now;
      // The post is read beside the caller's standing (one round trip instead of two on a server).
      const [s, found] = await inOrder(core.reader(actor, p.blogId, p.view), core.get('posts', p.postId));
      const stored = await loadVisible(core, 'post', p.blogId, p.postId, s, async () => found);
      return postOut(core, stored.doc, s.view, p);
    },

    async list(input: PostsListParams): Promise<PostList> {
      return listOrSearch(core, actor, core.parse(params.postsList, input));
    },

    async search(input: PostsSearchParams): Promise<PostList> {
      const { q, ...rest } = core.parse(params.postsSearch, input);
      return listOrSearch(core, actor, rest, q);
    },

    // (Each of these checks its parameters inside an async function: a refusal comes as a rejection.)
    getByPath: (input: PostsGetByPathParams): Promise<Post> => postByPath(core, actor, input),
    insert: (input: PostsInsertParams): Promise<Post> => insertPost(core, actor, input),
    update: (input: PostsUpdateParams): Promise<Post> => replaceOrPatch(core, actor, input, true),
    patch: (input: PostsUpdateParams): Promise<Post> => replaceOrPatch(core, actor, input, false),

    async delete(input: PostsDeleteParams): Promise<void> {
      const p = core.parse(params.postsDelete, input);
      if (p.useTrash) {
        await changeItem(core, actor, 'post', p.blogId, p.postId, p.ifMatch, (r, now) => trash('post', r, now), false);
        return;
      }
      // The post and every comment on it go in one commit. Comment writes also touch the post, so a
      // comment added meanwhile makes this commit fail and retry rather than leave an orphan.
      await deleteContent(core, actor, 'post', p.blogId, p.postId, p.ifMatch, () =>
        commentDeletions(core, p.blogId, p.postId),
      );
      await (await loadBackOffice()).sweepCollab(core, collabDocId('post', p.postId));
    },

    async publish(input: PostsPublishParams): Promise<Post> {
      const p = core.parse(params.postsPublish, input);
      const { after, view } = await changeItem(
        core,
        actor,
        'post',
        p.blogId,
        p.postId,
        p.ifMatch,
        (r, now) => publishPost(r, p.publishDate, now),
        false,
      );
      return postOut(core, after, view, {});
    },

    async revert(input: PostsRevertParams): Promise<Post> {
      const p = core.parse(params.postsRevert, input);
      const { after, view } = await changeItem(
        core,
        actor,
        'post',
        p.blogId,
        p.postId,
        p.ifMatch,
        (r) => revertTo(r),
        false,
      );
      return postOut(core, after, view, {});
    },
  };
}
