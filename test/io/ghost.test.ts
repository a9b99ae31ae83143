import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { BlogError } from '../../src/index.js';
import { importBlog } from '../../src/io/index.js';
import { clock, contentView, memoryService } from './helpers.js';

const file = readFileSync(new URL('./fixtures/ghost.json', import.meta.url));

describe('Ghost import', () => {
  it('needs blogUrl: a Ghost export names no address', async () => {
    const service = memoryService(clock().now);
    const error = await importBlog(service, file).catch((e: unknown) => e);
    expect(BlogError.is(error) && error.location).toBe('blogUrl');
  });

  it('reads posts, pages, statuses, tags as labels, authors and the owner', async () => {
    const service = memoryService(clock().now);
    const report = await importBlog(service, file, { blogUrl: 'https://ghost.example.com' });
    expect(report.format).toBe('ghost-json');
    expect(report.created).toEqual({ posts: 5, pages: 2, comments: 0, users: 2, media: 0 });
    expect(report.skipped).toEqual([{ source: 'post 64a6 "Weird"', reason: 'Unknown Ghost status archived' }]);
    // Nothing private becomes public: members-only and paid posts are drafts, even one Ghost had scheduled.
    expect(report.drafted).toEqual([
      { source: 'post 64a7 "For members"', reason: 'visible to members only in Ghost' },
      { source: 'post 64a8 "For paying members, soon"', reason: 'visible to paid only in Ghost' },
    ]);
    expect(report.redirects).toEqual([
      {
        from: 'https://ghost.example.com/ghost-and-quotes/',
        to: 'https://ghost.example.com/2025/03/ghost-quotes-r.html',
      },
      { from: 'https://ghost.example.com/about/', to: 'https://ghost.example.com/p/about-us.html' },
    ]);
    const { blogId } = report;
    expect(await service.blogs.get({ blogId })).toMatchObject({
      name: 'Ghostly Notes',
      description: 'A Ghost blog',
      url: 'https://ghost.example.com/',
    });
    const members = (await service.members.list({ blogId })).items;
    const roles = Object.fromEntries(
      await Promise.all(
        members.map(async (m) => [(await service.users.get({ userId: m.userId })).displayName, m.role]),
      ),
    );
    expect(roles).toEqual({ 'Olga Owner': 'ADMIN', 'Sam Writer': 'AUTHOR' });
    const posts = (
      await service.posts.list({ blogId, view: 'ADMIN', status: ['LIVE', 'DRAFT', 'SCHEDULED', 'SOFT_TRASHED'] })
    ).items;
    expect(posts.map((p) => [p.title, p.status, p.published ?? null, p.labels ?? [], p.author.displayName])).toEqual([
      ['For paying members, soon', 'DRAFT', '2026-09-02T09:00:00.000Z', [], 'Olga Owner'],
      ['Scheduled in Ghost', 'SCHEDULED', '2026-09-01T09:00:00.000Z', ['News'], 'Olga Owner'],
      ['For members', 'DRAFT', '2025-05-01T10:00:00.000Z', [], 'Olga Owner'],
      ['Draft in Ghost', 'DRAFT', null, [], 'Olga Owner'],
      ['Ghost & “quotes” — Ærø', 'LIVE', '2025-03-01T10:00:00.000Z', ['News', 'Ωmega'], 'Sam Writer'],
    ]);
    expect((await service.as(null).posts.list({ blogId })).items.map((p) => p.title)).toEqual([
      'Ghost & “quotes” — Ærø',
    ]);
    expect(posts[4]).toMatchObject({
      content: '<p>Hello &amp; welcome <strong>ghost</strong></p>',
      updated: '2025-03-02T09:00:00.000Z',
    });
    const pages = (await service.pages.list({ blogId, view: 'ADMIN', status: ['LIVE', 'DRAFT'] })).items;
    expect(pages.map((p) => [p.title, p.status])).toEqual([
      ['Old style page', 'DRAFT'],
      ['About us', 'LIVE'],
    ]);
    const before = await contentView(service, blogId);
    const again = await importBlog(service, file, { blogUrl: 'https://ghost.example.com' });
    expect(again).toMatchObject({
      blogId,
      created: { posts: 0, pages: 0, comments: 0, users: 0, media: 0 },
      unchanged: { posts: 5, pages: 2, comments: 0, media: 0 },
    });
    expect(await contentView(service, blogId)).toEqual(before);
  });
});
