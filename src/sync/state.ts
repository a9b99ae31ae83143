/**
 * What a replica keeps in the local store beside the records, in the `settings` collection (no indexes, so
 * no store upgrade): one state document per blog (checkpoint, a pull in progress, the local log position
 * looked at, what waits to be sent, creates in flight with their Idempotency-Keys, the id map, conflicts).
 * Each synced record has a *base* (model.ts: the server's etag and status, a fingerprint of its fields, and
 * the local version the replica wrote): a pull writes it into the record as its replica note, and a small
 * `settings` document under the same id holds it where the record cannot (a delete leaves the note there, a
 * push's confirmation writes it there rather than the whole record); the `settings` one comes first
 * (docs/design.md §26). Records, bases and state move in one commit each time, so a reload or a crash at any
 * point finds them consistent.
 */
import {
  type Core,
  delNoted,
  type Noted,
  type JsonObject,
  type LogPosition,
  type StoredDoc,
  type WriteOp,
  labelCountsOps,
  put,
  type Collection,
  type PostRecord,
  type Records,
  type IndexName,
  type IndexedDoc,
  type Key,
} from '../service/store.js';
import type { Base, Tracked } from './model.js';
import { noteUses } from './wanted.js';

/** A create whose request is stored before it is sent, so a retry sends the same request with the same key. */
export interface CreateInFlight {
  key: string;
  path: string;
  body: JsonObject;
  query: Record<string, string | boolean>;
}

export interface StoredConflict {
  id: string;
  collection: Tracked;
  reason: 'changed' | 'deleted' | 'rejected';
  message?: string;
  /** The local record (null: the local write was a delete), and the server's as stored here (null: it has none). */
  mine: JsonObject | null;
  theirs: JsonObject | null;
  /** The server's etag. */
  etag?: string;
  detected: string;
}

export interface State {
  id: string;
  /** How bases are stored: LAYOUT, 2 with all of them in `settings`, absent before 0.3.0 (upgrade.ts). */
  layout?: number;
  checkpoint?: string;
  /** A pull in progress: where its next page starts. */
  pull?: { since?: string; pageToken: string; fresh: boolean };
  gen: number;
  /** A fresh pull of this generation completed: records older generations saw are to be dropped. */
  sweep?: number;
  /** How far the local change stream of the blog has been looked at for local writes. */
  scanned: LogPosition;
  /** `collection/id` of records that may have local writes to send. */
  dirty: string[];
  creates: Record<string, CreateInFlight>;
  /** Local id → server id of records created offline and pushed. */
  ids: Record<string, string>;
  conflicts: StoredConflict[];
}

/** `State.layout` of a replica whose bases are notes in its records (docs/design.md §26; older ones: upgrade.ts). */
export const LAYOUT = 3;

export const stateId = (blogId: string) => `sync:${blogId}`;

/**
 * Whether the replica's pull is its first (nothing pulled here before, no fresh pull after a 410): its pages are
 * written ahead, reading nothing, and its posts' search terms after it (pull.ts).
 */
export const firstPull = (st: State) => !st.checkpoint && !st.gen;
export const baseId = (blogId: string, collection: Tracked, id: string) => `sync:${blogId}:${collection}:${id}`;

export const newState = (blogId: string): State => ({
  id: stateId(blogId),
  layout: LAYOUT,
  gen: 0,
  scanned: { seq: 0, pos: -1 },
  dirty: [],
  creates: {},
  ids: {},
  conflicts: [],
});

/** A record of any collection, as the store holds it. */
type Doc = Records[Collection];

interface Slot {
  collection: Collection;
  id: string;
  /** The version in the store before this batch (0: absent). */
  stored: number;
  was: Doc | undefined;
  doc: Doc | undefined;
  touched?: boolean;
}

/**
 * The writes of one step, coalesced per record and committed at once: reads see the batch's own writes, and
 * each record is written once with the version it had, so the commit fails whole if anything moved.
 */
