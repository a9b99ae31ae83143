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
    expect(report.created).toEqual({ posts: 3, pages: 2, comments: 0, users: 2, media: 0 });
    expect(report.skipped).toEqual([{ source: 'post 64a6 "Weird"', reason: 'Unknown Ghost status archived' }]);
    expect(report.redirects).toEqual([
      { from: 'https://ghost.example.com/ghost-and-quotes/', to: 'https://ghost.example.com/2025/03/ghost-quotes-r.html' },
      { from: 'https://ghost.example.com/about/', to: 'https://ghost.example.com/p/about-us.html' },
    ]);
    const { blogId } = report;
    expect(await service.blogs.get({ blogId })).toMatchObject({ name: 'Ghostly Notes', description: 'A Ghost blog', url: 'https://ghost.example.com/' });
    const members = (await service.members.list({ blogId })).items;
    const roles = Object.fromEntries(await Promise.all(members.map(async (m) => [(await service.users.get({ userId: m.userId })).displayName, m.role])));
    expect(roles).toEqual({ 'Olga Owner': 'ADMIN', 'Sam Writer': 'AUTHOR' });
    const posts = (await service.posts.list({ blogId, view: 'ADMIN', status: ['LIVE', 'DRAFT', 'SCHEDULED', 'SOFT_TRASHED'] })).items;
    expect(posts.map((p) => [p.title, p.status, p.published ?? null, p.labels ?? [], p.author.displayName])).toEqual([
      ['Scheduled in Ghost', 'SCHEDULED', '2026-09-01T09:00:00.000Z', ['News'], 'Olga Owner'],
      ['Draft in Ghost', 'DRAFT', null, [], 'Olga Owner'],
      ['Ghost & “quotes” — Ærø', 'LIVE', '2025-03-01T10:00:00.000Z', ['News', 'Ωmega'], 'Sam Writer'],
    ]);
    expect(posts[2]).toMatchObject({ content: '<p>Hello &amp; welcome <strong>ghost</strong></p>', updated: '2025-03-02T09:00:00.000Z' });
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
      unchanged: { posts: 3, pages: 2, comments: 0, media: 0 },
    });
    expect(await contentView(service, blogId)).toEqual(before);
  });
});
