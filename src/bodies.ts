/**
 * The request bodies of the service's writes, as plain types (src/schemas.ts checks the same shapes at run
 * time). A resource read from the service may be sent back as a body: the fields the server owns are ignored.
 */
import type { ReaderComments, Timestamp } from './params.js';

/**
 * Fields of a resource the server owns. A body may carry them (a client may send back what it read); they
 * are ignored.
 */
export interface ServerOwnedFields {
  id?: unknown;
  kind?: unknown;
  blog?: unknown;
  post?: unknown;
  status?: unknown;
  url?: unknown;
  selfLink?: unknown;
  updated?: unknown;
  replies?: unknown;
  author?: unknown;
  etag?: unknown;
  trashed?: unknown;
  images?: unknown;
}

export interface PostBody extends ServerOwnedFields {
  title?: string;
  content?: string;
  /** At most 100 labels of at most 200 characters; trimmed and deduplicated. */
  labels?: readonly string[];
  published?: Timestamp;
  /** An absolute http(s) URL. */
  titleLink?: string;
  customMetaData?: string;
  readerComments?: ReaderComments;
  location?: { name?: string; lat?: number; lng?: number; span?: string };
}

export interface PageBody extends ServerOwnedFields {
  title?: string;
  content?: string;
  published?: Timestamp;
}

export interface CommentBody extends ServerOwnedFields {
  published?: unknown;
  /** HTML; sanitized to a small set of harmless tags. */
  content: string;
  inReplyTo?: { id: string };
  /** Counts only for anonymous and unscoped callers; a signed-in author is their user. */
  author?: { displayName?: string; url?: string; id?: unknown; image?: unknown };
}

export interface BlogBody extends ServerOwnedFields {
  name: string;
  /** The blog's public address: an absolute http(s) URL, unique. */
  url: string;
  description?: string;
  customMetaData?: string;
  published?: unknown;
  posts?: unknown;
  pages?: unknown;
  locale?: { language?: string; country?: string; variant?: string };
}

export interface UserBody {
  kind?: unknown;
  selfLink?: unknown;
  created?: unknown;
  blogs?: unknown;
  /** The host's own id for the user (letters, digits and `. _ @ : -`); generated when left out. */
  id?: string;
  displayName: string;
  /** An absolute http(s) URL. */
  url?: string;
  about?: string;
}
