/**
 * docs/design.md §14's targets, as the benches print and judge them: one place, so no bench states a target of its own.
 * Ratios are blogcore / raw (means) unless said otherwise.
 */
export const TARGETS = {
  /** get one post, list a page, label filter (SQLite, PostgreSQL), at 10k, 100k and 1M posts. */
  read: 1.3,
  /** insert, patch: PostgreSQL with the change-log row and the event in one transaction. */
  write: 1.2,
  /** first page, page 50% deep, label filter and two-word search: the largest size's cost over the smallest's. */
  flat: 1.5,
  /** two-word search, 20 results, 1M posts, SQLite: absolute (ms) and against raw. */
  searchMs: 1,
  searchRaw: 2,
  /** a word in every post costs what a list costs: search / list first page (issue 34: at most 1.5×). */
  everyWord: 1.5,
  /** HTTP through the helper on node:http: share of raw req/s. */
  http: 0.85,
  httpAuth: 0.8,
  /** A read nothing changed (a kept response) against node:http sending the same bytes (issue 34). */
  httpKept: 0.95,
} as const;
