import type { StoreSchema } from './driver.js';
import type { Collection } from './records.js';

/**
 * The collections and indexes blogcore asks every driver to keep. The keys themselves are computed in
 * `records.ts`; every key ends with the record id so ties break by id and keys are unique.
 *
 * posts.published       [blogId, status, sortTime, id]          lists by publish time (sortTime: published, else updated)
 * posts.updated         [blogId, status, updated, id]           lists by update time
 * posts.labelPublished  [blogId, label, status, sortTime, id]   label filters (one entry per label)
 * posts.labelUpdated    [blogId, label, status, updated, id]
 * posts.path            [blogId, path]  unique                  getByPath, url collisions
 * posts.due             [published, id]                         SCHEDULED posts only: what must go LIVE
 * posts.moving          [id]                                    posts whose comments are being refiled (comment-visibility.ts)
 * pages.published       [blogId, status, sortTime, id]
 * pages.path            [blogId, path]  unique
 * comments.post         [blogId, postId, status, published, id]
 * comments.blog         [blogId, vis, status, published, id]    blog-wide lists; vis = the post's visibility class,
 *                                                               so a reader's walk never meets hidden comments
 * comments.move         [postId, vis, id]                       what is left to refile when a post's class changes
 * blogs.url             [url]  unique
 * members.blog          [blogId, userId]
 * members.user          [userId, blogId]
 * settings              host-level values (e.g. the CLI's hashed admin token), no indexes
 * pageviews.blog        [blogId, day, id]                       a blog's daily view counters (v3)
 * pageviews.owner       [blogId, id]                            every counter of a blog, for blogs.delete (v3)
 * blogs.url             also holds a blog's old urls (oldUrls), so getByUrl finds it by them
 * labels.blog           [blogId, label, id]                     every label of a blog a post carries, with its post counts (v3)
 * labels.live           [blogId, label, id]                     only labels that LIVE posts carry (v3); both held while
 *                                                               their counter (all, live) is above 0: counters are adds
 * revisions.item        [itemId, replaced, id]                  earlier versions of a post or page, oldest first (v3)
 * events.time           [time, id]                              events shared between app servers on one store by commit time
 *                                                               (src/core/event-share.ts): found again for a listener added before the store opened
 * posts.media / pages.media [blogId, sha256, id]         the media an item's content uses (rules/media-refs.ts): delete's 409
 * media.blog            [blogId, published, id]                 a blog's pictures, newest first (v6)
 * media.source          [blogId, url, id]                       pictures an import downloaded, by their url (v6)
 * idempotency.created   [created, id]                           Idempotency-Key records by age, to sweep expired ones (http/idempotency.ts)
 * collabDocs.blog       [blogId, id]                            a post's or page's shared document, compacted (v7, resources/collab.ts)
 * collabUpdates.doc     [docId, id]                             the updates pushed since its last compaction (v7)
 * redirects.blog        [blogId, from, id]                      a blog's old addresses and where they moved (v8, resources/redirects.ts)
 * comments.who          [blogId, who, status, published, id]    by author (`u:<userId>`) or client address (`a:<address>`):
 *                                                               moderation by filter, duplicates (rules/comments.ts, v9)
 * comments.held         [blogId, id]                            anonymous PENDING and SPAM comments: maxPendingComments (v9)
 * comments.sweep        ['spam', updated, id], ['address', published, id]   spam to delete, addresses to forget (v9)
 * limits.expires        [expires, id]                           shared comment counters by when they are full again (v9)
 *
 * The key parts of each index as named columns and the text fields a person reads are in
 * drivers/postgres/columns.ts (PostgreSQL keeps them as columns, docs/postgres.md). `published` in posts' and pages' keys is the
 * sort time: a draft's last update until it is published.
 */
const SCHEMA = {
  version: 9,
  collections: [
    { name: 'users', indexes: [] },
    { name: 'blogs', indexes: [{ name: 'url', unique: true }] },
    {
      name: 'members',
      indexes: [{ name: 'blog' }, { name: 'user' }],
    },
    {
      name: 'posts',
      search: true,
      indexes: [
        { name: 'published' },
        { name: 'updated' },
        // Many entries a record (one per label): a driver may keep them as it keeps such indexes best.
        { name: 'labelPublished', entries: 'many' },
        { name: 'labelUpdated', entries: 'many' },
        { name: 'path', unique: true },
        { name: 'due' },
        { name: 'moving' },
        { name: 'media' },
      ],
      counters: ['liveComments', 'allComments'],
    },
    {
      name: 'pages',
      indexes: [{ name: 'published' }, { name: 'path', unique: true }, { name: 'media' }],
    },
    {
      name: 'comments',
      indexes: [
        { name: 'post' },
        { name: 'blog' },
        { name: 'move' },
        // Keys the core computes from several fields (who: `u:<user>` or `a:<address>`): kept as byte keys.
        { name: 'who' },
        { name: 'held' },
        { name: 'sweep' },
      ],
    },
    { name: 'settings', indexes: [] },
    {
      name: 'pageviews',
      indexes: [{ name: 'blog' }, { name: 'owner' }],
      counters: ['count'],
    },
    {
      name: 'labels',
      indexes: [
        { name: 'blog', positive: 'all' },
        { name: 'live', positive: 'live' },
      ],
      counters: ['live', 'all'],
    },
    { name: 'revisions', indexes: [{ name: 'item' }] },
    // Kept a minute: other app servers read a write's events within the poll interval (event-share.ts).
    { name: 'events', indexes: [{ name: 'time' }], transient: { keepMs: 60_000 } },
    { name: 'idempotency', indexes: [{ name: 'created' }] },
    {
      name: 'media',
      indexes: [{ name: 'blog' }, { name: 'source' }],
    },
    { name: 'collabDocs', indexes: [{ name: 'blog' }] },
    { name: 'collabUpdates', indexes: [{ name: 'doc' }] },
    { name: 'limits', indexes: [{ name: 'expires' }] },
    { name: 'redirects', indexes: [{ name: 'blog' }] },
  ],
} as const satisfies StoreSchema;

/** The schema drivers are opened with (typed plainly: the literal form above feeds the index names below). */
export const STORE_SCHEMA: StoreSchema = SCHEMA;

type Defs = (typeof SCHEMA)['collections'][number];
/** The indexes a collection has, e.g. `IndexName<'posts'>` is 'published' | 'updated' | … | 'moving'. */
export type IndexName<C extends Collection> = Extract<Defs, { name: C }>['indexes'][number]['name'];

// The collection map (records.ts) names exactly the collections of the schema: this fails to compile otherwise.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const _sameCollections: Same<Collection, Defs['name']> = true;
void _sameCollections;

/**
 * The `settings` record naming the layout the store's records are written in, and the current layout: a store
 * without it or behind it is brought up by src/store/upgrade.ts, whose code loads only then.
 */
export const LAYOUT_MARKER = 'storeLayout';
export const STORE_LAYOUT = 5;
