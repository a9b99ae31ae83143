/**
 * Search postings as segments (layout 3). IndexedDB's cost is per record written, not per byte (a page of
 * 500 posts with ~4,000 distinct words would cost thousands of records if each word had a record of its
 * own), so terms are written the way search engines write them: a commit's searchable documents become one
 * immutable *segment* of a few records, and segments of one size class are merged into a bigger one when
 * eight of them pile up (8 → 64 → 512 … documents), so a store holds a few segments per size class.
 *
 * In a segment, documents are numbered in the order of the collection's first index (`docno`), and each term
 * has the ascending list of the docnos holding it: a term's postings, in index order. So a search on that
 * index walks, in each segment, the rarest term's postings from the keyset position and checks the others,
 * and stops when the page is full. Documents written again, or deleted, leave their old entries behind until
 * a merge drops them (`~dead` names the versions that were replaced); a search keeps an entry only if its
 * version is the record's current one.
 *
 * Records (store `~seg.<collection>`: heads, keyed by segment id; store `~post.<collection>`: bodies):
 * - a head `{ id, n, d?, t?, dc?, b?, big? }`: a segment of fewer than INLINE documents carries its docs
 *   (`d`) and terms (`t`) inline; a bigger one names the first key of each doc chunk (`dc`), its bucket count
 *   (`b`) and its big terms with the first docno of each of their chunks (`big`);
 * - `[id, 0, n]`: a doc chunk `{ i: ids, v: versions, k: first-index keys }` of DOC_CHUNK documents;
 * - `[id, 1, n]`: a bucket `{ t: terms, o: offsets, p: docnos }` of the small terms whose hash falls in it;
 * - `[id, 2, term, n]`: a chunk of BIG docnos of a big term.
 */
import { compareKeys, type Key, type KeyBound } from '../../src/store/driver.js';

/**
 * A searchable document as a segment holds it: the version its terms belong to, and its key in the first index
 * (`[]` when it has none, or several: such a segment is searched in no particular order).
 */
export interface PostingDoc {
  id: string;
  v: number;
  /** The search scope its terms belong to. */
  s: string;
  key: Key;
  terms: readonly string[];
}

/**
 * Strings packed into one: item `i` is `t.slice(x[i], x[i + 1])`. IndexedDB reads one string and one typed array
 * far faster than an array of thousands of strings, and a search decodes only the items it looks at.
 */
export interface Packed {
  t: string;
  x: Uint32Array;
}
function pack(items: readonly string[]): Packed {
  const x = new Uint32Array(items.length + 1);
  let at = 0;
  items.forEach((item, i) => {
    x[i + 1] = at += item.length;
  });
  return { t: items.join(''), x };
}
const item = (p: Packed, i: number) => p.t.slice(p.x[i]!, p.x[i + 1]!);
const items = (p: Packed) => p.x.length - 1;

/** Documents: `[id, scope, key]` as JSON (decoded one at a time), and their versions. */
export interface DocChunk {
  d: Packed;
  v: Uint32Array;
}
export interface Bucket {
  /** Terms, sorted. */
  t: Packed;
  /** Term `j`'s docnos are `p[o[j]] … p[o[j+1]-1]` (o has one more entry than t). */
  o: Uint32Array;
  p: Uint32Array;
}
export interface SegHead {
  id: number;
  n: number;
  /** Some documents have no single key in the first index (key []): the segment cannot be walked in order. */
  u?: true;
  /**
   * Runs of documents sharing a prefix (every part of their key but the last two, e.g. [blogId, status]):
   * `[prefix, from, to, first suffix, last suffix]`, so a walk finds its range, and where it starts, without
   * reading a doc chunk.
   */
  r?: Array<[Key, number, number, Key, Key]>;
  d?: DocChunk;
  t?: Bucket;
  /** The body is one record `[id, 3]`: `{ d, t }` as an inline head has them. */
  w?: true;
  dc?: Key[];
  b?: number;
  big?: Record<string, number[]>;
}

