/**
 * The static export's lists (home, labels, months): each is kept as the chain of its pages (chunks.ts), with
 * the first and last post of each, so a later run re-reads only the stretch around the posts that changed and
 * stops where the new pages meet the old ones again (the same token: the same page from there on).
 */
import type { Post } from '../schema/resources.js';
import { type Chunk, readChunk } from './chunks.js';
import { listSource, renderList, type SiteParts } from './render.js';
import { fileOf, type ListRef, listPath } from './routes.js';
import type { BlogScope } from './views.js';

/** A list page as the manifest keeps it: its token (null: the first page), its file, its first and last post keys. */
export interface ChunkState {
  token: string | null;
  file: string;
  first: string;
  last: string;
}

/** A post's place in every list: its published time and id (the lists' order, newest first). */
export const keyOf = (p: Post) => `${p.published ?? p.updated}|${p.id}`;

export const listKey = (list: ListRef) =>
  list.kind === 'home'
    ? 'home'
    : list.kind === 'label'
      ? `label:${list.label}`
      : `month:${list.year}-${String(list.month).padStart(2, '0')}`;

export function listOfKey(key: string): ListRef {
  if (key === 'home') return { kind: 'home' };
  if (key.startsWith('label:')) return { kind: 'label', label: key.slice(6) };
  const [y, m] = key.slice(6).split('-');
  return { kind: 'month', year: Number(y), month: Number(m) };
}

/** Where written pages go; `posts` sees every post a page shows (the full walk renders their own pages from it). */
export interface ListSink {
  /** A list page at its path relative to the blog (`Output.put`). */
  write(rel: string, text: string): void;
  posts?(posts: readonly Post[]): Promise<void>;
}

/** The old page that holds (or would hold) a post of key `k`: the first whose last post is not newer. */
function chunkIndexOf(chain: readonly ChunkState[], k: string): number {
  const i = chain.findIndex((c) => k >= c.last);
  return i < 0 ? chain.length - 1 : i;
}

/**
 * Writes the pages of a list that may have changed and answers its new chain. `old` is the chain of the last
 * run (none: walk the whole list); `keys` are the positions (old and new) of the posts that changed; `forceFirst`
 * re-renders the first page even if no post of it changed (the home page lists the blog's pages).
 */
export async function updateList(
  parts: SiteParts,
  scope: BlogScope,
  list: ListRef,
  old: readonly ChunkState[] | undefined,
  keys: readonly string[],
  forceFirst: boolean,
  sink: ListSink,
): Promise<ChunkState[]> {
  const source = listSource(parts.reader, scope.blog.id, list);
  const chain = old ?? [];
  const starts = new Set(old ? keys.map((k) => chunkIndexOf(chain, k)) : [0]);
  if (forceFirst || chain.length === 0) starts.add(0);
  const out: ChunkState[] = [];
  let i = 0;
  while (i < Math.max(chain.length, 1)) {
    if (chain.length > 0 && !starts.has(i)) {
      out.push(chain[i]!);
      i++;
      continue;
    }
    // Re-read from this page's start until a page ends where an old page began.
    let token = chain[i]?.token ?? undefined;
    let carry: Post[] = [];
    let carryNext: string | undefined;
    for (;;) {
      const chunk: Chunk = await readChunk(source, token, parts.pageSize, carry, carryNext);
      if (chunk.items.length === 0 && (token !== undefined || list.kind !== 'home')) {
        i = chain.length;
        break;
      }
      const rel = listPath(list, token);
      const file = fileOf(rel);
      const rendered = await renderList(parts, scope, list, token, chunk);
      sink.write(rel, rendered.body);
      await sink.posts?.(chunk.items);
      const first = chunk.items[0];
      const last = chunk.items[chunk.items.length - 1];
      out.push({
        token: token ?? null,
        file: file ?? '',
        first: first ? keyOf(first) : '',
        last: last ? keyOf(last) : '',
      });
      if (!chunk.next) {
        i = chain.length;
        break;
      }
      const j = chain.findIndex((c, n) => n > i && c.token === chunk.next);
      if (j > i) {
        i = j;
        break;
      }
      token = chunk.next;
      carry = chunk.rest;
      carryNext = chunk.restNext;
    }
    if (chain.length === 0) break;
  }
  return out;
}
