/**
 * What the core stores, and the index keys and tokens each record gets. This is the only place that
 * knows how records map onto the indexes of `store-schema.ts`.
 */
import type { AddOp, JsonObject, Key, PutOp, StoredDoc, WriteOp } from './driver.js';
import type { CommentStatus, PageStatus, PostStatus, ReaderComments, Role } from '../schema/schemas.js';
import { distinctWords, postWordFields } from '../rules/text.js';
import { commentVisOf, seesCommentStatus, seesContent, visibleClasses, type CommentVis } from '../rules/access.js';
import { mediaRefs } from '../rules/media-refs.js';
import type { MediaType } from '../schema/media.js';
import { blogStream, RECORDS_STREAM } from './streams.js';

export { RECORDS_STREAM } from './streams.js';

export interface UserRecord {
  id: string;
  displayName: string;
  url?: string;
  about?: string;
  created: string;
}

export interface BlogRecord {
  id: string;
  name: string;
  description: string;
  /** Absolute, with a trailing slash. */
  url: string;
  locale: { language: string; country: string; variant: string };
  customMetaData?: string;
  /** The user who created it: the author of posts and pages that host code writes. */
  ownerId: string;
  /** Earlier urls (newest last, at most 20): `getByUrl` still finds the blog by them. */
  oldUrls?: string[];
  /** Set by blogs.delete: the blog reads as gone while its records are removed in batches. */
  deleting?: true;
  /** Words that send a comment to SPAM in this blog, beside the service's (docs/design.md §25). */
  disallowedCommentWords?: string[];
  published: string;
  updated: string;
}

export interface MemberRecord {
  id: string;
  blogId: string;
  userId: string;
  role: Role;
}

/**
 * What a replica notes on a record it synced (docs/design.md §26): written by the sync feature, opaque to the core.
 * Every write of the record keeps it (`put`), a delete leaves it in `settings` under its own id (`delNoted`), and
 * it never leaves the store (not on the wire, in exports or in events).
 */
export type ReplicaNote = JsonObject & { id: string };

interface Authored {
  id: string;
  blogId: string;
  authorId: string;
  title: string;
  content: string;
  /** When it went (or goes) LIVE; for drafts the saved time `publish` will use, if any. */
  published?: string;
  updated: string;
  trashed?: string;
  /** `/YYYY/MM/slug.html` or `/p/slug.html`, assigned at first publish and kept for good. */
  path?: string;
  /** Bumped on every change of the resource itself (not of its comment counts): the etag's source. */
  rev: number;
  /**
   * How many of its earlier versions the `revisions` collection keeps: written in every commit that adds or drops
   * one, so exact under the record's version; absent (records written before it, a replica's pulled copies):
   * counted on the next change (src/core/revision-capture.ts). Never leaves the store.
   */
  revisions?: number;
  /** No reader has ever been able to see it (set by `put`, see `markUnseen`). */
  unseen?: true;
  replica?: ReplicaNote;
}

export interface PostRecord extends Authored {
  status: PostStatus;
  labels: string[];
  titleLink?: string;
  customMetaData?: string;
  location?: { name?: string; lat?: number; lng?: number; span?: string };
  readerComments: ReaderComments;
  /** LIVE comments (the public `replies.totalItems`). */
  liveComments: number;
  /** Every comment of the post, whatever its status: any comment write touches the post, so a delete sees them all. */
  allComments: number;
  /** The visibility class all of its comments are filed under (absent: 'open'); see comment-visibility.ts. */
  commentsVis?: CommentVis;
}

export interface PageRecord extends Authored {
  status: PageStatus;
}

export interface CommentRecord {
  id: string;
  blogId: string;
  postId: string;
  status: CommentStatus;
  content: string;
  published: string;
  updated: string;
  inReplyTo?: string;
  /** A signed-in author; otherwise the name and url an anonymous reader gave. */
  authorId?: string;
  authorName?: string;
  authorUrl?: string;
  /** Where an anonymous comment came from: for the blog's ADMINs only (docs/design.md §25). */
  clientAddress?: string;
  /** The visibility class its blog-wide index entries are filed under (absent: 'open'); see comment-visibility.ts. */
  vis?: CommentVis;
  /** No reader has ever been able to see it (set by `put`, see `markUnseen`). */
  unseen?: true;
  replica?: ReplicaNote;
}

