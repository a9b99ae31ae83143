/**
 * `service.collab` (docs/design.md §20): a post's or page's shared document, stored through the driver like any
 * record. Each push is a record of its own (no two writers ever move the same record), logged in the document's
 * change-log stream: its commit's seq is its position, so a pull from any app server walks the stream after its
 * `since`. The stored title and content stay the truth for everyone else: the document is rendered into them
 * through the normal write path after a pause (`RENDER_MS`), and a change of them made elsewhere is merged into
 * the document the next time anyone opens or pulls it. Compaction folds the pushes into the document's state.
 */
import { actorUserId, mayEdit, type Actor } from '../rules/access.js';
import type { Core } from '../core/core.js';
import {
  DriverConflict,
  MESSAGE_CHARS,
  type CommitResult,
  type Key,
  type StoredDoc,
  type WriteOp,
} from '../store/driver.js';
import {
  collabDocId,
  collabStream,
  del,
  put,
  type CollabDocRecord,
  type CollabUpdateRecord,
  type PageRecord,
  type PostRecord,
} from '../store/records.js';
import { BlogError, conflict, forbidden, invalid, notFound } from '../util/errors.js';
import { fromBase64, toBase64 } from '../util/base64.js';
import { COLLAB_LIMITS } from '../schema/values.js';
import {
  collabParams,
  type CollabOpenParams,
  type CollabPullParams,
  type CollabPushParams,
  type CollabPushResult,
  type CollabState,
} from '../schema/collab.js';
import {
  absorbChange,
  compactState,
  documentFromHtml,
  isUpdate,
  loadDocument,
  mergeUpdates,
  renderDocument,
} from '../collab/document.js';
import { changeContent, contentEvents, loadVisible } from './content.js';
import { Presence } from '../collab/presence.js';
import { RecentPushes, type Push } from './collab-recent.js';
import { sweepCollab } from './collab-sweep.js';

type Kind = 'post' | 'page';
const COLLECTION = { post: 'posts', page: 'pages' } as const;

/** The render follows the last push by this long (and never later than `RENDER_MAX_MS` after the first). */
const RENDER_MS = 750;
const RENDER_MAX_MS = 2_000;
/** Pushes kept beside the state before a compaction folds them in; the most one read of the document takes. */
const COMPACT_AT = 64;
const MAX_UPDATES = 1_000;
/** The most pushes one pull merges into its answer (a caller further behind gets the whole state instead). */
const PULL_BATCH = 256;
/** How often a waiting pull looks at the log for other app servers' pushes (this one's wake it at once). */
const POLL_MS = 150;
const MAX_POS = Number.MAX_SAFE_INTEGER;

const EMPTY = new Uint8Array(0);
/** A Yjs document with nothing in it, as an update. */
const EMPTY_DOC = new Uint8Array([0, 0]);

/** What a pull reads of the store: the document (a change made elsewhere taken in) and what came after `since`. */
interface Look {
  doc: StoredDoc<CollabDocRecord>;
  found: { update: Uint8Array; position: number } | undefined;
}

/** What one process keeps per store: render timers, presence (never stored), and the reads its pulls share. */
interface Hub {
  renders: Map<string, { timer: ReturnType<typeof setTimeout>; first: number; by: Actor }>;
  presence: Presence;
  /** The documents' latest pushes, handed to the pulls waiting here as they commit. */
  recent: RecentPushes;
  /** This process's commits so far: a shared read serves only the pulls that came before the next commit. */
  commits: number;
  /** The latest read per document and `since`, the commit count and the time it started at. */
  looks: Map<string, { commits: number; at: number; look: Promise<Look> }>;
  /** Passes a writer's presence to the other app servers on the store (drivers that can `tell`). */
  share: (docId: string, presence: Uint8Array) => void;
  /** Starts hearing theirs (once the store is open). */
  listen: () => void;
}

/** A presence message between app servers: `collab-presence <sender> <docId> <base64>`. */
const PRESENCE_MESSAGE = 'collab-presence';

