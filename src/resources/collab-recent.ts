/**
 * The recent pushes of the documents pulled in this process, kept in memory (docs/design.md §20): a push is
 * handed to the pulls waiting on its document as it commits, merged in memory, with no read of the store.
 *
 * Exact, not hopeful: a document's tail holds every push of its change-log stream over `(from, head]`. It is
 * seeded by a pull's read of the stream and moves on with each commit this process makes whose `previous` (the
 * log's seq just below it) is the tail's `head`: nothing else came between. A commit by other hands (another app
 * server, another service on the same store) leaves a gap, and the tail stops where it was until the next read of
 * the stream seeds it again; a pull that finds nothing in memory still asks the store (once per poll) whether
 * anything landed past the tail. Commits finishing out of order wait (a few hundred at most) for the one below.
 */
import type { WriteOp } from '../store/driver.js';
import { fromBase64 } from '../util/base64.js';
import { mergeUpdates } from '../collab/document.js';

/** Pushes kept per document (a pull further behind reads the store); documents kept per process. */
const KEEP = 512;
const DOCS = 64;
/** Commits kept while the one below them is still to finish. */
const EARLY = 256;

const EMPTY = new Uint8Array(0);

/** A commit this process made; `previous` is the log's newest seq below it (nothing else came between). */
export interface ProcessCommit {
  seq: number;
  previous: number;
  ops: readonly WriteOp[];
}

export interface Push {
  seq: number;
  update: Uint8Array;
}

interface Tail {
  /** Every push of the document's stream with `from < seq <= head` is in `pushes`, oldest first. */
  from: number;
  head: number;
  pushes: Push[];
  /** The item (`posts`/`pages` and its id): a change of it made here is taken in by a read of the store. */
  collection: string;
  itemId: string;
  waiters: Set<() => void>;
  /** The answers given since the tail last moved, by `since`: the pulls woken together share one merge. */
  answers: Map<number, { update: Uint8Array; position: number }>;
}

export class RecentPushes {
  private readonly tails = new Map<string, Tail>();
  private readonly early = new Map<number, ProcessCommit>();

  /** A commit this process made (core's commit listener). */
  readonly heard = (commit: ProcessCommit): void => {
    this.early.set(commit.previous, commit);
    if (this.early.size > EARLY) this.early.delete(this.early.keys().next().value!);
    for (const [docId, tail] of this.tails) this.advance(docId, tail);
  };

  /**
   * What a read of the document's stream found: every push over `(from, head]` (`head`: the log's newest when the
   * read began, so later ones come through commits). Kept unless the tail already reaches as far.
   */
  seed(docId: string, item: { collection: string; itemId: string }, from: number, head: number, pushes: Push[]): void {
    const known = this.tails.get(docId);
    if (known && known.head >= head) return;
    const tail: Tail = {
      from,
      head,
      pushes: pushes.filter((p) => p.seq > from && p.seq <= head),
      ...item,
      waiters: known?.waiters ?? new Set(),
      answers: new Map(),
    };
    this.tails.delete(docId);
    this.tails.set(docId, tail);
    if (this.tails.size > DOCS) {
      for (const [id, t] of this.tails) {
        if (t.waiters.size === 0) {
          this.tails.delete(id);
          break;
        }
      }
    }
    this.advance(docId, tail);
  }

  /**
   * The pushes after `since`, merged, and the position of the last (`since` when none); undefined when the tail
   * does not cover `since` (the caller reads the store).
   */
  after(docId: string, since: number): { update: Uint8Array; position: number } | undefined {
    const tail = this.tails.get(docId);
    if (!tail || since < tail.from || since > tail.head) return undefined;
    const known = tail.answers.get(since);
    if (known) return known;
    let i = tail.pushes.length;
    while (i > 0 && tail.pushes[i - 1]!.seq > since) i--;
    const fresh = tail.pushes.slice(i);
    if (fresh.length === 0) return { update: EMPTY, position: since };
    const answer = {
      update: fresh.length === 1 ? fresh[0]!.update : mergeUpdates(fresh.map((p) => p.update)),
      position: fresh[fresh.length - 1]!.seq,
    };
    tail.answers.set(since, answer);
    return answer;
  }

  /** How far the document's tail is known whole (undefined: not kept). */
  head(docId: string): number | undefined {
    return this.tails.get(docId)?.head;
  }

  /** Calls `wake` when the document's tail moves or is dropped; answers the function that stops it. */
  onMove(docId: string, wake: () => void): (() => void) | undefined {
    const tail = this.tails.get(docId);
    if (!tail) return undefined;
    tail.waiters.add(wake);
    return () => tail.waiters.delete(wake);
  }

  /** Takes in the commits that follow the tail's head, as far as they reach; wakes its waiters if it moved. */
  private advance(docId: string, tail: Tail): void {
    let moved = false;
    for (let c = this.early.get(tail.head); c; c = this.early.get(tail.head)) {
      let changedItem = false;
      let rendered = false;
      for (const op of c.ops) {
        if (op.collection === 'collabUpdates' && op.type === 'put' && op.doc.docId === docId) {
          tail.pushes.push({ seq: c.seq, update: fromBase64(op.doc.update as string) });
          moved = true;
        } else if (op.collection === tail.collection && op.id === tail.itemId) changedItem = true;
        else if (op.collection === 'collabDocs' && op.id === docId) rendered = true;
      }
      // A change of the item that is no render of the document (a PATCH, a revert, a delete): the pulls read the
      // store, which takes it into the document.
      if (changedItem && !rendered) {
        this.tails.delete(docId);
        for (const wake of [...tail.waiters]) wake();
        return;
      }
      tail.head = c.seq;
    }
    if (moved) tail.answers.clear();
    if (tail.pushes.length > KEEP) tail.from = tail.pushes.splice(0, tail.pushes.length - KEEP).at(-1)!.seq;
    if (moved) for (const wake of [...tail.waiters]) wake();
  }
}
