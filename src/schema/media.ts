/**
 * Media (docs/design.md §19): the resource, the parameters of `service.media`, and their zod schemas (built from
 * src/schema/checks.ts as schemas.ts's are; kept apart so they load with the media calls, not in every bundle).
 */
import type { ZodMiniType } from 'zod/mini';
import { bool, describe, integer, object, optional, refine, string, unknown } from './checks.js';
import type { IfMatch } from './params.js';
import { id, text } from './schemas.js';
import { MEDIA_LIMITS } from './values.js';

/** The picture types media may hold: decided by the bytes, never by a name or a declared type. */
export type MediaType = 'image/jpeg' | 'image/png' | 'image/gif' | 'image/webp' | 'image/avif';

/** A picture of a blog. `id` is the lowercase hex SHA-256 of its bytes. */
export interface Media {
  /** Always `blogcore#media`. */
  kind: 'blogcore#media';
  /** The picture's id: the lowercase hex SHA-256 of its bytes (the same picture uploaded twice is one). */
  id: string;
  /** The blog the picture belongs to. */
  blog: {
    /** The blog's id. */
    id: string;
  };
  /** `{apiBaseUrl}/media/{blogId}/{id}/{filename}`: where the bytes are served. */
  url: string;
  /** The picture's type, as its bytes say (never as a name or a sender says). */
  contentType: MediaType;
  /** The size in bytes. */
  bytes: number;
  /** Its width in pixels. */
  width: number;
  /** Its height in pixels. */
  height: number;
  /** The lowercase hex SHA-256 of the bytes (the same as `id`). */
  sha256: string;
  /** The file name it is served under, its extension matching the type (at most `MEDIA_LIMITS.filename` characters). */
  filename: string;
  /** Alternative text for readers who cannot see it (may be empty). */
  alt: string;
  /** Who uploaded it. */
  author: {
    /** The uploader's user id. */
    id: string;
    /** The uploader's display name. */
    displayName: string;
  };
  /** When it was uploaded. */
  published: string;
  /** When its `alt` or `filename` last changed. */
  updated: string;
  /** The stored version's tag, for `ifMatch` on `media.patch` and `media.delete`. */
  etag: string;
}

/** One page of a blog's pictures (`media.list`). */
export interface MediaList {
  /** Always `blogcore#mediaList`. */
  kind: 'blogcore#mediaList';
  /** The pictures of this page. */
  items: Media[];
  /** Pass as `pageToken` for the next page; absent on the last. */
  nextPageToken?: string;
}

/** The bytes of an upload: read once, as they come (a stream is never held whole). */
export type MediaBody = Blob | Uint8Array | ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>;

export interface MediaUploadParams {
  blogId: string;
  body: MediaBody;
  /** The type the sender says it is: refused (400) when the bytes are another. */
  contentType?: string;
  /** Its file name (the extension is made to match the type). Default: `image.<ext>`. */
  filename?: string;
  /** Alternative text for readers who cannot see it. */
  alt?: string;
}
export interface MediaGetParams {
  blogId: string;
  mediaId: string;
}
export interface MediaListParams {
  blogId: string;
  /** Only the media this post's (or page's) content uses, in the order it first uses them. */
  postId?: string;
  /** 1 to 500; default 20. */
  maxResults?: number;
  pageToken?: string;
}
export interface MediaPatchParams extends IfMatch {
  blogId: string;
  mediaId: string;
  body: { alt?: string; filename?: string };
}
export interface MediaDeleteParams extends IfMatch {
  blogId: string;
  mediaId: string;
  /** Delete even while a post or page uses it (their pictures then break). */
  force?: boolean;
}
/** `length` bytes from `offset` (to the end without `length`). */
export interface MediaRange {
  offset: number;
  length?: number;
}
export interface MediaReadParams {
  blogId: string;
  mediaId: string;
  range?: MediaRange;
}

/** The bytes of a picture, streamed. */
export interface MediaRead {
  contentType: MediaType;
  /** The picture's size in bytes (all of it, whatever the range). */
  bytes: number;
  /** `"<sha256>"`: the bytes never change under an id. */
  etag: string;
  /** The range `body` holds, when one was asked for (cut to the picture's end). */
  range?: { offset: number; length: number };
  body: ReadableStream<Uint8Array>;
}

const isBody = (v: unknown) =>
  v instanceof Uint8Array ||
  (typeof Blob !== 'undefined' && v instanceof Blob) ||
  (typeof ReadableStream !== 'undefined' && v instanceof ReadableStream) ||
  (typeof v === 'object' && v !== null && typeof (v as AsyncIterable<unknown>)[Symbol.asyncIterator] === 'function');

const sha = describe(
  refine(string(64, 64), (s) => /^[0-9a-f]{64}$/.test(s), 'must be a media id: the lowercase hex SHA-256 of its bytes'),
  {
    pattern: '^[0-9a-f]{64}$',
  },
);
/** The bytes of an upload: checked for their kind only (their content is the upload's to check, as it streams). */
const body = refine(
  unknown,
  isBody,
  'must be the picture: a Blob, a Uint8Array, a ReadableStream or an AsyncIterable of Uint8Array',
) as unknown as ZodMiniType<MediaBody, MediaBody>;
const ifMatch = optional(string(1, 200));

/** The media operations' parameter schemas (the OpenAPI document renders them beside schemas.ts's `params`). */
export const mediaParams = {
  mediaUpload: object({
    blogId: id,
    body,
    contentType: optional(string(1, 200)),
    filename: optional(text(1_000)),
    alt: optional(text(MEDIA_LIMITS.alt)),
  }),
  mediaGet: object({ blogId: id, mediaId: sha }),
  mediaList: object({
    blogId: id,
    postId: optional(id),
    maxResults: optional(integer(1, 500)),
    pageToken: optional(string(0, 2_000)),
  }),
  mediaPatch: object({
    blogId: id,
    mediaId: sha,
    body: object({ alt: optional(text(MEDIA_LIMITS.alt)), filename: optional(text(1_000)) }),
    ifMatch,
  }),
  mediaDelete: object({ blogId: id, mediaId: sha, force: optional(bool), ifMatch }),
  mediaRead: object({
    blogId: id,
    mediaId: sha,
    range: optional(
      object({ offset: integer(0, Number.MAX_SAFE_INTEGER), length: optional(integer(0, Number.MAX_SAFE_INTEGER)) }),
    ),
  }),
};
