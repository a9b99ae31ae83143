/**
 * `blogcore/blobs`: stores for media bytes outside the database (docs/design.md §19), for `createBlogService({ driver, blobs })`.
 * Node only (files, and the host's S3 client).
 */
export { fsBlobs, type FsBlobsOptions } from './fs.js';
export { s3Blobs, type S3BlobsOptions, type S3ClientLike } from './s3.js';
export type { BlobStore, BlobRange } from '../../store/driver.js';