/**
 * A page-view counter: a blog's views on one UTC day (`day`), a post's views on one day (`postId` and
 * `day`), or a blog's views of all time (neither). Recording a view bumps its counters in one commit.
 */
export interface PageViewRecord {
  id: string;
  blogId: string;
  postId?: string;
  /** YYYY-MM-DD (UTC). */
  day?: string;
  count: number;
}

/** How many posts of a blog carry a label: LIVE ones and all of them. Changed in the commit that changes a post. */
export interface LabelRecord {
  id: string;
  blogId: string;
  label: string;
  live: number;
  all: number;
}

export const labelId = (blogId: string, label: string) => `${blogId}:${label}`;

/** A version of a post's or page's title, content and labels that a later change replaced. */
export interface RevisionRecord {
  id: string;
  blogId: string;
  kind: 'post' | 'page';
  itemId: string;
  /** The item's revision number (`rev`) this version had. */
  rev: number;
  title: string;
  content: string;
  labels?: string[];
  /** When this version was current from (the item's `updated` then). */
  updated: string;
  /** When a change replaced it. */
  replaced: string;
}

/** A picture of a blog (docs/design.md §19). Its id is `mediaId(blogId, sha256)`: one record per blog and picture. */
export interface MediaRecord {
  id: string;
  blogId: string;
  sha256: string;
  /** Where its bytes are in the blob store: `<blogId>/<upload id>`, written once. */
  blob: string;
  contentType: MediaType;
  bytes: number;
  width: number;
  height: number;
  filename: string;
  alt: string;
  /** Who uploaded it (an AUTHOR may delete only their own). */
  authorId: string;
  published: string;
  updated: string;
  /** Bumped on every change (alt, filename): the etag's source. */
  rev: number;
  /** The url an import downloaded it from: a re-run finds it there instead of downloading it again. */
  source?: string;
  /** Its bytes went through metadata cleaning when stored (docs/design.md §23): `cleanMedia` passes it by. */
  cleaned?: true;
}

/**
 * A comment counter shared by the app servers on one store (`commentLimits.shared`): the token bucket of one
 * address or user (rules/comments.ts), written with each comment it admits, swept once it would be full again.
 */
export interface LimitRecord {
  id: string;
  tokens: number;
  /** When `tokens` was counted (ms). */
  at: number;
  /** When the bucket is full again (ISO): a sweep may remove it then. */
  expires: string;
}

export const mediaId = (blogId: string, sha256: string) => `${blogId}:${sha256}`;

/**
 * A post's or page's shared document (docs/design.md §20): its Yjs state as of its last compaction, and what the
 * item's stored title and content were when the document last rendered them or took them in (`rev` is the item's
 * revision then: a later revision is a change from outside, merged into the document).
 */
export interface CollabDocRecord {
  /** `post:<postId>` or `page:<pageId>` (collabDocId). */
  id: string;
  blogId: string;
  /** The Yjs state (base64), updates merged and deleted content collected. */
  state: string;
  rev: number;
  title: string;
  content: string;
  /** Who pushed last: the render writes as them (their standing and rules). */
  by?: string;
  /** When the document last changed (ISO): the render waits for a pause. */
  changed?: string;
}

/** An old address of a blog and where it moved (docs/design.md §22): the site answers `from` with a 301 to `to`. */
export interface RedirectRecord {
  /** `redirectId(blogId, from)`: one redirect per old address. */
  id: string;
  blogId: string;
  /** The old path and query (`redirectFrom`). */
  from: string;
  /** The new address: a url, or a path on the blog's host. */
  to: string;
  created: string;
}

export const redirectId = (blogId: string, from: string) => `${blogId}:${from}`;

