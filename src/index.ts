export { createBlogService, type BlogService, type BlogServiceOptions, type ActorInput } from './service/create.js';
export { BlogError, type BlogErrorInit, type ErrorReason, type GoogleErrorBody } from './util/errors.js';
export type { BlogEvent, EventType, Listener } from './core/events.js';
export type { ChangeItem, ChangeKind, ChangeList } from './resources/changes.js';
export type { SchedulerOptions } from './core/scheduler.js';
export type * from './schema/params.js';
export type * from './schema/media.js';
export { POST_STATUSES, PAGE_STATUSES, COMMENT_STATUSES, ROLES, READER_COMMENTS, LIMITS, PAGE_VIEWS_RANGES } from './schema/values.js';
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
} from './schema/resources.js';
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
} from './store/driver.js';
export { STORE_SCHEMA } from './store/schema.js';