/**
 * Presence across app servers: told through the store's change signal (`driver.tell`, PostgreSQL's NOTIFY) and
 * stored nowhere. Each app server takes the others' into its own memory, so a pull anywhere sees everyone.
 */
function sharePresence(core: Core, presence: Presence): { share: Hub['share']; listen: () => void; stop: () => void } {
  const { tell, hear } = core.root.driver;
  if (!tell || !hear) return { share: () => undefined, listen: () => undefined, stop: () => undefined };
  const me = Math.random().toString(36).slice(2, 12);
  let stop: (() => void) | undefined;
  // From the first call on (the store is open by then), until the service closes.
  const listen = () => {
    stop ??= hear.call(core.root.driver, (message) => {
      const [kind, from, docId, bytes] = message.split(' ');
      if (kind === PRESENCE_MESSAGE && from !== me && docId && bytes) presence.apply(docId, fromBase64(bytes));
    });
  };
  const share = (docId: string, update: Uint8Array) => {
    const message = `${PRESENCE_MESSAGE} ${me} ${docId} ${toBase64(update)}`;
    // A larger presence (a very long name?) stays on this app server: the message has a bound.
    if (message.length <= MESSAGE_CHARS) tell.call(core.root.driver, message);
  };
  return { share, listen, stop: () => stop?.() };
}
const hubs = new WeakMap<Core, Hub>();
const hubOf = (core: Core): Hub => {
  let hub = hubs.get(core.root);
  if (!hub) {
    const presence = new Presence();
    const shared = sharePresence(core, presence);
    const made: Hub = {
      renders: new Map(),
      presence,
      recent: new RecentPushes(),
      commits: 0,
      looks: new Map(),
      share: shared.share,
      listen: shared.listen,
    };
    const counted = (result: CommitResult, ops: readonly WriteOp[]) => {
      made.commits++;
      made.recent.heard({ seq: result.seq, previous: result.previous ?? result.seq - 1, ops });
    };
    core.root.commitListeners.add(counted);
    // Closing the service ends presence's timers and the renders still waiting (the store is going away).
    core.root.closeListeners.add(() => {
      shared.stop();
      core.root.commitListeners.delete(counted);
      made.presence.close();
      for (const r of made.renders.values()) clearTimeout(r.timer);
      made.renders.clear();
    });
    hubs.set(core.root, (hub = made));
  }
  return hub;
};

interface Target {
  kind: Kind;
  itemId: string;
  docId: string;
  blogId: string;
}

const tooLarge = () =>
  new BlogError({
    code: 413,
    reason: 'requestTooLarge',
    message: `A collab update is at most ${COLLAB_LIMITS.update} bytes: send smaller ones`,
  });

function targetOf(p: { blogId: string; postId?: string | undefined; pageId?: string | undefined }): Target {
  if ((p.postId === undefined) === (p.pageId === undefined)) throw invalid('postId', 'Name either postId or pageId');
  const kind: Kind = p.postId !== undefined ? 'post' : 'page';
  const itemId = (p.postId ?? p.pageId)!;
  return { kind, itemId, docId: collabDocId(kind, itemId), blogId: p.blogId };
}

/** Who is editing which service's documents: what every part of a collab call needs. */
interface Session {
  core: Core;
  actor: Actor;
  hub: Hub;
}

/** The item, if the caller may write it together: its AUTHOR (posts) or an ADMIN; nobody else reads. */
async function editable(cx: Session, t: Target): Promise<StoredDoc<PostRecord | PageRecord>> {
  const { core, actor, hub } = cx;
  const s = await core.writer(actor, t.blogId);
  hub.listen();
  const stored = await loadVisible(core, t.kind, t.blogId, t.itemId, s);
  const userId = actor.kind === 'user' ? actor.userId : undefined;
  if (!mayEdit(s.role, userId, t.kind, stored.doc)) {
    throw forbidden(
      t.kind === 'post'
        ? 'Only the post’s author and the blog’s admins write it together'
        : 'Only blog admins write pages together',
    );
  }
  if (stored.doc.status === 'SOFT_TRASHED') throw conflict(`Cannot edit this ${t.kind}: it is SOFT_TRASHED`);
  return stored;
}

