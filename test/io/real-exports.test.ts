/**
 * Three kinds of real export files that failed: a Blogger blog at a path, a Blogger export written with a
 * prefixed Atom namespace, and WordPress posts whose link is a plain permalink (`?p=15`).
 */
import { describe, expect, it } from 'vitest';
import { importBlog } from '../../src/io/index.js';
import { memoryService } from './helpers.js';

const entry = (ns: string, base: string, n: number, path: string) =>
  `<${ns}entry><${ns}id>tag:blogger.com,1999:blog-1.post-${n}</${ns}id><${ns}published>2024-0${n}-01T10:00:00Z</${ns}published>` +
  `<${ns}category scheme="http://schemas.google.com/g/2005#kind" term="http://schemas.google.com/blogger/2008/kind#post"/>` +
  `<${ns}title type="text">Post ${n}</${ns}title><${ns}content type="html">&lt;p&gt;Text ${n}&lt;/p&gt;</${ns}content>` +
  `<${ns}link rel="alternate" type="text/html" href="${base}${path}"/><${ns}author><${ns}name>Ann</${ns}name></${ns}author></${ns}entry>`;

const blogger = (ns: string, base: string) =>
  `<?xml version="1.0"?><${ns}feed xmlns${ns ? `:${ns.slice(0, -1)}` : ''}="http://www.w3.org/2005/Atom">` +
  `<${ns}id>tag:blogger.com,1999:blog-1</${ns}id><${ns}title>Blog</${ns}title>` +
  `<${ns}link rel="alternate" type="text/html" href="${base}"/><${ns}generator>Blogger</${ns}generator>` +
  entry(ns, base, 1, '2024/01/first.html') +
  entry(ns, base, 2, '2024/02/second.html') +
  `</${ns}feed>`;

describe('real exports that failed before', () => {
  it('a Blogger blog at a path keeps its post urls: the path is not repeated', async () => {
    const service = memoryService();
    const report = await importBlog(service, blogger('', 'http://host.example/some/blog/'), { ownerId: undefined });
    const posts = await service.posts.list({ blogId: report.blogId });
    expect(posts.items!.map((p) => p.url).sort()).toEqual([
      'http://host.example/some/blog/2024/01/first.html',
      'http://host.example/some/blog/2024/02/second.html',
    ]);
    expect(report.redirects).toEqual([]);
  });

  it('a Blogger export with a prefixed Atom namespace (<ns0:feed>) is read as one', async () => {
    const service = memoryService();
    const report = await importBlog(service, blogger('ns0:', 'https://prefixed.example/'));
    expect(report.format).toBe('blogger-atom');
    expect(report.created.posts).toBe(2);
    const posts = await service.posts.list({ blogId: report.blogId });
    expect(posts.items!.map((p) => p.title).sort()).toEqual(['Post 1', 'Post 2']);
  });

  it('WordPress posts with plain permalinks (?p=15, ?page_id=2) get their redirects', async () => {
    const item = (id: number, type: string, link: string, slug: string) =>
      `<item><title>${type} ${id}</title><link>${link}</link><dc:creator>ann</dc:creator><content:encoded><![CDATA[<p>x</p>]]></content:encoded>` +
      `<wp:post_id>${id}</wp:post_id><wp:post_date_gmt>2024-03-0${id % 9} 10:00:00</wp:post_date_gmt><wp:post_name>${slug}</wp:post_name>` +
      `<wp:status>publish</wp:status><wp:post_type>${type}</wp:post_type></item>`;
    const wxr =
      '<?xml version="1.0"?><rss version="2.0" xmlns:wp="http://wordpress.org/export/1.2/" xmlns:dc="http://purl.org/dc/elements/1.1/" ' +
      'xmlns:content="http://purl.org/rss/1.0/modules/content/"><channel><title>Plain</title><link>http://plain.example</link>' +
      '<wp:base_blog_url>http://plain.example</wp:base_blog_url><wp:author><wp:author_login>ann</wp:author_login><wp:author_display_name>Ann</wp:author_display_name></wp:author>' +
      item(15, 'post', 'http://plain.example/?p=15', 'fifteen') +
      item(2, 'page', 'http://plain.example/?page_id=2', 'about') +
      '</channel></rss>';
    const service = memoryService();
    const report = await importBlog(service, wxr);
    expect(report.created).toMatchObject({ posts: 1, pages: 1 });
    const from = report.redirects.map((r) => r.from).sort();
    expect(from).toEqual(['http://plain.example/?p=15', 'http://plain.example/?page_id=2']);
    for (const r of report.redirects) expect(r.to).toMatch(/^http:\/\/plain\.example\/.+\.html$/);
  });
});
