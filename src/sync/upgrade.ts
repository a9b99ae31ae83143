/**
 * Replicas of older layouts, brought to this one on their first operation (loaded only for such a replica):
 * - made before 0.3.0 (no layout), they kept each record's base with one-letter fields (`v`, `s`, `h`, `g`, `p`),
 *   renamed here (model.ts `Base`): read under the new names, an old base would make every record look edited
 *   here. A record equal to its base is the server's copy, so its fingerprint is taken again (what a fingerprint
 *   covers may have grown since).
 * - layout 2 kept every base in `settings`: a record here takes its base as its note (docs/design.md §26), one
 *   version on and as clean or edited as it was. Bases with no record here (deletes not yet sent, conflicts) and
 *   pictures' stay in `settings`, where a delete's note goes anyway.
 */
import type { Base } from './model.js';
import { fingerprint, type Local } from './records.js';
import { baseId, Batch, eachRecord, keyOf, LAYOUT, splitKey, type Ctx } from './state.js';

interface LetterBase {
  id: string;
  v: number;
  etag?: string;
  s: string;
  h: string;
  g: number;
  p?: string;
}

const isLettered = (doc: object | undefined): doc is LetterBase => doc !== undefined && 'v' in doc;

function named(b: LetterBase): Base {
  const base: Base = { id: b.id, version: b.v, status: b.s, fingerprint: b.h, gen: b.g };
  if (b.etag !== undefined) base.etag = b.etag;
  if (b.p !== undefined) base.postId = b.p;
  return base;
}

export async function upgradeBases(ctx: Ctx): Promise<void> {
  await eachRecord(ctx, async (batch, collection, _id, version, found, doc) => {
    // None, or already the record's own note (a run cut short before its last page).
    if (!found || (doc as { replica?: Base }).replica === found) return;
    const base = isLettered(found) ? named(found) : { ...found };
    if (isLettered(found) && found.v === version) base.fingerprint = fingerprint(collection, doc as Local);
    if (collection === 'media') {
      if (isLettered(found)) await batch.put('settings', base);
      return;
    }
    if (base.version === version) base.version++;
    await batch.put(collection, { ...doc, replica: base });
    await batch.delete('settings', base.id);
  });
  // Deletes made here and not yet sent, and conflicts, keep a base with no local record.
  const st = ctx.state;
  const batch = new Batch(ctx.core);
  for (const key of new Set([...st.dirty, ...st.conflicts.map((c) => keyOf(c.collection, c.id))])) {
    const { collection, id } = splitKey(key);
    const base = (await batch.get<Base | LetterBase>('settings', baseId(ctx.blogId, collection, id)))?.doc;
    if (isLettered(base)) await batch.put('settings', named(base));
  }
  st.layout = LAYOUT;
  await batch.commit(ctx);
}
