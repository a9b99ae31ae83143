/** The page behind test/sync/replica-chromium.test.ts: a replica on IndexedDB, handed to the test through `globalThis.replicaPage`. */
import { idbDriver } from '../../drivers/idb/index.js';
import { createBlogService, type BlogService } from '../../src/index.js';
import { createReplica, type ConflictChoice, type Replica } from '../../src/sync/index.js';

let local: BlogService;
let replica: Replica;
let blogId: string;

(globalThis as Record<string, unknown>).replicaPage = {
  open(blog: string, token: string) {
    blogId = blog;
    local = createBlogService({ driver: idbDriver({ name: 'replica' }) });
    replica = createReplica({ local, remote: { baseUrl: `${location.origin}/v3`, headers: { authorization: `Bearer ${token}` } }, blogId });
  },
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
  posts: async () =>
    (await local.posts.list({ blogId, status: ['LIVE', 'DRAFT', 'SCHEDULED', 'SOFT_TRASHED'], view: 'ADMIN', maxResults: 50 })).items.map((p) => ({
      id: p.id,
      title: p.title,
      content: p.content,
      etag: p.etag,
    })),
};
