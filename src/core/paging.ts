/**
 * Lists and searches: keyset pages over one or more index prefixes, with opaque page tokens bound to the
 * query that made them. Every index used here ends with [sortTime, id], the "suffix" a position is made of,
 * so a page never depends on an offset and stays stable under writes.
 *
 * Bounded work (docs/design.md §10): one page reads at most `limit + 1` index entries and as many documents per
 * round — one `list` for a single prefix, else `keys` or `search` (the driver merges prefixes and orders
 * matches) then `getMany` of the page only (of the entries `keys` did not bring their documents with). A filter (phrases; comments of a post whose visibility is
 * still being moved) gets at most FILTER_ROUNDS rounds; when they run out the page is short and its
 * token goes on from the last record read.
 */
import { compareKeys, type IndexedDoc, type Key, type KeyBound } from '../store/driver.js';
import type { RecordStore } from '../store/record-store.js';
import type { Collection, Records } from '../store/records.js';
import type { IndexName } from '../store/schema.js';
import { invalid } from '../util/errors.js';
import { listEtag } from './wire.js';

/** Rounds of `limit + 1` records a filtered page may read before it answers short. */
export const FILTER_ROUNDS = 4;

export interface PageQuery<C extends Collection> {
  collection: C;
  index: IndexName<C>;
  /** The index prefixes to merge (e.g. one per status, or per label and status), all of one length. */
  prefixes: Key[];
  direction: 'asc' | 'desc';
  /** Inclusive lower bound on the sort time. */
  start?: string;
  /** Exclusive upper bound on the sort time. */
  end?: string;
  /** Search instead of walking: only records of the scope holding every token. */
  search?: { scope: string; tokens: string[]; rankOf?: (suffix: Key) => number };
  /** Drops hits the index cannot rule out; see FILTER_ROUNDS. */
  filter?: (
    hits: Array<IndexedDoc<Records[C]>>,
  ) => Array<IndexedDoc<Records[C]>> | Promise<Array<IndexedDoc<Records[C]>>>;
  /** Everything the page token is bound to (filters, order, q, post): a token from another query is refused. */
  fingerprint: string;
}

/** Where a page's documents come from once its entries are known: the driver's `getMany`, or the core's `docs` (kept between calls). */
export type DocReader = RecordStore['getMany'];

export interface Page<T> {
  items: Array<IndexedDoc<T>>;
  nextPageToken?: string;
  prevPageToken?: string;
}

/** A position between items: after (or at, with `inclusive`) the suffix, in the direction of travel. */
interface Cursor {
  /** 'n': the page after the position; 'p': the page before it. */
  d: 'n' | 'p';
  k: [string, string];
  i: boolean;
  f: string;
}

const enc = new TextEncoder();
const dec = new TextDecoder();