/**
 * The document record, made from the item's HTML on first use, and with any change made to the item elsewhere
 * since (a later revision than the document last saw) merged in: one update record and the record, in one commit.
 */
async function current(
  cx: Session,
  t: Target,
  item: StoredDoc<PostRecord | PageRecord>,
): Promise<StoredDoc<CollabDocRecord>> {
  const { core } = cx;
  let fresh = false;
  for (;;) {
    const found = await core.get('collabDocs', t.docId);
    const r = item.doc;
    try {
      if (!found) {
        // A replica's copy starts empty: the server's document arrives through it (a copy made here from the
        // local HTML would be another document, whose text would merge in twice).
        const state = core.root.collabFollower ? EMPTY_DOC : await documentFromHtml(r.title, r.content);
        const doc: CollabDocRecord = {
          id: t.docId,
          blogId: t.blogId,
          state: toBase64(state),
          rev: r.rev,
          title: r.title,
          content: r.content,
        };
        await core.commit([put('collabDocs', doc, 0)]);
        await gone(cx, t);
        return { id: doc.id, version: 1, doc };
      }
      if (found.doc.rev === r.rev || core.root.collabFollower) return found;
      if (found.doc.rev > r.rev && !fresh) {
        // A render landed after the item was read: that older text is no change made elsewhere (taking it in
        // would undo the pushes rendered since). The item read after the document is at least as new as it.
        item = await reread(cx, t);
        fresh = true;
        continue;
      }
      const next = { ...found.doc, rev: r.rev, title: r.title, content: r.content };
      const ops: WriteOp[] = [put('collabDocs', next, found.version)];
      if (found.doc.title !== r.title || found.doc.content !== r.content) {
        const ydoc = loadDocument(await stateOf(cx, found.doc));
        const update = await absorbChange(ydoc, r.title, r.content);
        ydoc.destroy();
        ops.push(put('collabUpdates', updateRecord(cx.core, t, update), 0));
      }
      await core.commit(ops);
      // Pushes a render skipped for the change made elsewhere are rendered on top of it.
      if (ops.length > 1) scheduleRender(cx, t);
      return { id: next.id, version: found.version + 1, doc: next };
    } catch (error) {
      if (!DriverConflict.is(error)) throw error;
      // Someone else made or moved it first: read it again.
      item = await reread(cx, t);
      fresh = true;
    }
  }
}

/** After a write of the document: the item deleted meanwhile takes it along now (collab-sweep.ts), and 404s. */
async function gone(cx: Session, t: Target): Promise<void> {
  if (await cx.core.get(COLLECTION[t.kind], t.itemId)) return;
  await sweepCollab(cx.core, t.docId);
  throw notFound(t.kind === 'post' ? 'Post' : 'Page');
}

async function reread(cx: Session, t: Target): Promise<StoredDoc<PostRecord | PageRecord>> {
  const { core } = cx;
  const again = await core.get(COLLECTION[t.kind], t.itemId);
  if (!again || again.doc.blogId !== t.blogId) throw notFound(t.kind === 'post' ? 'Post' : 'Page');
  return again;
}

const updateRecord = (core: Core, t: Target, update: Uint8Array): CollabUpdateRecord => ({
  id: `${t.docId}:${core.newId()}`,
  docId: t.docId,
  blogId: t.blogId,
  update: toBase64(update),
});

/** The state and every push after it. */
async function stateOf(cx: Session, doc: CollabDocRecord): Promise<Uint8Array[]> {
  const { core } = cx;
  return [fromBase64(doc.state), ...(await allPending(core, doc.id)).map((u) => fromBase64(u.doc.update))];
}

/**
 * The whole document as one update, and the position it stands at (read before the records). The state and the
 * pushes after it are one reading only if no compaction landed between them (it folds pushes into a state this
 * read no longer sees): the document's version, unchanged after the pushes were read, says so.
 */
