/**
 * An incremental export: what the change feed says changed since the last run, and the files that follow from
 * it (the changed posts' and pages' own, and the stretches of the lists around their old and new places).
 */
import type { BlogService } from '../service/types.js';
import type { ChangeItem } from '../service/store.js';
import type { Comment, Page, Post } from '../schema/resources.js';
import { BlogError } from '../util/errors.js';
import { keyOf, listKey, listOfKey, updateList } from './export-lists.js';
import type { Output, PostWriter, SiteManifest } from './manifest.js';
import { renderPage, type SiteParts } from './render.js';
import { fileOf, type ListRef, monthOf, relative } from './routes.js';
import type { BlogScope } from './views.js';

export type ChangedItems = Awaited<ReturnType<typeof pull>>['items'];

/** The checkpoint now, and what changed since `since` (every page of the pull). */
export async function pull(reader: BlogService, blogId: string, since?: string) {
  const items: ChangeItem[] = [];
  let pageToken: string | undefined;
  for (;;) {
    const page = await reader.changes.list({
      blogId,
      maxResults: since === undefined ? 1 : 500,
      ...(since ? { since } : {}),
      ...(pageToken ? { pageToken } : {}),
    });
    if (since === undefined) return { checkpoint: page.checkpoint, items };
    items.push(...page.items);
    if (!page.nextPageToken) return { checkpoint: page.checkpoint, items };
    pageToken = page.nextPageToken;
  }
}

/** An incremental run: the changed posts' and pages' own files, then the stretches of the lists around them. */
export async function applyChanges(
  parts: SiteParts,
  scope: BlogScope,
  manifest: SiteManifest,
  items: ChangedItems,
  writer: PostWriter,
  out: Output,
) {
  const blogId = scope.blog.id;
  const posts = new Map<string, Post | null>();
  const touched = new Set<string>();
  let pagesChanged = false;
  // Media changes touch no file: posts and pages name their pictures' urls themselves.
  for (const item of items) {
    if (item.kind === 'blogger#post') posts.set(item.id, (item.resource as Post | undefined) ?? null);
    else if (item.kind === 'blogger#comment') {
      const postId = (item.resource as Comment | undefined)?.post.id ?? manifest.comments[item.id];
      if (!item.resource) delete manifest.comments[item.id];
      if (postId) touched.add(postId);
    } else if (item.kind === 'blogger#page') {
      pagesChanged = true;
      const old = manifest.pages[item.id];
      const page = item.resource as Page | undefined;
      const path = page?.url ? new URL(page.url).pathname.slice(scope.base.length - 1) : undefined;
      if (old && old !== path) out.forget(fileOf(relative(old)));
      if (path) {
        manifest.pages[item.id] = path;
        out.put(relative(path), (await renderPage(parts, scope, path)).body);
      } else delete manifest.pages[item.id];
    }
  }
  // Which list positions moved: old and new places of every changed post, per list.
  const dirty = new Map<string, Set<string>>();
  const mark = (list: ListRef, key: string) => {
    const k = listKey(list);
    if (!dirty.has(k)) dirty.set(k, new Set());
    dirty.get(k)!.add(key);
  };
  const times: string[] = [];
  const place = (key: string, labels: readonly string[], published: string) => {
    times.push(published);
    mark({ kind: 'home' }, key);
    mark(monthOf(published), key);
    for (const label of labels) mark({ kind: 'label', label }, key);
  };
  for (const [id, post] of posts) {
    const old = manifest.posts[id];
    if (old) place(old.key, old.labels, old.key.split('|')[0]!);
    if (post?.url) {
      place(keyOf(post), post.labels ?? [], post.published ?? post.updated);
      await writer.render(post);
    } else writer.remove(id);
  }
  for (const id of touched) {
    if (posts.has(id)) continue;
    const post = await parts.reader.posts.get({ blogId, postId: id }).catch((e: unknown) => {
      if (BlogError.is(e) && e.code === 404) return undefined;
      throw e;
    });
    if (post?.url) await writer.render(post);
  }
  if (pagesChanged) dirty.set('home', dirty.get('home') ?? new Set());
  for (const [key, keys] of dirty) {
    const old = manifest.lists[key];
    const chain = await updateList(parts, scope, listOfKey(key), old, [...keys], key === 'home' && pagesChanged, {
      write: out.put,
    });
    for (const c of old ?? []) if (!chain.some((n) => n.file === c.file)) out.forget(c.file);
    if (chain.length) manifest.lists[key] = chain;
    else delete manifest.lists[key];
  }
  return { times, pages: pagesChanged };
}
