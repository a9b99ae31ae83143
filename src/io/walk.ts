/** Export reads: a blog's records in index order, in batches, so memory stays at one batch whatever the blog's size. */
import type {
  Core,
  Key,
  StoredDoc,
  BlogRecord,
  Collection,
  CommentRecord,
  PageRecord,
  PostRecord,
  Records,
  UserRecord,
  IndexName,
} from '../service/store.js';
import { PAGE_STATUSES, POST_STATUSES } from '../schema/schemas.js';

const BATCH = 200;

export async function* walk<C extends Collection>(
  core: Core,
  collection: C,
  index: IndexName<C>,
  prefix: Key,
): AsyncGenerator<Records[C]> {
  await core.ready();
  let after: Key | undefined;
  for (;;) {
    const batch = await core.driver.list({
      collection,
      index,
      prefix,
      ...(after ? { lower: { key: after, open: true } } : {}),
      direction: 'asc',
      limit: BATCH,
    });
    for (const hit of batch) yield hit.doc;
    if (batch.length < BATCH) return;
    after = batch[batch.length - 1]!.key.slice(prefix.length);
  }
}

export const members = (core: Core, blogId: string) => walk(core, 'members', 'blog', [blogId]);

/** Every post of the blog, oldest first within each state. */
export async function* posts(core: Core, blogId: string): AsyncGenerator<PostRecord> {
  for (const status of POST_STATUSES) yield* walk(core, 'posts', 'published', [blogId, status]);
}

export async function* pages(core: Core, blogId: string): AsyncGenerator<PageRecord> {
  for (const status of PAGE_STATUSES) yield* walk(core, 'pages', 'published', [blogId, status]);
}

/** Every picture of the blog, oldest first. */
export const media = (core: Core, blogId: string) => walk(core, 'media', 'blog', [blogId]);

/** Every comment of a post in every state, oldest first (parents before their replies). */
export async function* commentsOf(core: Core, post: PostRecord): AsyncGenerator<CommentRecord> {
  const all: CommentRecord[] = [];
  // Each status is its own index range: merge them by time so a thread reads in order.
  for await (const c of walk(core, 'comments', 'post', [post.blogId, post.id])) all.push(c);
  all.sort((a, b) => (a.published < b.published ? -1 : a.published > b.published ? 1 : a.id < b.id ? -1 : 1));
  yield* all;
}

/** Looks users up once each. */
export function userCache(core: Core) {
  const seen = new Map<string, UserRecord | undefined>();
  return async (id: string): Promise<UserRecord | undefined> => {
    if (!seen.has(id)) seen.set(id, (await core.get('users', id))?.doc);
    return seen.get(id);
  };
}

export async function blogOf(core: Core, blogId: string): Promise<BlogRecord> {
  await core.promoteDue(true);
  return core.blog(blogId);
}

export type { StoredDoc };
