/**
 * What posts and pages share: loading with visibility, the check of who may edit, paths, the events of a change,
 * and the write path. The rules they apply are src/rules/access.ts's and the state table src/rules/states.ts's.
 */
import { actorUserId, commentVisOf, mayEdit, seesContent, type Actor, type Standing } from '../rules/access.js';
import { checkIfMatch, type Core } from '../core/core.js';
import type { Key, StoredDoc, WriteOp } from '../store/driver.js';
import { forbidden, notFound } from '../util/errors.js';
import type { BlogEvent, EventType } from '../core/events.js';
import { collabDocId, del, delNoted, put, type PageRecord, type PostRecord, type Records } from '../store/records.js';
import type { CommentStatus, Role } from '../schema/schemas.js';
import { labelCounterOps } from '../store/label-counts.js';
import { revisionDeletes, revisionOps } from '../core/revision-capture.js';
import { slugify } from '../rules/text.js';
import type { Page, Post } from '../schema/resources.js';
import { pageOut } from './views.js';

type Kind = 'post' | 'page';
const NOUN = { post: 'Post', page: 'Page' } as const;
const COLLECTION = { post: 'posts', page: 'pages' } as const;
/** The record of a post or a page, by kind. */
type ContentOf<K extends Kind> = Records[(typeof COLLECTION)[K]];

/** Only posts are ever SCHEDULED (a page's statuses lack it). */
const isScheduled = (stored: StoredDoc<PostRecord | PageRecord>): stored is StoredDoc<PostRecord> =>
  stored.doc.status === 'SCHEDULED';

/**
 * A post or page of the blog as the caller may see it: not LIVE reads as 404 below AUTHOR view, so a
 * draft's existence is never revealed. Scheduled posts whose time has come are made LIVE on the way.
 */
export async function loadVisible<K extends Kind>(
  core: Core,
  kind: K,
  blogId: string,
  id: string,
  s: Standing,
  /** How it is read (a caller that read it beside the standing hands that over). */
  read: () => Promise<StoredDoc<ContentOf<K>> | undefined> = () => core.get(COLLECTION[kind], id),
): Promise<StoredDoc<ContentOf<K>>> {
  let stored = await read();
  if (!stored || stored.doc.blogId !== blogId) throw notFound(NOUN[kind]);
  if (isScheduled(stored)) {
    const doc = await core.promote(stored);
    if (doc !== stored.doc) stored = (await core.get(COLLECTION[kind], id)) ?? stored;
  }
  if (!seesContent(stored.doc.status, s.view)) throw notFound(NOUN[kind]);
  return stored;
}

/** What every change starts with: the record as the caller sees it, that they may change it, and a current etag. */
async function loadEditable<K extends Kind>(
  core: Core,
  kind: K,
  blogId: string,
  id: string,
  s: Standing,
  ifMatch: string | undefined,
) {
  const stored = await loadVisible(core, kind, blogId, id, s);
  requireEditor(s, kind, stored.doc);
  checkIfMatch(ifMatch, id, stored.doc.rev);
  return stored;
}

function requireEditor(s: Standing, kind: Kind, record: PostRecord | PageRecord): void {
  if (mayEdit(s.role, s.actor.kind === 'user' ? s.actor.userId : undefined, kind, record)) return;
  throw forbidden(kind === 'post' ? 'Authors may change only their own posts' : 'Only blog admins may change pages');
}

/** Numbered suffixes tried after the plain path (`_2`…`_4`), then random ones of growing length. */
const NUMBERED = 4;
const RANDOM_DIGITS = [2, 3, 4, 6] as const;

/**
 * A path is assigned at first publish or schedule, then kept for good. Without `probe` the plain path is tried
 * blind: the unique index refuses it if taken, and the retry probes. A probe reads a bounded number of holders
 * however many posts share a title: the plain path, `_2` to `_4`, then random numbers (as Blogger's `_NN`), and
 * at last one made of the record's own id, which nothing else can hold.
 */
