/**
 * Revisions (an extension), the part every write carries: a change of a post's or page's title, content or
 * labels keeps the version it replaced, in the same commit as the change, and drops the oldest beyond
 * `revisionsKept` (default 50) in that commit too; a delete for good takes the item's revisions with it.
 * Reading and restoring them is src/resources/revisions.ts (loaded on first use).
 */
import type { Core } from './core.js';
import type { IndexedDoc, WriteOp } from '../store/driver.js';
import { del, put, type PageRecord, type PostRecord, type RevisionRecord } from '../store/records.js';

export type Kind = 'post' | 'page';
export type Item = PostRecord | PageRecord;

const labelsOf = (r: Item) => ('labels' in r ? r.labels : undefined);
const sameLabels = (a: string[] | undefined, b: string[] | undefined) =>
  JSON.stringify(a ?? []) === JSON.stringify(b ?? []);

/**
 * The ops that keep `before` as a revision when `after` changed its title, content or labels (none otherwise).
 * `after`, the record written in the same commit, carries the stored record's count of kept revisions (a spread of
 * it) or none (then they are counted, once); it leaves with the count after these ops.
 */
export async function revisionOps(core: Core, kind: Kind, before: Item, after: Item, now: string): Promise<WriteOp[]> {
  if (core.revisionsKept === 0) return [];
  if (before.title === after.title && before.content === after.content && sameLabels(labelsOf(before), labelsOf(after)))
    return [];
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
  const count =
    after.revisions ?? (await core.driver.count({ collection: 'revisions', index: 'item', prefix: [before.id] }));
  const excess = count + 1 - core.revisionsKept;
  const oldest =
    excess > 0
      ? await core.driver.list({
          collection: 'revisions',
          index: 'item',
          prefix: [before.id],
          direction: 'asc',
          limit: excess,
        })
      : [];
  after.revisions = count + 1 - oldest.length;
  return [put('revisions', kept, 0), ...oldest.map((o) => del('revisions', o.id, o.version))];
}

/** Every revision of an item, oldest first (a few pages of the item's index). */
export async function revisionsOf(core: Core, itemId: string): Promise<Array<IndexedDoc<RevisionRecord>>> {
  const out: Array<IndexedDoc<RevisionRecord>> = [];
  for (;;) {
    const page = await core.driver.list({
      collection: 'revisions',
      index: 'item',
      prefix: [itemId],
      ...(out.length ? { lower: { key: out[out.length - 1]!.key.slice(1), open: true } } : {}),
      direction: 'asc',
      limit: 500,
    });
    out.push(...page);
    if (page.length < 500) return out;
  }
}

/** Deletes of every revision of an item that is deleted for good (in its delete's commit). */
export async function revisionDeletes(core: Core, itemId: string): Promise<WriteOp[]> {
  return (await revisionsOf(core, itemId)).map((r) => del('revisions', r.id, r.version));
}