export const INLINE = 8;
/**
 * Segments of fewer documents keep their body (docs and terms) in one record: one read opens them. Bigger
 * ones are chunked so that no record passes 64 KB, where Chromium stores a value as a blob of its own.
 */
const WHOLE = 32;
const DOC_CHUNK = 256;
const BIG = 2048;
/** Docnos per bucket record, about 16 KB. */
const BUCKET_ENTRIES = 4096;

/** A segment's size class: 1–7 documents, 8–63, 64–511, … */
export const level = (n: number) => Math.floor(Math.log2(Math.max(1, n)) / 3);

/**
 * FNV-1a, for term buckets: src/util/ids.ts `fnv1a`, copied, as this file loads lazily in a browser and a module
 * it shared with the start-up code would become a download of its own (some 130 B over the bundle's budget).
 */
function hash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/**
 * Every term of a segment's documents with its docnos, flat: term `t` is `terms[t]`, its docnos (ascending, each
 * once) `docnos[start[t]] … docnos[start[t + 1] - 1]`. Built in two passes over the documents with typed arrays,
 * not an array per term: a page of 500 posts has some 12,000 distinct terms, most of them on one or two posts.
 */
export interface Lists {
  terms: string[];
  start: Uint32Array;
  docnos: Uint32Array;
}

function listsOf(sorted: readonly PostingDoc[]): Lists {
  const ids = new Map<string, number>();
  const terms: string[] = [];
  let total = 0;
  for (const doc of sorted) total += doc.terms.length;
  // Each occurrence's term id (SKIP: the term again in the same document), the documents per term, and the last
  // document each term was seen in.
  const occurrence = new Uint32Array(total);
  let count = new Uint32Array(1024);
  let last = new Int32Array(1024);
  let k = 0;
  sorted.forEach((doc, docno) => {
    for (const term of doc.terms) {
      let t = ids.get(term);
      if (t === undefined) {
        t = terms.length;
        ids.set(term, t);
        terms.push(term);
        if (t === count.length) {
          count = grown(count);
          last = grown(last);
        }
        last[t] = -1;
      }
      if (last[t] === docno) {
        occurrence[k++] = SKIP;
        continue;
      }
      last[t] = docno;
      count[t]!++;
      occurrence[k++] = t;
    }
  });
  const start = new Uint32Array(terms.length + 1);
  for (let t = 0; t < terms.length; t++) start[t + 1] = start[t]! + count[t]!;
  const docnos = new Uint32Array(start[terms.length]!);
  const fill = start.slice(0, terms.length);
  k = 0;
  sorted.forEach((doc, docno) => {
    for (let j = 0; j < doc.terms.length; j++) {
      const t = occurrence[k++]!;
      if (t !== SKIP) docnos[fill[t]!++] = docno;
    }
  });
  return { terms, start, docnos };
}
const SKIP = 0xffffffff;
function grown<A extends Uint32Array | Int32Array>(a: A): A {
  const b = new (a.constructor as new (n: number) => A)(a.length * 2);
  b.set(a);
  return b;
}

/** The bucket of the terms `ids` of `lists`. */
function bucketOf(lists: Lists, ids: number[]): Bucket {
  const { terms, start, docnos } = lists;
  ids.sort((a, b) => (terms[a]! < terms[b]! ? -1 : terms[a]! > terms[b]! ? 1 : 0));
  const o = new Uint32Array(ids.length + 1);
  ids.forEach((t, j) => {
    o[j + 1] = o[j]! + start[t + 1]! - start[t]!;
  });
  const p = new Uint32Array(o[ids.length]!);
  ids.forEach((t, j) => {
    p.set(docnos.subarray(start[t]!, start[t + 1]!), o[j]!);
  });
  return { t: pack(ids.map((t) => terms[t]!)), o, p };
}