export async function withPath<R extends PostRecord | PageRecord>(
  core: Core,
  kind: Kind,
  r: R,
  probe: boolean,
): Promise<R> {
  if (r.path || (r.status !== 'LIVE' && r.status !== 'SCHEDULED')) return r;
  const slug = slugify(r.title, kind);
  const at = r.published ?? core.nowIso();
  const base = kind === 'post' ? `/${at.slice(0, 4)}/${at.slice(5, 7)}/${slug}` : `/p/${slug}`;
  if (!probe) return { ...r, path: `${base}.html` };
  const suffixes = [
    '',
    ...Array.from({ length: NUMBERED - 1 }, (_, i) => `_${i + 2}`),
    ...RANDOM_DIGITS.map((d) => `_${10 ** (d - 1) + Math.floor(Math.random() * 9 * 10 ** (d - 1))}`),
  ];
  for (const suffix of suffixes) {
    const path = `${base}${suffix}.html`;
    const holder = await core.driver.getByIndex(COLLECTION[kind], 'path', [r.blogId, path]);
    if (!holder || holder.id === r.id) return { ...r, path };
  }
  return { ...r, path: `${base}_${r.id.toLowerCase()}.html` };
}

/** The events one stored change of a post or page stands for, in order. */
function changeEvents(
  kind: Kind,
  before: PostRecord | PageRecord | undefined,
  after: PostRecord | PageRecord,
  edited: boolean,
): EventType[] {
  const types: EventType[] = [];
  if (!before) types.push(`${kind}.inserted`);
  else if (edited) types.push(`${kind}.updated`);
  if (after.status !== before?.status) {
    if (after.status === 'LIVE') types.push(`${kind}.published`);
    else if (after.status === 'SOFT_TRASHED') types.push(`${kind}.trashed`);
    else if (after.status === 'DRAFT' && before) types.push(`${kind}.reverted`);
    else if (after.status === 'SCHEDULED' && before && !edited) types.push(`${kind}.updated`);
  }
  return types;
}

/**
 * The events of one stored change of a post or page (committed with it); their payload is the item as an ADMIN
 * sees it, made once and only if a listener asks for it.
 */
export async function contentEvents(
  core: Core,
  kind: Kind,
  before: PostRecord | PageRecord | undefined,
  after: PostRecord | PageRecord,
  edited: boolean,
  actorId: string | undefined,
  /** False where the commit checks the cache (core.transact). */
  look = true,
): Promise<BlogEvent[]> {
  const out: BlogEvent[] = [];
  let resource: Promise<Post | Page> | undefined;
  const adminView = () =>
    kind === 'post'
      ? core.adminPost(after as PostRecord, look)
      : pageOut(core, after as PageRecord, 'ADMIN', true, look);
  for (const type of changeEvents(kind, before, after, edited)) {
    out.push(
      ...(await core.event(type, { blogId: after.blogId, id: after.id, actorId }, () => (resource ??= adminView()))),
    );
  }
  return out;
}

/** A change of a stored post or page by `fn`, with its events (`edited`: a change of its text, for revisions). */
export const changeItem = <K extends Kind>(
  core: Core,
  actor: Actor,
  kind: K,
  blogId: string,
  id: string,
  ifMatch: string | undefined,
  fn: (r: ContentOf<K>, now: string) => ContentOf<K>,
  edited: boolean,
) =>
  changeContent(core, actor, kind, blogId, id, ifMatch, fn, (b, a, look) =>
    contentEvents(core, kind, b, a, edited, actorUserId(actor), look),
  );

/**
 * The write path of update, patch, publish, revert and trash: load what the caller may see, check who may
 * change it and the etag, apply `fn`, store with compare-and-set (retrying on fresh data if it moved).
 * `fn` returning the record unchanged means "stays": nothing is written.
 */