export class Batch {
  private slots = new Map<string, Slot>();
  /** `known`: records read ahead (preload), used in place of a read; a commit still fails if one moved since. */
  constructor(
    private readonly core: Core,
    private readonly known?: Known,
  ) {}

  private fill(collection: Collection, id: string, found: StoredDoc<Doc> | undefined): Slot {
    const k = `${collection}/${id}`;
    let s = this.slots.get(k);
    if (!s) this.slots.set(k, (s = { collection, id, stored: found?.version ?? 0, was: found?.doc, doc: found?.doc }));
    return s;
  }

  private async slot(collection: Collection, id: string): Promise<Slot> {
    return (
      this.slots.get(`${collection}/${id}`) ??
      this.fill(
        collection,
        id,
        await (this.known ? read(this.core, this.known, collection, id) : this.core.driver.get(collection, id)),
      )
    );
  }

  /** Reads many records at once (one driver call) ahead of the gets that will want them. */
  async load(collection: Collection, ids: readonly string[]): Promise<void> {
    // Each record once (a page's posts mostly share one author).
    const distinct = [...new Set(ids)];
    const docs = await this.core.driver.getMany(collection, distinct);
    for (let i = 0; i < distinct.length; i++) this.fill(collection, distinct[i]!, docs[i]);
  }

  /** Takes records as absent without reading them (a commit fails whole if one was there after all). */
  absent(collection: Collection, ids: readonly string[]): void {
    for (const id of ids) this.fill(collection, id, undefined);
  }

  async get<T>(collection: Collection, id: string): Promise<{ doc: T; stored: number } | undefined> {
    const s = await this.slot(collection, id);
    return s.doc ? { doc: s.doc as unknown as T, stored: s.stored } : undefined;
  }

  /** Writes a record; answers the version it will have after the commit. */
  async put<T extends { id: string }>(collection: Collection, doc: T): Promise<number> {
    const s = await this.slot(collection, doc.id);
    s.doc = doc as unknown as Doc;
    s.touched = true;
    return s.stored + 1;
  }

  async delete(collection: Collection, id: string): Promise<void> {
    const s = await this.slot(collection, id);
    s.doc = undefined;
    s.touched = true;
  }

  /**
   * Commits the batch, with the replica's state when given: written over the version it was read at, so a
   * replica of another tab that wrote it meanwhile makes this commit fail (nothing is overwritten).
   */
  async commit(ctx?: Ctx): Promise<number | undefined> {
    return (await this.prepare(ctx))();
  }