/** One pushed Yjs update (base64), kept until the next compaction folds it into the document's state. */
export interface CollabUpdateRecord {
  id: string;
  docId: string;
  blogId: string;
  update: string;
}

export const collabDocId = (kind: 'post' | 'page', itemId: string) => `${kind}:${itemId}`;
/** The change-log stream of a document's updates: a pull walks it alone. */
export const collabStream = (docId: string) => `${docId}~collab`;

/** A post whose comments are (partly) filed under a class other than its own. */
export const commentsMoving = (p: PostRecord) => p.allComments > 0 && (p.commentsVis ?? 'open') !== commentVisOf(p);

/**
 * What each collection holds: the collection map the core reads the store through (record-store.ts), so a
 * read of 'posts' answers PostRecords. `settings`, `events` and `idempotency` hold documents of several
 * shapes (their readers know which); a compile-time check in schema.ts keeps the map equal to STORE_SCHEMA.
 */
export interface Records {
  users: UserRecord;
  blogs: BlogRecord;
  members: MemberRecord;
  posts: PostRecord;
  pages: PageRecord;
  comments: CommentRecord;
  settings: JsonObject;
  pageviews: PageViewRecord;
  labels: LabelRecord;
  revisions: RevisionRecord;
  events: JsonObject;
  idempotency: JsonObject;
  media: MediaRecord;
  collabDocs: CollabDocRecord;
  collabUpdates: CollabUpdateRecord;
  limits: LimitRecord;
  redirects: RedirectRecord;
}

export type Collection = keyof Records;
/** The collections whose documents have several shapes (the map says JsonObject). */
export type Untyped = { [C in Collection]: Records[C] extends JsonObject ? C : never }[Collection];

/** Posts and pages sort by their publish time, drafts never published by their last update. */
export const sortTime = (r: { published?: string; updated: string }) => r.published ?? r.updated;

/** A post's search rank (PutOp.terms.rank): its sort time in ms, so searches by publish time follow it. */
export function searchRank(time: string): number {
  const ms = Date.parse(time);
  return Number.isFinite(ms) ? ms : 0;
}

export const memberId = (blogId: string, userId: string) => `${blogId}:${userId}`;

/** The `settings` mark of a blog whose posts were stored without search terms (later-terms.ts writes them). */
export const laterTermsId = (blogId: string) => `terms:${blogId}`;

function postKeys(p: PostRecord): Record<string, Key[]> {
  const t = sortTime(p);
  return {
    published: [[p.blogId, p.status, t, p.id]],
    updated: [[p.blogId, p.status, p.updated, p.id]],
    labelPublished: p.labels.map((l) => [p.blogId, l, p.status, t, p.id]),
    labelUpdated: p.labels.map((l) => [p.blogId, l, p.status, p.updated, p.id]),
    path: p.path ? [[p.blogId, p.path]] : [],
    due: p.status === 'SCHEDULED' && p.published ? [[p.published, p.id]] : [],
    moving: commentsMoving(p) ? [[p.id]] : [],
    media: usesOf(p),
  };
}

/** The media a post's or page's content uses, as `media` index entries [blogId, sha256, id]. */
const usesOf = (r: PostRecord | PageRecord): Key[] =>
  mediaRefs(r.blogId, r.content).map((sha) => [r.blogId, sha, r.id]);

/**
 * Who wrote a comment, as the moderation and duplicate index files it: a signed-in author by user, an
 * anonymous one by client address (none: not filed).
 */
export const whoOf = (c: { authorId?: string | undefined; clientAddress?: string | undefined }) =>
  c.authorId !== undefined ? `u:${c.authorId}` : c.clientAddress !== undefined ? `a:${c.clientAddress}` : undefined;