/** A doc chunk's document `j`. */
function docAt(chunk: DocChunk, j: number): Candidate {
  const [id, s, key] = JSON.parse(item(chunk.d, j)) as [string, string, Key];
  return { id, v: chunk.v[j]!, s, key };
}

/**
 * A segment of `docs` (any order; one entry per id) as its head and body records; or of a merge's docs, in key
 * order, with their terms' lists (`merged`, mergeSegments).
 */
export function buildSegment(
  id: number,
  docs: readonly PostingDoc[],
  merged?: Lists,
): { head: SegHead; body: Array<[IDBValidKey, unknown]> } {
  const sorted = merged ? docs : [...docs].sort((a, b) => compareKeys(a.key, b.key));
  const lists = merged ?? listsOf(sorted);
  const every = () => lists.terms.map((_, t) => t);
  const table = (from: number, to: number): DocChunk => {
    const part = sorted.slice(from, to);
    return { d: pack(part.map((d) => JSON.stringify([d.id, d.s, d.key]))), v: Uint32Array.from(part, (d) => d.v) };
  };
  const n = sorted.length;
  const u = sorted.some((d) => d.key.length === 0) ? ({ u: true } as const) : {};
  const r: NonNullable<SegHead['r']> = [];
  if (sorted.every((d) => d.key.length >= 2)) {
    sorted.forEach((d, docno) => {
      const prefix = d.key.slice(0, -2);
      const run = r[r.length - 1];
      if (run && compareKeys(run[0], prefix) === 0) {
        run[2] = docno + 1;
        run[4] = d.key.slice(-2);
      } else r.push([prefix, docno, docno + 1, d.key.slice(-2), d.key.slice(-2)]);
    });
  }
  const runs = r.length ? { r } : {};
  if (n < INLINE) return { head: { id, n, ...u, ...runs, d: table(0, n), t: bucketOf(lists, every()) }, body: [] };
  if (n < WHOLE)
    return {
      head: { id, n, ...u, ...runs, w: true },
      body: [[[id, 3], { d: table(0, n), t: bucketOf(lists, every()) }]],
    };
  const body: Array<[IDBValidKey, unknown]> = [];
  const dc: Key[] = [];
  for (let c = 0; c * DOC_CHUNK < n; c++) {
    const chunk = table(c * DOC_CHUNK, (c + 1) * DOC_CHUNK);
    dc.push(docAt(chunk, 0).key);
    body.push([[id, 0, c], chunk]);
  }
  const big: Record<string, number[]> = {};
  const small: number[] = [];
  let entries = 0;
  lists.terms.forEach((term, t) => {
    // (Its length from the offsets: a subarray per term, most of them on one post, would be garbage.)
    const count = lists.start[t + 1]! - lists.start[t]!;
    if (count <= BIG) {
      small.push(t);
      entries += count;
      return;
    }
    const list = lists.docnos.subarray(lists.start[t]!, lists.start[t + 1]!);
    big[term] = [];
    for (let c = 0; c * BIG < list.length; c++) {
      const part = list.slice(c * BIG, (c + 1) * BIG);
      big[term].push(part[0]!);
      body.push([[id, 2, term, c], part]);
    }
  });
  const b = Math.max(1, Math.ceil(entries / BUCKET_ENTRIES));
  const buckets = Array.from({ length: b }, (): number[] => []);
  for (const t of small) buckets[hash(lists.terms[t]!) % b]!.push(t);
  buckets.forEach((ids, j) => {
    body.push([[id, 1, j], bucketOf(lists, ids)]);
  });
  return { head: { id, n, ...u, ...runs, dc, b, big }, body };
}

/** Reads body records of one transaction (a get by key, a delete of a segment's bodies). */
export interface BodyReader {
  get(key: IDBValidKey): Promise<unknown>;
}

