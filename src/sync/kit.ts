/**
 * The pictures module (media.ts) loads on first use, and takes what it needs from the replica's start-up modules
 * from here, handed in rather than imported: a lazily loaded module that imported them would split the chunks
 * they sit in, and every piece is a start-up chunk of its own (docs/design.md §16).
 */
import { asJson, mediaId } from '../store/records.js';
import { BlogError } from '../util/errors.js';
import { isDirty } from './model.js';
import { editable, fingerprint, revOf } from './records.js';
import { RemoteError } from './remote.js';
import { Batch, baseId, keyOf, settled } from './state.js';
import { picturesId, picturesIn } from './wanted.js';
import type { MediaKit } from './media.js';

const kit: MediaKit = {
  Batch,
  BlogError,
  RemoteError,
  asJson,
  mediaId,
  isDirty,
  editable,
  fingerprint,
  revOf,
  baseId,
  keyOf,
  picturesId,
  picturesIn,
  settled,
};

/** The pictures module's calls (loaded the first time a replica meets a picture). */
export const loadMedia = async () => (await import('./media.js')).pictures(kit);
