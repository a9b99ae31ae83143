/**
 * What waits to be sent is found by comparing local records with their bases (state.ts): the local change
 * stream of the blog names what was written since the last look, and a write whose version is one the replica
 * stored itself is skipped, so pull-applied writes never go back.
 */
import { blogChanges } from '../service/store.js';

import { basesOf, eachRecord, isDirty, keyOf, pulledCommits, saveState, type Ctx } from './state.js';
import type { Synced } from './model.js';

const SCAN = 500;

/**
 * Looks at the local writes since the last look and keeps in `state.dirty` the records that differ from their
 * bases; stores where it looked up to when `save` (a push does; a look at what waits, perhaps from a tab that
 * does not sync, only reads).
 */
export async function scan(ctx: Ctx, save = true): Promise<void> {
  const { core, blogId, state: st } = ctx;
  await core.ready();
  const dirty = new Set(st.dirty);
  const { pruned } = await core.driver.logBounds();
  const own = pulledCommits(core);
  // The local log was pruned past the last look: every local record of the blog against its base.
  let moved = pruned > st.scanned.seq;
  if (moved)
    await eachRecord(
      ctx,
      async (_, collection, id, version, base) => void (isDirty(version, base) && dirty.add(keyOf(collection, id))),
    );
  // The blog's streams hold its posts, pages and comments only (the replica's own documents have none).
  for (;;) {
    const all = await blogChanges(core.driver, blogId, st.scanned, SCAN, true);
    const last = all[all.length - 1];
    if (!last) break;
    // A pulled page's commit holds the replica's own writes only.
    const changes = all.filter((c) => !own.has(c.seq));
    const bases = changes.length
      ? await basesOf(
          core,
          blogId,
          changes.map((c) => ({ collection: c.collection as Synced, id: c.id })),
        )
      : [];
    changes.forEach((c, i) => {
      const base = bases[i];
      // The replica's own writes: a put of the version its base names (or an older one it has written over since),
      // a delete that removed the base too.
      if (c.type === 'put' ? base && base.version >= c.version : !base) return;
      dirty.add(keyOf(c.collection as Synced, c.id));
    });
    st.scanned = { seq: last.seq, pos: last.pos };
    moved = true;
    if (all.length < SCAN) break;
  }
  for (const seq of own) if (seq < st.scanned.seq) own.delete(seq);
  // A record that turns out equal to its base again (or made and dropped here) is taken off when pushed.
  st.dirty = [...dirty];
  if (moved && save) await saveState(ctx);
}