export async function changeContent<K extends Kind>(
  core: Core,
  actor: Actor,
  kind: K,
  blogId: string,
  id: string,
  ifMatch: string | undefined,
  fn: (r: ContentOf<K>, now: string) => ContentOf<K>,
  events: (before: ContentOf<K>, after: ContentOf<K>, look: boolean) => Promise<BlogEvent[]>,
  /** Writes committed with the change, all or nothing (the shared document's, resources/collab.ts). */
  alongside?: (before: ContentOf<K>, after: ContentOf<K>) => Promise<WriteOp[]>,
): Promise<{ before: ContentOf<K>; after: ContentOf<K>; view: Role }> {
  const { before, after, view } = await core.transact(
    async (retry) => {
      const s = await core.writer(actor, blogId, true);
      const stored = await loadEditable(core, kind, blogId, id, s, ifMatch);
      const now = core.nowIso();
      const changed = fn(stored.doc, now);
      if (changed === stored.doc) return { ops: [], result: { before: stored.doc, after: stored.doc, view: s.view } };
      const next = await withPath(core, kind, { ...changed, updated: now, rev: stored.doc.rev + 1 }, retry > 0);
      const counters = kind === 'post' ? labelCounterOps(stored.doc, next) : [];
      const kept = await revisionOps(core, kind, stored.doc, next, now);
      return {
        ops: [
          // (K is generic: the type of what a put writes over stays unresolved.)
          put(COLLECTION[kind], next, stored as never),
          ...counters,
          ...kept,
          ...((await alongside?.(stored.doc, next)) ?? []),
        ],
        result: { before: stored.doc, after: next, view: s.view },
        seen: s.seen,
      };
    },
    (r, look) => events(r.before, r.after, look),
  );
  return { before, after, view };
}

/** Deletes a post or page for good, with whatever `dependents` adds to the same atomic commit. */
export async function deleteContent<K extends Kind>(
  core: Core,
  actor: Actor,
  kind: K,
  blogId: string,
  id: string,
  ifMatch: string | undefined,
  dependents: (stored: StoredDoc<ContentOf<K>>) => Promise<WriteOp[]> = async () => [],
): Promise<void> {
  const s = await core.writer(actor, blogId);
  await core.transact(
    async () => {
      const stored = await loadEditable(core, kind, blogId, id, s, ifMatch);
      const counters = kind === 'post' ? labelCounterOps(stored.doc, undefined) : [];
      const revisions = await revisionDeletes(core, id);
      const shared = await collabDocDeletes(core, collabDocId(kind, id));
      return {
        ops: [
          ...delNoted(COLLECTION[kind], stored),
          ...counters,
          ...revisions,
          ...shared,
          ...(await dependents(stored)),
        ],
        result: undefined,
      };
    },
    () => core.event(`${kind}.deleted`, { blogId, id, actorId: actorUserId(actor) }),
  );
}

/** The post record with its comment counters moved by a comment going from one state to another. */
export function recount(post: StoredDoc<PostRecord>, from: CommentStatus | undefined, to: CommentStatus | undefined) {
  return recountAll(post, [[from, to]]);
}

/** The post record with its comment counters moved by comments going from one state to another (undefined: none). */
export function recountAll(
  post: StoredDoc<PostRecord>,
  moves: ReadonlyArray<readonly [CommentStatus | undefined, CommentStatus | undefined]>,
) {
  let live = 0;
  let all = 0;
  for (const [from, to] of moves) {
    live += (to === 'LIVE' ? 1 : 0) - (from === 'LIVE' ? 1 : 0);
    all += (to ? 1 : 0) - (from ? 1 : 0);
  }
  if (live === 0 && all === 0) return [];
  const p = post.doc;
  // A post's first comment settles the class its comments are filed under (comment-visibility.ts).
  const settled = p.allComments === 0 && all > 0 ? { commentsVis: commentVisOf(p) } : {};
  return [
    put('posts', { ...p, ...settled, liveComments: p.liveComments + live, allComments: p.allComments + all }, post),
  ];
}

/**
 * The deletes of an item's shared document (resources/collab.ts) and the pushes not yet folded into it, which
 * count toward the blog's store: they go with the item, in its commit.
 */
export async function collabDocDeletes(core: Core, docId: string): Promise<WriteOp[]> {
  const doc = await core.driver.get('collabDocs', docId);
  return [...(doc ? [del('collabDocs', docId, doc.version)] : []), ...(await collabUpdateDeletes(core, docId))];
}

/** The deletes of every push of a shared document not yet folded into its state, a thousand per read. */
export async function collabUpdateDeletes(core: Core, docId: string): Promise<WriteOp[]> {
  const ops: WriteOp[] = [];
  for (let after: Key | undefined; ; ) {
    const batch = await core.driver.list({
      collection: 'collabUpdates',
      index: 'doc',
      prefix: [docId],
      ...(after ? { lower: { key: after, open: true } } : {}),
      direction: 'asc',
      limit: 1000,
    });
    for (const u of batch) ops.push(del('collabUpdates', u.id, u.version));
    if (batch.length < 1000) return ops;
    after = batch[batch.length - 1]!.key.slice(1);
  }
}
