/**
 * An import never stores a path no site or folder can hold: a post or page whose file names it `..%2f…`, a NUL,
 * a backslash or a 300-byte segment is imported under a path of its own, and its old address redirects there.
 */
import { describe, expect, it } from 'vitest';
import { memoryDriver } from '../../drivers/memory/index.js';
import { createBlogService } from '../../src/index.js';
import { importBlog } from '../../src/io/index.js';
import { storedPathProblem } from '../../src/rules/paths.js';

const UP = '..%2f'.repeat(8);
const HOSTILE = [
  `/2020/01/${UP}PWNED.html`,
  '/2020/01/x%00nul.html',
  '/2020/01/a%5c..%5cb.html',
  `/2020/01/${'a'.repeat(300)}.html`,
];

const wxr = `<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0" xmlns:content="http://purl.org/rss/1.0/modules/content/" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:wp="http://wordpress.org/export/1.2/">
<channel><title>WP</title><link>https://wp.example.test</link>
<wp:author><wp:author_id>1</wp:author_id><wp:author_login>ann</wp:author_login><wp:author_display_name>Ann</wp:author_display_name></wp:author>
${[...HOSTILE, '/2020/01/kept.html']
  .map(
    (path, i) =>
      `<item><title>Item ${i}</title><dc:creator>ann</dc:creator><link>https://wp.example.test/?p=${i + 1}</link><content:encoded><![CDATA[<p>${i}</p>]]></content:encoded><wp:post_id>${i + 1}</wp:post_id><wp:post_date_gmt>2020-01-02 10:00:00</wp:post_date_gmt><wp:status>publish</wp:status><wp:post_type>post</wp:post_type><wp:postmeta><wp:meta_key>blogcore_path</wp:meta_key><wp:meta_value>${path}</wp:meta_value></wp:postmeta></item>`,
  )
  .join('\n')}
<item><title>A page</title><dc:creator>ann</dc:creator><content:encoded>x</content:encoded><wp:post_id>99</wp:post_id><wp:post_date_gmt>2020-01-02 10:00:00</wp:post_date_gmt><wp:status>publish</wp:status><wp:post_type>page</wp:post_type><wp:postmeta><wp:meta_key>blogcore_path</wp:meta_key><wp:meta_value>/p/${UP}page.html</wp:meta_value></wp:postmeta></item>
</channel></rss>`;

const entry = (n: number, filename: string) =>
  `<entry><id>tag:blogger.com,1999:blog-9.post-${n}</id><blogger:type>POST</blogger:type><blogger:status>LIVE</blogger:status><author><name>Bo</name></author><title>Entry ${n}</title><content type='html'>x</content><published>2020-01-02T10:00:00.000Z</published><updated>2020-01-02T10:00:00.000Z</updated><blogger:filename>${filename}</blogger:filename></entry>`;
const blogger = `<?xml version='1.0' encoding='utf-8'?>
<feed xmlns='http://www.w3.org/2005/Atom' xmlns:blogger='http://schemas.google.com/blogger/2018'>
<id>tag:blogger.com,1999:blog-9.archive</id><title type='text'>B</title><link rel='alternate' type='text/html' href='https://bo.blogspot.test/'/>
${[...HOSTILE, '/2020/01/kept.html'].map((f, i) => entry(i, f)).join('\n')}
</feed>`;

describe.each([
  ['wxr', wxr],
  ['blogger-atom', blogger],
] as const)('a %s file naming hostile paths', (format, text) => {
  it('imports every post under a path that is one name per segment, and keeps the well-formed path', async () => {
    const service = createBlogService({ driver: memoryDriver() });
    const report = await importBlog(service, text, { format });
    const posts = (await service.posts.list({ blogId: report.blogId!, maxResults: 50 })).items ?? [];
    const pages = (await service.pages.list({ blogId: report.blogId! })).items ?? [];
    expect(posts).toHaveLength(HOSTILE.length + 1);
    for (const item of [...posts, ...pages]) {
      const path = new URL(item.url!).pathname;
      expect(storedPathProblem(path), path).toBeUndefined();
      expect(path).not.toMatch(/PWNED|%2f|%00|%5c/i);
    }
    expect(posts.map((p) => new URL(p.url!).pathname)).toContain('/2020/01/kept.html');
    expect(report.skipped).toEqual([]);
    await service.close();
  });
});

it('storedPathProblem names what is wrong and accepts what a site serves', () => {
  for (const path of HOSTILE) expect(storedPathProblem(path), path).toBeDefined();
  expect(storedPathProblem('/2020/01/%e9t%e9.html')).toBeDefined(); // not UTF-8: not valid percent-encoding
  for (const path of ['/2020/01/hello.html', '/p/about.html', '/2020/01/%C3%A9t%C3%A9.html', '/2020/01/C:.html'])
    expect(storedPathProblem(path), path).toBeUndefined();
});