async function whole(cx: Session, t: Target, doc: StoredDoc<CollabDocRecord>): Promise<CollabState> {
  const { core } = cx;
  const { newest } = await core.driver.logBounds();
  let seen = doc;
  for (;;) {
    const updates = await stateOf(cx, seen.doc);
    const now = (await core.get('collabDocs', t.docId)) ?? seen;
    if (now.version === seen.version) {
      // Nothing is kept past `newest` yet: this process's next commits carry it on in memory.
      cx.hub.recent.seed(t.docId, itemOf(t), newest, newest, []);
      return { update: mergeUpdates(updates), position: String(newest) };
    }
    seen = now;
  }
}

/** What was pushed after `since`, merged; undefined when the caller must take the whole state instead. */
async function after(
  cx: Session,
  t: Target,
  since: number,
): Promise<{ update: Uint8Array; position: number } | undefined> {
  const { core, hub } = cx;
  const { pruned, newest } = await core.driver.logBounds();
  if (since < pruned || since > newest) return undefined;
  const logged = await core.driver.streamChanges(collabStream(t.docId), { seq: since, pos: MAX_POS }, PULL_BATCH);
  const changes = logged.filter((c) => c.type === 'put');
  const found = await core.driver.getMany(
    'collabUpdates',
    changes.map((c) => c.id),
  );
  // A compaction folded some of them into the state meanwhile.
  if (found.some((f) => f === undefined)) return undefined;
  const pushes: Push[] = found.map((f, i) => ({ seq: changes[i]!.seq, update: fromBase64(f!.doc.update) }));
  // The whole stream up to `newest` was read: this process's next commits carry it on in memory.
  if (logged.length < PULL_BATCH) hub.recent.seed(t.docId, itemOf(t), since, newest, pushes);
  if (pushes.length === 0) return { update: EMPTY, position: since };
  return { update: mergeUpdates(pushes.map((p) => p.update)), position: pushes[pushes.length - 1]!.seq };
}

const itemOf = (t: Target) => ({ collection: COLLECTION[t.kind], itemId: t.itemId });

/**
 * The item read again (gone: 404), the document with a change made elsewhere taken in, and what came after
 * `since`: read once for every pull of the document from `since` that arrives before this process's next commit
 * and within `POLL_MS` (a push wakes all the others' pulls at once, and they come back together: one read and
 * one merge serve them all; other app servers' pushes are seen as late as the poll sees them anyway).
 */
function look(cx: Session, t: Target, since: number): Promise<Look> {
  const { hub } = cx;
  const key = `${t.docId} ${since}`;
  const known = hub.looks.get(key);
  if (known && known.commits === hub.commits && Date.now() - known.at < POLL_MS) return known.look;
  const read = (async (): Promise<Look> => {
    const doc = await current(cx, t, await reread(cx, t));
    return { doc, found: await after(cx, t, since) };
  })();
  const entry = { commits: hub.commits, at: Date.now(), look: read };
  hub.looks.set(key, entry);
  const forget = () => {
    if (hub.looks.get(key) === entry) hub.looks.delete(key);
  };
  read.then(() => void (setTimeout(forget, POLL_MS) as { unref?: () => void }).unref?.(), forget);
  return read;
}

function scheduleRender(cx: Session, t: Target): void {
  const { core, actor, hub } = cx;
  const now = Date.now();
  const was = hub.renders.get(t.docId);
  if (was) clearTimeout(was.timer);
  const first = was?.first ?? now;
  const delay = Math.max(0, Math.min(RENDER_MS, first + RENDER_MAX_MS - now));
  const timer = setTimeout(() => {
    hub.renders.delete(t.docId);
    // Quiet: the writers paused for RENDER_MS (not a render forced by RENDER_MAX_MS while they type); after a
    // forced one, a quiet one follows unless a push came (it compacts what the forced one left).
    const quiet = delay === RENDER_MS;
    render(core, actor, t, quiet).then(
      () => void (quiet || hub.renders.has(t.docId) || scheduleRender(cx, t)),
      () => {
        // The next push renders again; a document whose writer lost their rights stays as it is.
      },
    );
  }, delay);
  // A pending render never keeps a process alive on its own.
  (timer as { unref?: () => void }).unref?.();
  hub.renders.set(t.docId, { timer, first, by: actor });
}

