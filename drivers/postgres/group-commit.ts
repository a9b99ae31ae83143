/**
 * Group commit: the commits an app server starts in one turn of the event loop go to PostgreSQL as one
 * transaction on one pipelined connection (BEGIN, each commit's statement, COMMIT, written together), where each
 * alone takes a connection, a round trip, a wake-up and a WAL flush of its own, and holds its label counters'
 * rows through that flush (docs/design.md §15, "Commits of one turn in one transaction").
 *
 * - Each commit is all or nothing as before; a group is too. A statement refused in a group (a version or unique
 *   conflict, a deadlock) rolls the whole group back, and its commits run again one by one, each refused or
 *   done as it would have been alone.
 * - Commits in a group share the transaction's seq (CommitResult.seq); their ops follow each other in the log
 *   (`pos`), one commit's after another's.
 * - A group takes its row locks in one order (existing records before counters, each by key), so two groups
 *   never wait on each other in a circle: a commit joins a group only if the locks it adds come after those the
 *   group holds; one whose own locks are out of that order, or that needs a look at the log before its statement
 *   (commit_ops's), runs alone.
 */
import { type CommitOptions, type CommitResult, compareKeys, type WriteOp } from '../../src/store/driver.js';
import { answer, commit, commitStatement, rowOp, runOrder } from './commit.js';
import type { Connection } from './connect.js';
import { clearError } from './connect.js';

/** The most commits in one group (a turn of a bulk load may start hundreds). */
const MOST = 16;
/**
 * The most ops in one group: the log's readers read it a page at a time, and a seq they must take whole
 * (event-share.ts reads 500). A larger commit runs alone.
 */
const MOST_OPS = 200;

interface Waiting {
  ops: readonly WriteOp[];
  options: CommitOptions;
  /** The rows it locks, in the order its statement locks them; undefined: it runs alone. */
  locks: string[] | undefined;
  resolve(result: CommitResult): void;
  reject(error: unknown): void;
}

const waiting = new WeakMap<Connection, Waiting[]>();

/** A commit, run with the others this turn starts on the same store. */
export function groupCommit(c: Connection, ops: readonly WriteOp[], options: CommitOptions): Promise<CommitResult> {
  if (!c.pipelines) return commit(c, ops, options);
  return new Promise((resolve, reject) => {
    let queue = waiting.get(c);
    if (!queue) {
      waiting.set(c, (queue = []));
      process.nextTick(() => {
        waiting.delete(c);
        for (const group of groups(queue!)) void run(c, group);
      });
    }
    queue.push({ ops, options, locks: locksOf(ops), resolve, reject });
  });
}

/**
 * The rows a commit locks, in its statement's order: a put over a record or a delete locks the record's row, an
 * add its counter's row (an insert of a new record waits on nobody, unless another takes its unique key at once).
 */
function locksOf(ops: readonly WriteOp[]): string[] | undefined {
  if (ops.length > MOST_OPS) return undefined;
  const locks: string[] = [];
  for (const r of runOrder(ops.map((op, k) => rowOp(op, k)))) {
    if (r.kind === 0 && r.expect === 0) continue;
    const key = `${r.kind === 2 ? 1 : 0}${r.collection}\0${r.id}`;
    if (locks.length && key <= locks[locks.length - 1]!) return undefined;
    locks.push(key);
  }
  return locks;
}

/** The turn's commits as groups that lock in one order, at most MOST each; the rest one by one. */
function groups(queue: Waiting[]): Waiting[][] {
  const out: Waiting[][] = queue.filter((w) => !w.locks).map((w) => [w]);
  let rest = queue.filter((w) => w.locks).sort((a, b) => compareKeys(a.locks!, b.locks!));
  while (rest.length) {
    const group: Waiting[] = [];
    const next: Waiting[] = [];
    const held = new Set<string>();
    let last = '';
    let ops = 0;
    for (const w of rest) {
      const fresh = w.locks!.filter((k) => !held.has(k));
      if (group.length >= MOST || ops + w.ops.length > MOST_OPS || (fresh.length && fresh[0]! <= last)) {
        next.push(w);
        continue;
      }
      group.push(w);
      ops += w.ops.length;
      for (const k of fresh) held.add(k);
      if (fresh.length) last = fresh[fresh.length - 1]!;
    }
    out.push(group);
    rest = next;
  }
  return out;
}

async function run(c: Connection, group: Waiting[]): Promise<void> {
  if (group.length === 1) return alone(c, group[0]!);
  let base = 0;
  let statements: Array<{ text: string; values: unknown[]; wrapped: boolean }>;
  try {
    statements = group.map((w) => {
      const s = commitStatement(c, w.ops, Math.floor(w.options.time ?? Date.now()), w.options.unchanged, base);
      base += w.ops.length;
      return s;
    });
  } catch {
    // A commit the driver cannot write (an unknown collection): each alone says which.
    for (const w of group) void alone(c, w);
    return;
  }
  // commit_ops's statement with `unchanged` needs its look at the log first: alone (its ops' positions stay unused).
  const looks = statements.flatMap((s, k) => (s.wrapped && group[k]!.options.unchanged ? [k] : []));
  if (looks.length) {
    for (const k of looks) void alone(c, group[k]!);
    group = group.filter((_, k) => !looks.includes(k));
    statements = statements.filter((_, k) => !looks.includes(k));
    if (!group.length) return;
  }
  const { results, committed, lost } = await c.transaction(statements).catch((error: unknown) => ({
    results: [],
    committed: false,
    lost: error as Error,
  }));
  if (committed) {
    group.forEach((w, k) => {
      const r = results[k] as PromiseFulfilledResult<unknown[][]>;
      w.resolve(answer(r.value[0]!, statements[k]!.wrapped));
    });
    return;
  }
  // The connection went away: whether the group committed is unknown, as for a commit alone.
  if (lost) {
    for (const w of group) w.reject(clearError(lost));
    return;
  }
  for (const w of group) void alone(c, w);
}

async function alone(c: Connection, w: Waiting): Promise<void> {
  try {
    w.resolve(await commit(c, w.ops, w.options));
  } catch (error) {
    w.reject(error);
  }
}