/** A term's docnos in a bucket (empty when it has none). */
function inBucket(bucket: Bucket | undefined, term: string): Uint32Array {
  if (!bucket) return new Uint32Array(0);
  let lo = 0;
  let hi = items(bucket.t);
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (item(bucket.t, mid) < term) lo = mid + 1;
    else hi = mid;
  }
  return lo < items(bucket.t) && item(bucket.t, lo) === term
    ? bucket.p.subarray(bucket.o[lo]!, bucket.o[lo + 1]!)
    : new Uint32Array(0);
}

/** One segment as a search reads it: doc chunks and term chunks loaded when first needed, once. */
export class Segment {
  private loads = new Map<string, Promise<unknown>>();
  constructor(
    readonly head: SegHead,
    private readonly read: BodyReader,
  ) {}

  /** The inline or one-record body of a small segment. */
  private whole(): Promise<{ d: DocChunk; t: Bucket }> | undefined {
    const { head } = this;
    if (head.d) return Promise.resolve({ d: head.d, t: head.t! });
    return head.w ? this.body<{ d: DocChunk; t: Bucket }>([head.id, 3]) : undefined;
  }

  private docChunk(c: number): Promise<DocChunk> {
    return this.whole()?.then((b) => b.d) ?? this.body<DocChunk>([this.head.id, 0, c]);
  }

  /**
   * The run of documents under `prefix` (when the head has runs and the prefix is one's): null when the segment
   * has none, undefined when the head cannot say (a run of another length shares the prefix's start). Runs may
   * differ in length: search documents and keyed indexes' entries share a segment.
   */
  run(prefix: Key): { from: number; to: number; first: Key; last: Key } | null | undefined {
    const runs = this.head.r;
    if (!runs) return undefined;
    let found: (typeof runs)[number] | undefined;
    for (const x of runs) {
      const w = Math.min(x[0].length, prefix.length);
      if (compareKeys(x[0].slice(0, w), prefix.slice(0, w)) !== 0) continue;
      if (x[0].length !== prefix.length) return undefined;
      found = x;
    }
    return found ? { from: found[1], to: found[2], first: found[3], last: found[4] } : null;
  }

  /**
   * Starts the reads a walk from `docno` needs: each term's postings there and the docno's doc chunk, so an
   * opened segment costs one round trip, not one for its postings and then one for its documents.
   */
  warm(terms: readonly string[], docno: number): void {
    const size = this.head.d || this.head.w ? this.head.n : DOC_CHUNK;
    const reads: Array<Promise<unknown>> = [
      this.docChunk(Math.floor(docno / size)),
      ...terms.map((t) => this.chunkAt(t, docno)),
    ];
    // A failed read fails the walk that awaits it; here it is only started.
    for (const r of reads) r.catch(() => {});
  }

  /** The id, version, scope and key of a docno. */
  async doc(docno: number): Promise<Candidate> {
    const size = this.head.d || this.head.w ? this.head.n : DOC_CHUNK;
    const chunk = await this.docChunk(Math.floor(docno / size));
    const j = docno % size;
    return { ...docAt(chunk, j), g: this.head.id };
  }

  /** Every document, in docno order (for merging). */
  async docs(): Promise<Candidate[]> {
    const size = this.head.d || this.head.w ? this.head.n : DOC_CHUNK;
    const chunks = await Promise.all(Array.from({ length: Math.ceil(this.head.n / size) }, (_, c) => this.docChunk(c)));
    return chunks.flatMap((chunk) => Array.from(chunk.v, (_, j) => ({ ...docAt(chunk, j), g: this.head.id })));
  }

