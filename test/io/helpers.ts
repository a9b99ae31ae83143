/** Shared fixtures of the import/export tests: a blog with every state, and everything a reader can ask of it. */
import { createBlogService, type BlogService } from '../../src/index.js';
import { memoryDriver } from '../../drivers/memory/index.js';

export const T0 = Date.parse('2026-03-15T10:00:00.000Z');
export const DAY = 86_400_000;
export const BLOG_URL = 'https://blog.example.test/';

export function clock(ms = T0) {
  const c = { ms, now: () => new Date(c.ms) };
  return c;
}

export function memoryService(now = clock().now): BlogService {
  return createBlogService({ driver: memoryDriver(), now, apiBaseUrl: 'https://api.example.test' });
}

export async function collect(chunks: AsyncIterable<string>): Promise<string> {
  let out = '';
  for await (const c of chunks) out += c;
  return out;
}

/**
 * A blog with posts in every state (a draft, a scheduled post, a trashed one, a reverted one that keeps its
 * url), labels, non-ASCII titles, pages in every state, and a thread of comments in every state.
 */
export async function sampleBlog(service: BlogService, c: { ms: number }) {
  const owner = await service.users.insert({
    body: { id: 'owner-1', displayName: 'Zoë Owner', url: 'https://zoe.example.test/' },
  });
  const writer = await service.users.insert({ body: { id: 'writer-2', displayName: 'Writer Two' } });
  const blog = await service.blogs.insert({
    body: { name: 'Élan & Co', url: BLOG_URL, description: 'Notes <and> things' },
    ownerId: owner.id,
  });
  await service.members.set({ blogId: blog.id, userId: writer.id, role: 'AUTHOR' });
  const as = service.as({ userId: owner.id });
  const w = service.as({ userId: writer.id });
  const blogId = blog.id;
  c.ms -= 40 * DAY;
  const live = await as.posts.insert({
    blogId,
    body: {
      title: 'Grüße aus Köln — “quoted”',
      content: '<p>Caf&eacute; &amp; <b>bold</b> ünïcode</p>',
      labels: ['travel', 'Köln'],
    },
  });
  c.ms += DAY;
  const second = await w.posts.insert({
    blogId,
    body: {
      title: 'Second post',
      content: '<p>text</p>',
      labels: ['travel'],
      readerComments: 'DONT_ALLOW_SHOW_EXISTING',
    },
  });
  c.ms += DAY;
  await as.posts.insert({
    blogId,
    isDraft: true,
    body: { title: 'A draft', content: '<p>draft</p>', labels: ['wip'] },
  });
  const trashed = await as.posts.insert({ blogId, body: { title: 'Trashed', content: '<p>gone</p>' } });
  await as.posts.delete({ blogId, postId: trashed.id, useTrash: true });
  const reverted = await as.posts.insert({ blogId, body: { title: 'Reverted keeps its url', content: '<p>r</p>' } });
  await as.posts.revert({ blogId, postId: reverted.id });
  await as.posts.insert({
    blogId,
    body: { title: 'Scheduled', content: '<p>later</p>', published: new Date(T0 + 10 * DAY).toISOString() },
  });
  await as.posts.insert({ blogId, body: { title: 'Second post', content: '<p>same title, other slug</p>' } });
  c.ms += DAY;
  await as.pages.insert({ blogId, body: { title: 'About', content: '<p>about</p>' } });
  await as.pages.insert({ blogId, isDraft: true, body: { title: 'Contact', content: '<p>c</p>' } });
  const tp = await as.pages.insert({ blogId, body: { title: 'Old page', content: '<p>o</p>' } });
  await as.pages.delete({ blogId, pageId: tp.id, useTrash: true });
  c.ms += DAY;
  const top = await as.comments.insert({
    blogId,
    postId: live.id,
    body: { content: 'First! <a href="https://x.test/">link</a>' },
  });
  c.ms += 1000;
  const anon = service.as(null);
  const reply = await anon.comments.insert({
    blogId,
    postId: live.id,
    body: {
      content: 'A reply, pending',
      inReplyTo: { id: top.id },
      author: { displayName: 'Visitor', url: 'https://v.test/' },
    },
  });
  c.ms += 1000;
  const spam = await anon.comments.insert({
    blogId,
    postId: live.id,
    body: { content: 'Buy now', author: { displayName: 'Spammer' } },
  });
  await as.comments.markAsSpam({ blogId, postId: live.id, commentId: spam.id });
  c.ms += 1000;
  const emptied = await w.comments.insert({
    blogId,
    postId: live.id,
    body: { content: 'Removed later', inReplyTo: { id: top.id } },
  });
  await as.comments.removeContent({ blogId, postId: live.id, commentId: emptied.id });
  c.ms += 1000;
  await as.comments.insert({ blogId, postId: second.id, body: { content: 'On the second post' } });
  void reply;
  c.ms = T0;
  return { blogId, ownerId: owner.id };
}

