/**
 * Revisions (an extension): every change of a post's or page's title, content or labels keeps the version it
 * replaced, in the same commit as the change, and drops the oldest beyond `revisionsKept` (default 50) in
 * that commit too. Read at AUTHOR view under the item's own visibility; a restore is an ordinary change
 * (ifMatch, the editor rules, events, and it keeps the version it replaces).
 */
import { atLeast, type Actor } from '../access.js';
import type { Core } from '../core.js';
import { del, put, type PageRecord, type PostRecord, type RevisionRecord } from '../records.js';
import { conflict, forbidden, notFound } from '../errors.js';
import { shortHash } from '../ids.js';
import { listOf, page } from '../paging.js';
import type { Schema } from '../validate.js';
import type { Revision, RevisionList } from '../wire.js';
import type { WriteOp } from '../driver.js';
import { loadVisible } from './content.js';

type Kind = 'post' | 'page';
type Item = PostRecord | PageRecord;

const labelsOf = (r: Item) => ('labels' in r ? r.labels : undefined);
const sameLabels = (a: string[] | undefined, b: string[] | undefined) => JSON.stringify(a ?? []) === JSON.stringify(b ?? []);

/** The ops that keep `before` as a revision when `after` changed its title, content or labels (none otherwise). */
export async function revisionOps(core: Core, kind: Kind, before: Item, after: Item, now: string): Promise<WriteOp[]> {
  if (core.revisionsKept === 0) return [];
  if (before.title === after.title && before.content === after.content && sameLabels(labelsOf(before), labelsOf(after))) return [];
  const labels = labelsOf(before);
  const kept: RevisionRecord = {
    id: core.newId(),
    blogId: before.blogId,
    kind,
    itemId: before.id,
    rev: before.rev,
    title: before.title,
    content: before.content,
    ...(labels ? { labels: [...labels] } : {}),
    updated: before.updated,
    replaced: now,
  };
  const count = await core.driver.count({ collection: 'revisions', index: 'item', prefix: [before.id] });
  const excess = count + 1 - core.revisionsKept;
  const oldest = excess > 0 ? await core.driver.list({ collection: 'revisions', index: 'item', prefix: [before.id], direction: 'asc', limit: excess }) : [];
  return [put('revisions', kept, 0), ...oldest.map((o) => del('revisions', o.id, o.version))];
}

/** Deletes of every revision of an item that is deleted for good (in its delete's commit). */
export async function revisionDeletes(core: Core, itemId: string): Promise<WriteOp[]> {
  const ops: WriteOp[] = [];
  let after: readonly string[] | undefined;
  for (;;) {
    const batch = await core.driver.list({
      collection: 'revisions',
      index: 'item',
      prefix: [itemId],
      ...(after ? { lower: { key: after, open: true } } : {}),
      direction: 'asc',
      limit: 500,
    });
    for (const r of batch) ops.push(del('revisions', r.id, r.version));
    if (batch.length < 500) return ops;
    after = batch[batch.length - 1]!.key.slice(1);
  }
}

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

type Change<R extends Item, T> = (blogId: string, id: string, ifMatch: string | undefined, fn: (r: R) => R) => Promise<T>;

/** What the posts and pages APIs pass in: their item's kind, its parameter schemas and their write path. */
interface Binding<R extends Item, T> {
  kind: Kind;
  list: Schema<unknown, { blogId: string; maxResults?: number | undefined; pageToken?: string | undefined }>;
  get: Schema<unknown, { blogId: string; revisionId: string }>;
  restore: Schema<unknown, { blogId: string; revisionId: string; ifMatch?: string | undefined }>;
  /** The item's own change (update events, editor rules). */
  change: Change<R, T>;
}

/** `posts.revisions` / `pages.revisions`; the item id is `postId` or `pageId`. */
export function revisionsApi<R extends Item, T, L, G, S>(core: Core, actor: Actor, b: Binding<R, T>) {
  const { kind } = b;
  const itemOf = (p: object) => (p as Record<string, string>)[`${kind}Id`]!;
  /** The item as an AUTHOR-view caller may see it: 403 below AUTHOR view, 404 where the item is. */
  async function reader(blogId: string, itemId: string) {
    const s = await core.reader(actor, blogId);
    if (!atLeast(s.view, 'AUTHOR')) throw forbidden('Revisions need the AUTHOR view');
    await loadVisible(core, kind, blogId, itemId, s);
  }
  async function load(p: { blogId: string; revisionId: string }): Promise<RevisionRecord> {
    const itemId = itemOf(p);
    await reader(p.blogId, itemId);
    const r = (await core.get<RevisionRecord>('revisions', p.revisionId))?.doc;
    if (!r || r.itemId !== itemId || r.blogId !== p.blogId) throw notFound('Revision');
    return r;
  }
  return {
    async list(input: L): Promise<RevisionList> {
      const p = core.parse(b.list, input);
      const itemId = itemOf(p);
      await reader(p.blogId, itemId);
      const pg = await page(
        core.driver,
        { collection: 'revisions', index: 'item', prefixes: [[itemId]], direction: 'desc', fingerprint: shortHash(JSON.stringify(['revisions', itemId])) },
        p.maxResults ?? 10,
        p.pageToken,
      );
      const items = pg.items.map((h) => revisionWire(core, h.doc as unknown as RevisionRecord));
      return listOf(
        'blogcore#revisionList',
        items,
        pg,
        items.map((i) => i.id),
      );
    },
    async get(input: G): Promise<Revision> {
      return revisionWire(core, await load(core.parse(b.get, input)));
    },
    async restore(input: S): Promise<T> {
      const p = core.parse(b.restore, input);
      const rev = await load(p);
      return b.change(p.blogId, itemOf(p), p.ifMatch, (r) => {
        if (r.status === 'SOFT_TRASHED') throw conflict(`Cannot restore into this ${kind}: it is SOFT_TRASHED (revert it first)`);
        return { ...r, title: rev.title, content: rev.content, ...('labels' in r ? { labels: [...(rev.labels ?? [])] } : {}) };
      });
    },
  };
}