  /** The first docno whose key is `past` (a predicate that turns true once, in key order). */
  async bound(past: (key: Key) => boolean): Promise<number> {
    const firsts = this.head.dc ?? [docAt(await this.docChunk(0), 0).key];
    // The last chunk whose first key is not past holds the answer (or it is where the next chunk starts).
    let c = 0;
    while (c + 1 < firsts.length && !past(firsts[c + 1]!)) c++;
    const chunk = await this.docChunk(c);
    let lo = 0;
    let hi = chunk.v.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (past(docAt(chunk, mid).key)) hi = mid;
      else lo = mid + 1;
    }
    return (this.head.dc ? c * DOC_CHUNK : 0) + lo;
  }

  /** How many docnos a term has here (big terms: an upper bound). */
  async size(term: string): Promise<number> {
    const big = this.head.big?.[term];
    if (big) return big.length * BIG;
    return (await this.small(term)).length;
  }

  /** A body record, read once per search. */
  body<T>(key: [number, number, ...Array<string | number>]): Promise<T> {
    const k = key.join('\0');
    let p = this.loads.get(k);
    if (!p) this.loads.set(k, (p = this.read.get(key)));
    return p as Promise<T>;
  }

  private async small(term: string): Promise<Uint32Array> {
    const whole = this.whole();
    if (whole) return inBucket((await whole).t, term);
    return inBucket(await this.body<Bucket>([this.head.id, 1, hash(term) % this.head.b!]), term);
  }

  /** The chunk of a term's docnos that holds `docno`'s place, with the docno its chunk starts at. */
  async chunkAt(term: string, docno: number): Promise<{ list: Uint32Array; index: number }> {
    const big = this.head.big?.[term];
    if (!big) return { list: await this.small(term), index: 0 };
    let c = 0;
    while (c + 1 < big.length && big[c + 1]! <= docno) c++;
    return { list: await this.body<Uint32Array>([this.head.id, 2, term, c]), index: c };
  }

  /** Whether `term` holds `docno`. */
  async has(term: string, docno: number): Promise<boolean> {
    const { list } = await this.chunkAt(term, docno);
    let lo = 0;
    let hi = list.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (list[mid]! < docno) lo = mid + 1;
      else hi = mid;
    }
    return list[lo] === docno;
  }

  /** A term's docnos in [from, to), walking `up` or down, a chunk at a time. */
  async *walk(term: string, from: number, to: number, up: boolean): AsyncGenerator<number> {
    const big = this.head.big?.[term];
    const chunks = big ? big.length : 1;
    let c = big ? (await this.chunkAt(term, up ? from : to - 1)).index : 0;
    for (; c >= 0 && c < chunks; c += up ? 1 : -1) {
      const list = big ? (await this.chunkAt(term, big[c]!)).list : await this.small(term);
      if (up) {
        for (const docno of list) {
          if (docno >= to) return;
          if (docno >= from) yield docno;
        }
      } else {
        for (let i = list.length - 1; i >= 0; i--) {
          const docno = list[i]!;
          if (docno < from) return;
          if (docno < to) yield docno;
        }
      }
    }
  }
}

/** A match a segment offers: an entry of the first index, with the version and scope its terms were written at. */
export interface Candidate {
  id: string;
  v: number;
  s: string;
  key: Key;
  /** The segment it was read from. */
  g?: number;
}

/**
 * What `~dead` says of an id (segments.ts): `v`, the version last written over (entries of that version or
 * older are gone), and `b`, the newest segment when the record was last deleted (its entries there or in older
 * segments belong to that earlier record, even where the id was written again, its versions counting anew).
 */
export interface Gone {
  v?: number | undefined;
  b?: number | undefined;
}

/** Whether an entry (its version, the segment it is in) is still its record's current one. */
export const current = (c: { v: number; g?: number | undefined }, gone: Gone | undefined) =>
  !gone || ((gone.v ?? 0) < c.v && (gone.b ?? 0) < (c.g ?? Number.POSITIVE_INFINITY));

/**
 * The matches of one segment under one prefix within the bounds, in index order (`up`) or reversed: the
 * rarest term's postings from the position, each checked against the other terms.
 */
