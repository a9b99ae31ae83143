/**
 * Writing together (docs/design.md §20): the parameters and answers of `service.collab`, and their zod schemas
 * (built from src/schema/checks.ts as schemas.ts's are; kept apart so they load with the collab calls).
 */
import type { ZodMiniType } from 'zod/mini';
import { describe, integer, object, optional, refine, string, unknown } from './checks.js';
import { id } from './schemas.js';
import { COLLAB_LIMITS } from './values.js';

/** Which shared document: a post's (`postId`) or a page's (`pageId`), never both. */
export interface CollabTarget {
  blogId: string;
  postId?: string;
  pageId?: string;
}

export interface CollabOpenParams extends CollabTarget {}

export interface CollabPushParams extends CollabTarget {
  /** One Yjs update (from `Y.encodeStateAsUpdate` or a doc's `update` event), at most `COLLAB_LIMITS.update` bytes. */
  update: Uint8Array;
  /** The sender's presence (a y-protocols awareness update: who, cursor, selection): passed on, never stored. */
  presence?: Uint8Array;
}

export interface CollabPullParams extends CollabTarget {
  /** The `position` of the caller's last answer. */
  since: string;
  /** When nothing is new, wait up to this many milliseconds (at most 30000) for something. */
  wait?: number;
  /** The `presence.clock` of the caller's last answer: a pull also wakes when the others' presence moved past it. */
  presenceSince?: number;
}

/** The presence of everyone in the document as one awareness update, and its clock on this app server. */
export interface CollabPresence {
  update: Uint8Array;
  clock: number;
}

export interface CollabState {
  /** One Yjs update: the whole document (`open`), or what is new since `since`, merged (`pull`; empty when nothing is). */
  update: Uint8Array;
  /** Where this answer stands: the `since` of the next pull. Opaque. */
  position: string;
  /** Present when someone is there (pull and open). */
  presence?: CollabPresence;
}

export interface CollabPushResult {
  position: string;
}

const bytes = (max: number) =>
  refine(
    unknown,
    (v) => v instanceof Uint8Array && v.byteLength > 0 && v.byteLength <= max,
    `must be a Uint8Array of 1 to ${max} bytes`,
  ) as unknown as ZodMiniType<Uint8Array, Uint8Array>;

const position = describe(
  refine(string(1, 20), (s) => /^\d{1,16}$/.test(s), 'must be a position this document answered'),
  { pattern: '^\\d{1,16}$' },
);

const target = { blogId: id, postId: optional(id), pageId: optional(id) };

/** The collab operations' parameter schemas. */
export const collabParams = {
  collabOpen: object(target),
  collabPush: object({
    ...target,
    update: bytes(COLLAB_LIMITS.update),
    presence: optional(bytes(COLLAB_LIMITS.presence)),
  }),
  collabPull: object({
    ...target,
    since: position,
    wait: optional(integer(0, COLLAB_LIMITS.wait)),
    presenceSince: optional(integer(0, Number.MAX_SAFE_INTEGER)),
  }),
};
