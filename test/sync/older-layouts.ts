/**
 * A replica's local store put back as an older blogcore wrote it, for the upgrade tests (Node and Chromium): layout
 * 2 kept every base in `settings` and none in the records; before 0.3.0 (no layout) the bases' fields had one
 * letter each.
 */
import type { Core } from '../../src/core/core.js';
import type { JsonObject, WriteOp } from '../../src/store/driver.js';
import { put, type Noted } from '../../src/store/records.js';

const LETTERS: Record<string, string> = { version: 'v', status: 's', fingerprint: 'h', gen: 'g', postId: 'p' };

function lettered(base: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(base)) out[LETTERS[k] ?? k] = v;
  // What a fingerprint covered in an older version: taken again for a clean record.
  out.h = 'older';
  return out;
}

/**
 * Moves every record's note of the blog back to a base in `settings` (the record one version on, so a base that
 * named its version names the new one) and marks the state as layout 2; `letters`: as 0.2 kept them, with the
 * bases of `alsoIds` (records gone, their bases already in `settings`) lettered too.
 */
export async function asOlderLayout(
  core: Core,
  blogId: string,
  letters = false,
  alsoIds: string[] = [],
): Promise<void> {
  const ops: WriteOp[] = [];
  for (const [collection, index] of [
    ['posts', 'published'],
    ['pages', 'published'],
    ['comments', 'post'],
  ] as const) {
    const found = await core.driver.list({ collection, index, prefix: [blogId], direction: 'asc', limit: 1000 });
    for (const r of found) {
      const note = r.doc.replica;
      if (!note) continue;
      const base: JsonObject = { ...note, version: note.version === r.version ? r.version + 1 : note.version! };
      ops.push(put(collection as Noted, { ...r.doc, replica: undefined } as never, r));
      const kept = await core.driver.get('settings', note.id);
      if (!kept) ops.push(put('settings', letters ? lettered(base) : base, 0));
    }
  }
  for (const id of alsoIds) {
    const kept = (await core.driver.get('settings', id))!;
    ops.push(put('settings', letters ? lettered(kept.doc) : kept.doc, kept.version));
  }
  const state = (await core.driver.get('settings', `sync:${blogId}`))!;
  const { layout: _l, ...old } = state.doc;
  ops.push(put('settings', letters ? old : { ...old, layout: 2 }, state.version));
  await core.driver.commit(ops);
}
