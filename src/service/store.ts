/**
 * The store as blogcore's own features see it (blogcore/io restores and exports records, blogcore/sync keeps a
 * replica, the reading site follows the change feed, the HTTP helper keeps Idempotency-Keys): the records and
 * their keys, writes, the log, the upkeep a write of a post or page carries, and what the service decides about
 * a stored blog, post or picture that a restore or a replica decides the same way. The features import these by
 * name from here, never from store/, core/ or resources/ (biome.jsonc fences them), beside the service's public
 * surface (types.ts) and its engine (internals.ts).
 */
// The records, their keys and writes.
export type { Core } from '../core/core.js';
export {
  DriverConflict,
  fixedChunks,
  type IndexedDoc,
  type JsonObject,
  type Key,
  type LogPosition,
  type StoredDoc,
  type WriteOp,
} from '../store/driver.js';
export {
  addTo,
  asJson,
  collabStream,
  del,
  delNoted,
  laterTermsId,
  mediaId,
  memberId,
  put,
  type BlogRecord,
  type Collection,
  type CommentRecord,
  type MediaRecord,
  type MemberRecord,
  type Noted,
  type ReplicaNote,
  type PageRecord,
  type PostRecord,
  type Records,
  type UserRecord,
} from '../store/records.js';
export type { IndexName } from '../store/schema.js';

// A post's comment class (which comment index prefix its comments are filed under): an access rule.
export { commentVisOf } from '../rules/access.js';

// The log, and the upkeep a write of a post or page carries.
export { blogChanges } from '../store/streams.js';
export type { ChangeItem, ChangeList } from '../resources/changes.js';
export { labelCounterOps, labelCountsOps } from '../store/label-counts.js';
export { revisionOps, revisionsOf } from '../core/revision-capture.js';

// What the service decides about stored records: etags, public urls, a blog's url, a post's or page's path.
export { etagOf, publicUrl } from '../core/wire.js';
export { normalizeBlogUrl } from '../schema/schemas.js';
export { withPath } from '../resources/content.js';
// A blog's redirects are in ./redirects.ts, apart: a replica imports this module and never needs them.
