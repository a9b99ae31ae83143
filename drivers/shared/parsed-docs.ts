/**
 * Documents parsed from their stored JSON text, kept by row and stamp: a page read again (the front page, a
 * popular label) costs no `JSON.parse` of what was read before (a fifth of a SQLite list page's CPU). A hit
 * needs the very same stamp, so a record written since, here or by another process, is parsed again. SQLite's
 * stamp is the text itself (the truth, not a version that a deleted and re-created row could repeat);
 * PostgreSQL's names the row version (its `xmin` and version: drivers/postgres/reads.ts), so a read can leave
 * out the text of the documents it would find here.
 *
 * Only documents read again and again are kept (the KEEP_AT-th read of a row in a short while): keeping every
 * document read (a crawl, random pages) costs the garbage collector more than the parses it saves. What is
 * kept is shared by every later read, so it is frozen: a caller changing a document in place fails instead
 * of changing it for the next reader.
 */
import type { JsonObject } from '../../src/store/driver.js';
import { fnv1a } from '../../src/util/ids.js';

/** What a driver keeps by default: the text of the documents (their parsed form costs about as much again). */
export const PARSED_BYTES = 8 * 1024 * 1024;
/** Reads of a row, counted in a small table of recent rows (a row sharing a slot just restarts the count). */
const KEEP_AT = 4;
const SLOTS = 4096;

const freeze = (v: unknown): void => {
  if (typeof v !== 'object' || v === null || Object.isFrozen(v)) return;
  Object.freeze(v);
  for (const x of Object.values(v)) freeze(x);
};

/**
 * A slot for a row: its number, or a hash of its whole id. (A few of its characters were too few: a ULID's first
 * ten are its time, so ids made together shared a slot one pair in a thousand, each pair never kept.)
 */
const slotOf = (key: number | string): number => {
  if (typeof key === 'number') return key & (SLOTS - 1);
  const h = fnv1a(key);
  return (h ^ (h >>> 15)) & (SLOTS - 1);
};

export class ParsedDocs<K extends number | string = number> {
  /** Oldest use first. */
  private readonly kept = new Map<K, { stamp: string; doc: JsonObject; size: number }>();
  private readonly recent: Array<K | undefined> = new Array(SLOTS);
  private readonly reads = new Uint8Array(SLOTS);
  private bytes = 0;

  constructor(private readonly limit = PARSED_BYTES) {}

  /** The document stored as `text` at `key` (a row of the store), parsed once while its stamp stays the same. */
  parse(key: K, text: string, stamp: string = text): JsonObject {
    const hit = this.keptAs(key, stamp);
    if (hit !== undefined) return hit;
    // Kept under another stamp: that record was written since.
    const stale = this.kept.get(key);
    if (stale !== undefined) {
      this.kept.delete(key);
      this.bytes -= stale.size;
    }
    const doc = JSON.parse(text) as JsonObject;
    const slot = slotOf(key);
    if (this.recent[slot] !== key) {
      this.recent[slot] = key;
      this.reads[slot] = 1;
      return doc;
    }
    if (++this.reads[slot]! < KEEP_AT || text.length > this.limit / 16) return doc;
    this.recent[slot] = undefined;
    freeze(doc);
    this.kept.set(key, { stamp, doc, size: text.length });
    this.bytes += text.length;
    while (this.bytes > this.limit) {
      const [oldest, o] = this.kept.entries().next().value!;
      this.kept.delete(oldest);
      this.bytes -= o.size;
    }
    return doc;
  }

  /** The stamp of the document kept at `key`, if one is. */
  stampOf(key: K): string | undefined {
    return this.kept.get(key)?.stamp;
  }

  /** The document kept at `key` with this stamp (undefined: none, or another). */
  keptAs(key: K, stamp: string): JsonObject | undefined {
    const k = this.kept.get(key);
    if (k === undefined || k.stamp !== stamp) return undefined;
    this.kept.delete(key);
    this.kept.set(key, k);
    return k.doc;
  }

  clear(): void {
    this.kept.clear();
    this.recent.fill(undefined);
    this.bytes = 0;
  }
}
