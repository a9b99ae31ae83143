/** Opening the local store, and the first visit: a local user and their blog, both kept in IndexedDB. */
import { BlogError, createBlogService, type Blog, type BlogService } from 'blogcore';
import { idbDriver } from 'blogcore/idb';
import { isNotFound } from './errors.js';

/** The one person who writes here. A real host would use its signed-in user's id. */
export const OWNER_ID = 'owner';
const DATABASE = 'blogcore-editor';
/** Blogs need a public address; this one only shapes post URLs (`…/2026/11/slug.html`). */
const BLOG_URL = 'https://my-offline-blog.example/';

/**
 * The local-only blog's store, or (named) a replica's: then `apiBaseUrl` is the server's, so a picture added
 * here has the url it will have there.
 */
export async function openService(name = DATABASE, apiBaseUrl?: string): Promise<BlogService> {
  const service = createBlogService({ driver: idbDriver({ name }), ...(apiBaseUrl ? { apiBaseUrl } : {}) });
  await service.ready();
  return service;
}

/** The owner's blog, or null on a first visit. */
export async function findBlog(service: BlogService): Promise<Blog | null> {
  try {
    await service.users.get({ userId: OWNER_ID });
  } catch (e) {
    if (isNotFound(e)) return null;
    throw e;
  }
  const { items } = await service.blogs.listByUser({ userId: OWNER_ID });
  return items[0] ?? null;
}

export async function createBlog(
  service: BlogService,
  input: { displayName: string; name: string; description: string },
): Promise<Blog> {
  // The user may exist already if an earlier attempt stopped half way.
  try {
    await service.users.get({ userId: OWNER_ID });
  } catch (e) {
    if (!isNotFound(e)) throw e;
    await service.users.insert({ body: { id: OWNER_ID, displayName: input.displayName } });
  }
  let blog: Blog;
  try {
    blog = await service.blogs.insert({
      body: { name: input.name, url: BLOG_URL, description: input.description },
      ownerId: OWNER_ID,
    });
  } catch (e) {
    // Another tab of the editor created it a moment ago (its address is taken): open that one.
    const existing = BlogError.is(e) && e.code === 409 ? await findBlog(service) : null;
    if (!existing) throw e;
    blog = existing;
  }
  // Ask the browser not to evict this origin's storage under pressure: the blog lives only here.
  await navigator.storage?.persist?.().catch(() => false);
  return blog;
}
