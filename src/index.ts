export { createBlogService, type BlogService, type BlogServiceOptions, type ActorInput } from './service.js';
export { BlogError, type BlogErrorInit, type ErrorReason, type GoogleErrorBody } from './errors.js';
export type { BlogEvent, EventType, Listener } from './events.js';
export type { ChangeItem, ChangeKind, ChangeList } from './changes.js';
export type { SchedulerOptions } from './scheduler.js';
export type * from './params.js';
export { POST_STATUSES, PAGE_STATUSES, COMMENT_STATUSES, ROLES, READER_COMMENTS, LIMITS, PAGE_VIEWS_RANGES } from './schemas.js';
export type {
  Blog,
  BlogList,
  Post,
  PostList,
  Page,
  PageList,
  Comment,
  CommentList,
  User,
  Author,
  BlogUserInfo,
  BlogPerUserInfo,
  PostUserInfo,
  PostPerUserInfo,
  PostUserInfosList,
  PageViews,
  Label,
  LabelList,
} from './wire.js';
export {
  DriverConflict,
  compareKeys,
  keyInRange,
  type StorageDriver,
  type StoreSchema,
  type CollectionDef,
  type IndexDef,
  type Key,
  type KeyBound,
  type Json,
  type JsonObject,
  type StoredDoc,
  type IndexedDoc,
  type IndexEntry,
  type WriteOp,
  type PutOp,
  type DeleteOp,
  type ListQuery,
  type RangeQuery,
  type SearchQuery,
  type Change,
  type CommitResult,
  type CommitOptions,
  type LogPosition,
  type LogBounds,
  type PruneQuery,
} from './driver.js';
export { STORE_SCHEMA } from './store-schema.js';
