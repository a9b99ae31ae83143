/**
 * The pull of docs/design.md §15: `changes.list` answers everything the caller may read in one blog, then what
 * changed since a checkpoint, as wire resources at the caller's view.
 *
 * - Without `since`: a snapshot, paged by keyset over the blog's posts, then pages, then comments (the
 *   caller's statuses and comment classes only). The checkpoint is the log's newest seq, taken before the
 *   first page: whatever is written meanwhile is in the log after it, so the next pull brings it (an item
 *   may arrive twice: at-least-once).
 * - With `since`: the blog's change streams (store/streams.ts; a reader's only the shown one) from the checkpoint up to the log's
 *   newest seq at the first page. Each changed record is read as it is now: visible at the caller's view,
 *   it comes as its resource; gone or out of sight, as `deleted: true` (a delete is a log entry; a post
 *   reverted to draft changes the post; comments whose post hides them or leaves a reader's sight are
 *   refiled by comment-visibility.ts, one batch per pull page, and each refile is a log entry).
 * - A checkpoint names the view it was taken at: another view now (a role changed) answers 410
 *   resyncRequired, as does a checkpoint older than what the log keeps (retention, core.ts).
 *
 * Bounded work: one page reads at most maxResults + 1 log entries or index entries, the records they name
 * and the posts of the comments among them.
 */
import {
  actorUserId,
  seesComment,
  seesContent,
  seesDrafts,
  seesMedia,
  visibleClasses,
  visibleCommentStatuses,
  visibleContentStatuses,
  type Actor,
} from '../rules/access.js';
import { moveCommentsStep } from '../core/comment-visibility.js';
import type { Core } from '../core/core.js';
import type { Change, Key } from '../store/driver.js';
import { blogChanges } from '../store/streams.js';
import { BlogError, invalid } from '../util/errors.js';
import { decodeJson, encodeJson } from '../core/paging.js';
import type { ChangesListParams } from '../schema/params.js';
import type { Records } from '../store/records.js';
import type { IndexName } from '../store/schema.js';
import { mediaOut } from '../media/service.js';
import type { Media } from '../schema/media.js';
import { commentOut, pageOut, postOut } from './views.js';
import type { Role } from '../schema/schemas.js';
import { changesParams as params } from '../schema/changes.js';
import type { Comment, Page, Post } from '../schema/resources.js';

export type ChangeKind = 'blogger#post' | 'blogger#page' | 'blogger#comment' | 'blogcore#media';

/** One changed item: its resource at the caller's view, or `deleted: true` when the caller can no longer see it. */
export interface ChangeItem {
  /** What changed: a post, a page, a comment or a picture (the `kind` of its resource). */
  kind: ChangeKind;
  /** Its id (a picture's: its SHA-256). */
  id: string;
  /** It is gone, or out of the caller's sight now: drop the local copy. */
  deleted?: true;
  /** The record as it is now, at the caller's view (absent with `deleted`). */
  resource?: Post | Page | Comment | Media;
}

/** One page of a pull (`changes.list`): what the caller may see of a blog, or what changed since a checkpoint. */
export interface ChangeList {
  /** Always `blogcore#changeList`. */
  kind: 'blogcore#changeList';
  /** The changed items of this page (a record changed several times comes once, as it is now). */
  items: ChangeItem[];
  /** More of this pull: pass it as `pageToken` (with the same `since`, or none). */
  nextPageToken?: string;
  /** Where the next pull starts (`since`), once this pull has no `nextPageToken`. */
  checkpoint: string;
}

const DEFAULT_MAX = 100;
/** Long polls look at the log at least this often (writes of other processes wake no listener here). */
const POLL_MS = 1_000;
const KIND = {
  posts: 'blogger#post',
  pages: 'blogger#page',
  comments: 'blogger#comment',
  media: 'blogcore#media',
} as const;
type Synced = keyof typeof KIND;
/** The snapshot's phases, in order. */
const PHASES = Object.keys(KIND) as Synced[];
const VIEW_CODE: Record<Role, string> = { READER: 'r', AUTHOR: 'u', ADMIN: 'a' };

/** Where a pull is: a snapshot phase after a suffix, or the log after (seq, pos); `e` is the seq it ends at. */
type Token = { v: string; e: number } & ({ p: Synced; k?: [string, string] } | { p: 'log'; q: number; o: number });

const isSeq = (x: unknown): x is number => Number.isSafeInteger(x) && (x as number) >= 0;
const badToken = (where: string) => invalid(where, `${where} is not one this service gave out`);

/** Tokens travel as [view, end, phase, suffix…] or [view, end, 'log', seq, pos]. */
const writeToken = (t: Token) =>
  encodeJson(t.p === 'log' ? [t.v, t.e, t.p, t.q, t.o] : [t.v, t.e, t.p, ...(t.k ?? [])]);

