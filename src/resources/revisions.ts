/**
 * Revisions (an extension): posts.revisions and pages.revisions, loaded on first use (what each write keeps
 * is src/core/revision-capture.ts). Read at AUTHOR view under the item's own visibility; a restore is an
 * ordinary change (ifMatch, the editor rules, events, and it keeps the version it replaces).
 */
import type { sweepCollab } from './collab-sweep.js';
import type { postsGet } from './post-now.js';
import { seesDrafts, type Actor } from '../rules/access.js';
import type { Core } from '../core/core.js';
import type { RevisionRecord } from '../store/records.js';
import { conflict, forbidden, notFound } from '../util/errors.js';
import { shortHash } from '../util/ids.js';
import { listOf, page } from '../core/paging.js';
import type { Schema } from '../schema/standard.js';
import { revisionsParams as params } from '../schema/revisions.js';
import type { Revision, RevisionList } from '../schema/resources.js';
import { loadVisible } from './content.js';
import type { Item, Kind } from '../core/revision-capture.js';

function revisionWire(core: Core, r: RevisionRecord): Revision {
  const item = r.kind === 'post' ? core.links.post(r.blogId, r.itemId) : core.links.page(r.blogId, r.itemId);
  return {
    kind: 'blogcore#revision',
    id: r.id,
    blog: { id: r.blogId },
    ...(r.kind === 'post' ? { post: { id: r.itemId } } : { page: { id: r.itemId } }),
    title: r.title,
    content: r.content,
    ...(r.labels ? { labels: [...r.labels] } : {}),
    updated: r.updated,
    replaced: r.replaced,
    selfLink: `${item}/revisions/${r.id}`,
  };
}

type Change<R extends Item, T> = (
  blogId: string,
  id: string,
  ifMatch: string | undefined,
  fn: (r: R) => R,
) => Promise<T>;

/** Each kind's parameter schemas (their item id is `postId` or `pageId`). */
const SCHEMAS: Record<
  Kind,
  {
    list: Schema<{ blogId: string; maxResults?: number | undefined; pageToken?: string | undefined }>;
    get: Schema<{ blogId: string; revisionId: string }>;
    restore: Schema<{ blogId: string; revisionId: string; ifMatch?: string | undefined }>;
  }
> = {
  post: { list: params.postsRevisionsList, get: params.postsRevisionsGet, restore: params.postsRevisionsRestore },
  page: { list: params.pagesRevisionsList, get: params.pagesRevisionsGet, restore: params.pagesRevisionsRestore },
};

/** What the posts and pages APIs pass in: their item's kind and their write path. */
interface Binding<R extends Item, T> {
  kind: Kind;
  /** The item's own change (update events, editor rules). */
  change: Change<R, T>;
}

/** How posts.ts gets this module: loaded on first use, with the rest of the back office (back-office.ts). */
export type LoadBackOffice = () => Promise<{
  revisionsApi: typeof revisionsApi;
  sweepCollab: typeof sweepCollab;
  postsGet: typeof postsGet;
}>;

/** `posts.revisions` / `pages.revisions`; the item id is `postId` or `pageId`. */
export function revisionsApi<R extends Item, T, L, G, S>(core: Core, actor: Actor, b: Binding<R, T>) {
  const { kind } = b;
  const schemas = SCHEMAS[kind];
  const itemOf = (p: object) => (p as Record<string, string>)[`${kind}Id`]!;
  /** The item as an AUTHOR-view caller may see it: 403 below AUTHOR view, 404 where the item is. */
  async function reader(blogId: string, itemId: string) {
    const s = await core.reader(actor, blogId);
    // Revisions hold text that was never published: drafts, for the AUTHOR view and above.
    if (!seesDrafts(s.view)) throw forbidden('Revisions need the AUTHOR view');
    await loadVisible(core, kind, blogId, itemId, s);
  }
  async function load(p: { blogId: string; revisionId: string }): Promise<RevisionRecord> {
    const itemId = itemOf(p);
    await reader(p.blogId, itemId);
    const r = (await core.get('revisions', p.revisionId))?.doc;
    if (!r || r.itemId !== itemId || r.blogId !== p.blogId) throw notFound('Revision');
    return r;
  }
  return {
    async list(input: L): Promise<RevisionList> {
      const p = core.parse(schemas.list, input);
      const itemId = itemOf(p);
      await reader(p.blogId, itemId);
      const pg = await page(
        core.driver,
        {
          collection: 'revisions',
          index: 'item',
          prefixes: [[itemId]],
          direction: 'desc',
          fingerprint: shortHash(JSON.stringify(['revisions', itemId])),
        },
        p.maxResults ?? 10,
        p.pageToken,
      );
      const items = pg.items.map((h) => revisionWire(core, h.doc));
      return listOf(
        'blogcore#revisionList',
        items,
        pg,
        items.map((i) => i.id),
      );
    },
    async get(input: G): Promise<Revision> {
      return revisionWire(core, await load(core.parse(schemas.get, input)));
    },
    async restore(input: S): Promise<T> {
      const p = core.parse(schemas.restore, input);
      const rev = await load(p);
      return b.change(p.blogId, itemOf(p), p.ifMatch, (r) => {
        if (r.status === 'SOFT_TRASHED')
          throw conflict(`Cannot restore into this ${kind}: it is SOFT_TRASHED (revert it first)`);
        return {
          ...r,
          title: rev.title,
          content: rev.content,
          ...('labels' in r ? { labels: [...(rev.labels ?? [])] } : {}),
        };
      });
    },
  };
}
