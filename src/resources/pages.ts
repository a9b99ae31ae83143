import { actorUserId, requireRole, requireVisibleContent, type Actor } from '../rules/access.js';
import { edit, insertedStatus, publishPage, revertTo, trash } from '../rules/states.js';
import type { Core } from '../core/core.js';
import { shortHash } from '../util/ids.js';
import { listOf, page } from '../core/paging.js';
import { collabDocId, put, type PageRecord } from '../store/records.js';
import { sweepCollab } from './collab-sweep.js';
import { params, type Parsed } from '../schema/schemas.js';
import type {
  PagesActionParams,
  PagesDeleteParams,
  PagesGetParams,
  PagesInsertParams,
  PagesListParams,
  PagesRevisionsGetParams,
  PagesRevisionsListParams,
  PagesRevisionsRestoreParams,
  PagesUpdateParams,
} from '../schema/params.js';
import type { Page, PageList } from '../schema/resources.js';
import { changeItem, contentEvents, deleteContent, loadVisible, withPath } from './content.js';
import { pageOut } from './views.js';
import { revisionsApi } from './revisions.js';

/** A page body as checked; an update's or patch's may hold `null`: the field cleared (docs/design.md §24). */
type Body = Parsed<'pagesUpdate'>['body'];

function applyBody(r: PageRecord, b: Body, replace: boolean): PageRecord {
  const next: PageRecord = {
    ...r,
    title: b.title ?? (replace || b.title === null ? '' : r.title),
    content: b.content ?? (replace || b.content === null ? '' : r.content),
  };
  if (r.status === 'DRAFT') {
    const published = b.published ?? (replace || b.published === null ? undefined : r.published);
    if (published === undefined) delete next.published;
    else next.published = published;
  }
  return next;
}

/** pages.update (`replace`) and pages.patch. */
async function replaceOrPatch(core: Core, actor: Actor, input: PagesUpdateParams, replace: boolean): Promise<Page> {
  const p = core.parse(params.pagesUpdate, input);
  const fn = edit<PageRecord>('page', p, (r) => applyBody(r, p.body, replace), publishPage);
  const { after, view } = await changeItem(core, actor, 'page', p.blogId, p.pageId, p.ifMatch, fn, true);
  return pageOut(core, after, view);
}

/** A new page (ADMINs only): its state from the request and the clock, and its url. */
async function insertPage(core: Core, actor: Actor, input: PagesInsertParams): Promise<Page> {
  const actorId = actorUserId(actor);
  const p = core.parse(params.pagesInsert, input);
  const s = await core.writer(actor, p.blogId);
  const blog = s.blog;
  requireRole(s, 'ADMIN', 'write pages');
  const now = core.nowIso();
  const status = insertedStatus('page', p.isDraft, p.body.published, now);
  const draft = applyBody(
    {
      id: core.newId(),
      blogId: p.blogId,
      authorId: actorId ?? blog.ownerId,
      status: 'DRAFT',
      title: '',
      content: '',
      updated: now,
      rev: 1,
      revisions: 0,
    },
    p.body,
    true,
  );
  const record = status === 'LIVE' ? publishPage(draft, now) : draft;
  const r = await core.transact(
    async (retry) => {
      const withUrl = await withPath(core, 'page', record, retry > 0);
      return { ops: [put('pages', withUrl, 0)], result: withUrl };
    },
    (withUrl) => contentEvents(core, 'page', undefined, withUrl, false, actorId),
  );
  return pageOut(core, r, s.view);
}

/**
 * Pages load with the back office (create.ts), revisions included: so this module takes them from it directly,
 * not through `lazy()` as posts.ts must (a lazy module sharing util/lazy.ts with the first download gave it a
 * chunk of its own there).
 */
export function pagesApi(core: Core, actor: Actor) {
  return {
    /** Earlier versions of a page (an extension): list, get, restore. */
    revisions: revisionsApi<
      PageRecord,
      Page,
      PagesRevisionsListParams,
      PagesRevisionsGetParams,
      PagesRevisionsRestoreParams
    >(core, actor, {
      kind: 'page',
      change: async (blogId, pageId, ifMatch, fn) => {
        const { after, view } = await changeItem(core, actor, 'page', blogId, pageId, ifMatch, fn, true);
        return pageOut(core, after, view);
      },
    }),
    async get(input: PagesGetParams): Promise<Page> {
      const p = core.parse(params.pagesGet, input);
      const s = await core.reader(actor, p.blogId, p.view);
      const stored = await loadVisible(core, 'page', p.blogId, p.pageId, s);
      return pageOut(core, stored.doc, s.view);
    },

    async list(input: PagesListParams): Promise<PageList> {
      const p = core.parse(params.pagesList, input);
      const s = await core.reader(actor, p.blogId, p.view);
      const statuses = p.status ?? ['LIVE'];
      requireVisibleContent('page', statuses, s.view);
      const pg = await page(
        core.driver,
        {
          collection: 'pages',
          index: 'published',
          prefixes: statuses.map((st) => [p.blogId, st]),
          direction: 'desc',
          fingerprint: shortHash(JSON.stringify(['pages', p.blogId, [...statuses].sort()])),
        },
        p.maxResults ?? 10,
        p.pageToken,
      );
      const items = await Promise.all(pg.items.map((h) => pageOut(core, h.doc, s.view, p.fetchBodies ?? true)));
      return listOf('blogger#pageList', items, pg, [...items.map((i) => i.etag), s.view]);
    },

    insert: async (input: PagesInsertParams): Promise<Page> => insertPage(core, actor, input),

    update: async (input: PagesUpdateParams) => replaceOrPatch(core, actor, input, true),
    patch: async (input: PagesUpdateParams) => replaceOrPatch(core, actor, input, false),

    async delete(input: PagesDeleteParams): Promise<void> {
      const p = core.parse(params.pagesDelete, input);
      if (p.useTrash) {
        await changeItem(core, actor, 'page', p.blogId, p.pageId, p.ifMatch, (r, now) => trash('page', r, now), false);
        return;
      }
      await deleteContent(core, actor, 'page', p.blogId, p.pageId, p.ifMatch);
      await sweepCollab(core, collabDocId('page', p.pageId));
    },

    async publish(input: PagesActionParams): Promise<Page> {
      const p = core.parse(params.pagesAction, input);
      const { after, view } = await changeItem(
        core,
        actor,
        'page',
        p.blogId,
        p.pageId,
        p.ifMatch,
        (r, now) => publishPage(r, now),
        false,
      );
      return pageOut(core, after, view);
    },

    async revert(input: PagesActionParams): Promise<Page> {
      const p = core.parse(params.pagesAction, input);
      const { after, view } = await changeItem(
        core,
        actor,
        'page',
        p.blogId,
        p.pageId,
        p.ifMatch,
        (r) => revertTo(r),
        false,
      );
      return pageOut(core, after, view);
    },
  };
}
