import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { exportBlog, importBlog } from '../../src/io/index.js';
import { clock, collect, contentView, memoryService, sampleBlog } from './helpers.js';

const fixture = (name: string) => readFileSync(new URL(`./fixtures/${name}`, import.meta.url));
const ALL_POSTS = ['LIVE', 'DRAFT', 'SCHEDULED', 'SOFT_TRASHED'] as const;

describe('WordPress WXR import', () => {
  it('reads a WXR 1.2 export: posts in every status, pages, labels, authors, threaded comments, redirects', async () => {
    const service = memoryService(clock().now);
    const report = await importBlog(service, fixture('wordpress-1.2.xml'));
    expect(report.format).toBe('wxr');
    expect(report.created).toEqual({ posts: 7, pages: 2, comments: 6, users: 2, media: 0 });
    expect(report.unchanged).toEqual({ posts: 0, pages: 0, comments: 0, media: 0 });
    expect(report.skipped.map((s) => s.reason)).toEqual([
      'WordPress pingbacks are not imported',
      'Comment longer than 4096 characters',
      'Comments on pages are not supported (the Blogger interface has comments on posts only)',
      'WordPress attachment items are not imported',
      'WordPress nav_menu_item items are not imported',
      'Duplicate post id in the file',
    ]);
    // Nothing private becomes public: a password-protected post and a private one are drafts, and the report says why.
    expect(report.drafted).toEqual([
      { source: 'item 14 "Privé"', reason: 'private in WordPress' },
      { source: 'item 17 "Réservé aux abonnés"', reason: 'password-protected in WordPress' },
    ]);
    expect(report.redirects).toEqual([
      {
        from: 'https://cafe.example.org/2025/11/le-cafe-parfait/',
        to: 'https://cafe.example.org/2025/11/unicode-le-cafe-parfait.html',
      },
      // The guid: WordPress's plain permalink, which old links and feed readers hold too.
      {
        from: 'https://cafe.example.org/?p=11',
        to: 'https://cafe.example.org/2025/11/unicode-le-cafe-parfait.html',
      },
      { from: 'https://cafe.example.org/a-propos/', to: 'https://cafe.example.org/p/a-propos.html' },
    ]);
    const { blogId } = report;
    const blog = await service.blogs.get({ blogId });
    expect(blog).toMatchObject({
      name: 'Café & Crème',
      description: 'A blog about coffee <and> more',
      url: 'https://cafe.example.org/',
      locale: { language: 'fr', country: 'FR' },
      posts: { totalItems: 1 },
      pages: { totalItems: 1 },
    });
    // The first declared author owns the blog; the other one writes in it.
    const members = (await service.members.list({ blogId })).items;
    const roles = Object.fromEntries(
      await Promise.all(
        members.map(async (m) => [(await service.users.get({ userId: m.userId })).displayName, m.role]),
      ),
    );
    expect(roles).toEqual({ 'Marie Curié': 'ADMIN', Paul: 'AUTHOR' });

    const posts = await service.posts.list({ blogId, view: 'ADMIN', status: [...ALL_POSTS], maxResults: 50 });
    const byTitle = Object.fromEntries(posts.items.map((p) => [p.title, p]));
    expect(Object.keys(byTitle).sort()).toEqual(
      [
        'Bientôt : la torréfaction',
        'Brouillon',
        'En relecture',
        'Privé',
        'Réservé aux abonnés',
        'Ünïcödé — le café “parfait”',
        'À la corbeille',
      ].sort(),
    );
    const live = byTitle['Ünïcödé — le café “parfait”']!;
    expect(live).toMatchObject({
      status: 'LIVE',
      published: '2025-11-10T08:30:00.000Z',
      updated: '2025-11-12T09:00:00.000Z',
      url: 'https://cafe.example.org/2025/11/unicode-le-cafe-parfait.html',
      labels: ['Recettes', 'espresso'],
      author: { displayName: 'Marie Curié' },
      replies: { totalItems: '3' },
      readerComments: 'ALLOW',
    });
    expect(live.content).toBe(
      '<p>Du café &amp; du lait, 3 &lt; 4. <a href="https://ex.test/?a=1&amp;b=2">lien</a></p>\n<!-- wp:paragraph --><p>Deuxième paragraphe',
    );
    expect(byTitle.Brouillon).toMatchObject({
      status: 'DRAFT',
      updated: '2026-03-02T12:00:00.000Z',
      labels: ['wip'],
      author: { displayName: 'Paul' },
    });
    expect(byTitle.Brouillon!.published).toBeUndefined();
    expect(byTitle.Brouillon!.url).toBeUndefined();
    expect(byTitle['Bientôt : la torréfaction']).toMatchObject({
      status: 'SCHEDULED',
      published: '2026-12-01T08:00:00.000Z',
      url: 'https://cafe.example.org/2026/12/bientot-la-torrefaction.html',
    });
    expect(byTitle.Privé).toMatchObject({ status: 'DRAFT', published: '2025-10-01T08:00:00.000Z' });
    expect(byTitle['En relecture']).toMatchObject({ status: 'DRAFT' });
    expect(byTitle['Réservé aux abonnés']).toMatchObject({ status: 'DRAFT', published: '2025-10-02T08:00:00.000Z' });
    expect(byTitle['Réservé aux abonnés']!.url).toBeUndefined();
    expect(byTitle['À la corbeille']).toMatchObject({
      status: 'SOFT_TRASHED',
      published: '2025-09-01T08:00:00.000Z',
      trashed: '2025-09-05T08:00:00.000Z',
    });
    // Readers see the LIVE post only.
    expect((await service.as(null).posts.list({ blogId })).items.map((p) => p.title)).toEqual([
      'Ünïcödé — le café “parfait”',
    ]);

    const pages = await service.pages.list({ blogId, view: 'ADMIN', status: ['LIVE', 'DRAFT', 'SOFT_TRASHED'] });
    expect(pages.items.map((p) => [p.title, p.status, p.url ?? null])).toEqual([
      ['Contact (brouillon)', 'DRAFT', null],
      ['À propos', 'LIVE', 'https://cafe.example.org/p/a-propos.html'],
    ]);

    const comments = await service.comments.list({
      blogId,
      postId: live.id,
      view: 'ADMIN',
      status: ['LIVE', 'EMPTIED', 'PENDING', 'SPAM'],
      maxResults: 50,
    });
    const c = Object.fromEntries(comments.items.map((x) => [x.author.displayName, x]));
    expect(comments.items.map((x) => [x.author.displayName, x.status])).toEqual([
      ['Jean', 'LIVE'],
      ['Marie Curié', 'LIVE'],
      ['Anonyme', 'PENDING'],
      ['Spammer', 'SPAM'],
      ['Someone', 'SPAM'],
      ['Orphan', 'LIVE'],
    ]);
    // Comment HTML goes through the service's sanitizer; threads keep their parents; a missing parent is dropped.
    expect(c.Jean).toMatchObject({
      content: 'Très bon ! <a rel="nofollow" href="https://jean.ex.test/">moi</a>',
      published: '2025-11-10T10:00:00.000Z',
      author: { url: 'https://jean.ex.test/' },
    });
    expect(c.Jean!.inReplyTo).toBeUndefined();
    expect(c['Marie Curié']!.inReplyTo).toEqual({ id: c.Jean!.id });
    expect(c.Anonyme!.inReplyTo).toEqual({ id: c['Marie Curié']!.id });
    expect(c.Orphan!.inReplyTo).toBeUndefined();
    expect(c.Orphan!.content).toBe('My parent was deleted');
  });

  it('reads WXR 1.0 (no authors, undeclared prefixes, 0000 dates, https namespace) and 1.1', async () => {
    const service = memoryService(clock().now);
    const old = await importBlog(service, fixture('wordpress-1.0.xml'), { format: 'wxr' });
    expect(old.created).toEqual({ posts: 1, pages: 0, comments: 1, users: 1, media: 0 });
    const [post] = (await service.posts.list({ blogId: old.blogId, maxComments: 5 })).items;
    expect(post).toMatchObject({
      title: 'Hello world!',
      content: 'Welcome to WordPress. &copy; 2009',
      labels: ['Misc', 'first'],
      published: '2009-04-01T12:00:00.000Z',
      author: { displayName: 'admin' },
      url: 'http://old.example.net/2009/04/hello-world.html',
    });
    expect(post!.replies.items![0]).toMatchObject({
      content: 'Hi, this is a comment.',
      published: '2009-04-01T12:00:00.000Z',
      author: { displayName: 'Mr WordPress', url: 'http://wordpress.org/' },
    });
    expect(old.redirects).toEqual([
      { from: 'http://old.example.net/2009/04/hello-world/', to: 'http://old.example.net/2009/04/hello-world.html' },
      { from: 'http://old.example.net/?p=1', to: 'http://old.example.net/2009/04/hello-world.html' },
    ]);

    const mid = await importBlog(service, fixture('wordpress-1.1.xml'));
    const [greek] = (await service.posts.list({ blogId: mid.blogId })).items;
    expect(greek).toMatchObject({
      title: 'Ελληνικά & 日本語',
      content: '<p>Καλημέρα</p>',
      labels: ['Greek'],
      author: { displayName: 'The Editor' },
      published: '2012-06-01T08:00:00.000Z',
    });
  });

  it('a second import of the same file changes nothing', async () => {
    const service = memoryService(clock().now);
    const first = await importBlog(service, fixture('wordpress-1.2.xml'));
    const before = await contentView(service, first.blogId);
    const second = await importBlog(service, fixture('wordpress-1.2.xml'));
    expect(second.blogId).toBe(first.blogId);
    expect(second.created).toEqual({ posts: 0, pages: 0, comments: 0, users: 0, media: 0 });
    expect(second.unchanged).toEqual({ posts: 7, pages: 2, comments: 6, media: 0 });
    expect(await contentView(service, first.blogId)).toEqual(before);
  });

  it('export as WXR → import back keeps posts, pages, comments, threads, labels and states', async () => {
    const c = clock();
    const source = memoryService(c.now);
    const { blogId } = await sampleBlog(source, c);
    const text = await collect(exportBlog(source, blogId, { format: 'wxr' }));
    const target = memoryService(c.now);
    const report = await importBlog(target, text, { blogUrl: 'https://moved.example.test/' });
    expect(report.format).toBe('wxr');
    expect(report.skipped).toEqual([]);
    expect(report.created).toMatchObject({ posts: 7, pages: 3, comments: 5 });
    expect(await contentView(target, report.blogId)).toEqual(await contentView(source, blogId));
  });
});