function keysOf(collection: Collection, r: Records[Collection]): Record<string, Key[]> {
  switch (collection) {
    case 'posts':
      return postKeys(r as PostRecord);
    case 'pages': {
      const p = r as PageRecord;
      return {
        published: [[p.blogId, p.status, sortTime(p), p.id]],
        path: p.path ? [[p.blogId, p.path]] : [],
        media: usesOf(p),
      };
    }
    case 'comments': {
      const c = r as CommentRecord;
      const vis = c.vis ?? 'open';
      const who = whoOf(c);
      const anonymousHeld = c.authorId === undefined && (c.status === 'PENDING' || c.status === 'SPAM');
      return {
        post: [[c.blogId, c.postId, c.status, c.published, c.id]],
        blog: [[c.blogId, vis, c.status, c.published, c.id]],
        move: [[c.postId, vis, c.id]],
        who: who ? [[c.blogId, who, c.status, c.published, c.id]] : [],
        held: anonymousHeld ? [[c.blogId, c.id]] : [],
        sweep: [
          ...(c.status === 'SPAM' ? [['spam', c.updated, c.id]] : []),
          ...(c.clientAddress !== undefined ? [['address', c.published, c.id]] : []),
        ],
      };
    }
    case 'blogs': {
      const b = r as BlogRecord;
      return { url: [...new Set([b.url, ...(b.oldUrls ?? [])].map((u) => u.toLowerCase()))].map((u) => [u]) };
    }
    case 'members': {
      const m = r as MemberRecord;
      return { blog: [[m.blogId, m.userId]], user: [[m.userId, m.blogId]] };
    }
    case 'revisions': {
      const v = r as RevisionRecord;
      return { item: [[v.itemId, v.replaced, v.id]] };
    }
    case 'labels': {
      // Readers walk `live`, which holds only labels a LIVE post carries (schema.ts: held while `live` is above 0),
      // so a draft's label is never visited.
      const l = r as LabelRecord;
      return { blog: [[l.blogId, l.label, l.id]], live: [[l.blogId, l.label, l.id]] };
    }
    case 'media': {
      const m = r as MediaRecord;
      return { blog: [[m.blogId, m.published, m.id]], source: m.source ? [[m.blogId, m.source, m.id]] : [] };
    }
    case 'collabDocs': {
      const d = r as CollabDocRecord;
      return { blog: [[d.blogId, d.id]] };
    }
    case 'collabUpdates': {
      const u = r as CollabUpdateRecord;
      return { doc: [[u.docId, u.id]] };
    }
    case 'limits': {
      const l = r as LimitRecord;
      return { expires: [[l.expires, l.id]] };
    }
    case 'redirects': {
      const d = r as RedirectRecord;
      return { blog: [[d.blogId, d.from, d.id]] };
    }
    case 'pageviews': {
      const v = r as PageViewRecord;
      return { blog: v.day && !v.postId ? [[v.blogId, v.day, v.id]] : [], owner: [[v.blogId, v.id]] };
    }
    default:
      return {};
  }
}

/**
 * Whether readers see the record now: a LIVE post or page, a LIVE or EMPTIED comment filed in the open class.
 * A record created out of their sight is marked `unseen` until the first write that shows it to them, so the
 * change feed never mentions to a reader what no reader could ever have seen: a post or page's writes go to the
 * blog's unseen stream meanwhile (`streams.ts`: a post created SCHEDULED, a draft deleted); a comment stays in
 * the shown stream, since its writer saw it (changes.ts tells only them it was marked as spam).
 */
function markUnseen(
  collection: Collection,
  record: { status: PostStatus | CommentStatus; vis?: CommentVis; unseen?: true },
  expect: number,
): void {
  if (collection !== 'posts' && collection !== 'pages' && collection !== 'comments') return;
  const shown =
    collection === 'comments'
      ? seesCommentStatus(record.status as CommentStatus, 'READER') &&
        visibleClasses('READER').includes(record.vis ?? 'open')
      : seesContent(record.status as PostStatus, 'READER');
  if (shown) delete record.unseen;
  else if (expect === 0) record.unseen = true;
}

/** A record as the JSON document it is stored as (the write side of the collection map; record-store.ts reads). */
export const asJson = (record: Records[Collection]): JsonObject => record as unknown as JsonObject;