  /**
   * Builds the batch's commit (with the adds to the label counters it moves) and answers what sends it.
   *
   * `ahead` (a pull's pages, on `known`): what the batch writes counts as written as soon as it is sent — in
   * `known` and in the state's version — so the next page's batch can be sent
   * while IndexedDB still writes this one (it runs them in the order they were sent). Should this one fail,
   * the next fails too (it expects the state's version this one writes), and each takes back what it counted.
   */
  async prepare(ctx?: Ctx, ahead = false): Promise<() => Promise<number | undefined>> {
    const counted = ahead && ctx ? ctx : undefined;
    if (ctx) {
      this.slots.set(`settings/${ctx.state.id}`, {
        collection: 'settings',
        id: ctx.state.id,
        stored: ctx.version,
        was: undefined,
        doc: undefined,
      });
      // (Ahead, the state goes on changing for the next page before this commit hands it to the store: a copy.)
      await this.put('settings', counted ? (JSON.parse(JSON.stringify(ctx.state)) as State) : ctx.state);
    }
    // The pictures posts and pages start or stop using (wanted.ts).
    const items = [...this.slots.values()].filter(
      (s) => s.touched && (s.collection === 'posts' || s.collection === 'pages'),
    );
    if (items.length)
      await noteUses(
        this,
        items.map((s) => [s.was, s.doc] as [PostRecord | undefined, PostRecord | undefined]),
      );
    const ops: WriteOp[] = [];
    // A first pull's posts go without their search terms, which are written right after it (pull.ts).
    const terms = !(counted && this.core.driver.addTerms);
    const posts: Array<[PostRecord | undefined, PostRecord | undefined]> = [];
    for (const s of this.slots.values()) {
      if (!s.touched) continue;
      const stored = { id: s.id, version: s.stored, doc: s.was as Records[Noted] };
      if (s.doc) ops.push(put(s.collection, s.doc, stored, terms));
      // A delete leaves the record's note in `settings`, unless the batch writes that record itself.
      else if (s.stored)
        ops.push(
          ...delNoted(
            s.collection as Noted,
            this.slots.get(`settings/${stored.doc?.replica?.id}`)?.touched
              ? { ...stored, doc: { ...stored.doc, replica: undefined } }
              : stored,
          ),
        );
      if (s.collection === 'posts') posts.push([s.was as PostRecord | undefined, s.doc as PostRecord | undefined]);
    }
    // Label counters move with the posts, as on every write of the core (label-counts.ts: adds, nothing read).
    const known = this.known;
    if (posts.length) ops.push(...labelCountsOps(posts));
    const slots = [...this.slots];
    this.slots.clear();
    // The next batch on `known` starts from what this one writes.
    const wrote = () => {
      for (const [k, s] of slots)
        if (s.touched) known?.set(k, s.doc && { id: s.id, doc: s.doc, version: s.stored + 1 });
    };
    return async () => {
      if (!ops.length) return undefined;
      if (counted) {
        counted.version++;
        wrote();
      }
      let seq: number;
      try {
        ({ seq } = await this.core.commit(ops));
      } catch (error) {
        // What moved is read afresh next time.
        for (const [k] of slots) known?.delete(k);
        if (counted) {
          for (const op of ops) known?.delete(`${op.collection}/${op.id}`);
          counted.version--;
        }
        throw error;
      }
      if (!counted) {
        wrote();
        if (ctx) ctx.version++;
      }
      return seq;
    };
  }
}

/** The local records of one collection under an index prefix (the blog, or one post's comments), a page at a time. */
export async function* walk<C extends Tracked>(
  ctx: Ctx,
  collection: C,
  index: IndexName<C>,
  prefix: string[],
): AsyncGenerator<Array<IndexedDoc<Records[C]>>> {
  let after: Key | undefined;
  for (;;) {
    const page = await ctx.core.driver.list({
      collection,
      index,
      prefix,
      ...(after ? { lower: { key: after, open: true } } : {}),
      direction: 'asc',
      limit: 200,
    });
    yield page;
    if (page.length < 200) return;
    after = page[page.length - 1]!.key.slice(prefix.length);
  }
}

/** Every local record of the blog with its base, a page (and one batch) at a time: for the rare full passes. */
export async function eachRecord(
  ctx: Ctx,
  visit: (
    batch: Batch,
    collection: Tracked,
    id: string,
    version: number,
    base: Base | undefined,
    doc: Records[Tracked],
  ) => Promise<void>,
): Promise<void> {
  for (const collection of [...synced, 'media'] as const) {
    const index = collection === 'comments' ? 'post' : collection === 'media' ? 'blog' : 'published';
    for await (const page of walk(ctx, collection, index as IndexName<typeof collection>, [ctx.blogId])) {
      const bases = await ctx.core.driver.getMany(
        'settings',
        page.map((d) => baseId(ctx.blogId, collection, d.id)),
      );
      const batch = new Batch(ctx.core);
      for (let i = 0; i < page.length; i++) {
        const d = page[i]!;
        await visit(batch, collection, d.id, d.version, baseOf(bases[i], d), d.doc);
      }
      await batch.commit();
    }
  }
}

/** A record's base (docs/design.md §26): its `settings` document first, else the record's own note. */
export const baseOf = (kept: { doc: object } | undefined, record: { doc: object } | undefined) =>
  (kept?.doc ?? (record?.doc as { replica?: Base } | undefined)?.replica) as Base | undefined;

