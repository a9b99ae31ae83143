/** The demo content `blogcore serve` creates on a new database. */
import type { BlogService } from 'blogcore';

/** A demo user, blog, posts in every state, pages and comments (one awaiting moderation). */
const DEMO_URL = 'https://demo.blogcore.example/';

export async function seedDemo(service: BlogService): Promise<{ adminUserId: string; blogId: string }> {
  // A first run that stopped after creating the blog: adopt it rather than fail on its taken url.
  const existing = await service.blogs.getByUrl({ url: DEMO_URL }).catch(() => undefined);
  if (existing) {
    const admin = (await service.members.list({ blogId: existing.id })).items.find((m) => m.role === 'ADMIN');
    if (admin) return { adminUserId: admin.userId, blogId: existing.id };
  }
  const admin = await service.users.insert({
    body: { displayName: 'Demo Admin', about: 'Created by blogcore serve on its first run.' },
  });
  const blog = await service.blogs.insert({
    body: { name: 'blogcore demo', url: DEMO_URL, description: 'A demo blog created by blogcore serve.' },
    ownerId: admin.id,
  });
  const as = service.as({ userId: admin.id });
  const blogId = blog.id;
  const hello = await as.posts.insert({
    blogId,
    body: {
      title: 'Hello, blogcore',
      content:
        '<p>This blog is served by <b>blogcore</b>: the Blogger v3 API, embedded.</p><p><img src="https://demo.blogcore.example/hello.png" alt=""></p>',
      labels: ['news', 'blogcore'],
    },
  });
  await as.posts.insert({
    blogId,
    body: {
      title: 'Talking to the API with curl',
      content: '<p>Every route lives under <code>/v3</code>, as on blogger.googleapis.com.</p>',
      labels: ['howto'],
    },
  });
  await as.posts.insert({
    blogId,
    isDraft: true,
    body: { title: 'A draft in progress', content: '<p>Only authors and admins see this.</p>', labels: ['drafts'] },
  });
  await as.posts.insert({
    blogId,
    body: {
      title: 'Coming next week',
      content: '<p>Scheduled: it goes live by itself when its time comes.</p>',
      published: new Date(Date.now() + 7 * 86_400_000).toISOString(),
    },
  });
  await as.pages.insert({ blogId, body: { title: 'About', content: '<p>A demo page.</p>' } });
  await as.pages.insert({ blogId, isDraft: true, body: { title: 'Contact', content: '<p>A draft page.</p>' } });
  const first = await as.comments.insert({
    blogId,
    postId: hello.id,
    body: { content: 'Welcome! Comments by the blog admin go live at once.' },
  });
  await service.as(null).comments.insert({
    blogId,
    postId: hello.id,
    body: {
      content: 'Nice post. (An anonymous comment: it waits for moderation.)',
      inReplyTo: { id: first.id },
      author: { displayName: 'A visitor' },
    },
  });
  return { adminUserId: admin.id, blogId };
}