/** The collections whose records may carry a replica note. */
export type Noted = 'posts' | 'pages' | 'comments';

/** What a put writes over: a post, page or comment names the stored record (or 0: new), other records its version. */
type Over<C extends Collection> = C extends Noted ? Was | 0 : number;
type Was = Omit<StoredDoc<{ replica?: ReplicaNote } | undefined>, 'id'>;

/**
 * A put of a record with everything the driver must index for it, over `over` (the version expected, 0: new). A
 * post, page or comment keeps the stored record's replica note unless it names its own (undefined: none). A post's
 * search terms go with it unless `terms` is false (a first pull's: core/later-terms.ts writes them after it).
 */
export function put<C extends Collection>(collection: C, record: Records[C], over: Over<C>, terms = true): PutOp {
  const expect = (over as Was).version ?? over;
  const note = (over as Was).doc?.replica;
  if (note && !('replica' in record)) (record as { replica?: ReplicaNote }).replica = note;
  // Optional fields are left out rather than stored as undefined (JSON has no undefined).
  for (const [k, v] of Object.entries(record)) if (v === undefined) delete (record as Record<string, unknown>)[k];
  markUnseen(collection, record as { status: PostStatus | CommentStatus; vis?: CommentVis; unseen?: true }, expect);
  const doc = asJson(record);
  const op: PutOp = { type: 'put', collection, id: doc.id as string, expect, doc, keys: keysOf(collection, record) };
  const stream =
    collection === 'collabUpdates'
      ? collabStream((record as CollabUpdateRecord).docId)
      : streamOf(collection, record as { blogId?: string; unseen?: true });
  if (stream) op.stream = stream;
  if (collection === 'posts' && terms) op.terms = termsOf(record as PostRecord);
  return op;
}

/** A post's search terms: its blog, its distinct words, its rank (the put of it carries them; later-terms.ts). */
export const termsOf = (p: PostRecord): NonNullable<PutOp['terms']> => ({
  scope: p.blogId,
  tokens: distinctWords(postWordFields(p)),
  rank: searchRank(sortTime(p)),
});

/**
 * An add to counters of a record (schema.ts `counters`), created as `record` first if it does not exist: what
 * concurrent writers of one counter send, so none of them reads it or retries for it.
 */
export function addTo<C extends Collection>(collection: C, record: Records[C], add: Record<string, number>): AddOp {
  const doc = asJson(record);
  return { type: 'add', collection, id: doc.id as string, add, keys: keysOf(collection, record), create: doc };
}

/**
 * The delete of a post, page or comment (`stored`: the record), and its replica note left in `settings` under its
 * own id, in the same commit: an add that creates it, reading nothing (kept as it is if there already).
 */
export function delNoted<C extends Noted>(collection: C, stored: StoredDoc<Records[C]>): WriteOp[] {
  const note = stored.doc.replica;
  return [deleteOp(collection, stored.id, stored.version, stored.doc), ...(note ? [addTo('settings', note, {})] : [])];
}

function deleteOp(collection: Collection, id: string, expect: number, was?: { blogId?: string; unseen?: true }) {
  const stream = streamOf(collection, was ?? {});
  return { type: 'delete', collection, id, expect, ...(stream ? { stream } : {}) } as WriteOp;
}

/** A delete; `was` (the record deleted) names the change stream of media (a delete is a change too). */
export const del: (
  collection: Exclude<Collection, Noted>,
  id: string,
  expect: number,
  was?: { blogId?: string; unseen?: true },
) => WriteOp = deleteOp;

/** Users' and blogs' changes go to RECORDS_STREAM; posts, pages, comments and media to their blog's streams (streams.ts). */
const streamOf = (collection: Collection, r: { blogId?: string; unseen?: true }) =>
  collection === 'users' || collection === 'blogs'
    ? RECORDS_STREAM
    : (collection === 'posts' || collection === 'pages' || collection === 'comments' || collection === 'media') &&
        r.blogId !== undefined
      ? blogStream(r.blogId, collection !== 'comments' && r.unseen === true)
      : undefined;