/** Whether a local record has edits the server has not seen: no base (made here) or changed since its base. */
export const isDirty = (stored: number | undefined, base: Base | undefined) =>
  stored !== undefined && (!base || base.version !== stored);

/** The base of a record as a batch sees it (`baseOf`). */
export const baseIn = async (batch: Batch, blogId: string, collection: Tracked, id: string) =>
  (await batch.get<Base>('settings', baseId(blogId, collection, id)))?.doc ??
  (await batch.get<{ replica?: Base }>(collection, id))?.doc.replica;

/** The bases of many records (`baseOf`), in one read per collection. */
export async function basesOf(
  core: Core,
  blogId: string,
  items: ReadonlyArray<{ collection: Tracked; id: string }>,
): Promise<Array<Base | undefined>> {
  const known = await preload(core, [
    ['settings', items.map((i) => baseId(blogId, i.collection, i.id))],
    ...synced.map((c) => [c, items.filter((i) => i.collection === c).map((i) => i.id)] as const),
  ]);
  return items.map(({ collection, id }) =>
    baseOf(known.get(`settings/${baseId(blogId, collection, id)}`), known.get(keyOf(collection, id))),
  );
}

/** Records read ahead, by `collection/id` (undefined: absent). */
export type Known = Map<string, StoredDoc<Doc> | undefined>;

/** Reads many records of each collection at once (one driver call per collection). */
export async function preload(
  core: Core,
  wanted: ReadonlyArray<readonly [Collection, readonly string[]]>,
): Promise<Known> {
  const known: Known = new Map();
  for (const [collection, ids] of wanted) {
    if (!ids.length) continue;
    const docs = await core.driver.getMany(collection, ids);
    for (let i = 0; i < ids.length; i++) known.set(`${collection}/${ids[i]}`, docs[i]);
  }
  return known;
}

/** A record from `known` when read ahead (and not dropped since), else from the store. */
export const read = async (
  core: Core,
  known: Known,
  collection: Collection,
  id: string,
): Promise<StoredDoc<Doc> | undefined> => {
  const k = `${collection}/${id}`;
  return known.has(k) ? known.get(k) : core.driver.get(collection, id);
};

/** What the pull and the push of one replica share. */
export interface Ctx {
  core: Core;
  blogId: string;
  state: State;
  /** The stored version `state` was read at (0: none stored): every write of the state expects it. */
  version: number;
}

/**
 * The replica's state as stored (a new one when there is none), unless `ctx` already holds that version: the
 * replica of another tab on the same store may have written it since.
 */
export async function loadState(core: Core, blogId: string, ctx: Ctx | undefined): Promise<Ctx> {
  const found = await core.getAs<State>('settings', stateId(blogId));
  const version = found?.version ?? 0;
  if (ctx?.version === version) return ctx;
  // A copy: the replica changes its state in place, and drivers may hand out frozen documents.
  return { core, blogId, state: found ? (JSON.parse(JSON.stringify(found.doc)) as State) : newState(blogId), version };
}

export const synced = ['posts', 'pages', 'comments'] as const;
export const keyOf = (collection: Tracked, id: string) => `${collection}/${id}`;
export const splitKey = (key: string) => {
  const i = key.indexOf('/');
  return { collection: key.slice(0, i) as Tracked, id: key.slice(i + 1) };
};

/** Takes a record off what waits to be sent. */
export function settled(st: State, collection: Tracked, id: string): void {
  st.dirty = st.dirty.filter((k) => k !== keyOf(collection, id));
}

export const saveState = (ctx: Ctx) => new Batch(ctx.core).commit(ctx);

/**
 * The local commits of pulled pages (their sequence numbers), per local store, in this process: each holds
 * only records written with their bases, so the look at what waits skips them without reading the bases.
 */
const pulled = new WeakMap<Core, Set<number>>();
export const pulledCommits = (core: Core): Set<number> => {
  let seqs = pulled.get(core);
  if (!seqs) pulled.set(core, (seqs = new Set()));
  return seqs;
};
