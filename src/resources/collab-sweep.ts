/**
 * A deleted post's or page's shared document, swept once more after the delete (docs/design.md §20): a push or
 * an open that read the item before the delete landed can commit after the delete listed what to take with it.
 * Whichever lands last sweeps: the delete after its commit, a push or a first open after its own.
 */
import type { Core } from '../core/core.js';
import { DriverConflict } from '../store/driver.js';
import { collabDocDeletes } from './content.js';

export async function sweepCollab(core: Core, docId: string): Promise<void> {
  for (let ops = await collabDocDeletes(core, docId); ops.length; ops = await collabDocDeletes(core, docId)) {
    // Compacted or pushed to meanwhile: list again.
    await core.commit(ops).catch((error: unknown) => {
      if (!DriverConflict.is(error)) throw error;
    });
  }
}
