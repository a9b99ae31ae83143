/**
 * Old links keep working after a move (docs/design.md §22): an import stores its redirects with the blog
 * (`service.redirects`, ADMIN only; `blogcore redirects`), the site answers each with a 301 to the new address
 * on the blog's host (WordPress `?p=N` and Blogger's `?m=1` included), and the static export writes them as an
 * `_redirects` file and a small page at each old path, through the same checked path as every page.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { memoryDriver } from '../../drivers/memory/index.js';
import { sqliteDriver } from '../../drivers/sqlite/index.js';
import { type BlogService, createBlogService } from '../../src/index.js';
import { importBlog } from '../../src/io/index.js';
import { createSite, exportSite, type SiteFiles } from '../../src/site/index.js';
import { ROOT } from '../http/spawn.js';

const dir = mkdtempSync(join(tmpdir(), 'blogcore-redirects-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const item = (id: number, slug: string, type = 'post') =>
  `<item><title>Item ${id}</title><link>https://old.example/${type === 'post' ? `2019/05/${slug}/` : `${slug}/`}</link><guid isPermaLink="false">https://old.example/?${type === 'post' ? 'p' : 'page_id'}=${id}</guid><dc:creator>ann</dc:creator><content:encoded><![CDATA[<p>Item ${id}</p>]]></content:encoded><wp:post_id>${id}</wp:post_id><wp:post_date_gmt>2019-05-0${id} 10:00:00</wp:post_date_gmt><wp:status>publish</wp:status><wp:post_type>${type}</wp:post_type><wp:post_name>${slug}</wp:post_name></item>`;
const wxr = `<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0" xmlns:content="http://purl.org/rss/1.0/modules/content/" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:wp="http://wordpress.org/export/1.2/">
<channel><title>Moved</title><link>https://old.example</link>
<wp:author><wp:author_id>1</wp:author_id><wp:author_login>ann</wp:author_login><wp:author_display_name>Ann</wp:author_display_name></wp:author>
${item(1, 'first-post')}
${item(2, 'second-post')}
${item(3, 'about', 'page')}
</channel></rss>`;

/** The WordPress blog imported to https://new.example/ (its old links on its own host, as after a DNS move). */
async function moved(service: BlogService) {
  const report = await importBlog(service, wxr, { format: 'wxr', blogUrl: 'https://new.example/' });
  const posts = (await service.posts.list({ blogId: report.blogId!, maxResults: 10 })).items;
  const byTitle = Object.fromEntries(posts.map((p) => [p.title, new URL(p.url!).pathname]));
  return { blogId: report.blogId!, report, first: byTitle['Item 1']!, second: byTitle['Item 2']! };
}

const get = async (site: ReturnType<typeof createSite>, path: string) => {
  const r = (await site(new Request(`https://new.example${path}`)))!;
  return [r.status, r.headers.get('location')];
};

describe('service.redirects', () => {
  it('an import stores its redirects with the blog, pretty links and WordPress ?p=N alike', async () => {
    const service = createBlogService({ driver: memoryDriver() });
    const { blogId, report, first } = await moved(service);
    const list = await service.redirects.list({ blogId });
    expect(list.items.length).toBe(report.redirects.length);
    expect(list.items).toEqual(
      expect.arrayContaining([
        { kind: 'blogcore#redirect', from: '/2019/05/first-post/', to: `https://new.example${first}` },
        { kind: 'blogcore#redirect', from: '/?p=1', to: `https://new.example${first}` },
        expect.objectContaining({ from: '/?page_id=3' }),
      ]),
    );
    await service.close();
  });

  it('insert, list and delete are for the blog’s ADMIN; bad addresses are a 400 and change nothing', async () => {
    const service = createBlogService({ driver: memoryDriver() });
    const { blogId } = await moved(service);
    await service.users.insert({ body: { id: 'bo', displayName: 'Bo' } });
    await service.members.set({ blogId, userId: 'bo', role: 'AUTHOR' });
    const bo = service.as({ userId: 'bo' });
    await expect(bo.redirects.list({ blogId })).rejects.toMatchObject({ code: 403 });
    await expect(bo.redirects.insert({ blogId, body: { from: '/a', to: '/b' } })).rejects.toMatchObject({ code: 403 });
    await expect(service.as(null).redirects.delete({ blogId, from: '/?p=1' })).rejects.toMatchObject({
      code: expect.any(Number),
    });
    const admin = (await service.members.list({ blogId })).items.find((m) => m.role === 'ADMIN')!;
    const ann = service.as({ userId: admin.userId });
    const before = (await service.redirects.list({ blogId })).items;
    await expect(ann.redirects.insert({ blogId, body: { from: 'nope', to: '/b' } })).rejects.toMatchObject({
      code: 400,
    });
    await expect(ann.redirects.insert({ blogId, body: { from: '/a', to: 'javascript:x' } })).rejects.toMatchObject({
      code: 400,
    });
    expect((await service.redirects.list({ blogId })).items).toEqual(before);
    expect(
      await ann.redirects.insert({ blogId, body: { from: 'https://old.example/x?y=1#z', to: '/p/about.html' } }),
    ).toEqual({ kind: 'blogcore#redirect', from: '/x?y=1', to: '/p/about.html' });
    await ann.redirects.delete({ blogId, from: '/x?y=1' });
    await expect(ann.redirects.delete({ blogId, from: '/x?y=1' })).rejects.toMatchObject({ code: 404 });
    // Paged in `from` order.
    const one = await service.redirects.list({ blogId, maxResults: 1 });
    const two = await service.redirects.list({ blogId, maxResults: 1, pageToken: one.nextPageToken! });
    expect(one.items[0]!.from < two.items[0]!.from).toBe(true);
    await service.close();
  });

  it('100 concurrent inserts of one old address: no error reaches a caller, one redirect kept', async () => {
    const service = createBlogService({ driver: sqliteDriver({ filename: join(dir, 'race.db') }) });
    const { blogId } = await moved(service);
    const results = await Promise.allSettled(
      Array.from({ length: 100 }, (_, i) =>
        service.redirects.insert({ blogId, body: { from: '/race.html', to: `/to-${i % 3}.html` } }),
      ),
    );
    expect(results.filter((r) => r.status === 'rejected')).toEqual([]);
    const kept = (await service.redirects.list({ blogId, maxResults: 500 })).items.filter(
      (r) => r.from === '/race.html',
    );
    expect(kept).toHaveLength(1);
    await service.close();
  });
});

