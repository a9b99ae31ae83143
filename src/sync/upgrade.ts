/**
 * Replicas made before 0.3.0 stored each record's base with one-letter fields (`v`, `s`, `h`, `g`, `p`). The
 * first operation of such a replica renames them once (model.ts `Base`), then marks its state: read under
 * the new names, an old base would make every record look edited here. A record equal to its base is the
 * server's copy, so its fingerprint is taken again (what a fingerprint covers may have grown since).
 * Loaded only for such a replica.
 */
import type { Base } from './model.js';
import { fingerprint, type Local } from './records.js';
import { baseId, Batch, eachRecord, keyOf, NAMED_BASES, splitKey, type Ctx } from './state.js';

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

export async function nameBaseFields(ctx: Ctx): Promise<void> {
  await eachRecord(ctx, async (batch, collection, _id, version, base, doc) => {
    if (!isLettered(base)) return;
    const renamed = named(base);
    if (base.v === version) renamed.fingerprint = fingerprint(collection, doc as Local);
    await batch.put('settings', renamed);
  });
  // Deletes made here and not yet sent, and conflicts, keep a base with no local record.
  const st = ctx.state;
  const batch = new Batch(ctx.core);
  for (const key of new Set([...st.dirty, ...st.conflicts.map((c) => keyOf(c.collection, c.id))])) {
    const { collection, id } = splitKey(key);
    const base = (await batch.get<Base | LetterBase>('settings', baseId(ctx.blogId, collection, id)))?.doc;
    if (isLettered(base)) await batch.put('settings', named(base));
  }
  st.layout = NAMED_BASES;
  await batch.commit(ctx);
}
