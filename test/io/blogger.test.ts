import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { exportBlog, importBlog } from '../../src/io/index.js';
import { clock, collect, contentView, memoryService, sampleBlog } from './helpers.js';

const fixture = (name: string) => readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8');
const ALL = {
  view: 'ADMIN' as const,
  status: ['LIVE', 'DRAFT', 'SCHEDULED', 'SOFT_TRASHED'] as ('LIVE' | 'DRAFT' | 'SCHEDULED' | 'SOFT_TRASHED')[],
  maxResults: 50,
};
const ALL_COMMENTS = {
  view: 'ADMIN' as const,
  status: ['LIVE', 'EMPTIED', 'PENDING', 'SPAM'] as ('LIVE' | 'EMPTIED' | 'PENDING' | 'SPAM')[],
  maxResults: 50,
};

describe('Blogger import', () => {
  it('reads a legacy Atom export: kinds, labels, drafts, scheduled, pages, threads, exact paths', async () => {
    const service = memoryService(clock().now);
    const report = await importBlog(service, fixture('blogger-legacy.xml'));
    expect(report.format).toBe('blogger-atom');
    expect(report.created).toEqual({ posts: 4, pages: 1, comments: 4, users: 2, media: 0 });
    expect(report.skipped.map((s) => s.reason)).toEqual([
      'Comments on pages are not supported (the Blogger interface has comments on posts only)',
      'Duplicate post id in the file',
    ]);
    expect(report.redirects).toEqual([]);
    const { blogId } = report;
    expect(await service.blogs.get({ blogId })).toMatchObject({
      name: 'Reisen & Wanderungen',
      url: 'https://reisen.blogspot.com/',
    });
    const members = (await service.members.list({ blogId })).items;
    const names = Object.fromEntries(
      await Promise.all(
        members.map(async (m) => [(await service.users.get({ userId: m.userId })).displayName, m.role]),
      ),
    );
    expect(names).toEqual({ 'Anna Bergmann': 'ADMIN', 'Ben Gast': 'AUTHOR' });

    const posts = Object.fromEntries((await service.posts.list({ blogId, ...ALL })).items.map((p) => [p.title, p]));
    const alps = posts['Über die Alpen — “Teil 1”']!;
    expect(alps).toMatchObject({
      status: 'LIVE',
      url: 'https://reisen.blogspot.com/2019/04/uber-die-alpen.html',
      published: '2019-04-02T07:15:00.000Z',
      updated: '2019-04-03T16:00:00.000Z',
      labels: ['Alpen', 'Österreich'],
      content: '<p>Grüße &amp; Küsse</p><img src="https://1.bp.blogspot.com/a.jpg">',
      author: { displayName: 'Anna Bergmann', url: 'https://www.blogger.com/profile/111' },
      replies: { totalItems: '4' },
    });
    // Blogger paths are kept exactly: getByPath finds the post at its old path.
    expect((await service.posts.getByPath({ blogId, path: '/2019/04/uber-die-alpen.html' })).id).toBe(alps.id);
    expect(posts['Ein Entwurf']).toMatchObject({
      status: 'DRAFT',
      content: '<p>Noch nicht fertig & so</p>',
      labels: ['Entwurf'],
      author: { displayName: 'Ben Gast' },
    });
    expect(posts['Geplant: Sommer']).toMatchObject({
      status: 'SCHEDULED',
      published: '2026-06-01T08:00:00.000Z',
      updated: '2026-03-10T08:00:00.000Z',
      url: 'https://reisen.blogspot.com/2026/06/geplant-sommer.html',
    });
    expect(posts['Undeclared prefix']).toMatchObject({
      status: 'LIVE',
      url: 'https://reisen.blogspot.com/2021/01/undeclared.html',
    });
    const [page] = (await service.pages.list({ blogId })).items;
    expect(page).toMatchObject({
      title: 'Über mich',
      url: 'https://reisen.blogspot.com/p/uber-mich.html',
      published: '2018-01-01T00:00:00.000Z',
    });

    const comments = (await service.comments.list({ blogId, postId: alps.id, ...ALL_COMMENTS })).items;
    const c = Object.fromEntries(comments.map((x) => [x.author.displayName, x]));
    expect(comments.map((x) => x.author.displayName)).toEqual(['Carla', 'Anna Bergmann', 'Dora', 'Frühaufsteher']);
    expect(c.Carla).toMatchObject({
      status: 'LIVE',
      content: 'Schön! <b>fett</b>',
      author: { url: 'https://carla.example.net/' },
    });
    expect(c['Anna Bergmann']!.inReplyTo).toEqual({ id: c.Carla!.id });
    expect(c.Dora!.inReplyTo).toBeUndefined();
    expect(c.Frühaufsteher).toMatchObject({
      content: 'A comment that comes before its post',
      published: '2026-01-20T09:00:00.000Z',
    });
  });

  it('reads a Takeout export (blogger 2018 namespace): statuses of posts and comments, filenames, replies', async () => {
    const service = memoryService(clock().now);
    const report = await importBlog(service, fixture('blogger-takeout.atom'), {
      blogUrl: 'https://cuaderno.example.es/',
    });
    expect(report.created).toEqual({ posts: 4, pages: 1, comments: 4, users: 1, media: 0 });
    expect(report.skipped).toEqual([
      { source: 'comment tag:blogger.com,1999:blog-8000.post-5004', reason: 'Comment status DELETED is not imported' },
    ]);
    // A new address: the same paths, and a redirect for the old public url the file names.
    expect(report.redirects).toEqual([
      {
        from: 'https://cuaderno.blogspot.com/2025/01/ano-nuevo-en-sevilla.html',
        to: 'https://cuaderno.example.es/2025/01/ano-nuevo-en-sevilla.html',
      },
    ]);
    const { blogId } = report;
    const posts = (await service.posts.list({ blogId, ...ALL })).items;
    expect(posts.map((p) => [p.title, p.status, p.url ?? null, p.labels ?? []])).toEqual([
      ['Programada', 'SCHEDULED', 'https://cuaderno.example.es/2026/07/programada.html', []],
      ['Borrador', 'DRAFT', null, []],
      [
        'Año nuevo en Sevilla',
        'LIVE',
        'https://cuaderno.example.es/2025/01/ano-nuevo-en-sevilla.html',
        ['España', 'viajes'],
      ],
      ['En la papelera', 'SOFT_TRASHED', 'https://cuaderno.example.es/2024/05/en-la-papelera.html', []],
    ]);
    const live = posts[2]!;
    expect(live).toMatchObject({
      content: '<p>¡Olé! &amp; más</p>',
      published: '2025-01-01T09:00:00.000Z',
      updated: '2025-01-02T09:00:00.000Z',
      replies: { totalItems: '1' },
    });
    const comments = (await service.comments.list({ blogId, postId: live.id, ...ALL_COMMENTS })).items;
    expect(comments.map((x) => [x.author.displayName, x.status, x.content])).toEqual([
      ['Pedro', 'LIVE', '¡Qué bonito!'],
      ['Lucía Pérez', 'PENDING', 'Gracias, Pedro'],
      ['Bot', 'SPAM', 'spam spam'],
    ]);
    expect(comments[1]!.inReplyTo).toEqual({ id: comments[0]!.id });
    expect(await service.pages.list({ blogId })).toMatchObject({
      items: [{ title: 'Sobre mí', url: 'https://cuaderno.example.es/p/sobre-mi.html' }],
    });
    // The draft's comment is kept, and filed where only authors and admins see it.
    const everyone = (await service.as(null).comments.listByBlog({ blogId, maxResults: 50 })).items.map(
      (x) => x.content,
    );
    expect(everyone).toEqual(['¡Qué bonito!']);
    const admin = (await service.comments.listByBlog({ blogId, view: 'ADMIN', maxResults: 50 })).items.map(
      (x) => x.content,
    );
    expect(admin).toEqual(['A comment on a post that is a draft now', '¡Qué bonito!']);
  });

  it('a second import changes nothing', async () => {
    const service = memoryService(clock().now);
    const first = await importBlog(service, fixture('blogger-legacy.xml'));
    const before = await contentView(service, first.blogId);
    const again = await importBlog(service, fixture('blogger-legacy.xml'));
    expect(again).toMatchObject({
      blogId: first.blogId,
      created: { posts: 0, pages: 0, comments: 0, users: 0, media: 0 },
      unchanged: { posts: 4, pages: 1, comments: 4, media: 0 },
    });
    expect(await contentView(service, first.blogId)).toEqual(before);
  });

  it('export as Blogger Atom (Takeout dialect) → import back keeps posts, pages, comments, labels, states and paths', async () => {
    const c = clock();
    const source = memoryService(c.now);
    const { blogId } = await sampleBlog(source, c);
    const text = await collect(exportBlog(source, blogId, { format: 'blogger-atom' }));
    expect(text).toContain("xmlns:blogger='http://schemas.google.com/blogger/2018'");
    const target = memoryService(c.now);
    const report = await importBlog(target, text);
    expect(report.format).toBe('blogger-atom');
    expect(report.skipped).toEqual([]);
    expect(report.created).toMatchObject({ posts: 7, pages: 3, comments: 5 });
    expect(await contentView(target, report.blogId)).toEqual(await contentView(source, blogId));
  });
});
