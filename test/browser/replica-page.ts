/** The page behind test/sync/replica-chromium.test.ts: a replica on IndexedDB, handed to the test through `globalThis.replicaPage`. */
import { idbDriver } from '../../drivers/idb/index.js';
import { createBlogService, type BlogService } from '../../src/index.js';
import { createReplica, type ConflictChoice, type Replica } from '../../src/sync/index.js';
import { internalsOf } from '../../src/service/internals.js';
import { asOlderLayout } from '../sync/older-layouts.js';

let local: BlogService;
let replica: Replica;
let blogId: string;

(globalThis as Record<string, unknown>).replicaPage = {
  open(blog: string, token: string, maxResults?: number) {
    blogId = blog;
    local = createBlogService({ driver: idbDriver({ name: 'replica' }) });
    replica = createReplica({
      local,
      remote: { baseUrl: `${location.origin}/v3`, headers: { authorization: `Bearer ${token}` } },
      blogId,
      maxResults,
    });
  },
  /** Drops the replica's state (its records stay), so its next sync is a first pull over records already here. */
  async forgetState() {
    const { driver } = internalsOf(local)!.core;
    const state = await driver.get('settings', `sync:${blogId}`);
    await driver.commit([{ type: 'delete', collection: 'settings', id: `sync:${blogId}`, expect: state!.version }]);
  },
  /** Closes the replica and puts its store back as layout 2 wrote it (test/sync/older-layouts.ts), then closes it. */
  async olderLayout() {
    await replica.close();
    await asOlderLayout(internalsOf(local)!.core, blogId);
    await local.close();
  },
  close: async () => {
    await replica.close();
    await local.close();
  },
  count: async () =>
    (
      await local.posts.list({
        blogId,
        view: 'ADMIN',
        status: ['LIVE', 'DRAFT', 'SCHEDULED', 'SOFT_TRASHED'],
        maxResults: 500,
        fetchBodies: false,
      })
    ).items.length,
  sync: () => replica.sync(),
  /** A sync's failure as `{ name, status }`, or null. */
  syncError: () =>
    replica.sync().then(
      () => null,
      (e: { name: string; status?: number }) => ({ name: e.name, status: e.status }),
    ),
  pending: () => replica.pending(),
  conflicts: () => replica.conflicts(),
  resolve: (id: string, choice: ConflictChoice) => replica.resolve(id, choice),
  insert: (title: string, content: string) => local.posts.insert({ blogId, body: { title, content } }),
  patch: (postId: string, content: string) => local.posts.patch({ blogId, postId, body: { content } }),
  revert: (postId: string) => local.posts.revert({ blogId, postId }),
  remove: (postId: string) => local.posts.delete({ blogId, postId }),
  posts: async () =>
    (
      await local.posts.list({
        blogId,
        status: ['LIVE', 'DRAFT', 'SCHEDULED', 'SOFT_TRASHED'],
        view: 'ADMIN',
        maxResults: 50,
      })
    ).items.map((p) => ({
      id: p.id,
      title: p.title,
      content: p.content,
      etag: p.etag,
    })),
};
