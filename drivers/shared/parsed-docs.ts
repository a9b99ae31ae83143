/**
 * Documents parsed from their stored JSON text, kept by row and text: a page read again (the front page, a
 * popular label) costs no `JSON.parse` of what was read before (a fifth of a SQLite list page's CPU). A hit
 * needs the very same text, so a record written since, here or by another process, is parsed again: the text
 * is the truth, not a version that a deleted and re-created row could repeat.
 *
 * Only documents read again and again are kept (the KEEP_AT-th read of a row in a short while): keeping every
 * document read (a crawl, random pages) costs the garbage collector more than the parses it saves. What is
 * kept is shared by every later read, so it is frozen: a caller changing a document in place fails instead
 * of changing it for the next reader.
 */
import type { JsonObject } from '../../src/store/driver.js';

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

/** A slot for a row: its number, or a few characters of its id. */
const slotOf = (key: number | string): number => {
  if (typeof key === 'number') return key & (SLOTS - 1);
  const n = key.length;
  return (n * 31 + key.charCodeAt(n - 1) * 7 + key.charCodeAt(n >> 1) * 131 + key.charCodeAt(0)) & (SLOTS - 1);
};

export class ParsedDocs<K extends number | string = number> {
  /** Oldest use first. */
  private readonly kept = new Map<K, { text: string; doc: JsonObject }>();
  private readonly recent: Array<K | undefined> = new Array(SLOTS);
  private readonly reads = new Uint8Array(SLOTS);
  private bytes = 0;

  constructor(private readonly limit = PARSED_BYTES) {}

  /** The document stored as `text` at `key` (a row of the store), parsed once while it stays the same. */
  parse(key: K, text: string): JsonObject {
    const k = this.kept.get(key);
    if (k !== undefined) {
      this.kept.delete(key);
      if (k.text === text) {
        this.kept.set(key, k);
        return k.doc;
      }
      this.bytes -= k.text.length;
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
    this.kept.set(key, { text, doc });
    this.bytes += text.length;
    while (this.bytes > this.limit) {
      const [oldest, o] = this.kept.entries().next().value!;
      this.kept.delete(oldest);
      this.bytes -= o.text.length;
    }
    return doc;
  }

  clear(): void {
    this.kept.clear();
    this.recent.fill(undefined);
    this.bytes = 0;
  }
}