export async function* segmentMatches(
  seg: Segment,
  terms: readonly string[],
  prefix: Key,
  bounds: { lower?: KeyBound | undefined; upper?: KeyBound | undefined },
  up: boolean,
): AsyncGenerator<Candidate> {
  const w = prefix.length;
  const side = (key: Key) => compareKeys(key.slice(0, w), prefix);
  const below = (suffix: Key, b: KeyBound) => {
    const c = compareKeys(suffix, b.key);
    return c < 0 || (c === 0 && !!b.open);
  };
  const above = (suffix: Key, b: KeyBound) => {
    const c = compareKeys(suffix, b.key);
    return c > 0 || (c === 0 && !!b.open);
  };
  // Docs are sorted by key: those under the prefix and within the bounds are one run [from, to), which the
  // head's runs give at once unless a bound cuts it.
  const run = seg.run(prefix);
  if (run === null) return;
  // Where the walk starts, when no bound moves it: its reads go out at once. Otherwise the terms' sizes are
  // read while the bounds are found.
  if (run && !(up ? bounds.lower : bounds.upper)) seg.warm(terms, up ? run.from : run.to - 1);
  const sizing = Promise.all(terms.map((t) => seg.size(t)));
  sizing.catch(() => {});
  const from =
    run && !bounds.lower
      ? run.from
      : await seg.bound((k) => side(k) > 0 || (side(k) === 0 && !(bounds.lower && below(k.slice(w), bounds.lower))));
  const to =
    run && !bounds.upper
      ? run.to
      : await seg.bound((k) => side(k) > 0 || (side(k) === 0 && !!bounds.upper && above(k.slice(w), bounds.upper)));
  if (from >= to) return;
  // No terms (an index kept as postings, key-postings.ts): every entry of the run.
  for (let i = 0; !terms.length && i < to - from; i++) yield await seg.doc(up ? from + i : to - 1 - i);
  const sizes = await sizing;
  if (!terms.length) return;
  const order = terms.map((t, i) => [t, sizes[i]!] as const).sort((a, b) => a[1] - b[1]);
  if (order[0]![1] === 0) return;
  const [rarest, ...others] = order.map(([t]) => t);
  for await (const docno of seg.walk(rarest!, from, to, up)) {
    let all = true;
    for (const t of others) if (!(all = await seg.has(t, docno))) break;
    if (!all) continue;
    yield await seg.doc(docno);
  }
}

/** Every doc of a segment (`docs`) and every term with its docnos (`terms`), for merging: the body read whole. */
async function readSegment(seg: Segment) {
  const { head } = seg;
  const terms: Array<[string, Uint32Array]> = [];
  const addBucket = (b: Bucket) => {
    for (let j = 0; j < items(b.t); j++) terms.push([item(b.t, j), b.p.subarray(b.o[j]!, b.o[j + 1]!)]);
  };
  const whole = head.d ? { t: head.t! } : head.w ? await seg.body<{ t: Bucket }>([head.id, 3]) : undefined;
  const docs = seg.docs();
  if (whole) addBucket(whole.t);
  else {
    for (const b of await Promise.all(Array.from({ length: head.b! }, (_, j) => seg.body<Bucket>([head.id, 1, j]))))
      addBucket(b);
    for (const [term, firsts] of Object.entries(head.big ?? {})) {
      for (const list of await Promise.all(firsts.map((_, c) => seg.body<Uint32Array>([head.id, 2, term, c]))))
        terms.push([term, list]);
    }
  }
  return { docs: await docs, terms };
}

/**
 * Segments merged: each id's entries of its newest version (one document, or one entry per key of an index kept
 * as postings), unless `dead` says it was replaced, in key order (`docs`, terms left out), and the terms'
 * postings carried over to the new docnos (`lists`, for buildSegment). No document's terms are listed again, so
 * a merge costs per term of each segment, not per term of each document.
 */