export function collabApi(core: Core, actor: Actor) {
  const hub = hubOf(core);
  const cx: Session = { core, actor, hub };
  return {
    /** The document as one update, made from the item's HTML on the first open. */
    async open(input: CollabOpenParams): Promise<CollabState> {
      const t = targetOf(core.parse(collabParams.collabOpen, input));
      const item = await editable(cx, t);
      const doc = await current(cx, t, item);
      const state = await whole(cx, t, doc);
      const presence = hub.presence.since(t.docId, 0);
      return presence ? { ...state, presence } : state;
    },

    /** Stores one update (and passes presence on); answers its position. */
    async push(input: CollabPushParams): Promise<CollabPushResult> {
      if (input?.update instanceof Uint8Array && input.update.byteLength > COLLAB_LIMITS.update) throw tooLarge();
      const p = core.parse(collabParams.collabPush, input);
      const t = targetOf(p);
      if (!isUpdate(p.update)) throw invalid('update', 'update must be a Yjs update');
      const item = await editable(cx, t);
      await current(cx, t, item);
      if (p.presence) {
        hub.presence.apply(t.docId, p.presence);
        hub.share(t.docId, p.presence);
      }
      if (p.update.byteLength <= 2 && p.update.every((b) => b === 0)) {
        return { position: String((await core.driver.logBounds()).newest) };
      }
      const { seq } = await core.commit([put('collabUpdates', updateRecord(cx.core, t, p.update), 0)]);
      await gone(cx, t);
      scheduleRender(cx, t);
      return { position: String(seq) };
    },

    /** What is new since `since`, merged into one update (empty when nothing is; waits up to `wait` ms for it). */
    async pull(input: CollabPullParams): Promise<CollabState> {
      const p = core.parse(collabParams.collabPull, input);
      const t = targetOf(p);
      const since = Number(p.since);
      const deadline = Date.now() + (p.wait ?? 0);
      const seen = p.presenceSince ?? 0;
      // Who may read is judged once per call; each wake takes what this process's pushes left in memory, and
      // reads the store only for what they cannot say (other app servers' pushes, a change made elsewhere).
      await editable(cx, t);
      // Memory holds what this process committed; on arrival and at each poll, the log's newest says whether
      // anything came after it by other hands (then the store is read).
      let check = true;
      for (;;) {
        let found = hub.recent.after(t.docId, since);
        if (found && check && (await core.driver.logBounds()).newest > (hub.recent.head(t.docId) ?? -1))
          found = undefined;
        if (!found) {
          const { doc, found: read } = await look(cx, t, since);
          if (!read) return withPresence(hub, t, seen, await whole(cx, t, doc));
          found = read;
        }
        const state = withPresence(hub, t, seen, { update: found.update, position: String(found.position) });
        if (found.update.byteLength > 0 || state.presence || Date.now() >= deadline) return state;
        check = (await waitForChange(core, hub, t.docId, deadline)) === 'poll' && Date.now() < deadline;
      }
    },
  };
}

const withPresence = (hub: Hub, t: Target, seen: number, s: CollabState): CollabState => {
  const presence = hub.presence.since(t.docId, seen);
  return presence ? { ...s, presence } : s;
};

/**
 * Until this document's pushes move in memory (or, when memory keeps none of it, this process commits), presence
 * moves, a look at the log is due (other app servers: 'poll'), or the deadline.
 */
function waitForChange(core: Core, hub: Hub, docId: string, deadline: number): Promise<'moved' | 'poll'> {
  return new Promise((resolve) => {
    const done = (why: 'moved' | 'poll') => {
      core.commitListeners.delete(committed);
      stopTail?.();
      stopPresence();
      clearTimeout(timer);
      resolve(why);
    };
    const committed = () => done('moved');
    const timer = setTimeout(() => done('poll'), Math.max(0, Math.min(POLL_MS, deadline - Date.now())));
    const stopTail = hub.recent.onMove(docId, committed);
    if (!stopTail) core.commitListeners.add(committed);
    const stopPresence = hub.presence.onChange(docId, committed);
  });
}