function readToken(text: string): Token {
  const t = decodeJson(text);
  if (Array.isArray(t) && typeof t[0] === 'string' && isSeq(t[1])) {
    const [v, e, p, x, y] = t as [string, number, unknown, unknown, unknown];
    if (p === 'log' && isSeq(x) && Number.isSafeInteger(y)) return { v, e, p, q: x, o: y as number };
    if (PHASES.includes(p as Synced) && (x === undefined || (typeof x === 'string' && typeof y === 'string'))) {
      return { v, e, p: p as Synced, ...(x !== undefined ? { k: [x, y as string] } : {}) };
    }
  }
  throw badToken('pageToken');
}

/** A checkpoint: [view, seq]. */
function readCheckpoint(text: string): { v: string; s: number } {
  const c = decodeJson(text);
  if (Array.isArray(c) && c.length === 2 && typeof c[0] === 'string' && isSeq(c[1])) return { v: c[0], s: c[1] };
  throw badToken('since');
}

/** The checkpoint cannot be followed (the log was pruned past it, another store's, another view): pull afresh. */
const resync = () =>
  new BlogError({
    code: 410,
    reason: 'resyncRequired',
    message: 'Resync required: pull again without since',
    location: 'since',
    locationType: 'parameter',
  });

export function changesApi(core: Core, actor: Actor) {
  return {
    /** One page of a pull (docs/design.md §15). */
    async list(input: ChangesListParams): Promise<ChangeList> {
      const p = core.parse(params.changesList, input);
      const s = await core.reader(actor, p.blogId, p.view);
      const view = s.view;
      const code = VIEW_CODE[view];
      const max = p.maxResults ?? DEFAULT_MAX;
      // Every reason to refuse the request is checked before the steps below write anything.
      const given = p.pageToken !== undefined ? readToken(p.pageToken) : undefined;
      const since = p.pageToken === undefined && p.since !== undefined ? readCheckpoint(p.since) : undefined;
      if ((given?.v ?? since?.v ?? code) !== code) throw resync();
      const from = given?.p === 'log' ? given.q : since?.s;
      if (from !== undefined) {
        const { pruned, newest } = await core.driver.logBounds();
        if (from < pruned || from > newest) throw resync();
      }
      await core.promoteDue();
      // Comments whose post changed class are refiled a batch per page; each refile is a change to pull.
      await moveCommentsStep(core);
      const bounds = await core.driver.logBounds();
      let token: Token =
        given ??
        (since
          ? { v: code, e: bounds.newest, p: 'log', q: since.s, o: Number.MAX_SAFE_INTEGER }
          : { v: code, e: bounds.newest, p: 'posts' });
      const answer = (items: ChangeItem[], next: Token | undefined): ChangeList => ({
        kind: 'blogcore#changeList',
        items,
        ...(next ? { nextPageToken: writeToken(next) } : {}),
        checkpoint: encodeJson([code, token.e]),
      });

      if (token.p !== 'log') {
        const { items, next } = await snapshotPage(core, actor, p.blogId, view, token.p, token.k, max);
        if (next) return answer(items, { ...token, k: next });
        const after = PHASES[PHASES.indexOf(token.p) + 1];
        return answer(items, after ? { v: code, e: token.e, p: after } : undefined);
      }

      const deadline = Date.now() + (p.wait ?? 0) * 1000;
      for (;;) {
        const { items, next } = await logPage(core, actor, p.blogId, view, token.q, token.o, token.e, max);
        if (items.length > 0 || next || Date.now() >= deadline)
          return answer(items, next && { ...token, q: next.seq, o: next.pos });
        // Nothing changed here: a long poll waits for a commit (or the next look at the log), then reads on
        // to the log's newest seq from the same place (a write to another blog finds nothing and waits on).
        await waitForCommit(core, deadline);
        const newest = (await core.driver.logBounds()).newest;
        if (newest !== token.e) {
          await moveCommentsStep(core);
          token = { ...token, e: newest };
        }
      }
    },
  };
}

function waitForCommit(core: Core, deadline: number): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      core.commitListeners.delete(done);
      clearTimeout(timer);
      resolve();
    };
    const timer = setTimeout(done, Math.max(0, Math.min(POLL_MS, deadline - Date.now())));
    core.commitListeners.add(done);
  });
}

/** One keyset page of the snapshot over one collection, at the caller's statuses and classes. */
async function snapshotPage(
  core: Core,
  actor: Actor,
  blogId: string,
  view: Role,
  phase: Synced,
  after: Key | undefined,
  max: number,
): Promise<{ items: ChangeItem[]; next?: [string, string] }> {
  let index: IndexName<Synced>;
  let prefixes: Key[];
  if (phase === 'comments') {
    const statuses = visibleCommentStatuses(view);
    index = 'blog';
    prefixes = visibleClasses(view).flatMap((vis) => statuses.map((st) => [blogId, vis, st]));
  } else if (phase === 'media') {
    if (!seesMedia(view)) return { items: [] };
    index = 'blog';
    prefixes = [[blogId]];
  } else {
    index = 'published';
    prefixes = visibleContentStatuses(phase === 'posts' ? 'post' : 'page', view).map((st) => [blogId, st]);
  }
  const width = prefixes[0]!.length;
  const entries = await core.driver.keys({
    collection: phase,
    index,
    prefixes,
    ...(after ? { lower: { key: after, open: true } } : {}),
    direction: 'asc',
    limit: max + 1,
  });
  const page = entries.slice(0, max);
  const items = await shape(
    core,
    actor,
    phase,
    page.map((e) => e.id),
    view,
    true,
  );
  const last = page[page.length - 1];
  return { items, ...(entries.length > max && last ? { next: last.key.slice(width) as [string, string] } : {}) };
}