export async function mergeSegments(
  segs: readonly Segment[],
  dead: ReadonlyMap<string, Gone>,
): Promise<{ docs: PostingDoc[]; lists: Lists }> {
  const read = await Promise.all(segs.map(readSegment));
  // Kept entries by id, as [segment, docno]: first seen first, each in the order it was read.
  const best = new Map<string, Array<[number, number]>>();
  const docAt = (x: [number, number]) => read[x[0]]!.docs[x[1]]!;
  read.forEach(({ docs }, g) => {
    docs.forEach((d, docno) => {
      if (!current(d, dead.get(d.id))) return;
      const had = best.get(d.id);
      const v = had && docAt(had[0]!).v;
      if (v === undefined || v < d.v) best.set(d.id, [[g, docno]]);
      else if (v === d.v && !had!.some((x) => same(docAt(x), d))) had!.push([g, docno]);
    });
  });
  const kept = [...best.values()].flat().sort((a, b) => compareKeys(docAt(a).key, docAt(b).key));
  // Old docno → new, per segment (-1: dropped).
  const to = read.map(({ docs }) => new Int32Array(docs.length).fill(-1));
  kept.forEach(([g, docno], i) => {
    to[g]![docno] = i;
  });
  // Terms in two passes, as listsOf: the kept docnos per term, then the lists filled and put in order.
  const ids = new Map<string, number>();
  const terms: string[] = [];
  let count = new Uint32Array(1024);
  read.forEach(({ terms: lists }, g) => {
    for (const [term, list] of lists) {
      let t = ids.get(term);
      if (t === undefined) {
        ids.set(term, (t = terms.push(term) - 1));
        if (t === count.length) count = grown(count);
      }
      for (const docno of list) if (to[g]![docno]! >= 0) count[t]!++;
    }
  });
  // (A term only dropped documents held is left out.)
  const left = terms.filter((_, t) => count[t]! > 0);
  const start = new Uint32Array(left.length + 1);
  for (let t = 0, j = 0; t < terms.length; t++) if (count[t]) start[j + 1] = start[j++]! + count[t]!;
  const docnos = new Uint32Array(start[left.length]!);
  const fill = new Map(left.map((term, j) => [term, start[j]!]));
  read.forEach(({ terms: lists }, g) => {
    for (const [term, list] of lists) {
      let at = fill.get(term) ?? 0;
      for (const docno of list) if (to[g]![docno]! >= 0) docnos[at++] = to[g]![docno]!;
      if (fill.has(term)) fill.set(term, at);
    }
  });
  for (let j = 0; j < left.length; j++) docnos.subarray(start[j]!, start[j + 1]!).sort();
  return {
    docs: kept.map((x) => {
      const { id, v, s, key } = docAt(x);
      return { id, v, s, key, terms: [] };
    }),
    lists: { terms: left, start, docnos },
  };
}

/** Whether two documents are one: the same record's, of the same version, scope and key. */
const same = (a: Candidate | PostingDoc | undefined, b: Candidate | PostingDoc) =>
  !!a && a.id === b.id && a.v === b.v && a.s === b.s && compareKeys(a.key, b.key) === 0;

/** Sources opened together when none is open yet. */
const OPEN_AT_ONCE = 8;

/**
 * One ordered page of matches over every segment and prefix: the segments' walks merged by suffix (the key
 * after the prefix), each candidate kept only if `verify` says its version is the record's current one.
 * Candidates are verified a page's worth at a time, so the work follows the page, not the number of matches.
 */