describe('the site answers them', () => {
  it('301 to the new address, for the old path, ?p=N, ?page_id=N, Blogger ?m=1 and an old link with junk', async () => {
    const service = createBlogService({ driver: memoryDriver() });
    const { first, second } = await moved(service);
    const site = createSite(service);
    expect(await get(site, '/2019/05/first-post/')).toEqual([301, first]);
    expect(await get(site, '/?p=2')).toEqual([301, second]);
    expect(await get(site, '/?page_id=3')).toEqual([301, '/p/item-3.html']);
    expect(await get(site, '/2019/05/first-post/?utm_source=x')).toEqual([301, first]);
    expect(await get(site, `${first}?m=1`)).toEqual([301, first]);
    expect(await get(site, '/2019/05/first-post/?m=1')).toEqual([301, first]);
    expect(await get(site, first)).toEqual([200, null]);
    expect(await get(site, '/')).toEqual([200, null]);
    expect(await get(site, '/?p=99')).toEqual([200, null]);
    expect(await get(site, '/2019/05/never/')).toEqual([404, null]);
    await service.close();
  });
});

describe('the static export writes them', () => {
  it('an _redirects file and a page at each old path, hostile old paths skipped, never handed to the writer', async () => {
    const service = createBlogService({ driver: memoryDriver() });
    const { blogId, first } = await moved(service);
    await service.redirects.insert({ blogId, body: { from: '/..%2f..%2f..%2fPWNED.html', to: first } });
    await service.redirects.insert({ blogId, body: { from: `/${'a'.repeat(300)}.html`, to: first } });
    const written = new Map<string, string>();
    const files: SiteFiles = {
      write: async (path, text) => void written.set(path, text),
      remove: async () => {},
    };
    const report = await exportSite(service, { blogId, files });
    const lines = written.get('_redirects')!.trim().split('\n');
    expect(lines).toContain(`/2019/05/first-post/ ${first} 301`);
    // An old address with a query in Netlify's form (parameters as tokens); never a source with `?`, which
    // Cloudflare Pages would cut to its path: `/?p=1 …` made the home page itself redirect there.
    expect(lines).toContain(`/ p=1 ${first} 301`);
    for (const line of lines) {
      const tokens = line.split(' ');
      expect(tokens[0], line).not.toContain('?');
      expect(tokens.at(-1)).toBe('301');
      expect(
        tokens.slice(1, -2).every((t) => /^[^=/]+=/.test(t)),
        line,
      ).toBe(true);
    }
    // What Cloudflare Pages reads (lines of 2 or 3 tokens) never redirects the blog's home page.
    expect(lines.filter((l) => l.split(' ').length === 3).map((l) => l.split(' ')[0])).not.toContain('/');
    const page = written.get('2019/05/first-post/index.html')!;
    expect(page).toContain(`<link rel="canonical" href="https://new.example${first}">`);
    expect(page).toContain(`<meta http-equiv="refresh" content="0; url=https://new.example${first}">`);
    expect([...written.keys()].filter((f) => /PWNED|\.\.|a{300}/.test(f))).toEqual([]);
    expect(report.skipped.map((s) => s.path)).toEqual(
      expect.arrayContaining(['..%2f..%2f..%2fPWNED.html', `${'a'.repeat(300)}.html`]),
    );
    // The post's own page is not replaced by a redirect page.
    expect(written.get(first.slice(1))).toContain('Item 1');
    await service.close();
  });
});

describe('blogcore redirects', () => {
  it('adds, lists and removes a blog’s redirects', async () => {
    const db = join(dir, 'cli.db');
    const service = createBlogService({ driver: sqliteDriver({ filename: db }) });
    await moved(service);
    await service.close();
    const cli = join(ROOT, 'dist/cli.js');
    if (!existsSync(cli)) throw new Error('dist/cli.js is missing: run `npm run build` before these tests');
    const run = (...args: string[]) =>
      spawnSync(process.execPath, [cli, 'redirects', ...args, '--db', db, '--blog', 'https://new.example/'], {
        encoding: 'utf8',
      });
    expect(run('add', 'https://old.example/feed/', '/feeds/posts/default').stdout).toBe(
      '/feed/ → /feeds/posts/default (301)\n',
    );
    const listed = run('list');
    expect(listed.status).toBe(0);
    expect(listed.stdout).toContain('/feed/\t/feeds/posts/default\n');
    expect(listed.stdout).toContain('/?p=1\thttps://new.example/');
    expect(run('remove', '/feed/').status).toBe(0);
    expect(run('list').stdout).not.toContain('/feed/');
    const usage = run('add', '/only-one');
    expect([usage.status, usage.stderr]).toEqual([2, expect.stringContaining('redirects add: name <from> and <to>')]);
  });
});
