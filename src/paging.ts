/**
 * Lists and searches: keyset pages over one or more index prefixes, merged in the core, with opaque
 * page tokens bound to the query that made them. Every index used here ends with [sortTime, id], the
 * "suffix" a position is made of, so a page never depends on an offset and stays stable under writes.
 */
import { compareKeys, type IndexedDoc, type Key, type KeyBound, type StorageDriver } from './driver.js';
import { invalid } from './errors.js';
import { listEtag } from './wire.js';

export interface PageQuery {
  collection: string;
  index: string;
  /** One walk per prefix (e.g. one per status, or per label and status); results are merged. */
  prefixes: Key[];
  direction: 'asc' | 'desc';
  /** Inclusive lower bound on the sort time. */
  start?: string;
  /** Exclusive upper bound on the sort time. */
  end?: string;
  /** Search instead of walking: candidates come from the token index of the scope. */
  search?: { scope: string; tokens: string[] };
  /** Drops hits the index cannot rule out (phrases, comments of hidden posts); pages stay full. */
  filter?: (hits: IndexedDoc[]) => IndexedDoc[] | Promise<IndexedDoc[]>;
  /** Everything the page token is bound to (filters, order, q, post): a token from another query is refused. */
  fingerprint: string;
}

export interface Page {
  items: IndexedDoc[];
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

function encodeToken(c: Cursor): string {
  const bytes = enc.encode(JSON.stringify([c.d, c.k[0], c.k[1], c.i ? 1 : 0, c.f]));
  let bin = '';
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function decodeToken(token: string, fingerprint: string): Cursor {
  const bad = invalid('pageToken', 'Invalid page token: use a nextPageToken or prevPageToken exactly as it was returned');
  let parsed: unknown;
  try {
    const bin = atob(token.replace(/-/g, '+').replace(/_/g, '/'));
    parsed = JSON.parse(dec.decode(Uint8Array.from(bin, (ch) => ch.charCodeAt(0)), { stream: false }));
  } catch {
    throw bad;
  }
  if (!Array.isArray(parsed) || parsed.length !== 5) throw bad;
  const [d, t, id, i, f] = parsed as unknown[];
  if ((d !== 'n' && d !== 'p') || typeof t !== 'string' || typeof id !== 'string' || (i !== 0 && i !== 1) || typeof f !== 'string') throw bad;
  if (f !== fingerprint) {
    throw invalid('pageToken', 'This page token belongs to another query: keep the same filters, order and search words across pages');
  }
  return { d, k: [t, id], i: i === 1, f };
}

const tighterLower = (a: KeyBound | undefined, b: KeyBound | undefined): KeyBound | undefined => {
  if (!a || !b) return a ?? b;
  const c = compareKeys(a.key, b.key);
  return c > 0 ? a : c < 0 ? b : { key: a.key, open: !!(a.open || b.open) };
};
const tighterUpper = (a: KeyBound | undefined, b: KeyBound | undefined): KeyBound | undefined => {
  if (!a || !b) return a ?? b;
  const c = compareKeys(a.key, b.key);
  return c < 0 ? a : c > 0 ? b : { key: a.key, open: !!(a.open || b.open) };
};

/** The suffix [sortTime, id] of a hit, whatever the length of the prefix that found it. */
const suffixOf = (key: Key): Key => key.slice(key.length - 2);

interface Position {
  k: Key;
  i: boolean;
}

/** Up to `n` items after the position (none: from the start), walking in `dir`, merged over all prefixes. */
async function fetchItems(driver: StorageDriver, q: PageQuery, dir: 'asc' | 'desc', from: Position | undefined, n: number): Promise<IndexedDoc[]> {
  const order = (a: IndexedDoc, b: IndexedDoc) => {
    const c = compareKeys(suffixOf(a.key), suffixOf(b.key));
    return dir === 'asc' ? c : -c;
  };
  // Several walks can hold the same record (a post under two matching labels): drop the repeats.
  const dedupe = (hits: IndexedDoc[]) => hits.filter((h, i) => i === 0 || h.id !== hits[i - 1]!.id);
  const range = (after: Position | undefined) => {
    let lower: KeyBound | undefined = q.start !== undefined ? { key: [q.start] } : undefined;
    let upper: KeyBound | undefined = q.end !== undefined ? { key: [q.end], open: true } : undefined;
    if (after) {
      const bound = { key: after.k, open: !after.i };
      if (dir === 'asc') lower = tighterLower(lower, bound);
      else upper = tighterUpper(upper, bound);
    }
    return { ...(lower && { lower }), ...(upper && { upper }) };
  };

  const out: IndexedDoc[] = [];
  if (!q.search) {
    let pos = from;
    for (;;) {
      const bounds = range(pos);
      const walks = await Promise.all(
        q.prefixes.map((prefix) => driver.list({ collection: q.collection, index: q.index, prefix, ...bounds, direction: dir, limit: n })),
      );
      // One walk is already in order; several (statuses, labels) are merged.
      const hits = walks.length === 1 ? walks[0]! : dedupe(walks.flat().sort(order)).slice(0, n);
      out.push(...(q.filter ? await q.filter(hits) : hits));
      if (!q.filter || hits.length < n || out.length >= n) return out.slice(0, n);
      pos = { k: suffixOf(hits[hits.length - 1]!.key), i: false };
    }
  }

  const bounds = range(from);
  const entries = await driver.search({ collection: q.collection, scope: q.search.scope, tokens: q.search.tokens, index: q.index });
  // A common word matches thousands of posts: test and order each candidate by its [time, id] suffix,
  // worked out once per candidate rather than inside every comparison.
  const width = q.prefixes[0]?.length ?? 0;
  const prefixes = new Set(q.prefixes.map((p) => p.join('\u0000')));
  const candidates: Array<{ id: string; key: Key; t: string; i: string }> = [];
  for (const e of entries) {
    if (e.key.length !== width + 2 || !prefixes.has(e.key.slice(0, width).join('\u0000'))) continue;
    const suffix = [e.key[width]!, e.key[width + 1]!];
    if (bounds.lower) {
      const c = compareKeys(suffix, bounds.lower.key);
      if (c < 0 || (c === 0 && bounds.lower.open)) continue;
    }
    if (bounds.upper) {
      const c = compareKeys(suffix, bounds.upper.key);
      if (c > 0 || (c === 0 && bounds.upper.open)) continue;
    }
    candidates.push({ id: e.id, key: e.key, t: suffix[0]!, i: suffix[1]! });
  }
  const sign = dir === 'asc' ? 1 : -1;
  candidates.sort((a, b) => sign * (a.t < b.t ? -1 : a.t > b.t ? 1 : a.i < b.i ? -1 : a.i > b.i ? 1 : 0));
  const sorted = candidates.filter((c, k) => k === 0 || c.id !== candidates[k - 1]!.id);
  // Fetch documents in chunks, only as far as the page needs.
  const chunkSize = Math.max(n, 32);
  for (let i = 0; i < sorted.length && out.length < n; i += chunkSize) {
    const chunk = sorted.slice(i, i + chunkSize);
    const docs = await driver.getMany(q.collection, chunk.map((c) => c.id));
    const hits = chunk.flatMap((c, j) => (docs[j] ? [{ id: c.id, key: c.key, version: docs[j]!.version, doc: docs[j]!.doc }] : []));
    out.push(...(q.filter ? await q.filter(hits) : hits));
  }
  return out.slice(0, n);
}

/** One page of a list or search, with tokens for the pages after and before it. */
export async function page(driver: StorageDriver, q: PageQuery, limit: number, pageToken: string | undefined): Promise<Page> {
  const cursor = pageToken === undefined ? undefined : decodeToken(pageToken, q.fingerprint);
  const token = (d: 'n' | 'p', k: Key, i = false) => encodeToken({ d, k: [k[0]!, k[1]!], i, f: q.fingerprint });
  const reverse = q.direction === 'asc' ? 'desc' : 'asc';

  if (cursor?.d === 'p') {
    const before = await fetchItems(driver, q, reverse, cursor, limit + 1);
    const items = before.slice(0, limit).reverse();
    const first = items[0];
    const last = items[items.length - 1];
    return {
      items,
      ...(before.length > limit && first ? { prevPageToken: token('p', suffixOf(first.key)) } : {}),
      nextPageToken: last ? token('n', suffixOf(last.key)) : token('n', cursor.k, !cursor.i),
    };
  }

  const found = await fetchItems(driver, q, q.direction, cursor, limit + 1);
  const items = found.slice(0, limit);
  const first = items[0];
  const last = items[items.length - 1];
  return {
    items,
    ...(found.length > limit && last ? { nextPageToken: token('n', suffixOf(last.key)) } : {}),
    // A page reached through a token has a page before it (the one the token came from).
    ...(cursor ? { prevPageToken: first ? token('p', suffixOf(first.key)) : token('p', cursor.k, !cursor.i) } : {}),
  };
}

/** A list resource: its items, the tokens that exist, and an etag over what it shows. */
export function listOf<K extends string, T>(kind: K, items: T[], pg: Page, etagParts: string[]) {
  return {
    kind,
    items,
    ...(pg.nextPageToken ? { nextPageToken: pg.nextPageToken } : {}),
    ...(pg.prevPageToken ? { prevPageToken: pg.prevPageToken } : {}),
    etag: listEtag([...etagParts, pg.nextPageToken ?? '']),
  };
}
