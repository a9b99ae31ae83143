/**
 * Conflicts shown and resolved (docs/design.md §16): what `replica.conflicts()` lists and what `resolve` does with
 * a choice. Loaded on the first of those calls: a replica that never meets a conflict never downloads it.
 */
import { type JsonObject, revisionOps } from '../service/store.js';
import { editable, kindOf } from './records.js';
import { Batch, baseId, baseIn, keyOf, settled, type Ctx, type StoredConflict } from './state.js';
import type { Conflict, ConflictChoice, ConflictField, ConflictVersion } from './types.js';
import type { Synced } from './model.js';

const FIELDS: readonly ConflictField[] = ['title', 'content', 'labels', 'status'];

type Fields = { id: string; title?: string; content: string; labels?: string[]; status: string; published?: string };

/**
 * Keeps `before` as a revision of a post or page now at `after`, by the revisions module's own rule (which
 * fields count, how many are kept); `after` is the stored record or its next version, and leaves with its count of
 * kept revisions (src/core/revision-capture.ts).
 */
async function keep(c: Ctx, batch: Batch, collection: Synced, before: Fields, after: Fields): Promise<void> {
  if (collection === 'comments') return;
  const kind = kindOf(collection) as 'post' | 'page';
  for (const op of await revisionOps(c.core, kind, before as never, after as never, c.core.nowIso())) {
    if (op.type === 'put') await batch.put('revisions', op.doc as { id: string });
    else await batch.delete('revisions', op.id);
  }
}

function side(record: JsonObject | null, etag?: string): ConflictVersion | null {
  const r = record as (Fields & { filename?: string; alt?: string }) | null;
  // A picture: its file name and alt text.
  if (r?.filename !== undefined) return { title: r.filename, content: r.alt ?? '', labels: [], status: '', etag };
  return r && { title: r.title ?? '', content: r.content, labels: r.labels ?? [], status: r.status, etag };
}

/** The id a conflict shows: a picture's is its media id (the SHA-256 after the blog id of its record). */
const shownId = (c: StoredConflict) => (c.collection === 'media' ? c.id.slice(-64) : c.id);

export function publicConflict(c: StoredConflict): Conflict {
  const mine = side(c.mine);
  const theirs = side(c.theirs, c.etag);
  const fields = FIELDS.filter((f) => JSON.stringify(mine?.[f]) !== JSON.stringify(theirs?.[f]));
  return {
    kind: kindOf(c.collection),
    id: shownId(c),
    reason: c.reason,
    message: c.message,
    mine,
    theirs,
    fields,
    detected: c.detected,
  };
}

export async function resolveConflict(c: Ctx, id: string, choice: ConflictChoice): Promise<void> {
  const found = c.state.conflicts.find((x) => shownId(x) === id);
  if (!found || (choice !== 'mine' && choice !== 'theirs'))
    throw new TypeError("resolve: no open conflict, or not 'mine' | 'theirs'");
  if (found.collection === 'media') return (await import('./media.js')).resolveMedia(c, found, choice);
  const { collection, mine } = found;
  const batch = new Batch(c.core);
  const current = (await batch.get<Fields>(collection, id))?.doc;
  if (choice === 'theirs') {
    // The local edit loses: it stays as a revision of the server's version (whose count of them, if it has one, moves).
    if (mine && current) {
      const after = { ...current };
      await keep(c, batch, collection, mine as Fields, after);
      if ('revisions' in current) await batch.put(collection, after);
    }
  } else {
    const bId = baseId(c.blogId, collection, id);
    const base = await baseIn(batch, c.blogId, collection, id);
    if (!mine) {
      // Mine was a delete: the server's copy goes (the base stays, so the delete is sent).
      if (current) await batch.delete(collection, id);
    } else if (current) {
      // Mine on top of the server's version: sent as an update against its etag.
      const m = mine as Fields;
      const next = {
        ...current,
        ...editable(collection, mine as never),
        status: m.status,
        published: m.published ?? current.published,
        id,
      };
      // The server's version loses here (and there, when the update lands): it stays as a revision.
      await keep(c, batch, collection, current, next);
      await batch.put(collection, next);
      if (base) await batch.put('settings', { ...base, version: -1 });
    } else {
      // The server has none: mine comes back as a record made here, created by the next push (its revisions went
      // with the server's copy: their count goes too).
      await batch.put(collection, {
        ...mine,
        id,
        revisions: undefined,
        path: undefined,
        commentsVis: undefined,
        liveComments: 0,
        allComments: 0,
        replica: undefined,
      });
      await batch.delete('settings', bId);
    }
    settled(c.state, collection, id);
    c.state.dirty.push(keyOf(collection, id));
  }
  c.state.conflicts = c.state.conflicts.filter((x) => x !== found);
  await batch.commit(c);
}
