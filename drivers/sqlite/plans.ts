/**
 * How common a search's tokens are, per connection: the SQLite driver's search planner (search.ts) walks the
 * ordered index for tokens found in most records and reads FTS5 in rank order for the others.
 */
/** Searches of tokens found rare before they are measured again (a word may become common). */
const REMEASURE = 64;
/** Token sets whose commonness a connection keeps (the oldest forgotten first). */
const PLANS = 256;

/**
 * How common a search's tokens were found (keyed by index and FTS5 match text, so by scope and tokens): dense
 * when at least half the index entries a walk passed over matched. Measured by the walks themselves, so in bounded
 * work: the dense walk counts its hits; after a rank walk, its matches are counted against the entries of the
 * query's index from its bound to the last match (capped at twice the matches: a rare word's range is not read).
 * The index is the query's own (a blog's posts by status and time), so other blogs' posts never count.
 */
export class Plans {
  readonly #plans = new Map<string, { dense: boolean; left: number }>();

  /** Whether to try the dense walk first: tokens found dense, or rare ones measured again (undefined). */
  dense(key: string): boolean | undefined {
    const plan = this.#plans.get(key);
    if (!plan || (!plan.dense && --plan.left <= 0)) return undefined;
    return plan.dense;
  }

  found(key: string, dense: boolean): void {
    this.#plans.delete(key);
    if (this.#plans.size >= PLANS) this.#plans.delete(this.#plans.keys().next().value!);
    this.#plans.set(key, { dense, left: REMEASURE });
  }

  clear(): void {
    this.#plans.clear();
  }
}
