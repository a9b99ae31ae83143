/**
 * Kept responses (docs/http.md "Kept responses", docs/design.md §21): the bytes, ETag and headers of a read's
 * 200 answer, keyed by route, normalized query and the caller, so the same read again is sent without parsing,
 * reading or shaping anything. Everything kept goes at once when the store may have changed: any commit of this
 * process (before the write's call returns), other processes' commits found by the change-log check a kept
 * answer makes first (the same check every call makes, `caughtUp` of src/core/at-once.ts), and, where the driver shares events
 * across app servers, as soon as another instance's event arrives. An answer computed from reads that began
 * before such a drop is not kept. At most `maxBytes` of bodies and headers; the least recently used leave first.
 */

import type { Outgoing } from '../web/dispatch.js';

/** A kept 200 answer. */
export interface KeptResponse {
  /** The headers of the answer (no content-length). */
  readonly headers: Readonly<Record<string, string>>;
  /** The same headers and content-length as a flat [name, value, …] list: Node's `writeHead` takes it as it is. */
  readonly head: readonly string[];
  readonly body: Uint8Array<ArrayBuffer>;
  readonly etag: string | undefined;
  readonly size: number;
  readonly key: string;
  /** The answer to a GET as the Node adapter sends it, made once. */
  readonly out: Outgoing;
  /** The request target (as the client sent it) that an anonymous reader reaches it by at once (`byTarget`). */
  readonly target: string | undefined;
}

/** Default `keptResponses.maxBytes`: 32 MiB. */
export const KEPT_BYTES = 32 * 1024 * 1024;
/** Room a key and its entry take beside the body and headers (so many tiny answers are bounded too). */
const OVERHEAD = 200;

export class KeptResponses {
  private readonly map = new Map<string, KeptResponse>();
  /** Anonymous answers by the request target they were kept for (`KeptResponse.target`). */
  private readonly targets = new Map<string, KeptResponse>();
  private bytes = 0;
  /** Bumped by every drop: an answer whose reads began before the last drop is not kept. */
  private epoch = 0;

  constructor(readonly maxBytes: number) {}

  /** Forgets everything kept (the store may have changed). */
  readonly drop = (): void => {
    this.map.clear();
    this.targets.clear();
    this.bytes = 0;
    this.epoch++;
  };

  /** The mark to hand to `set` with an answer computed from reads that begin after this call. */
  mark(): number {
    return this.epoch;
  }

  get(key: string): KeptResponse | undefined {
    return this.touch(this.map.get(key));
  }

  /** An anonymous reader's answer by the request target as sent: no key to build (the Node adapter's GETs). */
  byTarget(target: string): KeptResponse | undefined {
    return this.touch(this.targets.get(target));
  }

  private touch(hit: KeptResponse | undefined): KeptResponse | undefined {
    if (hit === undefined) return undefined;
    // Most recently used last.
    const key = hit.key;
    this.map.delete(key);
    this.map.set(key, hit);
    return hit;
  }

  /**
   * Keeps an answer computed from reads that began at `since` (nothing if a drop came in between); `target`: the
   * request target an anonymous reader asked it by.
   */
  set(
    key: string,
    headers: Record<string, string>,
    body: Uint8Array<ArrayBuffer>,
    since: number,
    target?: string,
  ): void {
    if (since !== this.epoch) return;
    const head: string[] = [];
    let size = OVERHEAD + key.length + body.byteLength;
    for (const name in headers) {
      head.push(name, headers[name]!);
      size += name.length + headers[name]!.length;
    }
    head.push('content-length', String(body.byteLength));
    if (size > this.maxBytes) return;
    const old = this.map.get(key);
    if (old) this.remove(old);
    while (this.bytes + size > this.maxBytes) this.remove(this.map.values().next().value!);
    const out = { status: 200, headers, head, text: body };
    const kept = { key, headers, head, body, etag: headers.etag, size, out, target };
    this.map.set(key, kept);
    if (target !== undefined) this.targets.set(target, kept);
    this.bytes += size;
  }

  /** What is kept now: answers and bytes (the benchmark reports it). */
  stats(): { responses: number; bytes: number } {
    return { responses: this.map.size, bytes: this.bytes };
  }

  private remove(entry: KeptResponse): void {
    this.map.delete(entry.key);
    if (entry.target !== undefined && this.targets.get(entry.target) === entry) this.targets.delete(entry.target);
    this.bytes -= entry.size;
  }
}

/**
 * The query as a key: its `name=value` pairs sorted by name (the same parameters in another order are the same
 * read; a repeated name keeps its values' order). Values stay as sent, so two spellings of one value are two
 * entries, never one answer for two reads.
 */
export function normalizedQuery(query: string): string {
  if (query.indexOf('&') === -1) return query;
  return query
    .split('&')
    .sort((a, b) => {
      const x = nameOf(a);
      const y = nameOf(b);
      return x < y ? -1 : x > y ? 1 : 0;
    })
    .join('&');
}

const nameOf = (pair: string) => {
  const i = pair.indexOf('=');
  return i === -1 ? pair : pair.slice(0, i);
};

/** The reads whose answers are kept: what a reader asks for again and again (never a long poll nor a count). */
export const KEPT_OPS: ReadonlySet<string> = new Set([
  'blogs.get',
  'blogs.getByUrl',
  'posts.list',
  'posts.search',
  'posts.getByPath',
  'posts.get',
  'pages.list',
  'pages.get',
  'comments.list',
  'comments.listByBlog',
  'comments.get',
]);