/** One page of the blog's change stream after (seq, pos), up to seq `end`: each record as it is now. */
async function logPage(
  core: Core,
  actor: Actor,
  blogId: string,
  view: Role,
  seq: number,
  pos: number,
  end: number,
  max: number,
): Promise<{ items: ChangeItem[]; next?: Change }> {
  // A reader's pull walks only what readers see or once saw: nothing created out of their sight is mentioned.
  const found = (await blogChanges(core.driver, blogId, { seq, pos }, max + 1, seesDrafts(view))).filter(
    (c) => c.seq <= end,
  );
  const page = found.slice(0, max);
  // The last change of a record in the page stands for all of them.
  const latest = new Map<string, Change>();
  for (const c of page) if (c.collection in KIND) latest.set(`${c.collection}\0${c.id}`, c);
  const items: ChangeItem[] = [];
  for (const phase of PHASES) {
    const ids = [...latest.values()].filter((c) => c.collection === phase).map((c) => c.id);
    items.push(...(await shape(core, actor, phase, ids, view, false)));
  }
  return { items, ...(found.length > max ? { next: page[page.length - 1]! } : {}) };
}

/**
 * The records of `ids` as items at `view`: resources where the caller may see them, else tombstones (a
 * snapshot leaves out what the caller may not see, rather than sending tombstones for it).
 */
async function shape<P extends Synced>(
  core: Core,
  actor: Actor,
  phase: P,
  ids: string[],
  view: Role,
  snapshot: boolean,
): Promise<ChangeItem[]> {
  // A reader hears of no media record, not even that one went.
  if (ids.length === 0 || (phase === 'media' && !seesMedia(view))) return [];
  const docs = await core.driver.getMany(phase, ids);
  const seen = await SEEN[phase](
    core,
    docs.map((d) => d?.doc),
    view,
    actorUserId(actor),
  );
  const out: ChangeItem[] = [];
  // Media ids on the wire are the SHA-256 (the record id is blog:sha256).
  const wireId = (id: string) => (phase === 'media' ? id.slice(-64) : id);
  ids.forEach((id, i) => {
    const { resource, unseen } = seen[i]!;
    if (resource) out.push({ kind: KIND[phase], id: wireId(id), resource });
    else if (!snapshot && !unseen) out.push({ kind: KIND[phase], id: wireId(id), deleted: true });
  });
  return out;
}

/** What a caller sees of a record: its resource, or whether it may never have seen it (nothing: absent). */
type Seen = { resource?: Post | Page | Comment | Media; unseen?: boolean };

/** `fn` of each record present, one after the other. */
async function inOrder<R>(records: ReadonlyArray<R | undefined>, fn: (r: R) => Promise<Seen>): Promise<Seen[]> {
  const out: Seen[] = [];
  for (const r of records) out.push(r === undefined ? {} : await fn(r));
  return out;
}

/**
 * Per collection, what a caller at `view` sees of each record (none where absent): its resource, or `unseen`
 * when the caller may never have seen it — a post or page never published, a comment still PENDING (nothing
 * returns a comment to PENDING) never reached a reader, so no tombstone tells them it exists; one held or refused
 * before any reader saw it (`unseen`) is told only to its writer (`actorId`), who saw it.
 */
const SEEN: {
  [P in Synced]: (
    core: Core,
    records: Array<Records[P] | undefined>,
    view: Role,
    actorId: string | undefined,
  ) => Promise<Seen[]>;
} = {
  posts: (core, records, view) =>
    inOrder(records, async (r) => {
      if (seesContent(r.status, view)) return { resource: await postOut(core, r, view, { fetchBody: true }) };
      return { unseen: r.path === undefined };
    }),
  pages: (core, records, view) =>
    inOrder(records, async (r) => {
      if (seesContent(r.status, view)) return { resource: await pageOut(core, r, view) };
      return { unseen: r.path === undefined };
    }),
  comments: async (core, records, view, actorId) => {
    const postIds = [...new Set(records.flatMap((c) => (c ? [c.postId] : [])))];
    const found = postIds.length ? await core.driver.getMany('posts', postIds) : [];
    const posts = new Map(found.flatMap((d) => (d ? [[d.id, d.doc] as const] : [])));
    return inOrder(records, async (c) => {
      const post = posts.get(c.postId);
      if (post && seesComment(c, post, view)) return { resource: await commentOut(core, c, view, true) };
      return {
        unseen: c.status === 'PENDING' || (c.unseen === true && (c.authorId === undefined || c.authorId !== actorId)),
      };
    });
  },
  // (shape() hands media to AUTHORs and ADMINs only.)
  media: (core, records) => inOrder(records, async (r) => ({ resource: await mediaOut(core, r) })),
};