export async function orderedMatches(
  segs: readonly Segment[],
  terms: readonly string[],
  prefixes: readonly Key[],
  bounds: { lower?: KeyBound | undefined; upper?: KeyBound | undefined },
  up: boolean,
  limit: number,
  verify: (batch: readonly Candidate[]) => Promise<boolean[]>,
): Promise<Candidate[]> {
  const w = prefixes[0]!.length;
  const sign = up ? 1 : -1;
  /** Whether suffix `a` comes before `b` in the walk (or equals it). */
  const first = (a: Key, b: Key) => sign * compareKeys(a, b) <= 0;
  // Each (segment, prefix) with the best suffix it could offer (from the head's runs; unknown: open at once).
  // A source is opened only when its best could come before the best candidate of those already open, so a
  // page of the newest posts reads the newest segment and leaves older ones unread.
  interface Source {
    edge?: Key;
    seg: Segment;
    prefix: Key;
    walk?: AsyncGenerator<Candidate>;
    next?: IteratorResult<Candidate>;
  }
  const closed: Source[] = [];
  for (const seg of segs) {
    for (const prefix of prefixes) {
      const run = seg.run(prefix);
      if (run === null) continue;
      let edge = run && (up ? run.first : run.last);
      const start = up ? bounds.lower : bounds.upper;
      const stop = up ? bounds.upper : bounds.lower;
      if (edge && stop && !first(edge, stop.key) && !first(up ? run!.last : run!.first, stop.key)) continue;
      if (edge && start && first(edge, start.key)) edge = start.key;
      closed.push({ ...(edge ? { edge } : {}), seg, prefix });
    }
  }
  closed.sort((a, b) => (a.edge ? (b.edge ? sign * compareKeys(a.edge, b.edge) : 1) : b.edge ? -1 : 0)).reverse();
  const open: Source[] = [];
  const take = async (): Promise<Candidate | undefined> => {
    for (;;) {
      let best: Source | undefined;
      for (const s of open)
        if (!s.next!.done && (!best || first(s.next!.value.key.slice(w), best.next!.value.key.slice(w)))) best = s;
      // Every source that could come first is opened, together (their reads go out at once); with nothing
      // open yet, the OPEN_AT_ONCE most promising.
      const opening: Source[] = [];
      for (let waiting = closed[closed.length - 1]; waiting; waiting = closed[closed.length - 1]) {
        const could = best
          ? !waiting.edge || first(waiting.edge, best.next!.value.key.slice(w))
          : opening.length < OPEN_AT_ONCE;
        if (!could) break;
        opening.push(closed.pop()!);
      }
      if (opening.length) {
        await Promise.all(
          opening.map(async (o) => {
            o.walk = segmentMatches(o.seg, terms, o.prefix, bounds, up);
            o.next = await o.walk.next();
          }),
        );
        open.push(...opening);
        continue;
      }
      if (!best) return undefined;
      const value = best.next!.value as Candidate;
      best.next = await best.walk!.next();
      return value;
    }
  };
  const out: Candidate[] = [];
  while (out.length < limit) {
    const batch: Candidate[] = [];
    while (batch.length < limit - out.length + 2) {
      const c = await take();
      if (!c) break;
      batch.push(c);
    }
    if (!batch.length) break;
    const ok = await verify(batch);
    // (A document added twice for one version, StorageDriver.addTerms, comes out twice in a row: kept once.)
    for (let i = 0; i < batch.length && out.length < limit; i++)
      if (ok[i] && !same(out[out.length - 1], batch[i]!)) out.push(batch[i]!);
  }
  for (const s of open) void s.walk!.return(undefined);
  return out;
}

/** Every match of a segment (any order): for searches on an index the postings do not follow. */
export async function allMatches(seg: Segment, terms: readonly string[]): Promise<Candidate[]> {
  const out: Candidate[] = [];
  const sizes = await Promise.all(terms.map((t) => seg.size(t)));
  const order = terms.map((t, i) => [t, sizes[i]!] as const).sort((a, b) => a[1] - b[1]);
  if (!order.length || order[0]![1] === 0) return out;
  const [rarest, ...others] = order.map(([t]) => t);
  for await (const docno of seg.walk(rarest!, 0, seg.head.n, true)) {
    let all = true;
    for (const t of others) if (!(all = await seg.has(t, docno))) break;
    if (all) out.push(await seg.doc(docno));
  }
  return out;
}