/** The pushes not yet compacted, oldest first: a batch of at most MAX_UPDATES after `after` (an index key). */
const pending = (core: Core, docId: string, after?: Key) =>
  core.driver.list({
    collection: 'collabUpdates',
    index: 'doc',
    prefix: [docId],
    ...(after ? { lower: { key: after.slice(1), open: true } } : {}),
    direction: 'asc',
    limit: MAX_UPDATES,
  });

/** Every push not yet compacted (compaction keeps them a few dozen; after a burst, batch by batch). */
async function allPending(core: Core, docId: string) {
  const out = await pending(core, docId);
  for (let batch = out; batch.length === MAX_UPDATES; out.push(...batch))
    batch = await pending(core, docId, batch[batch.length - 1]!.key);
  return out;
}

class StaleRender extends Error {}

/** How often a render that met another write (a push's catch-up, another app server's render) starts again. */
const RENDER_TRIES = 8;

/**
 * Writes the document's title and HTML into the item through the normal write path (revision, etag, event), as
 * the writer who pushed last, with the document record in the same commit (so no app server mistakes the render
 * for a change made elsewhere); compacts the document on the way when enough pushes piled up. A burst of more
 * pushes than one read takes is compacted batch by batch first, so no partial text is ever rendered.
 */
async function render(core: Core, actor: Actor, t: Target, quiet: boolean): Promise<void> {
  for (let tries = 0; tries < RENDER_TRIES; ) {
    const step = await renderOnce(core, actor, t, quiet);
    if (step === 'done') return;
    if (step === 'stale') tries++;
  }
}

async function renderOnce(core: Core, actor: Actor, t: Target, quiet: boolean): Promise<'done' | 'more' | 'stale'> {
  const stored = await core.get('collabDocs', t.docId);
  if (!stored) return 'done';
  const updates = await pending(core, t.docId);
  const more = updates.length === MAX_UPDATES;
  const ydoc = loadDocument([fromBase64(stored.doc.state), ...updates.map((u) => fromBase64(u.doc.update))]);
  const compacted: Partial<Pick<CollabDocRecord, 'state'>> =
    // While they type, every COMPACT_AT pushes; when they pause, all of them, so the stored size settles within 3×.
    updates.length >= COMPACT_AT || (quiet && updates.length > 1) ? { state: toBase64(compactState(ydoc)) } : {};
  const { title, content } = more ? stored.doc : await renderDocument(ydoc);
  ydoc.destroy();
  const folded = compacted.state ? updates.map((u) => del('collabUpdates', u.id, u.version)) : [];
  // A replica's copy only compacts: the server renders.
  if (more || core.root.collabFollower || (title === stored.doc.title && content === stored.doc.content)) {
    if (!folded.length) return 'done';
    try {
      await core.commit([put('collabDocs', { ...stored.doc, ...compacted }, stored.version), ...folded]);
    } catch (error) {
      if (DriverConflict.is(error)) return 'stale';
      throw error;
    }
    return more ? 'more' : 'done';
  }
  const actorId = actorUserId(actor);
  try {
    await changeContent(
      core,
      actor,
      t.kind,
      t.blogId,
      t.itemId,
      undefined,
      (r) => (r.rev !== stored.doc.rev || (r.title === title && r.content === content) ? r : { ...r, title, content }),
      async (before, after) => contentEvents(core, t.kind, before, after, true, actorId),
      async (before, after) => {
        const doc = await core.get('collabDocs', t.docId);
        if (!doc || doc.doc.rev !== before.rev || doc.version !== stored.version) throw new StaleRender();
        return [
          put('collabDocs', { ...doc.doc, ...compacted, rev: after.rev, title, content }, doc.version),
          ...folded,
        ];
      },
    );
  } catch (error) {
    // The document or the item moved meanwhile: read them again.
    if (error instanceof StaleRender || DriverConflict.is(error)) return 'stale';
    throw error;
  }
  return 'done';
}
