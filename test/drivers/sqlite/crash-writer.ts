/**
 * Child process for the service-level crash test: a blog on SQLite written through createBlogService in an
 * endless loop (posts with labels, comments, relabels, deletes of posts with their comments) until it is
 * killed. Usage: node --import tsx test/drivers/sqlite/crash-writer.ts <file>
 */
import { createBlogService, BlogError } from '../../../src/index.js';
import { sqliteDriver } from '../../../drivers/sqlite/index.js';
import { CRASH_BLOG_URL, CRASH_LABELS } from './crash-constants.js';

const file = process.argv[2]!;
const service = createBlogService({ driver: sqliteDriver({ filename: file }) });
let blogId: string;
try {
  blogId = (await service.blogs.getByUrl({ url: CRASH_BLOG_URL })).id;
} catch (error) {
  if (!BlogError.is(error) || error.code !== 404) throw error;
  const owner = await service.users.insert({ body: { displayName: 'Crash owner' } });
  blogId = (await service.blogs.insert({ body: { name: 'Crash', url: CRASH_BLOG_URL }, ownerId: owner.id })).id;
}
const pick = (k: number) => [...CRASH_LABELS].sort(() => Math.random() - 0.5).slice(0, k);
for (let i = 0; ; i++) {
  const post = await service.posts.insert({
    blogId,
    body: { title: `Post ${i} apple`, content: `<p>Body ${i} with red words</p>`, labels: pick(1 + (i % 3)) },
    isDraft: i % 7 === 0,
  });
  if (post.status === 'LIVE') {
    for (let k = 0; k < i % 4; k++)
      await service.comments.insert({ blogId, postId: post.id!, body: { content: `Comment ${k}` } });
  }
  const page = await service.posts.list({
    blogId,
    status: ['LIVE', 'DRAFT'],
    maxResults: 3,
    fetchBodies: false,
    sortOption: i % 2 ? 'ASCENDING' : 'DESCENDING',
  });
  const target = page.items?.[i % 3];
  if (target && i % 3 === 0) {
    await service.posts.patch({ blogId, postId: target.id!, body: { labels: pick(1 + (i % 2)) } });
  } else if (target && i % 3 === 1) {
    await service.posts.delete({ blogId, postId: target.id! });
  }
  if (i % 25 === 24) process.stdout.write(`${i + 1}\n`);
}
