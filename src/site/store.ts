/**
 * The few reads the site needs that the public service has no call for: the blog's record (its cached name,
 * url and locale, without the post counts `blogs.get` computes), a page's id by its path (then read through
 * `pages.get`, so the service's visibility rules decide), and counts of LIVE posts in a time range (for the
 * sitemap index). All through the service's own core (src/service/internals.ts).
 */
import type { BlogService } from '../service/types.js';
import { internalsOf } from '../service/internals.js';
import { redirectOf, redirectsAfter } from '../service/redirects.js';
import type { Blog } from '../schema/resources.js';
import { picturesOf, type PictureFacts } from '../web/pictures.js';
import { variant } from '../media/variants.js';
import { BlogError } from '../util/errors.js';

export type BlogInfo = Pick<Blog, 'id' | 'name' | 'description' | 'url' | 'locale'>;

export interface SiteStore {
  blog(blogId: string): Promise<BlogInfo>;
  pageIdByPath(blogId: string, path: string): Promise<string | undefined>;
  /** LIVE posts published in [start, end) (either open). */
  countPosts(blogId: string, start?: string, end?: string): Promise<number>;
  countPages(blogId: string): Promise<number>;
  /** Where an old path and query of the blog leads (its stored redirect), if anywhere. */
  redirect(blogId: string, pathAndQuery: string): Promise<string | undefined>;
  /** The blog's redirects, `after` the last `from` of the previous page, `limit` at a time (for the export). */
  redirects(blogId: string, after: string | undefined, limit: number): Promise<Array<{ from: string; to: string }>>;
  /** The facts of the blog's pictures `html` names (size, variants' widths). */
  pictures(blogId: string, html: string): Promise<Map<string, PictureFacts>>;
  /**
   * The bytes of a picture's variant (src/media/variants.ts), made now if need be, waiting for a turn while the
   * process makes others; undefined for one not offered.
   */
  variant(blogId: string, sha: string, width: number, ext: string): Promise<Uint8Array | undefined>;
}

export function storeOf(service: BlogService): SiteStore {
  const inner = internalsOf(service);
  if (!inner) throw new TypeError('createSite needs a service made by createBlogService');
  const { core } = inner;
  return {
    async blog(blogId) {
      const b = await core.blog(blogId);
      return { id: b.id, name: b.name, description: b.description, url: b.url, locale: b.locale };
    },
    async redirect(blogId, pathAndQuery) {
      await core.ready();
      return redirectOf(core, blogId, pathAndQuery);
    },
    async redirects(blogId, after, limit) {
      await core.ready();
      return redirectsAfter(core, blogId, after, limit);
    },
    async pageIdByPath(blogId, path) {
      await core.ready();
      return (await core.driver.getByIndex('pages', 'path', [blogId, path]))?.id;
    },
    async countPosts(blogId, start, end) {
      await core.ready();
      return core.driver.count({
        collection: 'posts',
        index: 'published',
        prefix: [blogId, 'LIVE'],
        ...(start ? { lower: { key: [start] } } : {}),
        ...(end ? { upper: { key: [end], open: true } } : {}),
      });
    },
    async pictures(blogId, html) {
      await core.ready();
      return picturesOf(core, blogId, html);
    },
    async variant(blogId, sha, width, ext) {
      await core.ready();
      for (;;) {
        try {
          return (await variant(core, blogId, sha, width, ext)).bytes;
        } catch (e) {
          if (!BlogError.is(e) || (e.code !== 404 && e.code !== 503)) throw e;
          if (e.code === 404) return undefined;
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      }
    },
    async countPages(blogId) {
      await core.ready();
      return core.driver.count({ collection: 'pages', index: 'published', prefix: [blogId, 'LIVE'] });
    },
  };
}