/** Every read of the blog at ADMIN view (statuses, comments, pages, users, members, paths), to compare two stores. */
export async function snapshot(service: BlogService, blogId: string) {
  const all = { view: 'ADMIN' as const };
  const blog = await service.blogs.get({ blogId, ...all, maxPosts: 3 });
  const posts = await service.posts.list({
    blogId,
    ...all,
    status: ['LIVE', 'DRAFT', 'SCHEDULED', 'SOFT_TRASHED'],
    maxResults: 500,
    maxComments: 10,
  });
  const byUpdated = await service.posts.list({
    blogId,
    ...all,
    status: ['LIVE', 'DRAFT', 'SCHEDULED', 'SOFT_TRASHED'],
    maxResults: 500,
    orderBy: 'UPDATED',
    fetchBodies: false,
  });
  const labelled = await service.posts.list({ blogId, labels: 'travel', maxResults: 500 });
  const search = await service.posts.search({ blogId, q: 'koln', maxResults: 500 });
  const pages = await service.pages.list({
    blogId,
    ...all,
    status: ['LIVE', 'DRAFT', 'SOFT_TRASHED'],
    maxResults: 500,
  });
  const comments = await service.comments.listByBlog({
    blogId,
    ...all,
    status: ['LIVE', 'EMPTIED', 'PENDING', 'SPAM'],
    maxResults: 500,
  });
  const perPost = [];
  for (const p of posts.items) {
    perPost.push(await service.posts.get({ blogId, postId: p.id, ...all, maxComments: 50 }));
    perPost.push(
      await service.comments.list({
        blogId,
        postId: p.id,
        ...all,
        status: ['LIVE', 'EMPTIED', 'PENDING', 'SPAM'],
        maxResults: 500,
      }),
    );
    if (p.status === 'LIVE' && p.url)
      perPost.push(await service.posts.getByPath({ blogId, path: new URL(p.url).pathname }));
  }
  const members = await service.members.list({ blogId });
  const users = [];
  for (const m of members.items) users.push(await service.users.get({ userId: m.userId }));
  const reader = await service.as(null).posts.list({ blogId, maxResults: 500, maxComments: 10 });
  return { blog, posts, byUpdated, labelled, search, pages, comments, perPost, members, users, reader };
}

/** What a round trip through a foreign format must keep, by title: no ids (the other format has its own). */
export async function contentView(service: BlogService, blogId: string) {
  const admin = { view: 'ADMIN' as const };
  const posts = await service.posts.list({
    blogId,
    ...admin,
    status: ['LIVE', 'DRAFT', 'SCHEDULED', 'SOFT_TRASHED'],
    maxResults: 500,
  });
  const pages = await service.pages.list({
    blogId,
    ...admin,
    status: ['LIVE', 'DRAFT', 'SOFT_TRASHED'],
    maxResults: 500,
  });
  const out: Record<string, unknown>[] = [];
  for (const p of posts.items) {
    const comments = await service.comments.list({
      blogId,
      postId: p.id,
      ...admin,
      status: ['LIVE', 'EMPTIED', 'PENDING', 'SPAM'],
      maxResults: 500,
    });
    const byId = new Map(comments.items.map((c) => [c.id, c]));
    out.push({
      kind: 'post',
      title: p.title,
      content: p.content,
      status: p.status,
      labels: [...(p.labels ?? [])].sort(),
      published: p.published,
      path: p.url ? new URL(p.url).pathname : undefined,
      author: p.author.displayName,
      replies: p.replies.totalItems,
      comments: comments.items
        .map((c) => ({
          content: c.content,
          status: c.status,
          published: c.published,
          author: c.author.displayName,
          replyTo: c.inReplyTo ? byId.get(c.inReplyTo.id)?.content : undefined,
        }))
        .sort((a, b) => (a.published! < b.published! ? -1 : 1)),
    });
  }
  for (const p of pages.items)
    out.push({
      kind: 'page',
      title: p.title,
      content: p.content,
      status: p.status,
      published: p.published,
      path: p.url ? new URL(p.url).pathname : undefined,
    });
  return out.sort((a, b) => `${a.kind}${a.title}${a.status}`.localeCompare(`${b.kind}${b.title}${b.status}`));
}