/** A JSON value as an opaque URL-safe token (page tokens, sync checkpoints). */
export function encodeJson(value: unknown): string {
  let bin = '';
  for (const b of enc.encode(JSON.stringify(value))) bin += String.fromCharCode(b);
  return btoa(bin).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** The value of an `encodeJson` token; undefined when the text is not one. */
export function decodeJson(token: string): unknown {
  try {
    const bin = atob(token.replace(/-/g, '+').replace(/_/g, '/'));
    return JSON.parse(dec.decode(Uint8Array.from(bin, (ch) => ch.charCodeAt(0))));
  } catch {
    return undefined;
  }
}

const encodeToken = (c: Cursor): string => encodeJson([c.d, c.k[0], c.k[1], c.i ? 1 : 0, c.f]);

function decodeToken(token: string, fingerprint: string): Cursor {
  const parsed = decodeJson(token);
  const [d, t, id, i, f] = Array.isArray(parsed) && parsed.length === 5 ? (parsed as unknown[]) : [];
  // (The error is made only when it is thrown: a BlogError takes a stack trace, 5–10 µs, and a deep page passes here.)
  if (
    (d !== 'n' && d !== 'p') ||
    typeof t !== 'string' ||
    typeof id !== 'string' ||
    (i !== 0 && i !== 1) ||
    typeof f !== 'string'
  )
    throw invalid('pageToken', 'Invalid page token: use a nextPageToken or prevPageToken exactly as it was returned');
  if (f !== fingerprint) {
    throw invalid(
      'pageToken',
      'This page token belongs to another query: keep the same filters, order and search words across pages',
    );
  }
  return { d, k: [t, id], i: i === 1, f };
}

/** Throws the 400 `page()` would for a token that is not one of this query's, before a caller writes anything. */
export function checkPageToken(token: string, fingerprint: string): void {
  decodeToken(token, fingerprint);
}

/** The tighter of two bounds: the higher lower bound (`sign` 1) or the lower upper bound (`sign` -1). */
const tighter = (sign: number, a: KeyBound | undefined, b: KeyBound | undefined): KeyBound | undefined => {
  if (!a || !b) return a ?? b;
  const c = sign * compareKeys(a.key, b.key);
  return c > 0 ? a : c < 0 ? b : { key: a.key, open: !!(a.open || b.open) };
};

/** The suffix [sortTime, id] of a hit, whatever the length of the prefix that found it. */
const suffixOf = (key: Key): Key => key.slice(key.length - 2);

interface Position {
  k: Key;
  i: boolean;
}

/**
 * Up to `n` items after the position (none: from the start), walking in `dir`, merged over all prefixes;
 * `stop` is where a filtered walk ran out of rounds before finding `n` (the next page goes on from there).
 */
async function fetchItems<C extends Collection>(
  driver: RecordStore,
  getMany: DocReader,
  q: PageQuery<C>,
  dir: 'asc' | 'desc',
  from: Position | undefined,
  n: number,
): Promise<{ items: Array<IndexedDoc<Records[C]>>; stop?: Key }> {
  const range = (after: Position | undefined) => {
    let lower: KeyBound | undefined = q.start !== undefined ? { key: [q.start] } : undefined;
    let upper: KeyBound | undefined = q.end !== undefined ? { key: [q.end], open: true } : undefined;
    if (after) {
      const bound = { key: after.k, open: !after.i };
      if (dir === 'asc') lower = tighter(1, lower, bound);
      else upper = tighter(-1, upper, bound);
    }
    return { ...(lower && { lower }), ...(upper && { upper }) };
  };

  const out: Array<IndexedDoc<Records[C]>> = [];
  let pos = from;
  const rounds = q.filter ? FILTER_ROUNDS : 1;
  for (let round = 0; round < rounds; round++) {
    const bounds = range(pos);
    let hits: Array<IndexedDoc<Records[C]>>;
    let walked: number;
    let lastKey: Key | undefined;
    if (!q.search && q.prefixes.length === 1) {
      hits = await driver.list({
        collection: q.collection,
        index: q.index,
        prefix: q.prefixes[0]!,
        ...bounds,
        direction: dir,
        limit: n,
      });
      walked = hits.length;
      lastKey = hits[hits.length - 1]?.key;
    } else {
      const walk = {
        collection: q.collection,
        index: q.index,
        prefixes: q.prefixes,
        ...bounds,
        direction: dir,
        limit: n,
      };
      const entries = q.search
        ? await driver.search({ ...walk, ...q.search })
        : await driver.keys({ ...walk, docs: true });
      // Documents the walk brought (read with their entries) are used as they are; the rest are read now.
      const rest = entries.filter((e) => e.doc === undefined).map((e) => e.id);
      const read = rest.length ? await getMany(q.collection, rest) : [];
      let next = 0;
      // A record deleted between the two calls is left out.
      hits = entries.flatMap((e) => {
        const d = e.doc !== undefined ? { version: e.version!, doc: e.doc } : read[next++];
        return d ? [{ id: e.id, key: e.key, version: d.version, doc: d.doc as Records[C] }] : [];
      });
      walked = entries.length;
      lastKey = entries[entries.length - 1]?.key;
    }
    out.push(...(q.filter ? await q.filter(hits) : hits));
    if (walked < n || out.length >= n || !lastKey) return { items: out.slice(0, n) };
    pos = { k: suffixOf(lastKey), i: false };
  }
  return { items: out, stop: pos!.k };
}

/** One page of a list or search, with tokens for the pages after and before it. */
export async function page<C extends Collection>(
  driver: RecordStore,
  q: PageQuery<C>,
  limit: number,
  pageToken: string | undefined,
  getMany: DocReader = (collection, ids) => driver.getMany(collection, ids),
): Promise<Page<Records[C]>> {
  const cursor = pageToken === undefined ? undefined : decodeToken(pageToken, q.fingerprint);
  const token = (d: 'n' | 'p', k: Key, i = false) => encodeToken({ d, k: [k[0]!, k[1]!], i, f: q.fingerprint });
  // A 'p' token walks back from its position: the same walk in the other direction, its page reversed.
  // `ahead` is the way the walk goes ('n' or 'p'), `behind` the way back to where the token came from.
  const back = cursor?.d === 'p';
  const [ahead, behind] = back ? (['p', 'n'] as const) : (['n', 'p'] as const);
  const dir = back === (q.direction === 'asc') ? 'desc' : 'asc';
  const { items: found, stop } = await fetchItems(driver, getMany, q, dir, cursor, limit + 1);
  const walked = found.slice(0, limit);
  const far = walked[walked.length - 1];
  const near = walked[0];
  const tokens = {
    [ahead]: found.length > limit && far ? token(ahead, suffixOf(far.key)) : stop && token(ahead, stop),
    // A page reached through a token has a page the other way (the one the token came from).
    [behind]: cursor && (near ? token(behind, suffixOf(near.key)) : token(behind, cursor.k, !cursor.i)),
  };
  return {
    items: back ? walked.reverse() : walked,
    ...(tokens.n ? { nextPageToken: tokens.n } : {}),
    ...(tokens.p ? { prevPageToken: tokens.p } : {}),
  };
}

/** A list resource: its items, the tokens that exist, and an etag over what it shows. */
export function listOf<K extends string, T>(kind: K, items: T[], pg: Page<unknown>, etagParts: string[]) {
  return {
    kind,
    items,
    ...(pg.nextPageToken ? { nextPageToken: pg.nextPageToken } : {}),
    ...(pg.prevPageToken ? { prevPageToken: pg.prevPageToken } : {}),
    etag: listEtag([...etagParts, pg.nextPageToken ?? '']),
  };
}
